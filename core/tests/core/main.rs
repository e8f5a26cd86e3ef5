//! The core's integration tests, in one test binary (one link of the core and its test
//! dependencies instead of one per file), one module per subject, and one set of helpers:
//! `common` (fixtures read from `tests/fixtures/`, asks, caps, exports read back).
//!
//! Modules that read or write JSON or YAML need the `serde` feature (`yaml` for kubectl YAML,
//! `ts` for the TypeScript declarations); they are left out without it, so that
//! `cargo test -p gpu-share-core --no-default-features` builds and runs the rest.
//! Two modules are also run alone, by name: `cargo xtask test` runs `no_panic::` at a high case
//! count, and `cargo xtask npm` runs `ts_export::` to write the npm package's `data.d.ts`.

// Without `serde`, the modules that use some of the helpers are not built.
#[cfg_attr(not(feature = "serde"), allow(dead_code))]
mod common;

mod discover;
#[cfg(feature = "serde")]
mod discover_kubectl;
mod discover_mig;
#[cfg(feature = "serde")]
mod dra;
#[cfg(feature = "yaml")]
mod dra_yaml;
#[cfg(feature = "serde")]
mod export;
#[cfg(feature = "serde")]
mod export_hostile;
#[cfg(feature = "serde")]
mod export_nodes;
mod fit;
#[cfg(feature = "serde")]
mod limits;
#[cfg(feature = "serde")]
mod no_panic;
mod repartition;
#[cfg(feature = "serde")]
mod simulate_dra;
#[cfg(feature = "ts")]
mod ts_export;
