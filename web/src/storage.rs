//! The ledger in localStorage: the core's versioned JSON-lines format under a versioned key; failures are reported, never swallowed.

use gpu_share_core::account::{format_entry, parse_ledger};
use gpu_share_core::LedgerEntry;

/// The localStorage key; the format version inside each line is the core's `LEDGER_VERSION`.
pub const LEDGER_KEY: &str = "gpu-share.ledger.v1";

/// The stored text of a ledger: one entry per line.
pub fn to_text(entries: &[LedgerEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        out.push_str(&format_entry(e));
        out.push('\n');
    }
    out
}

fn storage() -> Result<web_sys::Storage, String> {
    match leptos::prelude::window().local_storage() {
        Ok(Some(s)) => Ok(s),
        _ => Err(
            "this browser does not allow local storage here, so the ledger cannot be kept".into(),
        ),
    }
}

fn js_error(e: &wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// Reads the stored ledger (empty when there is none).
///
/// # Errors
/// Storage is unavailable, or the stored text is not a ledger this build reads (with the line).
pub fn load() -> Result<Vec<LedgerEntry>, String> {
    let s = storage()?;
    match s.get_item(LEDGER_KEY) {
        Ok(Some(text)) => parse_ledger(&text)
            .map_err(|e| format!("the ledger stored in this browser cannot be read ({e})")),
        Ok(None) => Ok(Vec::new()),
        Err(e) => Err(format!("reading local storage failed: {}", js_error(&e))),
    }
}

/// Stores the whole ledger.
///
/// # Errors
/// Storage is unavailable or full (the browser's quota message is passed on).
pub fn save(entries: &[LedgerEntry]) -> Result<(), String> {
    let s = storage()?;
    let result = if entries.is_empty() {
        s.remove_item(LEDGER_KEY)
    } else {
        s.set_item(LEDGER_KEY, &to_text(entries))
    };
    result.map_err(|e| {
        format!(
            "saving the ledger failed, nothing was recorded: {}",
            js_error(&e)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_share_core::{select_mechanism, ClusterGpuCaps, FractionalAsk, UsageRecord};

    #[test]
    fn stored_text_reads_back() {
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            ..Default::default()
        };
        let choice = select_mechanism(&FractionalAsk::parse_spec("a:0.5").unwrap(), &caps).unwrap();
        let entries = vec![
            LedgerEntry::Usage(UsageRecord::from_choice(&choice, 1_700_000_000, Some(3600))),
            LedgerEntry::Usage(UsageRecord::from_choice(&choice, 1_700_000_100, None)),
            LedgerEntry::Release {
                ask: "a".into(),
                at: 1_700_003_700,
            },
        ];
        let text = to_text(&entries);
        assert_eq!(text.lines().count(), 3);
        assert!(text.lines().all(|l| l.starts_with("{\"v\":1,")));
        assert_eq!(parse_ledger(&text).unwrap(), entries);
        assert_eq!(to_text(&[]), "");
    }
}
