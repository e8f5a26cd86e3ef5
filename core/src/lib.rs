//! gpu-share's pure core: which sharing mechanism serves an ask, how asks pack onto GPUs, and what they cost.
//!
//! The core never does I/O: no files, clock, randomness, environment or JavaScript. Text comes in
//! as `&str`, time as Unix seconds, and results go out as values. Fractions are exact integer
//! [`Share`](api::Share)s; floats appear only at the edges.
//!
//! Everything a front end may use is in [`api`]: each use case once, a request in and a finished
//! response out, and the value types they are made of. The domain modules beneath it are private;
//! tests, fuzz targets and the bench reach them through `internals` (feature `internals`), which
//! no front end enables.
//!
//! ```
//! use gpu_share_core::api::{self, ClusterGpuCaps, FractionalAsk, Mechanism, PackRequest, PlanRequest};
//!
//! let caps = ClusterGpuCaps { supports_mig: true, ..Default::default() };
//! let plan = api::plan(&PlanRequest { ask: FractionalAsk::parse_spec("JPCP:0.25")?, cluster: caps.into() })?;
//! assert_eq!(plan.choice.mechanism, Mechanism::Mig);
//! assert_eq!(plan.choice.mig_profile.as_deref(), Some("2g.10gb"));
//!
//! let asks = ["a:0.5", "b:0.3", "c:0.4"].iter().map(|s| FractionalAsk::parse_spec(s)).collect::<Result<_, _>>()?;
//! let caps = ClusterGpuCaps { supports_timeslicing: true, gpu_count: Some(2), ..Default::default() };
//! let packed = api::pack(&PackRequest::new(asks, caps))?;
//! assert_eq!(packed.result.gpus_used, 2);
//! # Ok::<(), api::Error>(())
//! ```

// Without `internals`, items only tests and the bench reach are unused here; with it (every
// workspace build, where the bench enables it) the lints see all of them.
#![cfg_attr(not(feature = "internals"), allow(dead_code, unused_imports))]

pub mod api;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals;

mod account;
mod ask;
mod caps;
mod catalog;
mod discover;
mod error;
mod export;
mod memory;
mod pack;
mod parse;
mod plan;
mod replay;
mod scenario;
#[cfg(feature = "serde")]
mod size;
mod sort;
#[cfg(feature = "ts")]
#[doc(hidden)]
pub mod ts;
mod units;
mod validate_mig;
