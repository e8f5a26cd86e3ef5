//! A tiny YAML emitter: block mappings and sequences, comments, and scalars that cannot inject keys or change type.
//!
//! Strings are written plain only when they are a safe identifier: an ASCII letter followed by
//! letters, digits, `.`, `_`, `/` or `-`, and not a word some YAML reader takes for a boolean or
//! null (`yes`, `no`, `on`, `off`, `y`, `n`, `true`, `false`, `null`, any case). Everything else
//! is double-quoted with escapes, so `a: b`, `- x`, `#c`, `{}`, quotes, line breaks, `1e3`,
//! `0x10`, leading spaces and non-ASCII text all read back as the same string. Comments never
//! contain a line break.

use std::fmt::Write as _;

/// A YAML value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
    Map(Map),
    Seq(Vec<Value>),
    /// A sequence of scalars written on one line: `[0, 1, 2]`.
    FlowSeq(Vec<Value>),
}

/// A block mapping: keys in insertion order, with comment lines between them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Map {
    entries: Vec<Entry>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Entry {
    Pair(String, Value),
    Comment(String),
}

impl Map {
    pub fn new() -> Self {
        Map::default()
    }

    /// Adds `key: value`.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Value>) -> &mut Self {
        self.entries.push(Entry::Pair(key.into(), value.into()));
        self
    }

    /// Adds `key: value` and returns `self`, for building in one expression.
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.insert(key, value);
        self
    }

    /// Adds a comment line before the next key.
    pub fn comment(&mut self, text: impl AsRef<str>) -> &mut Self {
        self.entries.push(Entry::Comment(text.as_ref().to_string()));
        self
    }

    pub fn is_empty(&self) -> bool {
        !self.entries.iter().any(|e| matches!(e, Entry::Pair(..)))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s)
    }
}

impl From<&String> for Value {
    fn from(s: &String) -> Self {
        Value::Str(s.clone())
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Int(n)
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Self {
        Value::Int(n.into())
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Map(m)
    }
}

impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Self {
        Value::Seq(v)
    }
}

/// Words that YAML 1.1 readers (PyYAML, Go's yaml.v2, …) resolve to booleans, nulls or
/// special floats when written plain.
const RESERVED: &[&str] = &[
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf", "infinity",
];

/// Whether `s` can be written without quotes and still read back as the same string.
pub fn is_plain_safe(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-'))
        && !RESERVED.iter().any(|w| w.eq_ignore_ascii_case(s))
}

/// `s` as a YAML scalar: plain when [`is_plain_safe`], else double-quoted with escapes.
pub fn scalar(s: &str) -> String {
    if is_plain_safe(s) {
        s.to_string()
    } else {
        quoted(s)
    }
}

/// `s` double-quoted, with `"`, `\`, control characters, line and paragraph separators, the
/// byte-order mark and non-characters escaped; other text (including non-ASCII) kept as is.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Characters outside YAML's printable set, or that some readers treat as line breaks.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}'
        )
}

/// Comment text on one line: line breaks and control characters shown as escapes.
pub fn comment_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push(' '),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Comment lines are wrapped at spaces to this many characters, indentation included.
pub const COMMENT_WIDTH: usize = 100;

/// Appends `# text` lines (one or more per line of `text`, wrapped at spaces to
/// [`COMMENT_WIDTH`], each made safe) to `out`. A line that starts with spaces keeps them on
/// its continuation lines.
pub fn write_comment(out: &mut String, indent: usize, text: &str) {
    let pad = " ".repeat(indent);
    for line in text.split('\n') {
        let line = comment_text(line);
        let line = line.trim_end();
        if line.is_empty() {
            out.push_str(&pad);
            out.push_str("#\n");
            continue;
        }
        let lead = &line[..line.len() - line.trim_start().len()];
        let room = COMMENT_WIDTH
            .saturating_sub(indent + 2 + lead.len())
            .max(20);
        let mut current = String::new();
        for word in line.trim_start().split(' ').filter(|w| !w.is_empty()) {
            if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > room {
                out.push_str(&format!("{pad}# {lead}{current}\n"));
                current.clear();
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(word);
        }
        out.push_str(&format!("{pad}# {lead}{current}\n"));
    }
}

/// One YAML document body (no `---`), ending with a newline.
pub fn document(map: &Map) -> String {
    let mut out = String::new();
    if map.entries.is_empty() {
        out.push_str("{}\n");
    } else {
        write_map(&mut out, map, 0, None);
    }
    out
}

fn inline(value: &Value) -> Option<String> {
    match value {
        Value::Str(s) => Some(scalar(s)),
        Value::Int(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Map(m) if m.is_empty() => Some("{}".into()),
        Value::Seq(v) if v.is_empty() => Some("[]".into()),
        Value::FlowSeq(v) => {
            let items: Vec<String> = v
                .iter()
                .map(|x| match x {
                    Value::Map(_) | Value::Seq(_) | Value::FlowSeq(_) => "null".to_string(),
                    other => inline(other).unwrap_or_default(),
                })
                .collect();
            Some(format!("[{}]", items.join(", ")))
        }
        Value::Map(_) | Value::Seq(_) => None,
    }
}

/// Writes a mapping at `indent`. With `dash`, the first key goes on the current sequence
/// item's line (`- key: …`), at `indent`, after a `- ` written two columns to the left.
fn write_map(out: &mut String, map: &Map, indent: usize, mut dash: Option<()>) {
    let pad = " ".repeat(indent);
    for entry in &map.entries {
        match entry {
            Entry::Comment(text) => {
                let at = if dash.is_some() {
                    indent.saturating_sub(2)
                } else {
                    indent
                };
                write_comment(out, at, text);
            }
            Entry::Pair(key, value) => {
                if dash.take().is_some() {
                    out.push_str(&" ".repeat(indent.saturating_sub(2)));
                    out.push_str("- ");
                } else {
                    out.push_str(&pad);
                }
                out.push_str(&scalar(key));
                out.push(':');
                write_value(out, value, indent);
            }
        }
    }
}

/// Writes what follows `key:` (a space and a scalar, or a nested block on the next lines).
fn write_value(out: &mut String, value: &Value, indent: usize) {
    if let Some(text) = inline(value) {
        out.push(' ');
        out.push_str(&text);
        out.push('\n');
        return;
    }
    out.push('\n');
    match value {
        Value::Map(m) => write_map(out, m, indent + 2, None),
        Value::Seq(items) => write_seq(out, items, indent + 2),
        _ => {}
    }
}

fn write_seq(out: &mut String, items: &[Value], indent: usize) {
    let pad = " ".repeat(indent);
    for item in items {
        match item {
            Value::Map(m) if !m.is_empty() => write_map(out, m, indent + 2, Some(())),
            Value::Seq(inner) if !inner.is_empty() => {
                out.push_str(&pad);
                out.push_str("-\n");
                write_seq(out, inner, indent + 2);
            }
            other => {
                out.push_str(&pad);
                out.push_str("- ");
                out.push_str(&inline(other).unwrap_or_default());
                out.push('\n');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &[&str] = &[
        "a: b",
        "- x",
        "#c",
        "{}",
        "[a]",
        "\"",
        "'",
        "a\nb: c",
        "evil: true\n- x",
        "yes",
        "No",
        "ON",
        "off",
        "y",
        "null",
        "Null",
        "~",
        "true",
        "1e3",
        "0x10",
        "0o17",
        "1_000",
        "1:20",
        "12",
        "-1",
        ".5",
        ".inf",
        "NaN",
        "2001-12-14",
        " lead",
        "trail ",
        "",
        "&anchor",
        "*alias",
        "!tag",
        "|",
        ">",
        "%YAML",
        "@x",
        "`x",
        "a #b",
        "é",
        "日本語",
        "🙂",
        "a\u{2028}b",
        "\u{FEFF}bom",
        "tab\there",
        "nul\0",
        "bell\u{7}",
        "c1\u{85}",
        "back\\slash",
        "<<",
        "=",
        "? x",
        "a,b",
    ];

    #[test]
    fn safe_identifiers_stay_plain() {
        for s in [
            "nvidia.com/gpu",
            "nvidia.com/mig-1g.5gb.me",
            "apps/v1",
            "Deployment",
            "NVIDIA-A100-SXM4-40GB",
            "mig-configs",
            "a_b",
            "x1",
        ] {
            assert_eq!(scalar(s), s);
        }
    }

    #[test]
    fn everything_else_is_quoted() {
        for s in HOSTILE {
            let out = scalar(s);
            assert!(out.starts_with('"') && out.ends_with('"'), "{s:?} -> {out}");
            assert!(!out.contains('\n') && !out.contains('\r'), "{out}");
        }
        assert_eq!(scalar("a: b"), "\"a: b\"");
        assert_eq!(scalar("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"");
        assert_eq!(scalar("a\u{2028}b"), "\"a\\u2028b\"");
        assert_eq!(scalar("bell\u{7}"), "\"bell\\u0007\"");
        assert_eq!(scalar("é"), "\"é\"");
        assert_eq!(scalar("1g.5gb"), "\"1g.5gb\"");
    }

    #[test]
    fn comments_stay_on_their_lines() {
        let mut out = String::new();
        write_comment(&mut out, 2, "ask \"evil\nkey: 1\"\r\u{2028}x");
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(
            out.lines().all(|l| l.trim_start().starts_with('#')),
            "{out}"
        );
    }

    #[test]
    fn layout_of_maps_sequences_and_comments() {
        let mut limits = Map::new();
        limits.insert("nvidia.com/gpu", "1");
        let container = Map::new()
            .with("name", "main")
            .with("resources", Map::new().with("limits", limits));
        let mut top = Map::new();
        top.comment("top");
        top.insert("list", vec![Value::Map(container), Value::from("x")]);
        top.insert("flow", Value::FlowSeq(vec![0u32.into(), 1u32.into()]));
        top.insert("empty", Map::new());
        top.insert("none", Value::Seq(Vec::new()));
        top.insert("yes", true);
        assert_eq!(
            document(&top),
            "# top\nlist:\n  - name: main\n    resources:\n      limits:\n        nvidia.com/gpu: \"1\"\n  - x\nflow: [0, 1]\nempty: {}\nnone: []\n\"yes\": true\n"
        );
    }

    #[test]
    fn a_real_yaml_reader_reads_back_the_same_strings() {
        let mut m = Map::new();
        for s in HOSTILE {
            m.comment(s);
            m.insert(*s, *s);
        }
        m.insert(
            "list",
            Value::Seq(HOSTILE.iter().map(|s| Value::from(*s)).collect()),
        );
        let doc = document(&m);
        let back: std::collections::BTreeMap<String, serde_norway::Value> =
            serde_norway::from_str(&doc).unwrap();
        assert_eq!(back.len(), HOSTILE.len() + 1, "{doc}");
        for s in HOSTILE {
            assert_eq!(back.get(*s).and_then(|v| v.as_str()), Some(*s), "{doc}");
        }
        let list: Vec<&str> = back["list"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(list, HOSTILE);
    }

    #[test]
    fn hostile_strings_as_keys_and_values_keep_the_structure() {
        // Without a YAML parser in the core's tests, check the shape line by line: one
        // `key: value` line per entry, every key and value quoted.
        let mut m = Map::new();
        for s in HOSTILE {
            m.insert(*s, *s);
        }
        let doc = document(&m);
        assert_eq!(doc.lines().count(), HOSTILE.len(), "{doc}");
        for line in doc.lines() {
            assert!(line.starts_with('"') && line.ends_with('"'), "{line}");
        }
    }
}
