//! gpu-share's pure core: which sharing mechanism serves an ask, how asks pack onto GPUs, and what they cost.
//!
//! The core never does I/O: no files, clock, randomness, environment or JavaScript. Text comes in
//! as `&str`, time as Unix seconds, and results go out as values. Fractions are exact integer
//! [`Share`]s; floats appear only at the edges ([`Share::from_f64`], [`Share::to_f64`]).
//!
//! ```
//! use gpu_share_core::{select_mechanism, bin_pack, ClusterGpuCaps, FractionalAsk, Mechanism};
//!
//! let caps = ClusterGpuCaps { supports_mig: true, ..Default::default() };
//! let choice = select_mechanism(&FractionalAsk::parse_spec("JPCP:0.25")?, &caps)?;
//! assert_eq!(choice.mechanism, Mechanism::Mig);
//! assert_eq!(choice.mig_profile.as_deref(), Some("2g.10gb"));
//!
//! let asks: Vec<_> = ["a:0.5", "b:0.3", "c:0.4"].iter().map(|s| FractionalAsk::parse_spec(s)).collect::<Result<_, _>>()?;
//! let caps = ClusterGpuCaps { supports_timeslicing: true, gpu_count: Some(2), ..Default::default() };
//! let packed = bin_pack(&asks, &caps)?;
//! assert_eq!(packed.gpus_used, 2);
//! # Ok::<(), gpu_share_core::Error>(())
//! ```

pub mod account;
pub mod api;
pub mod ask;
pub mod caps;
pub mod catalog;
pub mod discover;
pub mod error;
pub mod export;
mod fit;
pub mod memory;
pub mod nodes;
pub mod pack;
pub mod parse;
pub mod plan;
#[cfg(feature = "serde")]
pub mod record;
mod repartition;
pub mod replay;
pub mod scenario;
#[cfg(feature = "serde")]
pub mod size;
pub mod sort;
#[cfg(feature = "ts")]
mod ts;
pub mod units;
pub mod validate_mig;

pub use account::{
    fractional_gpu_hours, GpuHours, LedgerEntry, Rates, Summary, Usage, UsageRecord,
};
pub use ask::{AskSize, FractionalAsk};
pub use caps::ClusterGpuCaps;
pub use catalog::{find_model, models, GpuModel, MigProfile};
pub use discover::{detect, detect_all, Inventory};
pub use error::{Error, ErrorKind, Hint, Input, Result};
pub use memory::Memory;
pub use pack::{bin_pack, GpuLayout, MigInstance, PackResult, Unplaced};
pub use plan::{
    select_mechanism, warning_groups, Choice, Isolation, Mechanism, WarningGroup, WarningKind,
};
pub use scenario::Scenario;
pub use units::Share;
pub use validate_mig::{validate_mig, MigPlacement, MigValidation};
