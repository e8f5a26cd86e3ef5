//! The page's state: one signal per input, and memos for the request and the core's plan of it
//! (`api::pack`), in parts by what they change with (`AppState`), each shared through context.

use gpu_share_core::api::{parse_hours, AskEntry, AskSize, Error, FractionalAsk, Scenario, Share};
use leptos::prelude::*;

use crate::words;

mod asks;
mod form;
mod link;
mod plan;
mod ui;

pub use asks::Asks;
pub use form::ClusterForm;
pub use link::Link;
pub use plan::Planned;
pub use ui::{DetectedMig, PageUi};

/// Whether a row asks for a fraction or names a MIG profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeKind {
    Fraction,
    Mig,
}

/// One editable row of the asks table; every field is its own signal so typing in one row
/// re-renders only that row.
#[derive(Clone, Copy)]
pub struct AskRow {
    pub id: u64,
    pub name: RwSignal<String>,
    pub kind: RwSignal<SizeKind>,
    pub fraction: RwSignal<String>,
    /// GPU memory with its unit (`12GiB`), beside a fraction or alone; blank for none.
    pub memory: RwSignal<String>,
    pub profile: RwSignal<String>,
    /// Duration in hours for accounting; blank records an open (running) use.
    pub hours: RwSignal<String>,
    /// The ask the row's size fields read as, re-read only when this row changes: a scenario of
    /// 10,000 rows re-read every row on each keystroke.
    parsed: Memo<Result<FractionalAsk, Error>>,
    /// What the row adds to the plan: its ask and duration, `None` while its size fields do not
    /// read. One memo for the scenario to read per row, not two sources (a thousand rows' reads
    /// were most of a keystroke's work: a Chromium profile, 4× CPU throttle).
    entry: Memo<Option<AskEntry>>,
}

/// The text fields of a row, for building rows and for tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowText {
    pub name: String,
    pub kind: SizeKind,
    pub fraction: String,
    pub memory: String,
    pub profile: String,
    pub hours: String,
}

impl RowText {
    /// The row for an ask read from a link or a file.
    pub fn from_ask(ask: &FractionalAsk, seconds: Option<u64>) -> RowText {
        let (kind, fraction, profile) = match &ask.size() {
            // Exact text, so `1/3` from a list stays `1/3` rather than becoming 0.3333.
            AskSize::Fraction(f) | AskSize::FractionAndMemory(f, _) => {
                (SizeKind::Fraction, f.to_exact_text(), String::new())
            }
            AskSize::Memory(_) => (SizeKind::Fraction, String::new(), String::new()),
            AskSize::MigProfile(p) => (SizeKind::Mig, String::new(), p.clone()),
        };
        RowText {
            name: ask.name().to_string(),
            kind,
            fraction,
            memory: ask.memory().map(|m| m.to_exact_text()).unwrap_or_default(),
            profile,
            hours: seconds
                .map(gpu_share_core::api::hours_text)
                .unwrap_or_default(),
        }
    }

    /// The ask this row describes, through the core's constructors (errors name the field).
    pub fn ask(&self) -> Result<FractionalAsk, Error> {
        build_ask(self)
    }
}

/// Builds an ask from the row's fields through the core; the error's field is `name`,
/// `fraction`, `memory` or `mig_profile`. A fraction row may leave the fraction blank when it
/// gives memory.
pub fn build_ask(row: &RowText) -> Result<FractionalAsk, Error> {
    let name = &row.name;
    gpu_share_core::api::validate_name(name)?;
    let given = |t: &str| Some(t.trim()).filter(|t| !t.is_empty()).map(str::to_string);
    match row.kind {
        SizeKind::Fraction => {
            let fraction = given(&row.fraction);
            let memory = given(&row.memory);
            if let Some(f) = fraction.as_deref() {
                // A fraction cell holds a fraction, never memory or a profile.
                Share::parse(f).map_err(|e| e.in_field("fraction"))?;
            }
            FractionalAsk::from_cells(name, fraction.as_deref(), memory.as_deref())
        }
        SizeKind::Mig => FractionalAsk::mig(name, &row.profile),
    }
}

/// The row's duration: blank is none (an open use); otherwise hours through the core.
pub fn build_seconds(hours: &str) -> Result<Option<u64>, Error> {
    if hours.trim().is_empty() {
        Ok(None)
    } else {
        parse_hours(hours)
            .map(Some)
            .map_err(|e| e.in_field("hours"))
    }
}

impl AskRow {
    pub fn new(id: u64, t: RowText) -> AskRow {
        let name = RwSignal::new(t.name);
        let kind = RwSignal::new(t.kind);
        let fraction = RwSignal::new(t.fraction);
        let memory = RwSignal::new(t.memory);
        let profile = RwSignal::new(t.profile);
        let parsed = Memo::new(move |_| {
            build_ask(&RowText {
                name: name.get(),
                kind: kind.get(),
                fraction: fraction.get(),
                memory: memory.get(),
                profile: profile.get(),
                hours: String::new(),
            })
        });
        let hours = RwSignal::new(t.hours);
        let entry = Memo::new(move |_| {
            Some(AskEntry {
                ask: parsed.with(|p| p.as_ref().ok().cloned())?,
                seconds: hours.with(|h| build_seconds(h)).ok().flatten(),
            })
        });
        AskRow {
            id,
            name,
            kind,
            fraction,
            memory,
            profile,
            hours,
            parsed,
            entry,
        }
    }

    /// The row's current text (tracked: a memo reading it re-runs when the row changes).
    pub fn text(&self) -> RowText {
        RowText {
            name: self.name.get(),
            kind: self.kind.get(),
            fraction: self.fraction.get(),
            memory: self.memory.get(),
            profile: self.profile.get(),
            hours: self.hours.get(),
        }
    }

    pub fn ask(&self) -> Result<FractionalAsk, Error> {
        self.parsed.get()
    }

    /// Whether the row's size fields read as an ask (without cloning it).
    pub fn is_valid(&self) -> bool {
        self.parsed.with(Result::is_ok)
    }

    pub fn seconds(&self) -> Result<Option<u64>, Error> {
        self.hours.with(|h| build_seconds(h))
    }
}

/// The page's state, in parts by what each changes with: the asks table's rows, the cluster
/// form, the scenario as the link carries it, the plan made of them once edits settle, and the
/// page's own notices and focus. `provide` shares each part through context, and each component
/// takes the parts it reads. The ledger is not here: it belongs to the ledger component
/// (`components::ledger::LedgerState`).
#[derive(Clone, Copy)]
pub struct AppState {
    pub asks: Asks,
    pub form: ClusterForm,
    pub link: Link,
    pub planned: Planned,
    pub ui: PageUi,
}

/// The search budget of `optimize` in the page: about 100 ms of a native release build (the page
/// stays responsive; most plans reach a proven optimum far sooner).
pub const OPTIMIZE_MS: u64 = 100;

/// The scenario the page opens with when the link carries none: the seed's pack example.
pub const DEFAULT_QUERY: &str = "ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice";

/// The example the page opens with (marked as an example, with a button that clears it).
pub fn example_scenario() -> Scenario {
    Scenario::from_query(DEFAULT_QUERY).unwrap_or_default()
}

impl AppState {
    /// State from the page's query string.
    pub fn new(query: &str) -> AppState {
        let (scenario, link_dropped) = read_query(query);
        let asks = Asks::new(&scenario);
        let form = ClusterForm::new(&scenario.caps, scenario.optimize);
        AppState {
            asks,
            form,
            link: Link::new(asks, form, example_scenario()),
            planned: Planned::new(asks, form),
            ui: PageUi::new(link_dropped),
        }
    }

    /// Shares each part through context, for the components that read it.
    pub fn provide(self) {
        provide_context(self.asks);
        provide_context(self.form);
        provide_context(self.link);
        provide_context(self.planned);
        provide_context(self.ui);
    }

    /// Empties the scenario: no asks, the cluster fields blank (the example's "Clear").
    pub fn clear(&self) {
        clear(self.asks, self.form);
    }
}

/// Empties the scenario: no asks, the cluster's size blank (the example's "Clear").
pub fn clear(asks: Asks, form: ClusterForm) {
    asks.rows.set(Vec::new());
    form.gpu_count.set(String::new());
    form.nodes.set(String::new());
}

/// The scenario a query string holds (the example for one that holds nothing), and what it held
/// that could not be read, in the page's words (each dropped, the rest read).
fn read_query(query: &str) -> (Scenario, Vec<String>) {
    let (scenario, dropped) = match Scenario::from_query_lenient(query) {
        Ok((s, dropped)) if s == Scenario::default() && dropped.is_empty() => {
            (example_scenario(), dropped)
        }
        Ok(read) => read,
        Err(e) => (Scenario::default(), vec![e]),
    };
    (scenario, dropped.iter().map(words::error).collect())
}

#[cfg(test)]
mod tests;
