//! The page's scenario: one signal per input, and memos for the request and the core's plan of it
//! (`api::pack`), shared through context.

use gpu_share_core::api::{
    self, find_model, parse_hours, AskEntry, AskSize, Cluster, ClusterGpuCaps, Error, ErrorKind,
    FractionalAsk, GpuModel, LeftOut, PackOptions, PackRequest, PackResponse, Scenario, Share,
    DEFAULT_MIG_MODEL,
};
use leptos::prelude::*;

use crate::{format, words};

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

/// What the last capture read said of MIG that the plan does not follow by itself (the discovery
/// box sets it; the cluster form and the summary say it beside MIG and the plan).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DetectedMig {
    /// MIG-capable GPUs with MIG disabled: a plan with MIG needs them reset first.
    pub disabled_gpus: usize,
    /// GPU instances that exist already, which a plan from empty GPUs ignores.
    pub instances: usize,
}

/// The scenario the page edits, and its plan, shared through context. The ledger is not here: it
/// belongs to the ledger component (`components::ledger::LedgerState`).
#[derive(Clone, Copy)]
pub struct AppState {
    pub rows: RwSignal<Vec<AskRow>>,
    next_id: StoredValue<u64>,
    pub gpu_model: RwSignal<String>,
    pub gpu_count: RwSignal<String>,
    /// The nodes as typed (`4x8`, `gpu-a:8,gpu-b:4`; blank: no nodes).
    pub nodes: RwSignal<String>,
    pub nodes_error: Memo<Option<String>>,
    /// The CUDA context per process as typed (`500MiB`; blank: the core's default).
    pub context_overhead: RwSignal<String>,
    pub context_overhead_error: Memo<Option<String>>,
    pub mig: RwSignal<bool>,
    pub limit_profiles: RwSignal<bool>,
    pub allowed_profiles: RwSignal<Vec<String>>,
    pub mps: RwSignal<bool>,
    pub timeslice: RwSignal<bool>,
    /// Search for a packing on fewer GPUs than first-fit-decreasing (`&optimize` in the link).
    pub optimize: RwSignal<bool>,
    /// What the link held that could not be read (each dropped, the rest loaded).
    pub link_dropped: RwSignal<Vec<String>>,
    /// The valid asks, in row order, with each row's duration (rows with errors are left out).
    pub asks: Memo<Vec<AskEntry>>,
    /// The row id of each of `asks`, in the same order.
    pub ask_rows: Memo<Vec<u64>>,
    /// Rows the core left out of the plan (a name used twice, a profile the model lacks), by row id.
    pub left_out: Memo<Vec<(u64, LeftOut)>>,
    /// Whether the page still shows the example it opens with.
    pub is_example: Memo<bool>,
    /// The row whose name field takes the focus once drawn (a row just added; after a removal,
    /// its neighbour), or `u64::MAX` for the "Add ask" button.
    pub focus_row: RwSignal<Option<u64>>,
    pub detected_mig: RwSignal<DetectedMig>,
    /// Rows left out of the plan because of an error in them.
    pub invalid_rows: Memo<usize>,
    pub gpu_count_error: Memo<Option<String>>,
    pub caps: Memo<ClusterGpuCaps>,
    /// The scenario as the link carries it.
    pub scenario: Memo<Scenario>,
    /// The request the plan is made from, as the edits settled (`settled`); the export panel and
    /// "Record this plan" use it too, so they always agree with the plan shown.
    pub request: Memo<PackRequest>,
    /// Changes once the typed request has changed and the edits have settled (`settle`): the
    /// request, the plan, the address bar and the share links follow it.
    pub settled: Signal<u64>,
    /// The core's answer to the settled `request` (`api::pack_given_leaving_out`: the caps
    /// here are always given, and that keeps discovery out of the first load): the packing of every
    /// ask that can be packed and, with `optimize`, how the optimizer did; an error in the
    /// cluster fields.
    pub plan: Memo<Result<PackResponse, Error>>,
    /// The MIG-capable model whose profiles the pickers offer.
    pub profile_model: Memo<&'static GpuModel>,
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
        let example = example_scenario();
        let (scenario, dropped) = match Scenario::from_query_lenient(query) {
            Ok((s, dropped)) if s == Scenario::default() && dropped.is_empty() => {
                (example.clone(), dropped)
            }
            Ok(read) => read,
            Err(e) => (Scenario::default(), vec![e]),
        };
        let link_dropped: Vec<String> = dropped.iter().map(words::error).collect();
        let rows: Vec<AskRow> = scenario
            .asks
            .iter()
            .enumerate()
            .map(|(i, a)| AskRow::new(i as u64, RowText::from_ask(a, scenario.seconds_of(i))))
            .collect();
        let next_id = StoredValue::new(rows.len() as u64);
        let caps = &scenario.caps;
        let rows = RwSignal::new(rows);
        let gpu_model = RwSignal::new(caps.gpu_model.clone().unwrap_or_default());
        let nodes_given = caps.nodes.is_some();
        let gpu_count = RwSignal::new(
            caps.gpu_count
                .filter(|_| !nodes_given)
                .map(|n| n.to_string())
                .unwrap_or_default(),
        );
        let nodes = RwSignal::new(
            caps.nodes
                .as_deref()
                .map(gpu_share_core::api::nodes_to_text)
                .unwrap_or_default(),
        );
        let context_overhead = RwSignal::new(
            caps.context_overhead_mib
                .map(gpu_share_core::api::overhead_text)
                .unwrap_or_default(),
        );
        let mig = RwSignal::new(caps.supports_mig);
        let limit_profiles = RwSignal::new(caps.mig_profiles.is_some());
        let allowed_profiles = RwSignal::new(caps.mig_profiles.clone().unwrap_or_default());
        let mps = RwSignal::new(caps.supports_mps);
        let timeslice = RwSignal::new(caps.supports_timeslicing);
        let optimize = RwSignal::new(scenario.optimize);

        let valid = Memo::new(move |_| {
            rows.with(|rows| {
                rows.iter()
                    .filter_map(|r| Some((r.id, r.entry.get()?)))
                    .collect::<Vec<_>>()
            })
        });
        let asks: Memo<Vec<AskEntry>> =
            Memo::new(move |_| valid.with(|v| v.iter().map(|(_, e)| e.clone()).collect()));
        let ask_rows: Memo<Vec<u64>> =
            Memo::new(move |_| valid.with(|v| v.iter().map(|(id, _)| *id).collect()));
        // The rows `valid` leaves out: counted from it, not by reading every row again (each read
        // of a thousand rows' memos is a thousand sources the graph tracks and checks).
        let invalid_rows =
            Memo::new(move |_| rows.with(Vec::len).saturating_sub(valid.with(Vec::len)));
        let gpu_count_error = Memo::new(move |_| format::gpu_count(&gpu_count.get()).err());
        let nodes_error = Memo::new(move |_| format::nodes(&nodes.get()).err());
        let overhead = move || {
            let text = context_overhead.get();
            let text = text.trim();
            (!text.is_empty())
                .then(|| gpu_share_core::api::parse_overhead_mib(text))
                .transpose()
        };
        let context_overhead_error =
            Memo::new(move |_| overhead().err().map(|e| words::message(&e)));
        let caps = Memo::new(move |_| ClusterGpuCaps {
            supports_mig: mig.get(),
            mig_profiles: limit_profiles.get().then(|| allowed_profiles.get()),
            supports_mps: mps.get(),
            supports_timeslicing: timeslice.get(),
            gpu_model: Some(gpu_model.get()).filter(|m| !m.trim().is_empty()),
            gpu_count: format::gpu_count(&gpu_count.get()).ok().flatten(),
            nodes: format::nodes(&nodes.get()).ok().flatten(),
            context_overhead_mib: overhead().ok().flatten(),
        });
        let scenario = Memo::new(move |_| Scenario {
            asks: asks.with(|a| a.iter().map(|e| e.ask.clone()).collect()),
            caps: caps.get(),
            optimize: optimize.get(),
            // None for all is no durations at all (the link then has no `hours=`).
            seconds: asks.with(|a| {
                let seconds: Vec<Option<u64>> = a.iter().map(|e| e.seconds).collect();
                if seconds.iter().any(Option::is_some) {
                    seconds
                } else {
                    Vec::new()
                }
            }),
        });
        // A keystroke in a large scenario should not build its whole scenario (a copy of every
        // ask) to learn that it is not the three-ask example: the count says so first, and the
        // scenario is then made only when the link is written.
        let example_asks = example.asks.len();
        let is_example = Memo::new(move |_| {
            asks.with(Vec::len) == example_asks && scenario.with(|s| *s == example)
        });
        // The edits that change the request, tracked one by one; the request itself (another
        // copy of every ask) is made once they settle, not on every keystroke.
        // Read, not only tracked: a memo first computed after this effect's first run (by the
        // first plan, made in a task of its own: `app::App`) would have counted as an edit.
        let settled = crate::settle::after_edits(move || {
            gpu_count_error.with(|_| ());
            nodes_error.with(|_| ());
            context_overhead_error.with(|_| ());
            caps.with(|_| ());
            optimize.track();
            asks.with(Vec::len)
        });
        let request = Memo::new(move |_| {
            settled.track();
            PackRequest {
                asks: asks.get_untracked(),
                gpu_count: None,
                cluster: Cluster::Given(caps.get_untracked()),
                options: PackOptions {
                    optimize: optimize.get_untracked(),
                    time_limit_ms: Some(OPTIMIZE_MS),
                },
            }
        });
        // A field the page cannot read is not planned around: the plan waits for it.
        let plan = Memo::new(move |_| {
            settled.track();
            untrack(|| {
                let unread = |field: &str, e: Option<String>| {
                    e.map(|m| Err(Error::new(ErrorKind::Syntax, m).in_field(field)))
                };
                unread("gpu_count", gpu_count_error.get())
                    .or_else(|| unread("nodes", nodes_error.get()))
                    .or_else(|| unread("context_overhead_mib", context_overhead_error.get()))
                    .unwrap_or_else(|| request.with(api::pack_given_leaving_out))
            })
        });
        // The rows of the asks the plan was made of (the rows may have changed since).
        let planned_rows = Memo::new(move |_| {
            settled.track();
            ask_rows.get_untracked()
        });
        let left_out = Memo::new(move |_| {
            let ids = planned_rows.get();
            plan.with(|p| {
                p.as_ref().map_or_else(
                    |_| Vec::new(),
                    |p| {
                        p.left_out
                            .iter()
                            .filter_map(|l| Some((*ids.get(l.index)?, l.clone())))
                            .collect()
                    },
                )
            })
        });
        let profile_model = Memo::new(move |_| {
            let from_plan = plan.with(|p| {
                p.as_ref()
                    .ok()
                    .and_then(|p| p.result.gpu_model.as_deref().and_then(find_model))
            });
            let from_caps = caps.with(|c| c.gpu_model.as_deref().and_then(find_model));
            from_plan
                .filter(|m| m.is_mig_capable())
                .or(from_caps.filter(|m| m.is_mig_capable()))
                .or_else(|| find_model(DEFAULT_MIG_MODEL))
                .unwrap_or(&gpu_share_core::api::models()[0])
        });
        AppState {
            rows,
            next_id,
            gpu_model,
            gpu_count,
            nodes,
            nodes_error,
            context_overhead,
            context_overhead_error,
            mig,
            limit_profiles,
            allowed_profiles,
            mps,
            timeslice,
            optimize,
            link_dropped: RwSignal::new(link_dropped),
            asks,
            ask_rows,
            left_out,
            is_example,
            focus_row: RwSignal::new(None),
            detected_mig: RwSignal::new(DetectedMig::default()),
            invalid_rows,
            gpu_count_error,
            caps,
            scenario,
            request,
            settled,
            plan,
            profile_model,
        }
    }

    /// A new row with a fresh id.
    pub fn new_row(&self, t: RowText) -> AskRow {
        let id = self.next_id.get_value();
        self.next_id.set_value(id + 1);
        AskRow::new(id, t)
    }

    /// Empties the scenario: no asks, the cluster fields blank (the example's "Clear").
    pub fn clear(&self) {
        self.rows.set(Vec::new());
        self.gpu_count.set(String::new());
        self.nodes.set(String::new());
    }

    /// Replaces all rows (loading a list).
    pub fn replace_rows(&self, texts: Vec<RowText>) {
        let rows: Vec<AskRow> = texts.into_iter().map(|t| self.new_row(t)).collect();
        self.rows.set(rows);
    }
}

#[cfg(test)]
mod tests;
