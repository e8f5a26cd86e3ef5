//! The ledger's guards against counting a use twice, for the npm `Ledger`: which uses a new
//! recording would count again (`alreadyRecorded`), and taking a recording back (`removeEntries`).
//! The rules are the core's (`api::already_recorded`, `api::remove_entries`), as on the page.

use gpu_share_core::api;
use wasm_bindgen::prelude::*;

use super::{entries, js, output, whole, JsResult, MAX_UNIX_SECONDS};

/// The uses already in `list` that the entries `new` would count again: `[{ask, recordedAt}]`.
#[wasm_bindgen(js_name = alreadyRecorded)]
pub fn already_recorded(list: JsValue, new: JsValue, now: f64) -> JsResult {
    js((|| {
        let now = whole(now, "now", -MAX_UNIX_SECONDS, MAX_UNIX_SECONDS)? as i64;
        output(&api::already_recorded(
            &entries(list)?,
            &entries(new)?,
            now,
        )?)
    })())
}

/// `list` without the entries `gone` (each one's latest occurrence): the undo of a recording.
#[wasm_bindgen(js_name = removeEntries)]
pub fn remove_entries(list: JsValue, gone: JsValue, now: f64) -> JsResult {
    js((|| {
        let now = whole(now, "now", -MAX_UNIX_SECONDS, MAX_UNIX_SECONDS)? as i64;
        output(&api::remove_entries(&entries(list)?, &entries(gone)?, now)?)
    })())
}
