//! The ledger component's state and the pure changes to it: entries recorded, released or
//! imported through the core, rates checked by the core, and the notices that say what happened.

use gpu_share_core::account::{Rates, RatesInput};
use gpu_share_core::api::{
    self, PackRequest, PackResponse, Recording, SummaryRequest, SummaryResponse,
};
use gpu_share_core::{Error, LedgerEntry};
use leptos::prelude::*;

use crate::format;
use crate::storage::LoadError;
use crate::words;

/// The most ledger rows the table shows (the newest); downloads always hold everything.
pub(super) const SHOWN_ROWS: usize = 200;

/// How often open uses are counted up to the clock again.
pub(super) const CLOCK_TICK: std::time::Duration = std::time::Duration::from_secs(30);

/// The page's clock, in Unix seconds.
pub fn now_unix() -> i64 {
    (js_sys::Date::now() / 1000.0).floor() as i64
}

/// A status line: an error or a confirmation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    Ok(String),
    Error(String),
}

/// The editable accounting rates, as typed.
#[derive(Clone, Copy)]
pub struct RateInputs {
    pub cost: RwSignal<String>,
    pub watts: RwSignal<String>,
    pub pue: RwSignal<String>,
    pub grid: RwSignal<String>,
}

/// The ledger component's own state, all `Copy` handles.
#[derive(Clone, Copy)]
pub struct LedgerState {
    /// The ledger as shown (and, when storage works, as stored).
    pub entries: RwSignal<Vec<LedgerEntry>>,
    /// False when the stored ledger could not be read: it is then left alone until cleared.
    pub writable: RwSignal<bool>,
    pub notice: RwSignal<Option<Notice>>,
    /// The time open uses are counted up to.
    pub now: RwSignal<i64>,
    pub rates_text: RateInputs,
    pub rates: Memo<Result<Rates, String>>,
    /// The core's summary of the ledger at `now` with the rates.
    pub summary: Memo<Result<SummaryResponse, String>>,
}

impl LedgerState {
    /// The state for the stored ledger as `storage::load` read it, at `now`.
    pub fn new(stored: Result<Vec<LedgerEntry>, LoadError>, now: i64) -> LedgerState {
        let (entries, writable, notice) = match stored {
            Ok(e) => (e, true, None),
            // The page works without storage; it says at once that the ledger will not persist.
            Err(LoadError::Unavailable(why)) => (
                Vec::new(),
                true,
                Some(Notice::Error(format!(
                    "{why}, so the ledger will not persist: what you record is kept in this page \
                     only until it is closed or reloaded. Download it (Ledger JSON lines) to keep it."
                ))),
            ),
            Err(LoadError::Unreadable(e)) => (
                Vec::new(),
                false,
                Some(Notice::Error(format!(
                    "{e}. It is left untouched; clear it to start a new one."
                ))),
            ),
        };
        let entries = RwSignal::new(entries);
        let now = RwSignal::new(now);
        let defaults = Rates::default();
        let rates_text = RateInputs {
            cost: RwSignal::new(String::new()),
            watts: RwSignal::new(String::new()),
            pue: RwSignal::new(defaults.pue().to_string()),
            grid: RwSignal::new(defaults.grid_g_co2e_per_kwh().to_string()),
        };
        let rates = Memo::new(move |_| {
            build_rates(
                &rates_text.cost.get(),
                &rates_text.watts.get(),
                &rates_text.pue.get(),
                &rates_text.grid.get(),
            )
        });
        let summary = Memo::new(move |_| {
            let rates = rates.get()?;
            let now = now.get();
            entries
                .with(|entries| {
                    api::summarise(&SummaryRequest {
                        entries,
                        now,
                        rates,
                    })
                })
                .map_err(|e| words::error(&e))
        });
        LedgerState {
            entries,
            writable: RwSignal::new(writable),
            notice: RwSignal::new(notice),
            now,
            rates_text,
            rates,
            summary,
        }
    }
}

/// Rates from the form's text: each box read as a number (or blank), then checked by the core,
/// whose errors are said in the form's words.
pub fn build_rates(cost: &str, watts: &str, pue: &str, grid: &str) -> Result<Rates, String> {
    let number =
        |name: &str, text: &str| format::optional_number(text).map_err(|e| format!("{name}: {e}"));
    let input = RatesInput {
        cost_per_gpu_hour: number("cost per GPU-hour", cost)?,
        watts: number("watts", watts)?,
        pue: number("PUE", pue)?,
        grid_g_co2e_per_kwh: number("grid intensity", grid)?,
    };
    Rates::new(&input).map_err(|e| words::error(&e))
}

/// A new ledger and what to say about it, or why nothing changed.
pub type Change = Result<(Vec<LedgerEntry>, String), String>;

/// The ledger with the plan recorded at `now`: one use per placed ask, each for its row's hours
/// (a finished run that started that long ago), or open from `now` when the row has none.
pub fn recorded(
    entries: &[LedgerEntry],
    request: &PackRequest,
    plan: &Result<PackResponse, Error>,
    now: i64,
) -> Change {
    let Ok(response) = plan else {
        return Err("the plan has an error; fix it before recording".into());
    };
    let when = Recording::new(now, None).map_err(|e| words::error(&e))?;
    let new = api::record_pack(request, response, when);
    if new.is_empty() {
        return Err("no placed ask to record".into());
    }
    let n = new.len();
    let unplaced = response.result.unplaced.len();
    let skipped = if unplaced == 0 {
        String::new()
    } else {
        format!(" ({unplaced} unplaced left out)")
    };
    let mut all = entries.to_vec();
    all.extend(new);
    Ok((
        all,
        format!("recorded {n} use{}{skipped}", if n == 1 { "" } else { "s" }),
    ))
}

/// The ledger with `ask`'s open use released at `now`.
pub fn released(entries: &[LedgerEntry], ask: &str, now: i64) -> Change {
    let release = api::release(entries, ask, now).map_err(|e| words::error(&e))?;
    let mut all = entries.to_vec();
    all.push(release);
    Ok((all, format!("released {ask}")))
}

/// The ledger merged with the one in `text`; entries it already holds are not added twice. `None`
/// for the ledger when the import added nothing.
pub fn imported(
    entries: &[LedgerEntry],
    text: &str,
    now: i64,
) -> Result<(Option<Vec<LedgerEntry>>, String), String> {
    let merged = api::import(entries, text, now)
        .map_err(|e| format!("import failed, nothing changed: {}", words::error(&e)))?;
    let n = merged.added;
    let mut said = format!("imported {n} entr{}", if n == 1 { "y" } else { "ies" });
    if merged.already_present > 0 {
        said.push_str(&format!(
            ", {} already present (not added twice)",
            merged.already_present
        ));
    }
    Ok(((n > 0).then_some(merged.entries), said))
}
