//! Text from the input as XML text, never markup: `& < > " '` escaped, characters XML 1.0 does not
//! allow (and other control characters) dropped, line breaks and tabs made spaces; and the
//! character-count arithmetic that fits labels into blocks (ellipsis, wrapping).

/// `s` as XML character data or attribute text (either quote style).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if allowed(c) => out.push(c),
            _ => {}
        }
    }
    out
}

/// A character XML 1.0 allows (`Char`) that is not a control character (C0, DEL, C1).
fn allowed(c: char) -> bool {
    let xml = matches!(c, '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    xml && !c.is_control()
}

/// Columns a character takes in the estimate: two for East Asian wide characters and emoji.
fn columns(c: char) -> usize {
    let wide = matches!(c,
        '\u{1100}'..='\u{115F}'
        | '\u{2E80}'..='\u{A4CF}'
        | '\u{AC00}'..='\u{D7A3}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{FE30}'..='\u{FE4F}'
        | '\u{FF00}'..='\u{FF60}'
        | '\u{FFE0}'..='\u{FFE6}'
        | '\u{1F300}'..='\u{1FAFF}'
        | '\u{20000}'..='\u{3FFFD}');
    if wide {
        2
    } else {
        1
    }
}

/// The estimated width of `s` in columns.
pub fn width(s: &str) -> usize {
    s.chars().map(columns).sum()
}

/// `s` cut to at most `max` columns, ending in `…` when it was cut; empty when not even one
/// character and the ellipsis fit.
pub fn ellipsis(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        if used + columns(c) + 1 > max {
            break;
        }
        used += columns(c);
        out.push(c);
    }
    if out.is_empty() {
        return out;
    }
    out.push('…');
    out
}

/// `s` in lines of at most `max` columns (at least one), broken at spaces where it can be and
/// inside a word longer than a line.
pub fn wrap(s: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in s.split(' ').filter(|w| !w.is_empty()) {
        let gap = usize::from(!line.is_empty());
        if width(&line) + gap + width(word) <= max {
            if gap == 1 {
                line.push(' ');
            }
            line.push_str(word);
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        for c in word.chars() {
            if width(&line) + columns(c) > max && !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            line.push(c);
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_becomes_text() {
        assert_eq!(
            escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        );
        assert_eq!(escape("]]>&amp;"), "]]&gt;&amp;amp;");
        assert_eq!(
            escape("a\u{0}b\u{7}c\u{1b}d\u{85}e\u{FFFE}f\u{FFFF}"),
            "abcdef"
        );
        assert_eq!(escape("a\tb\nc\rd"), "a b c d");
        assert_eq!(escape("名前 🙂 é"), "名前 🙂 é");
    }

    #[test]
    fn labels_are_cut_by_columns() {
        assert_eq!(ellipsis("train-a", 7), "train-a");
        assert_eq!(ellipsis("train-a", 6), "train…");
        assert_eq!(ellipsis("train-a", 2), "t…");
        assert_eq!(ellipsis("train-a", 1), "");
        assert_eq!(ellipsis("名前名前", 5), "名前…");
        assert_eq!(width("🙂a"), 3);
    }

    #[test]
    fn text_wraps_at_spaces_and_inside_long_words() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap("", 3), [""]);
        assert_eq!(wrap("a  b", 0), ["a", "b"]);
        let long = "x".repeat(128);
        assert!(wrap(&long, 40).iter().all(|l| width(l) <= 40));
        assert_eq!(wrap(&long, 40).concat(), long);
    }
}
