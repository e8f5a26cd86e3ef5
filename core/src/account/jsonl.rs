//! The ledger's stored form: JSON Lines, one versioned entry per line, appended and never rewritten.

use super::LedgerEntry;
use crate::error::{Error, ErrorKind, Result};

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

/// Reads a ledger; blank lines are skipped.
///
/// # Errors
/// `Syntax` or `Ledger` with the 1-based line of the first entry that cannot be read; nothing is
/// guessed or skipped, so a caller never rewrites a ledger it could not fully read.
pub fn parse_ledger(text: &str) -> Result<Vec<LedgerEntry>> {
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
    let mut value: serde_json::Value = serde_json::from_str(line)
        .map_err(|e| Error::new(ErrorKind::Syntax, format!("not a JSON ledger entry: {e}")))?;
    let Some(map) = value.as_object_mut() else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "a ledger entry must be a JSON object",
        ));
    };
    match map.remove("v").and_then(|v| v.as_u64()) {
        Some(LEDGER_VERSION) => {}
        Some(v) => {
            return Err(Error::new(
                ErrorKind::Ledger,
                format!(
                "ledger format version {v} is not supported (this build reads {LEDGER_VERSION})"
            ),
            )
            .in_field("v"))
        }
        None => {
            return Err(Error::new(ErrorKind::Ledger, "entry has no format version").in_field("v"))
        }
    }
    let entry: LedgerEntry = serde_json::from_value(value)
        .map_err(|e| Error::new(ErrorKind::Syntax, format!("invalid ledger entry: {e}")))?;
    let (LedgerEntry::Usage(super::UsageRecord { ask, .. }) | LedgerEntry::Release { ask, .. }) =
        &entry;
    crate::ask::validate_name(ask).map_err(|e| e.in_field("ask"))?;
    Ok(entry)
}
