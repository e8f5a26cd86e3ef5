//! The placement policies a replay can run: the six the FGD paper measures (re-implemented from
//! its text and its simulator's description, docs/hardware-facts.md §12) and gpu-share's own.
//! Each scores the nodes a pod fits; the published ones take the best score and break ties by a
//! per-run seeded order of the nodes — the simulator names its nodes with a seeded random prefix
//! and its ties fall to the first name (facts §12).

mod fgd;
mod published;

use super::cluster::{ClusterState, Placement};
use super::frag::Typical;
use super::rng::Rng;
use super::trace::{Pod, PodGpu};
use crate::error::{Error, ErrorKind, Result};

/// A placement policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "kebab-case"))]
pub enum Policy {
    /// Any node the pod fits, uniformly; a share on any GPU that holds it.
    Random,
    /// The node whose free CPU and GPU have the least dot product with the pod's ask.
    DotProduct,
    /// Nodes already running GPU pods of the same kind first (Kubernetes' GPU clustering).
    GpuClustering,
    /// Partly used GPUs first, then partly used nodes, then idle ones.
    GpuPacking,
    /// The node left with the least free CPU and GPU.
    BestFit,
    /// Fragmentation gradient descent: the node and GPU whose fragment grows least.
    Fgd,
    /// gpu-share's: FGD's measure with memory, the GPU by the exact change, ties broken by what is
    /// left to host and by keeping each node's CPU in balance with its free GPUs.
    GpuShare,
}

impl Policy {
    pub const ALL: [Policy; 7] = [
        Policy::Random,
        Policy::DotProduct,
        Policy::GpuClustering,
        Policy::GpuPacking,
        Policy::BestFit,
        Policy::Fgd,
        Policy::GpuShare,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Policy::Random => "random",
            Policy::DotProduct => "dot-product",
            Policy::GpuClustering => "gpu-clustering",
            Policy::GpuPacking => "gpu-packing",
            Policy::BestFit => "best-fit",
            Policy::Fgd => "fgd",
            Policy::GpuShare => "gpu-share",
        }
    }

    /// The policy's name in the paper's tables.
    pub fn paper_name(self) -> &'static str {
        match self {
            Policy::Random => "Random",
            Policy::DotProduct => "DotProd",
            Policy::GpuClustering => "GpuClustering",
            Policy::GpuPacking => "GpuPacking",
            Policy::BestFit => "BestFit",
            Policy::Fgd => "FGD",
            Policy::GpuShare => "gpu-share",
        }
    }

    /// # Errors
    /// `Syntax` naming the policies there are.
    pub fn parse(name: &str) -> Result<Policy> {
        let wanted = name.trim().to_ascii_lowercase();
        Policy::ALL
            .into_iter()
            .find(|p| p.name() == wanted || p.paper_name().eq_ignore_ascii_case(&wanted))
            .ok_or_else(|| {
                let names: Vec<_> = Policy::ALL.iter().map(|p| p.name()).collect();
                Error::new(
                    ErrorKind::Syntax,
                    format!("no policy {name:?}; the policies are {}", names.join(", ")),
                )
            })
    }
}

/// A policy by any name [`Policy::parse`] reads (`fgd`, `FGD`, `best-fit`, `BestFit`).
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Policy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Policy::parse(&name).map_err(serde::de::Error::custom)
    }
}

/// Chooses where each arriving pod goes under one policy; keeps what the policy caches.
pub(super) struct Scheduler<'a> {
    policy: Policy,
    typical: &'a Typical,
    /// The run's node order and the random policy's draws: a stream apart from the arrivals', so
    /// every policy sees the same arrivals.
    rng: Rng,
    fgd: fgd::Cache,
    /// Each node's place in the order ties are broken in.
    rank: Vec<u32>,
    feasible: Vec<usize>,
    scores: Vec<(i64, Option<usize>)>,
}

impl<'a> Scheduler<'a> {
    pub fn new(
        policy: Policy,
        typical: &'a Typical,
        seed: u64,
        nodes: usize,
        shapes: usize,
    ) -> Self {
        let mut rng = Rng::new(seed ^ 0x5CED_0000_0000_0001);
        let mut rank: Vec<u32> = (0..nodes as u32).collect();
        rng.shuffle(&mut rank);
        Scheduler {
            policy,
            typical,
            rng,
            rank,
            fgd: fgd::Cache::new(nodes, shapes),
            feasible: Vec::new(),
            scores: Vec::new(),
        }
    }

    /// Where `pod` (of shape `shape`, numbered by what the policy scores) goes, or `None` when it fits
    /// no node.
    pub fn place(&mut self, state: &ClusterState, pod: &Pod, shape: usize) -> Option<Placement> {
        self.feasible.clear();
        self.feasible
            .extend((0..state.nodes.len()).filter(|&n| state.fits(pod, n)));
        match (self.policy, self.feasible.len()) {
            (_, 0) => None,
            (Policy::Random, len) => {
                let node = self.feasible[if len == 1 {
                    0
                } else {
                    self.rng.below(len as u64) as usize
                }];
                let gpu = published::random_gpu(state, node, pod, &mut self.rng);
                Some(Placement { node, gpu })
            }
            (Policy::GpuShare, _) => {
                let ctx = fgd::Context {
                    state,
                    typical: self.typical,
                };
                Some(fgd::gpu_share(
                    &ctx,
                    &mut self.fgd,
                    &self.feasible,
                    &self.rank,
                    pod,
                    shape,
                ))
            }
            (_, _) => Some(self.best_scored(state, pod, shape)),
        }
    }

    fn best_scored(&mut self, state: &ClusterState, pod: &Pod, shape: usize) -> Placement {
        let ctx = fgd::Context {
            state,
            typical: self.typical,
        };
        self.scores.clear();
        for &node in &self.feasible {
            let scored = match self.policy {
                Policy::DotProduct => (published::dot_product(state, node, pod), None),
                Policy::GpuClustering => (published::gpu_clustering(state, node, pod), None),
                Policy::GpuPacking => (published::gpu_packing(state, node, pod), None),
                Policy::BestFit => (published::best_fit(state, node, pod), None),
                _ => fgd::fgd(&ctx, &mut self.fgd, node, pod, shape),
            };
            self.scores.push(scored);
        }
        if self.policy == Policy::BestFit {
            published::normalise(&mut self.scores);
        }
        let best = (0..self.scores.len())
            .max_by_key(|&i| {
                (
                    self.scores[i].0,
                    std::cmp::Reverse(self.rank[self.feasible[i]]),
                )
            })
            .expect("scored at least one node");
        let node = self.feasible[best];
        let gpu = match pod.gpu {
            PodGpu::Share(milli) => self.scores[best]
                .1
                .or_else(|| state.best_fit_gpu(node, milli)),
            _ => None,
        };
        Placement { node, gpu }
    }
}
