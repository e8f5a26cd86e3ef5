//! The ledger's stored form: JSON Lines, one versioned entry per line, appended and never rewritten.

use super::{LedgerEntry, Summary};
use crate::error::{Error, ErrorKind, Result};
use serde_json::Value;

/// The format version written in every line as `"v"`.
pub const LEDGER_VERSION: u64 = 1;

/// One ledger line (without the newline): the entry with `"v": 1` in front.
pub fn format_entry(entry: &LedgerEntry) -> String {
    // Struct fields serialise in declaration order; the version goes first so a reader sees it at once.
    let body = serde_json::to_string(entry).unwrap_or_default();
    format!(
        "{{\"v\":{LEDGER_VERSION},{}",
        body.strip_prefix('{').unwrap_or(&body)
    )
}

/// The largest JSON Lines ledger [`parse_ledger`] reads (1 GiB, several million records). It is
/// above the 64 MiB of pasted or imported input because a ledger is the user's own file and grows
/// for years; it is read line by line, so memory follows the records, not the text's shape.
pub const MAX_LEDGER_BYTES: usize = 1 << 30;

/// Reads a ledger in JSON Lines (the CLI's file, the page's storage); blank lines are skipped.
///
/// # Errors
/// `Syntax` or `Ledger` with the 1-based line of the first entry that cannot be read; nothing is
/// guessed or skipped, so a caller never rewrites a ledger it could not fully read. `TooLarge`
/// above [`MAX_LEDGER_BYTES`], before reading anything.
pub fn parse_ledger(text: &str) -> Result<Vec<LedgerEntry>> {
    if text.len() > MAX_LEDGER_BYTES {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "the ledger is {} bytes; the limit is {MAX_LEDGER_BYTES} (1 GiB): archive it and start a new one",
                text.len()
            ),
        ));
    }
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        entries.push(parse_line(line).map_err(|e| e.at_line(n + 1))?);
    }
    Ok(entries)
}

fn parse_line(line: &str) -> Result<LedgerEntry> {
    let value: Value = serde_json::from_str(line)
        .map_err(|e| Error::new(ErrorKind::Syntax, format!("not a JSON ledger entry: {e}")))?;
    entry_from_value(value, Version::PerEntry)
}

/// Where an entry's format version is written.
enum Version {
    /// `"v"` in every entry (JSON Lines).
    PerEntry,
    /// Once, as the document's `"version"`.
    Document,
}

fn check_version(v: Option<&Value>, field: &str) -> Result<()> {
    match v.and_then(Value::as_u64) {
        Some(LEDGER_VERSION) => Ok(()),
        Some(v) => Err(Error::new(
            ErrorKind::Ledger,
            format!(
                "ledger format version {v} is not supported (this build reads {LEDGER_VERSION})"
            ),
        )
        .in_field(field)),
        None => Err(Error::new(ErrorKind::Ledger, "no ledger format version").in_field(field)),
    }
}

fn entry_from_value(mut value: Value, version: Version) -> Result<LedgerEntry> {
    let Some(map) = value.as_object_mut() else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "a ledger entry must be a JSON object",
        ));
    };
    match version {
        Version::PerEntry => check_version(map.remove("v").as_ref(), "v")?,
        Version::Document => {
            if let Some(v) = map.remove("v") {
                check_version(Some(&v), "v")?;
            }
        }
    }
    let entry: LedgerEntry = serde_json::from_value(value)
        .map_err(|e| Error::new(ErrorKind::Syntax, format!("invalid ledger entry: {e}")))?;
    let (LedgerEntry::Usage(super::UsageRecord { ask, .. }) | LedgerEntry::Release { ask, .. }) =
        &entry;
    crate::ask::validate_name(ask).map_err(|e| e.in_field("ask"))?;
    Ok(entry)
}

/// The ledger as one JSON document, for download: `{"format": "gpu-share-ledger", "version": 1,
/// "entries": [...]}`, with the summary beside the entries when one is given (ignored on reading).
pub fn ledger_document(entries: &[LedgerEntry], summary: Option<&Summary>) -> String {
    let doc = serde_json::json!({
        "format": DOCUMENT_FORMAT,
        "version": LEDGER_VERSION,
        "summary": summary,
        "entries": entries,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// Reads a ledger in either stored form: the JSON document of [`ledger_document`] (or a bare JSON
/// array of entries), or JSON Lines as [`parse_ledger`] reads them.
///
/// # Errors
/// As [`parse_ledger`] for JSON Lines; for a document, the first bad entry as `entries[i]`;
/// `TooLarge` above [`MAX_INPUT_BYTES`](crate::parse::MAX_INPUT_BYTES), before reading anything:
/// this reads imports (pasted or uploaded text), and a document is parsed whole.
pub fn parse_ledger_any(text: &str) -> Result<Vec<LedgerEntry>> {
    crate::parse::check_size(text, "the ledger")?;
    let whole: Option<Value> = serde_json::from_str(text.trim()).ok();
    let list = match whole {
        Some(Value::Array(items)) => items,
        Some(Value::Object(mut map)) if map.contains_key("entries") => {
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f != DOCUMENT_FORMAT)
            {
                return Err(
                    Error::new(ErrorKind::Ledger, "not a gpu-share ledger document")
                        .in_field("format"),
                );
            }
            check_version(map.get("version"), "version")?;
            match map.remove("entries") {
                Some(Value::Array(items)) => items,
                _ => {
                    return Err(
                        Error::new(ErrorKind::Syntax, "must be an array").in_field("entries")
                    )
                }
            }
        }
        // One JSON object is also one line of JSON Lines.
        _ => return parse_ledger(text),
    };
    list.into_iter()
        .enumerate()
        .map(|(i, v)| {
            entry_from_value(v, Version::Document).map_err(|e| e.in_field(format!("entries[{i}]")))
        })
        .collect()
}

/// The `"format"` of a ledger document.
const DOCUMENT_FORMAT: &str = "gpu-share-ledger";
