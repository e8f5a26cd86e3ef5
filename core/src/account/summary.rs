//! The FinOps and carbon summary of a ledger: GPU-hours by workload and by mechanism, cost, energy, CO2e.

use super::{GpuHours, SharedGpu, Usage, UsageStatus};
use crate::catalog;
use crate::error::{Error, ErrorKind, Result};
use std::collections::BTreeMap;

/// Board power assumed when the record's GPU model is unknown: the A100-SXM4-40GB's default power
/// limit in a real `nvidia-smi -q -x` capture (docs/hardware-facts.md §7).
pub const DEFAULT_WATTS: f64 = 400.0;
/// Power usage effectiveness assumed when none is given: CodeCarbon's default, 1.0 (docs/hardware-facts.md §7).
pub const DEFAULT_PUE: f64 = 1.0;
/// Grid carbon intensity assumed when none is given: CodeCarbon's world average, 475 gCO2e/kWh (docs/hardware-facts.md §7).
pub const DEFAULT_GRID_G_PER_KWH: f64 = 475.0;

/// Rates for turning GPU-hours into money and carbon. Energy is the allocated GPU-hours at the
/// board's power limit — an upper estimate, since GPUs seldom draw their limit all the time.
///
/// Built only by [`Rates::new`] (or read from JSON through it), so every `Rates` is valid.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "RatesInput"))]
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
pub struct RatesInput {
    /// Price of one GPU-hour; no cost is reported without it.
    pub cost_per_gpu_hour: Option<f64>,
    /// Board power in watts for every record; `None` uses each model's power limit from the catalogue.
    pub watts: Option<f64>,
    /// Power usage effectiveness (≥ 1); default [`DEFAULT_PUE`].
    pub pue: Option<f64>,
    /// Grid carbon intensity; default [`DEFAULT_GRID_G_PER_KWH`].
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

    fn watts_for(&self, model: Option<&str>) -> f64 {
        self.watts.unwrap_or_else(|| {
            model
                .and_then(catalog::find_model)
                .and_then(|m| m.power_limit_w)
                .map_or(DEFAULT_WATTS, f64::from)
        })
    }
}

/// Totals for one group of usage records.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
pub struct Summary {
    pub totals: Totals,
    pub by_workload: Vec<SummaryRow>,
    pub by_mechanism: Vec<SummaryRow>,
    /// GPUs that packed tenants shared, each billed at most once over.
    pub shared_gpus: Vec<SharedGpu>,
    /// GPU time on shared GPUs that no tenant was billed for (free capacity left on them).
    pub idle_gpu_hours: GpuHours,
    pub rates: Rates,
}

impl SummaryRow {
    fn add(&mut self, u: &Usage, rates: &Rates) {
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
        let kwh = allocated.to_f64() * rates.watts_for(u.record.gpu_model.as_deref()) / 1000.0
            * rates.pue;
        self.energy_kwh += kwh;
        self.co2e_kg += kwh * rates.grid_g_co2e_per_kwh / 1000.0;
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
    for u in usages {
        totals.add(u, rates);
        workloads
            .entry(&u.record.ask)
            .or_insert_with(|| SummaryRow {
                key: u.record.ask.clone(),
                ..Default::default()
            })
            .add(u, rates);
        mechanisms
            .entry(u.record.mechanism)
            .or_insert_with(|| SummaryRow {
                key: u.record.mechanism.to_string(),
                ..Default::default()
            })
            .add(u, rates);
    }
    let shared_gpus = super::bill::bill(&mut usages.to_vec());
    Summary {
        totals,
        by_workload: workloads.into_values().collect(),
        by_mechanism: mechanisms.into_values().collect(),
        idle_gpu_hours: shared_gpus.iter().map(|g| g.idle_gpu_hours).sum(),
        shared_gpus,
        rates: rates.clone(),
    }
}
