//! The diagram's embedded style sheet: light colours, a `prefers-color-scheme: dark` block, and
//! one class per palette colour. Every selector starts with the root's class, so the diagram
//! inlined into a page (whose `<style>` elements apply to the whole page) styles nothing else.

use crate::palette::PALETTE;

/// The class of the root `<svg>`; every rule is scoped under it.
pub const ROOT_CLASS: &str = "gpu-share-packing";

/// `(selector, light declarations, dark declarations)`; an empty dark part keeps the light one.
const RULES: &[(&str, &str, &str)] = &[
    (
        "",
        "font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;font-size:12px",
        "",
    ),
    (".bg", "fill:#ffffff", "fill:#1c1f24"),
    ("text", "fill:#1b1f24", "fill:#e6e8eb"),
    (".muted", "fill:#5b6570", "fill:#9aa4ae"),
    (".warn", "fill:#b3261e", "fill:#ff8a80"),
    (".heading", "font-size:15px;font-weight:600", ""),
    (".subheading", "font-size:13px;font-weight:600", ""),
    (".lane-title", "fill:#5b6570", "fill:#9aa4ae"),
    (
        ".block rect",
        "stroke:rgba(0,0,0,0.35);stroke-width:1",
        "stroke:rgba(255,255,255,0.45)",
    ),
    (".block", "cursor:default;outline:none", ""),
    (
        ".block:focus rect,.block:hover rect",
        "stroke:#1b1f24;stroke-width:2.5",
        "stroke:#e6e8eb",
    ),
    (
        ".free rect",
        "fill:#eef1f4;stroke:rgba(0,0,0,0.35);stroke-dasharray:3 2",
        "fill:#262a30;stroke:rgba(255,255,255,0.3)",
    ),
    (".free .label", "fill:#5b6570", "fill:#9aa4ae"),
    (
        ".slice-line",
        "stroke:rgba(0,0,0,0.25);stroke-width:1",
        "stroke:rgba(255,255,255,0.3)",
    ),
    (".label,.slice-line", "pointer-events:none", ""),
];

/// The style sheet's text (no `<` or `&`, so it needs no escaping in XML or HTML).
pub fn sheet() -> String {
    let scoped = |selector: &str| -> String {
        if selector.is_empty() {
            return format!(".{ROOT_CLASS}");
        }
        selector
            .split(',')
            .map(|s| format!(".{ROOT_CLASS} {s}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut css = String::new();
    for (selector, light, _) in RULES {
        css.push_str(&format!("{}{{{light}}}\n", scoped(selector)));
    }
    for (i, (fill, text)) in PALETTE.iter().enumerate() {
        css.push_str(&format!(
            "{}{{fill:{fill}}}\n{}{{fill:{text}}}\n",
            scoped(&format!(".c{i} rect")),
            scoped(&format!(".c{i} .label"))
        ));
    }
    css.push_str("@media (prefers-color-scheme: dark){\n");
    for (selector, _, dark) in RULES.iter().filter(|r| !r.2.is_empty()) {
        css.push_str(&format!("{}{{{dark}}}\n", scoped(selector)));
    }
    css.push_str("}\n");
    css
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_scoped_and_safe_in_markup() {
        let css = sheet();
        assert!(!css.contains('<') && !css.contains('&'));
        for line in css
            .lines()
            .filter(|l| l.contains('{') && !l.starts_with('@'))
        {
            let selectors = line.split('{').next().unwrap();
            for s in selectors.split(',') {
                assert!(s.starts_with(".gpu-share-packing"), "{s}");
            }
        }
        assert!(css.contains("@media (prefers-color-scheme: dark){"));
        assert!(css.contains(".gpu-share-packing .c4 .label{fill:#FFFFFF}"));
    }
}
