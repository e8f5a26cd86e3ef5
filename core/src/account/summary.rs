//! The FinOps and carbon summary of a ledger: GPU-hours by workload and by mechanism, cost, energy, CO2e.

use super::{GpuHours, SharedGpu, Usage, UsageStatus};
use crate::catalog;
use crate::error::{Error, ErrorKind, Result};
use std::collections::BTreeMap;

/// Power usage effectiveness assumed when none is given: CodeCarbon's default, 1.0 (docs/hardware-facts.md §7).
pub const DEFAULT_PUE: f64 = 1.0;
/// Grid carbon intensity assumed when none is given: CodeCarbon's world average, 475 gCO2e/kWh (docs/hardware-facts.md §7).
pub const DEFAULT_GRID_G_PER_KWH: f64 = 475.0;

/// Rates for turning GPU-hours into money and carbon. Energy is the allocated GPU-hours at the
/// board's power limit — an upper estimate, since GPUs seldom draw their limit all the time. A
/// record whose board power is not known (no `watts` given, and no model or a model without a
/// power figure in the catalogue) counts no energy or carbon, and the summary says so in a note:
/// no power is assumed (docs/hardware-facts.md §7).
///
/// Built only by [`Rates::new`] (or read from JSON through it), so every `Rates` is valid.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "RatesInput"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Rates {
    cost_per_gpu_hour: Option<f64>,
    watts: Option<f64>,
    pue: f64,
    grid_g_co2e_per_kwh: f64,
}

/// Rates as given, each optional: what [`Rates::new`] takes, and the JSON shape
/// `{"cost_per_gpu_hour": 2.5, "watts": 300, "pue": 1.2, "grid_g_co2e_per_kwh": 300}`.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "RatesInit", rename_all = "camelCase"))]
pub struct RatesInput {
    /// Price of one GPU-hour; no cost is reported without it.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub cost_per_gpu_hour: Option<f64>,
    /// Board power in watts for every record; `None` uses each model's power limit from the
    /// catalogue, and leaves out the energy of records whose model has none.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub watts: Option<f64>,
    /// Power usage effectiveness (≥ 1); default [`DEFAULT_PUE`].
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub pue: Option<f64>,
    /// Grid carbon intensity; default [`DEFAULT_GRID_G_PER_KWH`].
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub grid_g_co2e_per_kwh: Option<f64>,
}

impl TryFrom<RatesInput> for Rates {
    type Error = Error;
    fn try_from(input: RatesInput) -> Result<Rates> {
        Rates::new(&input)
    }
}

impl Default for Rates {
    fn default() -> Self {
        Rates {
            cost_per_gpu_hour: None,
            watts: None,
            pue: DEFAULT_PUE,
            grid_g_co2e_per_kwh: DEFAULT_GRID_G_PER_KWH,
        }
    }
}

impl Rates {
    /// Rates from what was given, the defaults for the rest.
    ///
    /// # Errors
    /// `OutOfRange` naming the field for a negative or non-finite rate, or a PUE below 1.
    pub fn new(input: &RatesInput) -> Result<Rates> {
        let check = |v: f64, field: &str, min: f64| {
            if v.is_finite() && v >= min {
                Ok(v)
            } else {
                Err(Error::new(
                    ErrorKind::OutOfRange,
                    format!("must be a number ≥ {min}, got {v}"),
                )
                .in_field(field))
            }
        };
        Ok(Rates {
            cost_per_gpu_hour: input
                .cost_per_gpu_hour
                .map(|c| check(c, "cost_per_gpu_hour", 0.0))
                .transpose()?,
            watts: input.watts.map(|w| check(w, "watts", 0.0)).transpose()?,
            pue: check(input.pue.unwrap_or(DEFAULT_PUE), "pue", 1.0)?,
            grid_g_co2e_per_kwh: check(
                input.grid_g_co2e_per_kwh.unwrap_or(DEFAULT_GRID_G_PER_KWH),
                "grid_g_co2e_per_kwh",
                0.0,
            )?,
        })
    }

    /// Price of one GPU-hour; no cost is reported without it.
    pub fn cost_per_gpu_hour(&self) -> Option<f64> {
        self.cost_per_gpu_hour
    }

    /// Board power in watts for every record; `None` uses each model's power limit.
    pub fn watts(&self) -> Option<f64> {
        self.watts
    }

    pub fn pue(&self) -> f64 {
        self.pue
    }

    pub fn grid_g_co2e_per_kwh(&self) -> f64 {
        self.grid_g_co2e_per_kwh
    }

    /// The board power of a record on `model`: the `watts` rate, else the model's default power
    /// limit from the catalogue; `Err` says why there is none (no figure is assumed).
    fn watts_for(&self, model: Option<&str>) -> std::result::Result<f64, MissingPower> {
        if let Some(w) = self.watts {
            return Ok(w);
        }
        let Some(name) = model else {
            return Err(MissingPower::NoModel);
        };
        match catalog::find_model(name) {
            Some(m) => m
                .power_limit_w
                .map(f64::from)
                .ok_or(MissingPower::NoFigure(m.name.to_string())),
            None => Err(MissingPower::NotCatalogued(name.to_string())),
        }
    }
}

/// Why a record's board power is not known.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum MissingPower {
    /// The record names no GPU model.
    NoModel,
    /// A catalogue model without a power figure (its name).
    NoFigure(String),
    /// A model name the catalogue does not know.
    NotCatalogued(String),
}

impl MissingPower {
    fn note(&self, records: u64) -> String {
        let what = match self {
            MissingPower::NoModel => "no GPU model recorded".to_string(),
            MissingPower::NoFigure(m) => format!("no power figure for {m}"),
            MissingPower::NotCatalogued(m) => format!("{m} is not in the catalogue"),
        };
        let plural = if records == 1 { "" } else { "s" };
        format!(
            "{what}: energy and carbon of {records} record{plural} left out (give the board power in watts)"
        )
    }
}

/// Totals for one group of usage records.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct SummaryRow {
    /// The workload (ask name) or mechanism this row adds up.
    pub key: String,
    pub records: u64,
    /// Records still open, counted up to the time given.
    pub running: u64,
    pub requested_gpu_hours: GpuHours,
    pub allocated_gpu_hours: GpuHours,
    /// Allocated but not requested: the price of isolation and of honest fallbacks.
    pub wasted_gpu_hours: GpuHours,
    pub cost: Option<f64>,
    pub energy_kwh: f64,
    pub co2e_kg: f64,
}

/// Everything the ledger adds up to.
pub type Totals = SummaryRow;

#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Summary {
    pub totals: Totals,
    pub by_workload: Vec<SummaryRow>,
    pub by_mechanism: Vec<SummaryRow>,
    /// GPUs that packed tenants shared, each billed at most once over.
    pub shared_gpus: Vec<SharedGpu>,
    /// GPU time on shared GPUs that no tenant was billed for (free capacity left on them).
    pub idle_gpu_hours: GpuHours,
    pub rates: Rates,
    /// What the totals leave out: records whose board power is not known, so that their energy
    /// and carbon are not counted (none is assumed).
    pub notes: Vec<String>,
}

impl SummaryRow {
    fn add(&mut self, u: &Usage, rates: &Rates, watts: Option<f64>) {
        let requested = u.requested_gpu_hours();
        let allocated = u.allocated_gpu_hours();
        self.records += 1;
        self.running += u64::from(u.status == UsageStatus::Running);
        self.requested_gpu_hours = self.requested_gpu_hours + requested;
        self.allocated_gpu_hours = self.allocated_gpu_hours + allocated;
        self.wasted_gpu_hours = self
            .allocated_gpu_hours
            .saturating_sub(self.requested_gpu_hours);
        if let Some(rate) = rates.cost_per_gpu_hour {
            *self.cost.get_or_insert(0.0) += allocated.to_f64() * rate;
        }
        if let Some(watts) = watts {
            let kwh = allocated.to_f64() * watts / 1000.0 * rates.pue;
            self.energy_kwh += kwh;
            self.co2e_kg += kwh * rates.grid_g_co2e_per_kwh / 1000.0;
        }
    }
}

/// Adds usages up, per workload (sorted by name) and per mechanism (strongest isolation first).
pub fn summarize(usages: &[Usage], rates: &Rates) -> Summary {
    let mut totals = SummaryRow {
        key: "total".into(),
        ..Default::default()
    };
    let mut workloads: BTreeMap<&str, SummaryRow> = BTreeMap::new();
    let mut mechanisms: BTreeMap<crate::plan::Mechanism, SummaryRow> = BTreeMap::new();
    let mut missing: BTreeMap<MissingPower, u64> = BTreeMap::new();
    for u in usages {
        let watts = match rates.watts_for(u.record.gpu_model.as_deref()) {
            Ok(w) => Some(w),
            Err(why) => {
                *missing.entry(why).or_default() += 1;
                None
            }
        };
        totals.add(u, rates, watts);
        workloads
            .entry(&u.record.ask)
            .or_insert_with(|| SummaryRow {
                key: u.record.ask.clone(),
                ..Default::default()
            })
            .add(u, rates, watts);
        mechanisms
            .entry(u.record.mechanism)
            .or_insert_with(|| SummaryRow {
                key: u.record.mechanism.to_string(),
                ..Default::default()
            })
            .add(u, rates, watts);
    }
    let shared_gpus = super::bill::bill(&mut usages.to_vec());
    Summary {
        totals,
        by_workload: workloads.into_values().collect(),
        by_mechanism: mechanisms.into_values().collect(),
        idle_gpu_hours: shared_gpus.iter().map(|g| g.idle_gpu_hours).sum(),
        shared_gpus,
        rates: rates.clone(),
        notes: missing.iter().map(|(why, &n)| why.note(n)).collect(),
    }
}
