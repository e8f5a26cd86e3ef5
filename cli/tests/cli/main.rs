//! The `gpu-share` binary end to end, in one test binary (one link of the CLI and its test
//! dependencies instead of one per file). Every test runs the binary through `common`, in a clean
//! environment.

mod common;

mod commands;
mod detect;
mod engine;
mod export;
mod fit;
mod ledger;
mod ledger_durability;
mod limits;
mod pack;
mod readme;
mod repartition;
mod replay;
mod simulate_dra;
mod size;
mod svg;
