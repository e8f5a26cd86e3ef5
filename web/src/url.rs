//! The scenario in the address bar: read with the core's query grammar, written back with `history.replaceState`.

use gpu_share_core::api::Scenario;

/// Whether the query asks for the compact embed view (`&embed`, `&embed=1`; `embed=0` is off).
pub fn is_embed(query: &str) -> bool {
    let query = query.strip_prefix('?').unwrap_or(query);
    query.split('&').any(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        key == "embed" && !matches!(value, "0" | "false" | "off" | "no")
    })
}

/// The query for a scenario, with the embed flag when wanted (no leading `?`).
pub fn query_for(scenario: &Scenario, embed: bool) -> String {
    let q = scenario.to_query();
    match (q.is_empty(), embed) {
        (_, false) => q,
        (true, true) => "embed".into(),
        (false, true) => format!("{q}&embed"),
    }
}

/// The `?…` part of the page's address.
pub fn current_query() -> String {
    leptos::prelude::window()
        .location()
        .search()
        .unwrap_or_default()
}

/// The page's address without its query (`https://host/sub/`), for links.
pub fn page_base() -> String {
    let location = leptos::prelude::window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    format!("{origin}{path}")
}

/// A link to the page with this query.
pub fn link(query: &str) -> String {
    if query.is_empty() {
        page_base()
    } else {
        format!("{}?{query}", page_base())
    }
}

/// Puts the query in the address bar without adding a history entry or reloading.
pub fn replace_query(query: &str) {
    let window = leptos::prelude::window();
    let path = window.location().pathname().unwrap_or_default();
    let url = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    if let Ok(history) = window.history() {
        // A failure here (a sandboxed iframe, say) only means the address is not updated.
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_flag() {
        assert!(is_embed("?ask=a:0.5&embed"));
        assert!(is_embed("embed=1"));
        assert!(!is_embed("?ask=embed:0.5"));
        assert!(!is_embed("?embed=0"));
        assert!(!is_embed(""));
    }

    #[test]
    fn queries_keep_the_grammar() {
        let s =
            Scenario::from_query("?ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice&embed").unwrap();
        assert_eq!(
            query_for(&s, false),
            "ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice"
        );
        assert_eq!(
            query_for(&s, true),
            "ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice&embed"
        );
        assert_eq!(query_for(&Scenario::default(), true), "embed");
    }
}
