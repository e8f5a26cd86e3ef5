//! Five of the paper's policies, each a node score in integers that truncate where the
//! simulator's do (docs/hardware-facts.md §12): dot product, GPU clustering, GPU packing, best
//! fit (min-max normalised over the nodes a pod fits), and random's choice of GPU.

use crate::replay::cluster::ClusterState;
use crate::replay::rng::Rng;
use crate::replay::trace::{Pod, PodGpu, GPU_MILLI};

/// The simulator's normalisers: the largest node's CPU (128 cores) and GPUs (8).
const SPEC_CPU: i128 = 128_000;
const SPEC_GPU: i128 = 8_000;

/// A share on a GPU that holds it, uniformly; whole GPUs need no choice.
pub fn random_gpu(state: &ClusterState, node: usize, pod: &Pod, rng: &mut Rng) -> Option<usize> {
    let PodGpu::Share(milli) = pod.gpu else {
        return None;
    };
    let free = state.free(node);
    let holding: Vec<usize> = (0..free.len()).filter(|&i| free[i] >= milli).collect();
    Some(holding[rng.below(holding.len() as u64) as usize])
}

/// `⌊100 (1 − (free · ask) / 2)⌋` over (CPU / 128 cores, GPU / 8 GPUs): the least dot product
/// of what the node has free with what the pod asks scores best.
pub fn dot_product(state: &ClusterState, node: usize, pod: &Pod) -> i64 {
    let cpu = i128::from(state.cpu_left[node]) * i128::from(pod.cpu_milli) * SPEC_GPU * SPEC_GPU;
    let gpu =
        i128::from(state.free_total(node)) * i128::from(pod.gpu.milli()) * SPEC_CPU * SPEC_CPU;
    let whole = SPEC_CPU * SPEC_CPU * SPEC_GPU * SPEC_GPU;
    ((200 * whole - 100 * (cpu + gpu)) / (2 * whole)) as i64
}

/// Nodes running GPU pods of the pod's kind (a share, or n whole GPUs) score highest, alone more
/// than among other kinds; then nodes without GPU pods; each plus up to 25 for GPUs in use.
pub fn gpu_clustering(state: &ClusterState, node: usize, pod: &Pod) -> i64 {
    let kind = match pod.gpu {
        PodGpu::None => return 0,
        PodGpu::Whole(n) => n,
        PodGpu::Share(_) => 0,
    };
    let free = state.free_total(node) as i64;
    let base = 25 * (SPEC_GPU as i64 - free) / SPEC_GPU as i64;
    let kinds = &state.kinds[node];
    let same = kinds.iter().any(|&(k, _)| k == kind);
    base + match (same, kinds.len()) {
        (true, 1) => 75,
        (true, _) => 50,
        (false, 0) => 25,
        (false, _) => 0,
    }
}

/// Partly used GPUs first (the fuller the better), then partly used nodes, then idle nodes (the
/// fewer GPUs the better).
pub fn gpu_packing(state: &ClusterState, node: usize, pod: &Pod) -> i64 {
    let (milli, count) = match pod.gpu {
        PodGpu::None => return 0,
        PodGpu::Whole(n) => (GPU_MILLI, n as usize),
        PodGpu::Share(m) => (m, 1),
    };
    let free = state.free(node);
    let idle = free.iter().filter(|&&f| f == GPU_MILLI).count() as i64;
    if idle == free.len() as i64 {
        return (33 - idle).max(idle);
    }
    let mut by_free: Vec<u32> = free.iter().copied().filter(|&f| f >= milli).collect();
    by_free.sort_unstable();
    let used = &by_free[..count.min(by_free.len())];
    let whole = used.iter().filter(|&&f| f == GPU_MILLI).count() as i64;
    if whole > 0 {
        (50 - whole).max(33)
    } else {
        let taken: i64 = used.iter().map(|&f| i64::from(f) * 100 / 1000).sum();
        (100 - taken / 10).max(50)
    }
}

/// `⌊100 (1 − r)⌋` where r is half the CPU and half the GPU the node would have left (over 128
/// cores and 8 GPUs): the node left with least scores best. Normalised afterwards.
pub fn best_fit(state: &ClusterState, node: usize, pod: &Pod) -> i64 {
    let cpu = i128::from(state.cpu_left[node]) - i128::from(pod.cpu_milli);
    let gpu = i128::from(state.free_total(node)) - i128::from(pod.gpu.milli());
    let whole = 2 * SPEC_CPU * SPEC_GPU;
    let left = cpu * SPEC_GPU + gpu * SPEC_CPU;
    ((100 * whole - 100 * left) / whole) as i64
}

/// The scheduler's min-max normalisation to 0–100, in integers; all equal → all 0.
pub fn normalise(scores: &mut [(i64, Option<usize>)]) {
    let lo = scores.iter().map(|s| s.0).min().unwrap_or(0);
    let hi = scores.iter().map(|s| s.0).max().unwrap_or(0);
    for score in scores {
        score.0 = if hi == lo {
            0
        } else {
            (score.0 - lo) * 100 / (hi - lo)
        };
    }
}
