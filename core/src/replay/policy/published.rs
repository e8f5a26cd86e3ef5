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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::cluster::Placement;
    use crate::replay::trace::Trace;

    const NODES: &str =
        "sn,cpu_milli,memory_mib,gpu,model\nn8,96000,393216,8,G2\nn2,104000,524288,2,T4\n";
    const PODS: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n\
        share,6000,1024,1,460\none,12000,1024,1,1000\ncpu,4000,1024,0,0\n";

    /// GPU packing's three cases, as its source's comment states them (docs/hardware-facts.md
    /// §12): shared GPUs score 50–100, free GPUs on a used node 33–50, an idle node 33 less its
    /// GPUs.
    #[test]
    fn gpu_packing_prefers_used_gpus_then_used_nodes_then_small_idle_nodes() {
        let trace = Trace::read(NODES, PODS).unwrap();
        let mut state = ClusterState::new(&trace);
        let [share, one, cpu] = [&trace.pods[0], &trace.pods[1], &trace.pods[2]];
        assert_eq!(
            (gpu_packing(&state, 0, share), gpu_packing(&state, 1, share)),
            (25, 31)
        );
        assert_eq!(gpu_packing(&state, 0, cpu), 0);
        state.place(
            share,
            Placement {
                node: 0,
                gpu: Some(3),
            },
        );
        // 540 free on the shared GPU: 100 − 54 / 10.
        assert_eq!(gpu_packing(&state, 0, share), 95);
        assert_eq!(gpu_packing(&state, 0, one), 49);
    }

    #[test]
    fn best_fit_and_dot_product_truncate_as_the_simulator_does() {
        let trace = Trace::read(NODES, PODS).unwrap();
        let state = ClusterState::new(&trace);
        let one = &trace.pods[1];
        // r = ½ (84000 / 128000) + ½ (7000 / 8000) = 0.765625: ⌊23.4375⌋.
        assert_eq!(best_fit(&state, 0, one), 23);
        // (96000 · 12000 / 128000² + 8000 · 1000 / 8000²) / 2 = 0.0976…: ⌊90.23⌋.
        assert_eq!(dot_product(&state, 0, one), 90);
        let mut scores = vec![(23, None), (40, None), (23, None), (30, None)];
        normalise(&mut scores);
        assert_eq!(
            scores.iter().map(|s| s.0).collect::<Vec<_>>(),
            [0, 100, 0, 41]
        );
    }

    #[test]
    fn gpu_clustering_prefers_nodes_of_the_same_kind_alone() {
        let trace = Trace::read(NODES, PODS).unwrap();
        let mut state = ClusterState::new(&trace);
        let [share, one] = [&trace.pods[0], &trace.pods[1]];
        assert_eq!(gpu_clustering(&state, 0, share), 25);
        state.place(
            share,
            Placement {
                node: 0,
                gpu: Some(0),
            },
        );
        // 460 of 8000 in use: 25 · 460 / 8000 = 1; the same kind alone: +75.
        assert_eq!(gpu_clustering(&state, 0, share), 76);
        assert_eq!(gpu_clustering(&state, 0, one), 1);
        state.place(one, Placement { node: 0, gpu: None });
        assert_eq!(gpu_clustering(&state, 0, share), 4 + 50);
    }
}
