//! The core's insides, for its own tests, the fuzz targets and the bench only (feature
//! `internals`): each domain module as it is, and the items the crate root once re-exported.
//! No front end enables the feature, and `cargo xtask lint` fails if one names this path: a front
//! end reaches the core through [`crate::api`] alone.

pub mod account {
    pub use crate::account::*;
}
pub mod ask {
    pub use crate::ask::*;
}
pub mod caps {
    pub use crate::caps::*;
}
pub mod catalog {
    pub use crate::catalog::*;
}
pub mod discover {
    pub use crate::discover::*;
}
pub mod error {
    pub use crate::error::*;
}
pub mod export {
    pub use crate::export::*;
}
pub mod memory {
    pub use crate::memory::*;
}
pub mod nodes {
    pub use crate::caps::nodes::*;
}
pub mod pack {
    pub use crate::pack::*;
}
pub mod parse {
    pub use crate::parse::*;
}
pub mod plan {
    pub use crate::plan::*;
}
pub mod replay {
    pub use crate::replay::*;
}
pub mod scenario {
    pub use crate::scenario::*;
}
#[cfg(feature = "serde")]
pub mod size {
    pub use crate::size::*;
}
pub mod sort {
    pub use crate::sort::*;
}
pub mod units {
    pub use crate::units::*;
}
pub mod validate_mig {
    pub use crate::validate_mig::*;
}

pub use crate::account::{
    fractional_gpu_hours, GpuHours, LedgerEntry, Rates, Summary, Usage, UsageRecord,
};
pub use crate::ask::{AskSize, FractionalAsk};
pub use crate::caps::ClusterGpuCaps;
pub use crate::catalog::{find_model, models, GpuModel, MigProfile};
pub use crate::discover::{detect, detect_all, Inventory};
pub use crate::error::{Error, ErrorKind, Hint, Input, Result};
pub use crate::memory::Memory;
pub use crate::pack::{bin_pack, GpuLayout, MigInstance, PackResult, Unplaced};
pub use crate::plan::{
    select_mechanism, warning_groups, Choice, Isolation, Mechanism, WarningGroup, WarningKind,
};
pub use crate::scenario::Scenario;
pub use crate::units::Share;
pub use crate::validate_mig::{validate_mig, MigPlacement, MigValidation};
