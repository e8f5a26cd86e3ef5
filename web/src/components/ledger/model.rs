//! The ledger component's state and the pure changes to it: entries recorded (held back when
//! they would count a use twice), taken back, released or imported through the core; rates
//! checked by the core, also when read back from storage; and the notices that say what happened.

use crate::storage::record;
use gpu_share_core::api::{
    self, Error, ImportRequest, LedgerChangeRequest, LedgerEntry, PackRequest, PackResponse, Rates,
    RatesInput, Recording, ReleaseRequest, SummaryRequest, SummaryResponse,
};
use leptos::prelude::*;

use crate::format;
use crate::storage::{setting_fields, LoadError};
use crate::words;

/// The most ledger rows the table shows (the newest); downloads always hold everything.
pub(super) const SHOWN_ROWS: usize = 200;

/// How often open uses are counted up to the clock again.
pub(super) const CLOCK_TICK: std::time::Duration = std::time::Duration::from_secs(30);

/// The page's clock, in Unix seconds.
pub fn now_unix() -> i64 {
    (js_sys::Date::now() / 1000.0).floor() as i64
}

/// A status line: an error, a confirmation, or a question about a recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    Ok(String),
    Error(String),
    /// A recording just made; its Undo takes back exactly `entries` (the core's `remove_entries`).
    Recorded {
        said: String,
        entries: Vec<LedgerEntry>,
    },
    /// A recording held back because it would count uses the ledger holds a second time; its
    /// "Record again" records `entries` as they were made.
    Held {
        said: String,
        entries: Vec<LedgerEntry>,
    },
}

impl Notice {
    /// The words of the status line.
    pub fn text(&self) -> &str {
        match self {
            Notice::Ok(t) | Notice::Error(t) => t,
            Notice::Recorded { said, .. } | Notice::Held { said, .. } => said,
        }
    }
}

/// The editable accounting rates, as typed.
#[derive(Clone, Copy)]
pub struct RateInputs {
    pub cost: RwSignal<String>,
    pub watts: RwSignal<String>,
    pub pue: RwSignal<String>,
    pub grid: RwSignal<String>,
}

impl RateInputs {
    /// The boxes' text now (tracked, so an effect that reads it runs again on each edit).
    pub fn texts(&self) -> RateTexts {
        RateTexts {
            cost: self.cost.get(),
            watts: self.watts.get(),
            pue: self.pue.get(),
            grid: self.grid.get(),
        }
    }
}

/// The rates' text, as the boxes hold it and as it is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateTexts {
    pub cost: String,
    pub watts: String,
    pub pue: String,
    pub grid: String,
}

impl Default for RateTexts {
    /// The boxes of a new page: no price, each model's power, the core's PUE and grid intensity.
    fn default() -> Self {
        let defaults = Rates::default();
        RateTexts {
            cost: String::new(),
            watts: String::new(),
            pue: defaults.pue().to_string(),
            grid: defaults.grid_g_co2e_per_kwh().to_string(),
        }
    }
}

impl RateTexts {
    const KEYS: [&'static str; 4] = ["cost", "watts", "pue", "grid"];

    /// The stored form: the core's record of the four boxes' text.
    pub fn to_stored(&self) -> String {
        let [c, w, p, g] = Self::KEYS;
        record::write_fields(&[
            (c, &self.cost),
            (w, &self.watts),
            (p, &self.pue),
            (g, &self.grid),
        ])
    }

    /// The rates stored in this browser, checked by the core as if typed (a missing box is its
    /// default). Only rates the core accepted are stored, so a refusal means the value was changed
    /// outside the page or by a build with other rules.
    ///
    /// # Errors
    /// Why the stored rates cannot be used, in the form's words.
    pub fn from_stored(text: &str) -> Result<RateTexts, String> {
        let [cost, watts, pue, grid] = setting_fields(text, Self::KEYS)?;
        let d = RateTexts::default();
        let texts = RateTexts {
            cost: cost.unwrap_or(d.cost),
            watts: watts.unwrap_or(d.watts),
            pue: pue.unwrap_or(d.pue),
            grid: grid.unwrap_or(d.grid),
        };
        texts.rates()?;
        Ok(texts)
    }

    /// The rates these boxes say, checked by the core.
    pub fn rates(&self) -> Result<Rates, String> {
        build_rates(&self.cost, &self.watts, &self.pue, &self.grid)
    }
}

/// The boxes to show for the stored rates (`None`: nothing stored), and a note when what was
/// stored could not be used and the defaults are shown instead.
pub fn stored_rates(stored: Option<&str>) -> (RateTexts, Option<String>) {
    match stored.map(RateTexts::from_stored) {
        None => (RateTexts::default(), None),
        Some(Ok(texts)) => (texts, None),
        Some(Err(why)) => (
            RateTexts::default(),
            Some(format!(
                "The rates stored in this browser could not be used ({why}); the defaults are shown."
            )),
        ),
    }
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
    /// Why the stored rates were not used, or why the rates could not be stored.
    pub rates_note: RwSignal<Option<String>>,
    pub rates: Memo<Result<Rates, String>>,
    /// The core's summary of the ledger at `now` with the rates.
    pub summary: Memo<Result<SummaryResponse, String>>,
}

impl LedgerState {
    /// The state for the stored ledger as `storage::load` read it and the stored rates' text
    /// (unchecked: the core checks it here), at `now`.
    pub fn new(
        stored: Result<Vec<LedgerEntry>, LoadError>,
        rates: Option<&str>,
        now: i64,
    ) -> LedgerState {
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
        let (texts, rates_note) = stored_rates(rates);
        let rates_text = RateInputs {
            cost: RwSignal::new(texts.cost),
            watts: RwSignal::new(texts.watts),
            pue: RwSignal::new(texts.pue),
            grid: RwSignal::new(texts.grid),
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
                .with(|entries| api::summarise(&SummaryRequest::new(entries, now, rates)))
                .map_err(|e| words::error(&e))
        });
        LedgerState {
            entries,
            writable: RwSignal::new(writable),
            notice: RwSignal::new(notice),
            now,
            rates_text,
            rates_note: RwSignal::new(rates_note),
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

/// What pressing "Record this plan" does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// The ledger with `new` appended, and what to say.
    Added {
        all: Vec<LedgerEntry>,
        new: Vec<LedgerEntry>,
        said: String,
    },
    /// Nothing recorded: `new` would count uses the ledger holds for the same asks and hours a
    /// second time; what to ask.
    Held { new: Vec<LedgerEntry>, said: String },
}

/// The plan recorded at `now` into the ledger: one use per placed ask, each for its row's hours
/// (a finished run that started that long ago), or open from `now` when the row has none — or
/// held back, saying so, when the core finds that asks of it already have a use in the ledger for
/// those hours (a press of the button twice), so that nothing is counted twice silently.
pub fn recorded(
    entries: &[LedgerEntry],
    request: &PackRequest,
    plan: &Result<PackResponse, Error>,
    now: i64,
) -> Result<Recorded, String> {
    let Ok(response) = plan else {
        return Err("the plan has an error; fix it before recording".into());
    };
    let when = Recording::new(now, None).map_err(|e| words::error(&e))?;
    let new = api::record_pack(request, response, when);
    if new.is_empty() {
        return Err("no placed ask to record".into());
    }
    if let Some(before) = api::recorded_before(entries, &new, now).map_err(|e| words::error(&e))? {
        let said = format!("{}. Record again?", before.text);
        return Ok(Recorded::Held { new, said });
    }
    let unplaced = response.result.unplaced.len();
    let skipped = if unplaced == 0 {
        String::new()
    } else {
        format!(" ({unplaced} unplaced left out)")
    };
    let mut added = recorded_anyway(entries, new);
    if let Recorded::Added { said, .. } = &mut added {
        said.push_str(&skipped);
    }
    Ok(added)
}

/// The ledger with `new` appended as it is: the answer to "record again?".
pub fn recorded_anyway(entries: &[LedgerEntry], new: Vec<LedgerEntry>) -> Recorded {
    let n = new.len();
    let mut all = entries.to_vec();
    all.extend(new.iter().cloned());
    Recorded::Added {
        all,
        new,
        said: format!("recorded {n} use{}", if n == 1 { "" } else { "s" }),
    }
}

/// The ledger without the uses just recorded (`just`), through the core's `remove_entries`.
pub fn undone(entries: &[LedgerEntry], just: &[LedgerEntry], now: i64) -> Change {
    let left = api::undo(&LedgerChangeRequest {
        entries: entries.into(),
        change: just.into(),
        now,
    })
    .map_err(|e| format!("undo failed, nothing changed: {}", words::error(&e)))?;
    let n = just.len();
    Ok((
        left,
        format!(
            "undone: removed the {n} use{} just recorded",
            if n == 1 { "" } else { "s" }
        ),
    ))
}

/// The ledger with `ask`'s open use released at `now`.
pub fn released(entries: &[LedgerEntry], ask: &str, now: i64) -> Change {
    let release =
        api::release(&ReleaseRequest::new(entries, ask, now)).map_err(|e| words::error(&e))?;
    let mut all = entries.to_vec();
    all.push(release);
    Ok((all, format!("released {ask}")))
}

/// The ledger merged with the one in `text`; entries it already holds (the same content: the
/// core's identity of an entry) are not added twice. `None` for the ledger when the import added
/// nothing.
pub fn imported(
    entries: &[LedgerEntry],
    text: &str,
    now: i64,
) -> Result<(Option<Vec<LedgerEntry>>, String), String> {
    let merged = api::import(&ImportRequest::new(entries, text, now))
        .map_err(|e| format!("import failed, nothing changed: {}", words::error(&e)))?;
    let n = merged.added;
    let said = format!(
        "added {n} entr{}, {} already present",
        if n == 1 { "y" } else { "ies" },
        merged.already_present
    );
    Ok(((n > 0).then_some(merged.entries), said))
}
