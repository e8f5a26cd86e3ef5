//! Fragmentation gradient descent (Weng et al., USENIX ATC 2023, §4): put the pod where the
//! node's fragment for the typical pods grows least. FGD as published scores `⌊100 σ(Δ/1000)⌋`
//! and breaks ties by the run's node order; gpu-share's policy counts memory in the fragment,
//! ranks a node's GPUs by the exact change, then nodes by what they keep free.

use crate::replay::cluster::{ClusterState, Placement};
use crate::replay::frag::{Left, Typical};
use crate::replay::trace::{Pod, PodGpu, GPU_MILLI, MAX_GPUS_PER_NODE};

pub struct Context<'s, 't> {
    pub state: &'s ClusterState<'t>,
    pub typical: &'s Typical,
}

/// Scores per node and pod shape, kept until the node changes: most nodes do not change between
/// two pods of one shape, and a node's score costs a fragment per GPU.
pub struct Cache {
    entries: Vec<Entry>,
    shapes: usize,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    version: u32,
    filled: bool,
    score: i64,
    gpu: u8,
}

/// The most cache entries kept (16 bytes each); beyond it every score is computed afresh.
const MAX_ENTRIES: usize = 1 << 21;

impl Cache {
    pub fn new(nodes: usize, shapes: usize) -> Self {
        let size = nodes.saturating_mul(shapes);
        let entries = if size <= MAX_ENTRIES {
            vec![Entry::default(); size]
        } else {
            Vec::new()
        };
        Cache { entries, shapes }
    }

    fn get_or(
        &mut self,
        node: usize,
        shape: usize,
        version: u32,
        score: impl FnOnce() -> (i64, Option<usize>),
    ) -> (i64, Option<usize>) {
        let Some(entry) = self.entries.get_mut(node * self.shapes + shape) else {
            return score();
        };
        if !(entry.filled && entry.version == version) {
            let (s, gpu) = score();
            *entry = Entry {
                version,
                filled: true,
                score: s,
                gpu: gpu.map_or(u8::MAX, |g| g as u8),
            };
        }
        (
            entry.score,
            (entry.gpu != u8::MAX).then_some(entry.gpu as usize),
        )
    }
}

/// How a policy ranks a GPU choice from the fragment's decrease (Σ count × milli).
#[derive(Clone, Copy)]
enum Rank {
    /// FGD's truncated sigmoid; the lowest GPU index among equals.
    Sigmoid,
    /// The exact decrease; among equals the GPU with least free (best fit), then lowest index.
    Exact,
}

/// The node's best score for `pod` and, for a share, the GPU it goes to.
fn evaluate(ctx: &Context, node: usize, pod: &Pod, rank: Rank) -> (i64, Option<usize>) {
    let state = ctx.state;
    let model = state.nodes[node].model;
    let left = state.left(node);
    let after = Left {
        cpu_milli: left.cpu_milli - pod.cpu_milli,
        memory_mib: left.memory_mib - pod.memory_mib,
    };
    let before = ctx.typical.node_fragment(model, left, state.free(node)) as i64;
    let mut free = [0u32; MAX_GPUS_PER_NODE as usize];
    let gpus = state.free(node).len();
    free[..gpus].copy_from_slice(state.free(node));
    let free = &mut free[..gpus];
    let score = |free: &[u32]| {
        let decrease = before - ctx.typical.node_fragment(model, after, free) as i64;
        match rank {
            Rank::Sigmoid => ctx.typical.score(decrease),
            Rank::Exact => decrease,
        }
    };
    match pod.gpu {
        PodGpu::Share(milli) => {
            let mut best: Option<((i64, i64), usize)> = None;
            for i in 0..gpus {
                if free[i] < milli {
                    continue;
                }
                free[i] -= milli;
                let s = score(free);
                free[i] += milli;
                let key = match rank {
                    Rank::Sigmoid => (s, 0),
                    Rank::Exact => (s, -i64::from(free[i])),
                };
                if best.is_none_or(|(b, _)| key > b) {
                    best = Some((key, i));
                }
            }
            best.map_or((i64::MIN, None), |((s, _), i)| (s, Some(i)))
        }
        PodGpu::Whole(count) => {
            let mut left = count;
            for f in free.iter_mut() {
                if left > 0 && *f == GPU_MILLI {
                    *f = 0;
                    left -= 1;
                }
            }
            (score(free), None)
        }
        PodGpu::None => (score(free), None),
    }
}

/// FGD's score of one node (cached per node and shape).
pub fn fgd(
    ctx: &Context,
    cache: &mut Cache,
    node: usize,
    pod: &Pod,
    shape: usize,
) -> (i64, Option<usize>) {
    cache.get_or(node, shape, ctx.state.version[node], || {
        evaluate(ctx, node, pod, Rank::Sigmoid)
    })
}

/// gpu-share's choice. Every node is scored as FGD scores it, but against typical pods that keep
/// their memory ask (a node short of memory strands its GPUs; `Typical::with_memory`), and the
/// GPU inside a node by the exact change, so a truncated score never picks a worse GPU; among the
/// best:
/// - a share goes to a node with the fewest GPUs, then to the GPU it fills most closely — the
///   sliver it leaves is the fragment no later pod may fit — then where CPU stays in balance;
/// - whole GPUs go to a node with the fewest GPUs — large nodes stay whole for the pods that ask
///   many GPUs, which fit nowhere else — then where CPU stays in balance;
/// - a pod without GPUs goes where CPU is most spare: on a node whose GPUs are taken, its CPU can
///   strand nothing;
///
/// then to the first node in the run's order, as the published policies' ties fall. A node's
/// *spare CPU* is the CPU it has left beyond what its free GPUs need at the typical pods' CPU per
/// GPU milli; *in balance* is spare CPU nearest zero, either way: a GPU pod left where CPU runs
/// short strands the node's GPUs, and one left where CPU is spare strands its CPU for the pods
/// that ask CPU alone. (Tuned on seeds 1–10 of the eleven workloads; BENCHMARKS.md reports
/// seeds 42–51.)
pub fn gpu_share(
    ctx: &Context,
    cache: &mut Cache,
    feasible: &[usize],
    rank: &[u32],
    pod: &Pod,
    shape: usize,
) -> Placement {
    let state = ctx.state;
    let spare_per = ctx.typical.cpu_per_milli();
    let mut best: Option<([i128; 5], Placement)> = None;
    for &node in feasible {
        let (decrease, gpu) = cache.get_or(node, shape, state.version[node], || {
            evaluate(ctx, node, pod, Rank::Exact)
        });
        let score = i128::from(ctx.typical.score(decrease));
        let fewer_gpus = -i128::from(state.nodes[node].gpus);
        let order = -i128::from(rank[node]);
        let spare = spare_cpu_after(state, node, pod, spare_per);
        let key = match (pod.gpu, gpu) {
            (PodGpu::Share(milli), Some(g)) => {
                let leftover = i128::from(state.free(node)[g] - milli);
                [score, fewer_gpus, -leftover, -spare.abs(), order]
            }
            (PodGpu::None, _) => [score, spare, order, 0, 0],
            _ => [score, fewer_gpus, -spare.abs(), order, 0],
        };
        if best.is_none_or(|(b, _)| key > b) {
            best = Some((key, Placement { node, gpu }));
        }
    }
    best.expect("gpu_share is called with a node the pod fits")
        .1
}

/// The node's spare CPU once `pod` is on it, `(cpu, milli)` being the typical pods' CPU per GPU
/// milli: CPU left × milli − free GPU milli × cpu, exact.
fn spare_cpu_after(state: &ClusterState, node: usize, pod: &Pod, (cpu, milli): (u64, u64)) -> i128 {
    let cpu_left = i128::from(state.cpu_left[node] - pod.cpu_milli);
    let free = i128::from(state.free_total(node)) - i128::from(pod.gpu.milli());
    cpu_left * i128::from(milli) - free * i128::from(cpu)
}
