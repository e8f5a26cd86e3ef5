//! The page's localStorage: the ledger in the core's versioned JSON-lines format under a versioned
//! key, and small settings (the accounting rates, the export panel's choices) as text under keys
//! of their own, which their components check through the core when read back. Failures are
//! reported, never swallowed.

pub mod record;

use gpu_share_core::api::{format_entry, parse_ledger, LedgerEntry};

/// The localStorage key; the format version inside each line is the core's `LEDGER_VERSION`.
pub const LEDGER_KEY: &str = "gpu-share.ledger.v1";

/// The accounting rates as typed (`components::ledger::RateTexts`).
pub const RATES_KEY: &str = "gpu-share.rates.v1";

/// The export panel's format and fields (`components::export::Settings`).
pub const EXPORT_KEY: &str = "gpu-share.export.v1";

/// The stored text of a ledger: one entry per line.
pub fn to_text(entries: &[LedgerEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        out.push_str(&format_entry(e));
        out.push('\n');
    }
    out
}

/// Why the stored ledger could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The browser gives this page no local storage (turned off, some privacy modes): the page
    /// still works, but its ledger lasts only as long as the page.
    Unavailable(String),
    /// The stored text is not a ledger this build reads (the message names the line): it is left
    /// untouched until the user clears it.
    Unreadable(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Unavailable(m) | LoadError::Unreadable(m) => f.write_str(m),
        }
    }
}

/// The page's local storage; the `window.localStorage` getter itself throws in some privacy modes.
fn storage() -> Result<web_sys::Storage, String> {
    let unavailable = "local storage is not available in this browser";
    match leptos::prelude::window().local_storage() {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err(unavailable.into()),
        Err(e) => Err(format!("{unavailable} ({})", js_error(&e))),
    }
}

/// A thrown value's name, when it has one (`QuotaExceededError`, `SecurityError`).
fn js_name(e: &wasm_bindgen::JsValue) -> Option<String> {
    if !e.is_object() {
        return None;
    }
    js_sys::Reflect::get(e, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .filter(|n| !n.is_empty() && n != "Error")
}

/// A thrown value as text: `name: message` (a `DOMException`'s name says what went wrong).
fn js_error(e: &wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    let message = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into());
    match js_name(e) {
        Some(name) => format!("{name}: {message}"),
        None => message,
    }
}

/// Whether a thrown value is the browser saying its storage quota is used up.
fn is_quota(e: &wasm_bindgen::JsValue) -> bool {
    js_name(e).is_some_and(|n| n == "QuotaExceededError" || n == "NS_ERROR_DOM_QUOTA_REACHED")
}

/// Reads the stored ledger (empty when there is none).
///
/// # Errors
/// Storage is unavailable, or the stored text is not a ledger this build reads (with the line).
pub fn load() -> Result<Vec<LedgerEntry>, LoadError> {
    let s = storage().map_err(LoadError::Unavailable)?;
    match s.get_item(LEDGER_KEY) {
        Ok(Some(text)) => parse_ledger(&text).map_err(|e| {
            LoadError::Unreadable(format!(
                "the ledger stored in this browser cannot be read ({e})"
            ))
        }),
        Ok(None) => Ok(Vec::new()),
        Err(e) => Err(LoadError::Unavailable(format!(
            "local storage could not be read ({})",
            js_error(&e)
        ))),
    }
}

/// Stores the whole ledger; on failure the stored ledger is what it was.
///
/// # Errors
/// "the ledger could not be saved in this browser: …" — storage is unavailable, or full (with the
/// browser's own error).
pub fn save(entries: &[LedgerEntry]) -> Result<(), String> {
    let failed = |why: String| format!("the ledger could not be saved in this browser: {why}");
    let s = storage().map_err(failed)?;
    let result = if entries.is_empty() {
        s.remove_item(LEDGER_KEY)
    } else {
        s.set_item(LEDGER_KEY, &to_text(entries))
    };
    result.map_err(|e| {
        failed(if is_quota(&e) {
            format!("its storage is full ({})", js_error(&e))
        } else {
            js_error(&e)
        })
    })
}

/// A stored setting (the record of text fields, `record.rs`): each of `keys`,
/// `None` where it is missing.
///
/// # Errors
/// Not such a record (too long, not JSON, a value that is not text), in the page's words.
pub fn setting_fields<const N: usize>(
    text: &str,
    keys: [&str; N],
) -> Result<[Option<String>; N], String> {
    record::read_fields(text, keys).map_err(|e| crate::words::message(&e))
}

/// A setting's stored text (`None` when there is none); the caller checks what it says.
///
/// # Errors
/// Local storage is unavailable or cannot be read.
pub fn load_setting(key: &str) -> Result<Option<String>, String> {
    storage()?
        .get_item(key)
        .map_err(|e| format!("local storage could not be read ({})", js_error(&e)))
}

/// Stores a setting's text, or removes it (`None`: back to the default).
///
/// # Errors
/// Storage is unavailable, or full (with the browser's own error).
pub fn save_setting(key: &str, text: Option<&str>) -> Result<(), String> {
    let s = storage()?;
    let result = match text {
        Some(t) => s.set_item(key, t),
        None => s.remove_item(key),
    };
    result.map_err(|e| {
        if is_quota(&e) {
            format!("the browser's storage is full ({})", js_error(&e))
        } else {
            js_error(&e)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_share_core::api::{self, ClusterGpuCaps, FractionalAsk, PlanRequest, UsageRecord};

    #[test]
    fn stored_text_reads_back() {
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            ..Default::default()
        };
        let request = PlanRequest {
            ask: FractionalAsk::parse_spec("a:0.5").unwrap(),
            cluster: caps.into(),
        };
        let choice = api::plan(&request).unwrap().choice;
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

    #[test]
    fn settings_are_objects_of_short_text() {
        let [a, b] = setting_fields(r#"{"a":"1","z":5}"#, ["a", "b"]).unwrap();
        assert_eq!((a.as_deref(), b), (Some("1"), None));
        assert_eq!(
            setting_fields(r#"{"a":1}"#, ["a"]).unwrap_err(),
            "a is not text"
        );
        assert_eq!(
            setting_fields("\"a\"", ["a"]).unwrap_err(),
            "not a JSON object"
        );
        assert!(setting_fields("{", ["a"])
            .unwrap_err()
            .starts_with("not JSON: "));
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(record::MAX_RECORD_BYTES));
        assert!(setting_fields(&long, ["a"])
            .unwrap_err()
            .starts_with("longer than"));
    }
}
