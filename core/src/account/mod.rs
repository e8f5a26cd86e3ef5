//! Accounting: fractional GPU-hours, the usage ledger's entries, and what they add up to.
//!
//! The ledger is a list of events the caller stores (a file, localStorage): a usage record, closed
//! (with a duration) or open (running until a release event). Time is always passed in, as Unix
//! seconds; the core never reads a clock. Entries have no ids: an entry's identity is its whole
//! content (`merge.rs`), which is how an import adds nothing twice and an undo takes back exactly
//! what was recorded.

mod bill;
mod export;
#[cfg(feature = "serde")]
mod jsonl;
mod merge;
mod summary;
mod when;

pub use bill::SharedGpu;
pub use export::{csv_cell, ledger_csv, summary_csv};
#[cfg(feature = "serde")]
pub use jsonl::{
    format_entry, ledger_document, parse_ledger, parse_ledger_any, LEDGER_VERSION, MAX_LEDGER_BYTES,
};
pub use merge::{already_recorded, merge_entries, remove_entries, AlreadyRecorded};
pub use summary::{
    summarize, Rates, RatesInput, Summary, SummaryRow, Totals, DEFAULT_GRID_G_PER_KWH, DEFAULT_PUE,
};
pub use when::utc_text;

use crate::error::{Error, ErrorKind, Result};
use crate::plan::{Choice, Isolation, Mechanism};
use crate::units::{Share, UNITS_PER_GPU};

/// GPU-hours, exact: held as unit-seconds (units of a GPU × seconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GpuHours(pub(crate) u128);

impl GpuHours {
    pub const ZERO: GpuHours = GpuHours(0);

    /// The nearest `f64` number of GPU-hours.
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / (f64::from(3600u32) * UNITS_PER_GPU as f64)
    }

    pub fn saturating_sub(self, other: GpuHours) -> GpuHours {
        GpuHours(self.0.saturating_sub(other.0))
    }

    /// Decimal text with `places` digits after the point, rounded half up.
    pub fn to_fixed(self, places: u32) -> String {
        let den = 3600 * u128::from(UNITS_PER_GPU);
        let scale = 10u128.pow(places);
        // Whole hours and the remainder apart, so that an absurd total (an open use resolved at
        // the end of time) saturates instead of overflowing: `r * scale * 2` stays far below u128.
        let (hours, rest) = (self.0 / den, self.0 % den);
        let scaled = hours
            .saturating_mul(scale)
            .saturating_add((rest * scale * 2 + den) / (2 * den));
        if places == 0 {
            return scaled.to_string();
        }
        format!(
            "{}.{:0width$}",
            scaled / scale,
            scaled % scale,
            width = places as usize
        )
    }
}

impl std::ops::Add for GpuHours {
    type Output = GpuHours;
    fn add(self, other: GpuHours) -> GpuHours {
        GpuHours(self.0.saturating_add(other.0))
    }
}

impl std::iter::Sum for GpuHours {
    fn sum<I: Iterator<Item = GpuHours>>(iter: I) -> GpuHours {
        iter.fold(GpuHours::ZERO, |a, b| a + b)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for GpuHours {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_f64(self.to_f64())
    }
}

/// Fractional GPU-hours: `fraction × seconds / 3600` (0.25 GPU for 7,200 s = 0.5 GPU-h), exactly.
pub fn fractional_gpu_hours(fraction: Share, seconds: u64) -> GpuHours {
    GpuHours(u128::from(fraction.units()) * u128::from(seconds))
}

/// One use of GPU capacity by one ask.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct UsageRecord {
    pub ask: String,
    pub mechanism: Mechanism,
    pub isolation: Isolation,
    pub requested_fraction: Share,
    pub allocated_fraction: Share,
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub mig_profile: Option<String>,
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub gpu_model: Option<String>,
    /// When the use started, Unix seconds (supplied by the caller).
    pub started_at: i64,
    /// How long it ran; `None` while it is still running (closed by a [`LedgerEntry::Release`]).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub seconds: Option<u64>,
    /// Where it ran, when a packing recorded it: tenants of one GPU are billed together.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub gpu: Option<GpuPlacement>,
}

/// The GPU a packed ask ran on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct GpuPlacement {
    /// The packing the record came from (records of one packing share it).
    pub plan: String,
    /// The GPU's index in that packing (the first, for an ask on several whole GPUs).
    pub index: u64,
    /// A MIG instance's first memory slice.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub start: Option<u8>,
}

impl UsageRecord {
    /// A record of `choice`, started at `started_at`, for `seconds` (or open).
    pub fn from_choice(choice: &Choice, started_at: i64, seconds: Option<u64>) -> UsageRecord {
        UsageRecord {
            ask: choice.name.clone(),
            mechanism: choice.mechanism,
            isolation: choice.isolation,
            requested_fraction: choice.requested_fraction,
            allocated_fraction: choice.allocated_fraction,
            mig_profile: choice.mig_profile.clone(),
            gpu_model: choice.gpu_model.clone(),
            started_at,
            seconds,
            gpu: None,
        }
    }

    /// The GPU-hours a finished use was allocated (`None` while it is open).
    pub fn allocated_gpu_hours(&self) -> Option<GpuHours> {
        self.seconds
            .map(|s| fractional_gpu_hours(self.allocated_fraction, s))
    }
}

/// One line of the ledger.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum LedgerEntry {
    Usage(UsageRecord),
    /// Closes the latest open usage of `ask` at `at` (Unix seconds).
    Release {
        ask: String,
        at: i64,
    },
}

/// Whether a use has ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum UsageStatus {
    Closed,
    /// Still open: counted up to `now`.
    Running,
}

/// A usage record with its duration settled.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Usage {
    pub record: UsageRecord,
    pub seconds: u64,
    pub status: UsageStatus,
    /// What the use is billed: its allocated share × seconds, or less where tenants of one GPU
    /// would otherwise be billed more than the GPU (`bill.rs`).
    #[cfg_attr(feature = "serde", serde(rename = "allocated_gpu_hours"))]
    #[cfg_attr(feature = "ts", ts(rename = "allocatedGpuHours"))]
    allocated: GpuHours,
}

impl Usage {
    pub fn requested_gpu_hours(&self) -> GpuHours {
        fractional_gpu_hours(self.record.requested_fraction, self.seconds)
    }
    pub fn allocated_gpu_hours(&self) -> GpuHours {
        self.allocated
    }
}

/// Pairs releases with open records, counts still-open ones up to `now`, and bills tenants of one
/// GPU together (never more than the GPU).
///
/// # Errors
/// `Ledger`, with the 1-based entry number, for a release with no open record of that ask.
pub fn resolve(entries: &[LedgerEntry], now: i64) -> Result<Vec<Usage>> {
    let mut usages: Vec<Usage> = Vec::new();
    for (n, entry) in entries.iter().enumerate() {
        match entry {
            LedgerEntry::Usage(r) => usages.push(Usage {
                allocated: GpuHours::ZERO,
                record: r.clone(),
                seconds: r.seconds.unwrap_or(0),
                status: if r.seconds.is_some() {
                    UsageStatus::Closed
                } else {
                    UsageStatus::Running
                },
            }),
            LedgerEntry::Release { ask, at } => {
                let open = usages
                    .iter_mut()
                    .rev()
                    .find(|u| u.status == UsageStatus::Running && &u.record.ask == ask);
                let Some(u) = open else {
                    return Err(Error::new(
                        ErrorKind::Ledger,
                        format!("release of {ask:?}, which has no open allocation"),
                    )
                    .at_line(n + 1));
                };
                u.seconds = elapsed(u.record.started_at, *at);
                u.status = UsageStatus::Closed;
            }
        }
    }
    for u in usages
        .iter_mut()
        .filter(|u| u.status == UsageStatus::Running)
    {
        u.seconds = elapsed(u.record.started_at, now);
    }
    bill::bill(&mut usages);
    Ok(usages)
}

/// Seconds from `start` to `end`; a clock that went backwards counts as no time, never negative.
fn elapsed(start: i64, end: i64) -> u64 {
    u64::try_from(i128::from(end) - i128::from(start)).unwrap_or(0)
}

#[cfg(test)]
mod tests;
