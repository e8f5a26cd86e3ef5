//! The page's scenario: one signal per input, and memos for the request and the core's plan of it
//! (`api::pack`), shared through context.

use gpu_share_core::api::{self, Cluster, PackRequest, PackResponse};
use gpu_share_core::catalog::{find_model, GpuModel, DEFAULT_MIG_MODEL};
use gpu_share_core::parse::{parse_hours, AskEntry};
use gpu_share_core::{AskSize, ClusterGpuCaps, Error, FractionalAsk, Scenario, Share};
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
    pub profile: RwSignal<String>,
    /// Duration in hours for accounting; blank records an open (running) use.
    pub hours: RwSignal<String>,
}

/// The text fields of a row, for building rows and for tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowText {
    pub name: String,
    pub kind: SizeKind,
    pub fraction: String,
    pub profile: String,
    pub hours: String,
}

impl RowText {
    /// The row for an ask read from a link or a file.
    pub fn from_ask(ask: &FractionalAsk, seconds: Option<u64>) -> RowText {
        let (kind, fraction, profile) = match &ask.size() {
            AskSize::Fraction(f) => (SizeKind::Fraction, f.to_string(), String::new()),
            AskSize::MigProfile(p) => (SizeKind::Mig, String::new(), p.clone()),
        };
        RowText {
            name: ask.name().to_string(),
            kind,
            fraction,
            profile,
            hours: seconds.map(format::hours_text).unwrap_or_default(),
        }
    }

    /// The ask this row describes, through the core's constructors (errors name the field).
    pub fn ask(&self) -> Result<FractionalAsk, Error> {
        build_ask(&self.name, self.kind, &self.fraction, &self.profile)
    }
}

/// Builds an ask from the row's fields; the error's field is `name`, `fraction` or `mig_profile`.
pub fn build_ask(
    name: &str,
    kind: SizeKind,
    fraction: &str,
    profile: &str,
) -> Result<FractionalAsk, Error> {
    gpu_share_core::ask::validate_name(name)?;
    match kind {
        SizeKind::Fraction => {
            let share = Share::parse(fraction).map_err(|e| e.in_field("fraction"))?;
            FractionalAsk::fraction(name, share)
        }
        SizeKind::Mig => FractionalAsk::mig(name, profile),
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
        AskRow {
            id,
            name: RwSignal::new(t.name),
            kind: RwSignal::new(t.kind),
            fraction: RwSignal::new(t.fraction),
            profile: RwSignal::new(t.profile),
            hours: RwSignal::new(t.hours),
        }
    }

    /// The row's current text (tracked: a memo reading it re-runs when the row changes).
    pub fn text(&self) -> RowText {
        RowText {
            name: self.name.get(),
            kind: self.kind.get(),
            fraction: self.fraction.get(),
            profile: self.profile.get(),
            hours: self.hours.get(),
        }
    }

    pub fn ask(&self) -> Result<FractionalAsk, Error> {
        self.text().ask()
    }

    pub fn seconds(&self) -> Result<Option<u64>, Error> {
        build_seconds(&self.hours.get())
    }
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
    pub mig: RwSignal<bool>,
    pub limit_profiles: RwSignal<bool>,
    pub allowed_profiles: RwSignal<Vec<String>>,
    pub mps: RwSignal<bool>,
    pub timeslice: RwSignal<bool>,
    /// Search for a packing on fewer GPUs than first-fit-decreasing (`&optimize` in the link).
    pub optimize: RwSignal<bool>,
    /// Why the link's scenario could not be read, if it could not.
    pub link_error: RwSignal<Option<String>>,
    /// The valid asks, in row order, with each row's duration (rows with errors are left out).
    pub asks: Memo<Vec<AskEntry>>,
    /// Rows left out of the plan because of an error in them.
    pub invalid_rows: Memo<usize>,
    pub gpu_count_error: Memo<Option<String>>,
    pub caps: Memo<ClusterGpuCaps>,
    /// The scenario as the link carries it.
    pub scenario: Memo<Scenario>,
    /// The request the plan is made from; the export panel and "Record this plan" use it too.
    pub request: Memo<PackRequest>,
    /// The core's answer to `request`: the packing and, with `optimize`, how the optimizer did.
    pub plan: Memo<Result<PackResponse, Error>>,
    /// The MIG-capable model whose profiles the pickers offer.
    pub profile_model: Memo<&'static GpuModel>,
}

/// The search budget of `optimize` in the page: about 100 ms of a native release build (the page
/// stays responsive; most plans reach a proven optimum far sooner).
pub const OPTIMIZE_MS: u64 = 100;

/// The scenario the page opens with when the link carries none: the seed's pack example.
pub const DEFAULT_QUERY: &str = "ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice";

impl AppState {
    /// State from the page's query string.
    pub fn new(query: &str) -> AppState {
        let (scenario, link_error) = match Scenario::from_query(query) {
            Ok(s) if s == Scenario::default() => (
                Scenario::from_query(DEFAULT_QUERY).unwrap_or_default(),
                None,
            ),
            Ok(s) => (s, None),
            Err(e) => (
                Scenario::default(),
                Some(format!(
                    "The link's scenario could not be read: {}",
                    words::error(&e)
                )),
            ),
        };
        let rows: Vec<AskRow> = scenario
            .asks
            .iter()
            .enumerate()
            .map(|(i, a)| AskRow::new(i as u64, RowText::from_ask(a, None)))
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
                .map(gpu_share_core::nodes::nodes_to_text)
                .unwrap_or_default(),
        );
        let mig = RwSignal::new(caps.supports_mig);
        let limit_profiles = RwSignal::new(caps.mig_profiles.is_some());
        let allowed_profiles = RwSignal::new(caps.mig_profiles.clone().unwrap_or_default());
        let mps = RwSignal::new(caps.supports_mps);
        let timeslice = RwSignal::new(caps.supports_timeslicing);
        let optimize = RwSignal::new(scenario.optimize);

        let asks = Memo::new(move |_| {
            rows.with(|rows| {
                rows.iter()
                    .filter_map(|r| {
                        Some(AskEntry {
                            ask: r.ask().ok()?,
                            seconds: r.seconds().ok().flatten(),
                        })
                    })
                    .collect::<Vec<_>>()
            })
        });
        let invalid_rows =
            Memo::new(move |_| rows.with(|rows| rows.iter().filter(|r| r.ask().is_err()).count()));
        let gpu_count_error = Memo::new(move |_| format::gpu_count(&gpu_count.get()).err());
        let nodes_error = Memo::new(move |_| format::nodes(&nodes.get()).err());
        let caps = Memo::new(move |_| ClusterGpuCaps {
            supports_mig: mig.get(),
            mig_profiles: limit_profiles.get().then(|| allowed_profiles.get()),
            supports_mps: mps.get(),
            supports_timeslicing: timeslice.get(),
            gpu_model: Some(gpu_model.get()).filter(|m| !m.trim().is_empty()),
            gpu_count: format::gpu_count(&gpu_count.get()).ok().flatten(),
            nodes: format::nodes(&nodes.get()).ok().flatten(),
        });
        let scenario = Memo::new(move |_| Scenario {
            asks: asks.with(|a| a.iter().map(|e| e.ask.clone()).collect()),
            caps: caps.get(),
            optimize: optimize.get(),
        });
        let request = Memo::new(move |_| PackRequest {
            asks: asks.get(),
            cluster: Cluster::Given(caps.get()),
            optimize_ms: optimize.get().then_some(OPTIMIZE_MS),
        });
        let plan = Memo::new(move |_| request.with(api::pack));
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
                .unwrap_or(&gpu_share_core::models()[0])
        });
        AppState {
            rows,
            next_id,
            gpu_model,
            gpu_count,
            nodes,
            nodes_error,
            mig,
            limit_profiles,
            allowed_profiles,
            mps,
            timeslice,
            optimize,
            link_error: RwSignal::new(link_error),
            asks,
            invalid_rows,
            gpu_count_error,
            caps,
            scenario,
            request,
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

    /// Replaces all rows (loading a list).
    pub fn replace_rows(&self, texts: Vec<RowText>) {
        let rows: Vec<AskRow> = texts.into_iter().map(|t| self.new_row(t)).collect();
        self.rows.set(rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, kind: SizeKind, fraction: &str, profile: &str) -> RowText {
        RowText {
            name: name.into(),
            kind,
            fraction: fraction.into(),
            profile: profile.into(),
            hours: String::new(),
        }
    }

    #[test]
    fn rows_build_asks_through_the_core() {
        let a = row("a", SizeKind::Fraction, "25%", "").ask().unwrap();
        assert_eq!(a.to_spec(), "a:0.25");
        let x = row("x", SizeKind::Mig, "", "3g.20gb").ask().unwrap();
        assert_eq!(x.mig_profile(), Some("3g.20gb"));
        assert_eq!(
            row("", SizeKind::Fraction, "0.5", "")
                .ask()
                .unwrap_err()
                .field
                .as_deref(),
            Some("name")
        );
        assert_eq!(
            row("a", SizeKind::Fraction, "zero", "")
                .ask()
                .unwrap_err()
                .field
                .as_deref(),
            Some("fraction")
        );
        assert_eq!(
            row("a", SizeKind::Fraction, "0", "")
                .ask()
                .unwrap_err()
                .field
                .as_deref(),
            Some("fraction")
        );
        assert_eq!(
            row("a", SizeKind::Mig, "", "")
                .ask()
                .unwrap_err()
                .field
                .as_deref(),
            Some("mig_profile")
        );
        // A profile typed as a fraction is not silently read as a profile.
        assert!(row("a", SizeKind::Fraction, "3g.20gb", "").ask().is_err());
    }

    #[test]
    fn rows_round_trip_asks() {
        for spec in [
            "a:0.5",
            "ns:job:0.3333",
            "x:3g.20gb",
            "<img src=x onerror=alert(1)>:1/4",
            "big:2",
        ] {
            let ask = FractionalAsk::parse_spec(spec).unwrap();
            let t = RowText::from_ask(&ask, Some(5400));
            assert_eq!(t.hours, "1.5");
            assert_eq!(t.ask().unwrap(), ask, "{spec}");
        }
    }

    #[test]
    fn the_plan_is_the_cores_answer_to_the_pages_request() {
        let s =
            AppState::new("ask=a:0.5&ask=b:0.4&ask=c:0.4&ask=d:0.3&ask=e:0.2&ask=f:0.2&timeslice");
        s.rows.with_untracked(|rows| rows[0].hours.set("2".into()));
        let request = s.request.get_untracked();
        assert_eq!(request.asks.len(), 6);
        assert_eq!(request.asks[0].seconds, Some(7200));
        assert_eq!(request.asks[1].seconds, None);
        assert_eq!(request.optimize_ms, None);
        let plan = s.plan.get_untracked().unwrap();
        assert_eq!(plan, api::pack(&request).unwrap());
        assert_eq!((plan.result.gpus_used, plan.optimize), (3, None));
        // Optimize: the request carries the page's budget; the response says how it did.
        s.optimize.set(true);
        let request = s.request.get_untracked();
        assert_eq!(request.optimize_ms, Some(OPTIMIZE_MS));
        let plan = s.plan.get_untracked().unwrap();
        assert_eq!(plan.result.gpus_used, 2);
        let report = plan.optimize.unwrap();
        assert_eq!((report.ffd_gpus, report.proven_optimal), (3, true));
        // A row with an error is left out of the request.
        s.rows
            .with_untracked(|rows| rows[1].fraction.set("zero".into()));
        assert_eq!(s.request.get_untracked().asks.len(), 5);
        assert_eq!(s.invalid_rows.get_untracked(), 1);
    }

    #[test]
    fn durations() {
        assert_eq!(build_seconds(""), Ok(None));
        assert_eq!(build_seconds("2"), Ok(Some(7200)));
        assert_eq!(
            build_seconds("-1").unwrap_err().field.as_deref(),
            Some("hours")
        );
    }
}
