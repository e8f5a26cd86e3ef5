//! The page's components, one per file: asks table, capabilities form, plan table, packing diagram, ledger, share bar.

pub mod asks;
pub mod caps;
pub mod diagram;
pub mod ledger;
pub mod plan;
pub mod share;
