//! The page's components, one per file: asks table, capabilities form, discovery box, plan table, packing diagram,
//! export panel, GPUs as they are (fit), the pager of long tables, size from a model (and models served together), replay of a cluster's workload, ledger, share bar, the summary kept in view.

pub mod asks;
pub mod caps;
pub mod detect;
pub mod diagram;
pub mod export;
pub mod fit;
pub mod ledger;
pub mod left_out;
pub mod pager;
pub mod plan;
pub mod repartition;
pub mod replay;
mod serve_together;
pub mod share;
pub mod size;
mod size_engine;
pub mod summary;
