//! Replay: a real cluster's workload placed online, pod by pod, under a placement policy — the
//! protocol of the FGD paper's simulator (Weng et al., "Beware of Fragmentation", USENIX ATC
//! 2023) on the Alibaba 2023 GPU trace's node and pod lists (docs/hardware-facts.md §12).
//!
//! `trace` reads the lists; `workload` builds the arrivals from a seed; `cluster` keeps what is
//! free; `frag` measures fragmentation; `policy` chooses nodes; `run` replays and samples the
//! allocation at every percent of arrived demand; `bound` says what no policy can beat.

pub mod bound;
pub mod cluster;
pub mod frag;
pub mod percent;
pub mod policy;
pub mod rng;
pub mod run;
pub mod trace;
pub mod workload;

#[cfg(test)]
mod tests;

pub use policy::Policy;
pub use run::{replay, FailedPods, Replay, ReplayOptions, Run};
pub use trace::{ModelSet, Node, Pod, PodGpu, Trace};
