//! The cluster as a replay changes it: each node's CPU, memory and pods left, and each GPU's free
//! milli. A pod fits a node (the simulator's filter, docs/hardware-facts.md §12) when the node
//! has its CPU and memory and room for one more pod and, for a GPU pod, is of an allowed model
//! with `n` fully free GPUs (whole GPUs) or one GPU with the share free.

use super::frag::Left;
use super::trace::{Node, Pod, PodGpu, Trace, GPU_MILLI};

/// The most pods a node holds: the simulator's node configuration (`pods: 1001`).
pub const MAX_PODS_ON_NODE: u32 = 1001;

/// Where a pod went: its node, and for a share the GPU (whole GPUs go to the lowest-index free
/// ones, as every published policy places them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub node: usize,
    pub gpu: Option<usize>,
}

/// Free resources, node by node; GPUs in one flat list (`first_gpu[n]..first_gpu[n + 1]`).
#[derive(Clone, Debug)]
pub struct ClusterState<'t> {
    pub nodes: &'t [Node],
    pub cpu_left: Vec<u64>,
    pub memory_left: Vec<u64>,
    pub pods_on: Vec<u32>,
    free: Vec<u32>,
    first_gpu: Vec<usize>,
    /// GPU pods on each node by kind: `[share, 1 GPU, 2 GPUs, …]` counts (GPU clustering's tags).
    pub kinds: Vec<Vec<(u32, u32)>>,
    pub allocated_milli: u64,
    /// Bumped on every change to a node, so scores cached per node know when they are stale.
    pub version: Vec<u32>,
}

impl<'t> ClusterState<'t> {
    pub fn new(trace: &'t Trace) -> Self {
        let mut first_gpu = Vec::with_capacity(trace.nodes.len() + 1);
        let mut total = 0;
        for node in &trace.nodes {
            first_gpu.push(total);
            total += node.gpus as usize;
        }
        first_gpu.push(total);
        ClusterState {
            nodes: &trace.nodes,
            cpu_left: trace.nodes.iter().map(|n| n.cpu_milli).collect(),
            memory_left: trace.nodes.iter().map(|n| n.memory_mib).collect(),
            pods_on: vec![0; trace.nodes.len()],
            free: vec![GPU_MILLI; total],
            first_gpu,
            kinds: vec![Vec::new(); trace.nodes.len()],
            allocated_milli: 0,
            version: vec![0; trace.nodes.len()],
        }
    }

    /// The free milli of each GPU of node `n`, by device index.
    pub fn free(&self, n: usize) -> &[u32] {
        &self.free[self.first_gpu[n]..self.first_gpu[n + 1]]
    }

    /// The CPU and memory node `n` has left.
    pub fn left(&self, n: usize) -> Left {
        Left {
            cpu_milli: self.cpu_left[n],
            memory_mib: self.memory_left[n],
        }
    }

    /// The node's free GPU milli in all.
    pub fn free_total(&self, n: usize) -> u64 {
        self.free(n).iter().map(|&f| u64::from(f)).sum()
    }

    /// Whether `pod` fits node `n` as it is now.
    pub fn fits(&self, pod: &Pod, n: usize) -> bool {
        let node = &self.nodes[n];
        let room = pod.cpu_milli <= self.cpu_left[n]
            && pod.memory_mib <= self.memory_left[n]
            && self.pods_on[n] < MAX_PODS_ON_NODE;
        room && match pod.gpu {
            PodGpu::None => true,
            _ if node.gpus == 0 || !pod.models.contains(node.model) => false,
            PodGpu::Whole(count) => {
                self.free(n).iter().filter(|&&f| f == GPU_MILLI).count() >= count as usize
            }
            PodGpu::Share(milli) => self.free(n).iter().any(|&f| f >= milli),
        }
    }

    /// The GPU a share goes to under best fit: the least free that holds it, lowest index first.
    pub fn best_fit_gpu(&self, n: usize, milli: u32) -> Option<usize> {
        let free = self.free(n);
        (0..free.len())
            .filter(|&i| free[i] >= milli)
            .min_by_key(|&i| (free[i], i))
    }

    /// Puts `pod` on the node (and GPU) of `at`, which must fit it.
    pub fn place(&mut self, pod: &Pod, at: Placement) {
        let n = at.node;
        self.cpu_left[n] -= pod.cpu_milli;
        self.memory_left[n] -= pod.memory_mib;
        self.pods_on[n] += 1;
        self.version[n] = self.version[n].wrapping_add(1);
        let first = self.first_gpu[n];
        let kind = match pod.gpu {
            PodGpu::None => return,
            PodGpu::Whole(count) => {
                let mut left = count;
                for f in &mut self.free[first..self.first_gpu[n + 1]] {
                    if left > 0 && *f == GPU_MILLI {
                        *f = 0;
                        left -= 1;
                    }
                }
                debug_assert_eq!(left, 0, "placed on a node without the free GPUs");
                count
            }
            PodGpu::Share(milli) => {
                let gpu = at.gpu.expect("a share is placed on a GPU");
                self.free[first + gpu] -= milli;
                0
            }
        };
        self.allocated_milli += pod.gpu.milli();
        let kinds = &mut self.kinds[n];
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, c)) => *c += 1,
            None => kinds.push((kind, 1)),
        }
    }
}
