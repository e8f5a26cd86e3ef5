//! The ledger's exports, for npm's `Ledger`: recording a choice, releasing, importing, adding up,
//! the guards against counting a use twice and the undo, and the ledger's formats. Each reads its
//! arguments as one core request (`api::record_plan`, `release`, `import`, `summarise`,
//! `already_recorded`, `undo`); the rules, the entries' names among them, are the core's.

use crate::read::{arg, arg_or_default, text_of, unix, whole};
use crate::{js, output, JsResult};
use gpu_share_core::api::Error;
use gpu_share_core::api::{
    self, ImportRequest, LedgerChangeRequest, LedgerEntry, RecordPlanRequest, ReleaseRequest,
    SummaryRequest, SummaryResponse, MAX_SECONDS,
};
use wasm_bindgen::prelude::*;

/// The ledger's entries, as the core reads them.
fn entries(value: JsValue) -> Result<Vec<LedgerEntry>, Error> {
    arg(value, "entries")
}

/// The ledger entry of a choice (from `selectMechanism`) recorded at `now` (Unix seconds): a run
/// of `seconds` that has just finished, or, when `seconds` is null, a use open until released.
#[wasm_bindgen(js_name = usageRecord)]
pub fn usage_record(choice: JsValue, now: f64, seconds: JsValue) -> JsResult {
    js((|| {
        let request = RecordPlanRequest {
            choice: arg(choice, "choice")?,
            now: unix(now, "now")?,
            seconds: match seconds.as_f64() {
                Some(s) => Some(whole(s, "seconds", 0.0, MAX_SECONDS as f64)? as u64),
                None => None,
            },
        };
        output(&api::record_plan(&request)?)
    })())
}

/// The entry that releases `ask`'s latest open use at `now`; an error when it has none.
#[wasm_bindgen(js_name = releaseEntry)]
pub fn release_entry(list: JsValue, ask: JsValue, now: f64) -> JsResult {
    js((|| {
        let request = ReleaseRequest {
            entries: entries(list)?.into(),
            ask: text_of(&ask, "ask")?,
            now: unix(now, "now")?,
        };
        output(&api::release(&request)?)
    })())
}

/// Merges a ledger text (JSON Lines or the JSON document) into `list`: `{entries, added,
/// alreadyPresent}`; an entry already there is not added twice.
#[wasm_bindgen(js_name = importLedger)]
pub fn import_ledger(list: JsValue, text: JsValue, now: f64) -> JsResult {
    js((|| {
        let request = ImportRequest {
            entries: entries(list)?.into(),
            text: text_of(&text, "text")?,
            now: unix(now, "now")?,
        };
        output(&api::import(&request)?)
    })())
}

/// The uses already in `list` that the entries `new` would count again: `[{ask, recordedAt}]`.
#[wasm_bindgen(js_name = alreadyRecorded)]
pub fn already_recorded(list: JsValue, new: JsValue, now: f64) -> JsResult {
    js((|| {
        output(&api::already_recorded(&change(list, new, now)?)?)
    })())
}

/// `list` without the entries `gone` (each one's latest occurrence): the undo of a recording.
#[wasm_bindgen(js_name = removeEntries)]
pub fn remove_entries(list: JsValue, gone: JsValue, now: f64) -> JsResult {
    js((|| output(&api::undo(&change(list, gone, now)?)?))())
}

fn change(list: JsValue, change: JsValue, now: f64) -> Result<LedgerChangeRequest<'static>, Error> {
    Ok(LedgerChangeRequest {
        entries: entries(list)?.into(),
        change: arg::<Vec<LedgerEntry>>(change, "entries")?.into(),
        now: unix(now, "now")?,
    })
}

/// The ledger settled and added up at `now` with `rates` (checked by the core's `Rates`).
fn summary(list: JsValue, now: f64, rates: JsValue) -> Result<SummaryResponse, Error> {
    api::summarise(&SummaryRequest {
        entries: entries(list)?.into(),
        now: unix(now, "now")?,
        rates: arg_or_default(rates, "rates")?,
    })
}

/// Adds ledger entries up at `now`: `{totals, byWorkload, byMechanism, rates}`.
#[wasm_bindgen(js_name = summarizeLedger)]
pub fn summarize_ledger(list: JsValue, now: f64, rates: JsValue) -> JsResult {
    js(summary(list, now, rates).and_then(|s| output(&s.summary)))
}

/// The summary as CSV.
#[wasm_bindgen(js_name = ledgerSummaryCsv)]
pub fn ledger_summary_csv(list: JsValue, now: f64, rates: JsValue) -> Result<String, JsValue> {
    js(summary(list, now, rates).map(|s| api::summary_csv(&s.summary)))
}

/// Every use as CSV.
#[wasm_bindgen(js_name = ledgerCsv)]
pub fn ledger_csv(list: JsValue, now: f64) -> Result<String, JsValue> {
    js(summary(list, now, JsValue::NULL).map(|s| api::ledger_csv(&s.records)))
}

/// The entries as JSON Lines, the format of the CLI's ledger file.
#[wasm_bindgen(js_name = ledgerToJsonLines)]
pub fn ledger_to_json_lines(list: JsValue) -> Result<String, JsValue> {
    js(entries(list).and_then(|l| api::ledger_json_lines(&l)))
}

/// Reads a ledger: JSON Lines (the CLI's file) or the JSON document of `ledgerDocument`; an
/// error names the line or the entry.
#[wasm_bindgen(js_name = parseLedger)]
pub fn parse_ledger(text: JsValue) -> JsResult {
    js(text_of(&text, "text")
        .and_then(|t| api::parse_ledger_any(&t))
        .and_then(|l| output(&l)))
}

/// The entries and their summary at `now` as one JSON document, which `parseLedger` reads back.
#[wasm_bindgen(js_name = ledgerDocument)]
pub fn ledger_document(list: JsValue, now: f64, rates: JsValue) -> Result<String, JsValue> {
    js((|| {
        let entries = entries(list.clone())?;
        let response = summary(list, now, rates)?;
        Ok(api::ledger_document(&entries, Some(&response.summary)))
    })())
}
