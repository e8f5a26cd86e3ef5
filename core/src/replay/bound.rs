//! What no placement of a run's arrivals could allocate more than, even knowing them all in
//! advance and choosing which to place: the dual of a linear relaxation. Nodes alike (model,
//! GPUs, CPU, memory) form a class whose GPU, CPU and memory are pooled; a pod may go to a class
//! where it fits an empty node. For prices `y` on each class's resources (in GPU-milli), no
//! placement allocates more than `Σ y + Σ_pods max(0, milli − the pod's cheapest price)` (weak
//! duality, any `y` ≥ 0); a subgradient search lowers the prices, and the least value found is
//! the bound. The search steers in floating point; the value it reports is computed exactly in
//! integers at the best prices found (rounded, each pod's price rounded down), so the bound is a
//! true upper bound.

use super::percent::Percent;
use super::trace::{Pod, PodGpu, Trace};
use std::collections::HashMap;

/// How much a run's arrivals could allocate at best (% of GPU capacity): no placement exceeds
/// `upper`; `offline` is one that exists — the same arrivals sorted largest first and placed by
/// gpu-share's policy, or the best online run when that is higher — so the best possible lies
/// between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Bound {
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub upper: Percent,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub offline: Percent,
}

impl Bound {
    /// The mean over the seeds' bounds.
    pub fn mean(bounds: &[Bound]) -> Bound {
        let n = bounds.len().max(1) as u128;
        let mean = |f: fn(&Bound) -> u32| {
            Percent::of(bounds.iter().map(|b| u128::from(f(b))).sum(), n * 10_000)
        };
        Bound {
            upper: mean(|b| b.upper.0),
            offline: mean(|b| b.offline.0),
        }
    }
}

const SEARCH_STEPS: usize = 1500;
/// Pod terms are computed in millionths of a milli, so rounding each down costs nothing visible.
const SCALE: u128 = 1_000_000;

/// No placement of the arrivals `order` allocates more GPU-milli than this.
pub fn upper_bound(trace: &Trace, order: &[u32]) -> u64 {
    dual_bound(trace, order).min(trace.capacity_milli())
}

/// The arrivals largest GPU ask first (then largest CPU): the order an offline packer would
/// place them in.
pub fn largest_first(trace: &Trace, order: &[u32]) -> Vec<u32> {
    let mut sorted = order.to_vec();
    sorted.sort_by_key(|&i| {
        let pod = &trace.pods[i as usize];
        std::cmp::Reverse((pod.gpu.milli(), pod.cpu_milli))
    });
    sorted
}

/// Node classes: count and capacity (GPU milli, CPU milli, memory MiB) pooled.
struct Class {
    node: (u8, u32, u64, u64),
    capacity: [u64; 3],
}

/// Pods alike: their ask, their count, and the classes they fit.
struct Kind {
    ask: [u64; 3],
    count: u64,
    classes: Vec<usize>,
}

fn fits_empty(pod: &Pod, (model, gpus, cpu, memory): (u8, u32, u64, u64)) -> bool {
    pod.cpu_milli <= cpu
        && pod.memory_mib <= memory
        && match pod.gpu {
            PodGpu::None => false,
            PodGpu::Whole(n) => gpus >= n && pod.models.contains(model),
            PodGpu::Share(_) => gpus >= 1 && pod.models.contains(model),
        }
}

fn dual_bound(trace: &Trace, pods: &[u32]) -> u64 {
    let mut classes: Vec<Class> = Vec::new();
    let mut class_of = HashMap::new();
    for node in trace.nodes.iter().filter(|n| n.gpus > 0) {
        let key = (node.model, node.gpus, node.cpu_milli, node.memory_mib);
        let c = *class_of.entry(key).or_insert_with(|| {
            classes.push(Class {
                node: key,
                capacity: [0; 3],
            });
            classes.len() - 1
        });
        let cap = &mut classes[c].capacity;
        cap[0] += u64::from(node.gpus) * 1000;
        cap[1] += node.cpu_milli;
        cap[2] += node.memory_mib;
    }
    let mut kinds: Vec<Kind> = Vec::new();
    let mut kind_of = HashMap::new();
    for &i in pods {
        let pod = &trace.pods[i as usize];
        if pod.gpu.milli() == 0 {
            continue;
        }
        let key = (pod.cpu_milli, pod.memory_mib, pod.gpu, pod.models.bits());
        let k = *kind_of.entry(key).or_insert_with(|| {
            let fit = (0..classes.len())
                .filter(|&c| fits_empty(pod, classes[c].node))
                .collect();
            kinds.push(Kind {
                ask: [pod.gpu.milli(), pod.cpu_milli, pod.memory_mib],
                count: 0,
                classes: fit,
            });
            kinds.len() - 1
        });
        kinds[k].count += 1;
    }
    search(&classes, &kinds)
}

/// The dual value at prices `y` (GPU-milli per class and resource), exactly, and which class each
/// kind of pod would pick (its cheapest, when it gains).
fn value(classes: &[Class], kinds: &[Kind], y: &[[u64; 3]], picks: &mut [Option<usize>]) -> u64 {
    let prices: u128 = y.iter().flatten().map(|&v| u128::from(v)).sum::<u128>() * SCALE;
    let mut gains: u128 = 0;
    for (kind, pick) in kinds.iter().zip(picks.iter_mut()) {
        let milli = u128::from(kind.ask[0]) * SCALE;
        let cheapest = kind
            .classes
            .iter()
            .map(|&c| {
                let price: u128 = (0..3)
                    .map(|r| {
                        u128::from(y[c][r]) * u128::from(kind.ask[r]) * SCALE
                            / u128::from(classes[c].capacity[r].max(1))
                    })
                    .sum();
                (price, c)
            })
            .min();
        *pick = match cheapest {
            Some((price, c)) if price < milli => {
                gains += u128::from(kind.count) * (milli - price);
                Some(c)
            }
            _ => None,
        };
    }
    (prices + gains).div_ceil(SCALE) as u64
}

/// The dual value at prices `y`, in floating point, to steer the search; sets each kind's pick.
fn estimate(classes: &[Class], kinds: &[Kind], y: &[[f64; 3]], picks: &mut [Option<usize>]) -> f64 {
    let mut value: f64 = y.iter().flatten().sum();
    for (kind, pick) in kinds.iter().zip(picks.iter_mut()) {
        let milli = kind.ask[0] as f64;
        let price = |c: usize| -> f64 {
            (0..3)
                .map(|r| y[c][r] * kind.ask[r] as f64 / classes[c].capacity[r].max(1) as f64)
                .sum()
        };
        let cheapest = kind
            .classes
            .iter()
            .map(|&c| (price(c), c))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        *pick = match cheapest {
            Some((price, c)) if price < milli => {
                value += kind.count as f64 * (milli - price);
                Some(c)
            }
            _ => None,
        };
    }
    value
}

/// A subgradient search on the prices in floating point; the best prices found are then valued
/// exactly, so the bound holds whatever rounding the search saw.
fn search(classes: &[Class], kinds: &[Kind]) -> u64 {
    // Start where the bound is the GPU capacity: each class's GPU priced at its capacity.
    let mut y: Vec<[f64; 3]> = classes
        .iter()
        .map(|c| [c.capacity[0] as f64, 0.0, 0.0])
        .collect();
    let mut picks = vec![None; kinds.len()];
    let total: f64 = classes.iter().map(|c| c.capacity[0] as f64).sum();
    let mut best = (f64::INFINITY, y.clone());
    for step in 0..SEARCH_STEPS {
        let value = estimate(classes, kinds, &y, &mut picks);
        if value < best.0 {
            best = (value, y.clone());
        }
        // Subgradient in y: 1 − (what the picks use of a resource) / its capacity.
        let mut used = vec![[0f64; 3]; classes.len()];
        for (kind, pick) in kinds.iter().zip(&picks) {
            if let Some(c) = *pick {
                for (use_, ask) in used[c].iter_mut().zip(kind.ask) {
                    *use_ += kind.count as f64 * ask as f64;
                }
            }
        }
        let rate = 0.05 * total / ((step + 1) as f64).sqrt();
        for (c, class) in classes.iter().enumerate() {
            for r in 0..3 {
                let g = 1.0 - used[c][r] / (class.capacity[r].max(1) as f64);
                y[c][r] = (y[c][r] - rate * g.max(-4.0) / classes.len() as f64).max(0.0);
            }
        }
    }
    let exact: Vec<[u64; 3]> = best
        .1
        .iter()
        .map(|p| p.map(|v| v.max(0.0).round() as u64))
        .collect();
    value(classes, kinds, &exact, &mut picks)
}
