//! The page's state: one signal per input, memos for the plan and the ledger summary, shared through context.

use gpu_share_core::account::{resolve, summarize, Rates, Summary};
use gpu_share_core::catalog::{find_model, GpuModel, DEFAULT_MIG_MODEL};
use gpu_share_core::pack::{bin_pack_with, optimize::Budget, PackOptions};
use gpu_share_core::parse::parse_hours;
use gpu_share_core::{
    AskSize, ClusterGpuCaps, Error, FractionalAsk, LedgerEntry, PackResult, Scenario, Share, Usage,
};
use leptos::prelude::*;

use crate::format;
use crate::storage::LoadError;

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
        let (kind, fraction, profile) = match &ask.size {
            AskSize::Fraction(f) => (SizeKind::Fraction, f.to_string(), String::new()),
            AskSize::MigProfile(p) => (SizeKind::Mig, String::new(), p.clone()),
        };
        RowText {
            name: ask.name.clone(),
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

/// The editable accounting rates, as typed.
#[derive(Clone, Copy)]
pub struct RateInputs {
    pub cost: RwSignal<String>,
    pub watts: RwSignal<String>,
    pub pue: RwSignal<String>,
    pub grid: RwSignal<String>,
}

/// A status line: an error or a confirmation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    Ok(String),
    Error(String),
}

/// Everything the components share, all `Copy` handles.
#[derive(Clone, Copy)]
pub struct AppState {
    pub rows: RwSignal<Vec<AskRow>>,
    next_id: StoredValue<u64>,
    pub gpu_model: RwSignal<String>,
    pub gpu_count: RwSignal<String>,
    pub mig: RwSignal<bool>,
    pub limit_profiles: RwSignal<bool>,
    pub allowed_profiles: RwSignal<Vec<String>>,
    pub mps: RwSignal<bool>,
    pub timeslice: RwSignal<bool>,
    /// Search for a packing on fewer GPUs than first-fit-decreasing (`&optimize` in the link).
    pub optimize: RwSignal<bool>,
    /// With `optimize`: (GPUs first-fit-decreasing used, whether the packing is proven optimal).
    pub optimized: Memo<Option<(u64, bool)>>,
    /// The compact view for iframes.
    pub embed: bool,
    /// Why the link's scenario could not be read, if it could not.
    pub link_error: RwSignal<Option<String>>,
    /// The valid asks, in row order, with each row's duration (rows with errors are left out).
    pub asks: Memo<Vec<(FractionalAsk, Option<u64>)>>,
    /// Rows left out of the plan because of an error in them.
    pub invalid_rows: Memo<usize>,
    pub gpu_count_error: Memo<Option<String>>,
    pub caps: Memo<ClusterGpuCaps>,
    pub scenario: Memo<Scenario>,
    pub pack: Memo<Result<PackResult, Error>>,
    /// The MIG-capable model whose profiles the pickers offer.
    pub profile_model: Memo<&'static GpuModel>,
    pub ledger: RwSignal<Vec<LedgerEntry>>,
    /// False when the stored ledger could not be read: it is then left alone until cleared.
    pub ledger_writable: RwSignal<bool>,
    pub ledger_notice: RwSignal<Option<Notice>>,
    pub now: RwSignal<i64>,
    pub rates_text: RateInputs,
    pub rates: Memo<Result<Rates, String>>,
    pub summary: Memo<Result<(Vec<Usage>, Summary), String>>,
}

/// The search budget of `optimize` in the page: about 100 ms of a native release build (the page
/// stays responsive; most plans reach a proven optimum far sooner).
const OPTIMIZE_MS: u64 = 100;

/// The scenario the page opens with when the link carries none: the seed's pack example.
pub const DEFAULT_QUERY: &str = "ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice";

impl AppState {
    /// State from the page's query string and the stored ledger.
    pub fn new(
        query: &str,
        embed: bool,
        ledger: Result<Vec<LedgerEntry>, LoadError>,
        now: i64,
    ) -> AppState {
        let (scenario, link_error) = match Scenario::from_query(query) {
            Ok(s) if s == Scenario::default() => (
                Scenario::from_query(DEFAULT_QUERY).unwrap_or_default(),
                None,
            ),
            Ok(s) => (s, None),
            Err(e) => (
                Scenario::default(),
                Some(format!("The link's scenario could not be read: {e}")),
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
        let gpu_count = RwSignal::new(caps.gpu_count.map(|n| n.to_string()).unwrap_or_default());
        let mig = RwSignal::new(caps.supports_mig);
        let limit_profiles = RwSignal::new(caps.mig_profiles.is_some());
        let allowed_profiles = RwSignal::new(caps.mig_profiles.clone().unwrap_or_default());
        let mps = RwSignal::new(caps.supports_mps);
        let timeslice = RwSignal::new(caps.supports_timeslicing);
        let optimize = RwSignal::new(scenario.optimize);

        let asks = Memo::new(move |_| {
            rows.with(|rows| {
                rows.iter()
                    .filter_map(|r| Some((r.ask().ok()?, r.seconds().ok().flatten())))
                    .collect::<Vec<_>>()
            })
        });
        let invalid_rows =
            Memo::new(move |_| rows.with(|rows| rows.iter().filter(|r| r.ask().is_err()).count()));
        let gpu_count_error = Memo::new(move |_| format::gpu_count(&gpu_count.get()).err());
        let caps = Memo::new(move |_| ClusterGpuCaps {
            supports_mig: mig.get(),
            mig_profiles: limit_profiles.get().then(|| allowed_profiles.get()),
            supports_mps: mps.get(),
            supports_timeslicing: timeslice.get(),
            gpu_model: Some(gpu_model.get()).filter(|m| !m.trim().is_empty()),
            gpu_count: format::gpu_count(&gpu_count.get()).ok().flatten(),
        });
        let scenario = Memo::new(move |_| Scenario {
            asks: asks.with(|a| a.iter().map(|(ask, _)| ask.clone()).collect()),
            caps: caps.get(),
            optimize: optimize.get(),
        });
        let packed = Memo::new(move |_| {
            scenario.with(|s| {
                let options = PackOptions {
                    optimize: s.optimize.then(|| Budget::from_millis(OPTIMIZE_MS)),
                };
                bin_pack_with(&s.asks, None, &s.caps, &options)
            })
        });
        let pack = Memo::new(move |_| {
            packed.with(|p| p.as_ref().map(|p| p.result.clone()).map_err(Clone::clone))
        });
        let optimized = Memo::new(move |_| {
            let on = scenario.with(|s| s.optimize);
            packed.with(|p| {
                p.as_ref()
                    .ok()
                    .filter(|_| on)
                    .map(|p| (p.ffd_gpus, p.proven_optimal))
            })
        });
        let profile_model = Memo::new(move |_| {
            let from_pack = pack.with(|p| {
                p.as_ref()
                    .ok()
                    .and_then(|p| p.gpu_model.as_deref().and_then(find_model))
            });
            let from_caps = caps.with(|c| c.gpu_model.as_deref().and_then(find_model));
            from_pack
                .filter(|m| m.is_mig_capable())
                .or(from_caps.filter(|m| m.is_mig_capable()))
                .or_else(|| find_model(DEFAULT_MIG_MODEL))
                .unwrap_or(&gpu_share_core::models()[0])
        });

        let (entries, writable, notice) = match ledger {
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
        let ledger = RwSignal::new(entries);
        let now = RwSignal::new(now);
        let rates_text = RateInputs {
            cost: RwSignal::new(String::new()),
            watts: RwSignal::new(String::new()),
            pue: RwSignal::new(Rates::default().pue.to_string()),
            grid: RwSignal::new(Rates::default().grid_g_co2e_per_kwh.to_string()),
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
            let usages = ledger
                .with(|l| resolve(l, now.get()))
                .map_err(|e| e.to_string())?;
            let summary = summarize(&usages, &rates);
            Ok((usages, summary))
        });
        AppState {
            rows,
            next_id,
            gpu_model,
            gpu_count,
            mig,
            limit_profiles,
            allowed_profiles,
            mps,
            timeslice,
            optimize,
            optimized,
            embed,
            link_error: RwSignal::new(link_error),
            asks,
            invalid_rows,
            gpu_count_error,
            caps,
            scenario,
            pack,
            profile_model,
            ledger,
            ledger_writable: RwSignal::new(writable),
            ledger_notice: RwSignal::new(notice),
            now,
            rates_text,
            rates,
            summary,
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

/// Rates from the form's text, validated by the core.
pub fn build_rates(cost: &str, watts: &str, pue: &str, grid: &str) -> Result<Rates, String> {
    let field =
        |name: &str, text: &str| format::optional_number(text).map_err(|e| format!("{name}: {e}"));
    let defaults = Rates::default();
    let rates = Rates {
        cost_per_gpu_hour: field("cost per GPU-hour", cost)?,
        watts: field("watts", watts)?,
        pue: field("PUE", pue)?.unwrap_or(defaults.pue),
        grid_g_co2e_per_kwh: field("grid intensity", grid)?.unwrap_or(defaults.grid_g_co2e_per_kwh),
    };
    rates.validate().map_err(|e| e.to_string())?;
    Ok(rates)
}

/// The page's clock, in Unix seconds.
pub fn now_unix() -> i64 {
    (js_sys::Date::now() / 1000.0).floor() as i64
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
    fn without_storage_the_ledger_still_works_and_says_it_will_not_persist() {
        let why = "local storage is not available in this browser (SecurityError: denied)";
        let s = AppState::new("", false, Err(LoadError::Unavailable(why.into())), 0);
        assert!(s.ledger_writable.get_untracked());
        let Some(Notice::Error(n)) = s.ledger_notice.get_untracked() else {
            panic!("no notice");
        };
        assert!(n.starts_with(why) && n.contains("will not persist"), "{n}");
        // An unreadable stored ledger is another matter: it is left alone until cleared.
        let s = AppState::new("", false, Err(LoadError::Unreadable("line 2".into())), 0);
        assert!(!s.ledger_writable.get_untracked());
    }

    #[test]
    fn durations_and_rates() {
        assert_eq!(build_seconds(""), Ok(None));
        assert_eq!(build_seconds("2"), Ok(Some(7200)));
        assert_eq!(
            build_seconds("-1").unwrap_err().field.as_deref(),
            Some("hours")
        );
        let r = build_rates("2.5", "", "1.2", "").unwrap();
        assert_eq!(r.cost_per_gpu_hour, Some(2.5));
        assert_eq!(r.watts, None);
        assert_eq!(r.grid_g_co2e_per_kwh, Rates::default().grid_g_co2e_per_kwh);
        assert!(build_rates("", "", "0.5", "").unwrap_err().contains("pue"));
        assert!(build_rates("cheap", "", "", "")
            .unwrap_err()
            .contains("cost"));
    }
}
