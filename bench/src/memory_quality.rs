//! Two-dimensional packing quality: GPUs used by first-fit-decreasing and by `--optimize` when asks
//! carry a share and memory, on generated instances whose optimum is known by construction.
//!
//! Each instance is `k` L40S GPUs cut into asks that fill every GPU exactly in both dimensions: the
//! shares of one GPU's asks sum to one GPU, their memory to what the GPU offers (its memory less the
//! driver's reserve; the CUDA context set to 0 so each ask holds what it asks). The asks of all GPUs
//! are then shuffled. No packing uses fewer than `k` GPUs (the shares alone sum to `k`), and `k`
//! suffice, so the optimum is `k`. Memory cuts are paired with compute cuts at random, so the two
//! dimensions are uncorrelated. The vector optimizer was not tuned on these instances (its unit tests
//! use other generators and seeds).

use super::generate::{between, cut, shuffle};
use super::speed::SplitMix;
use gpu_share_core::internals::catalog::find_model;
use gpu_share_core::internals::memory::Memory;
use gpu_share_core::internals::pack::optimize::Budget;
use gpu_share_core::internals::pack::{bin_pack_with, PackOptions};
use gpu_share_core::internals::{ClusterGpuCaps, FractionalAsk, Share};
use std::time::Instant;

/// Instances per row.
const SEEDS: u64 = 20;
/// Optimal GPU counts (`k`) of the instances, and asks per GPU (a range: "perfect" packings of 2–6
/// asks, or exactly 3: "triplets", the hardest for first-fit in one dimension).
pub const FAMILIES: [(&str, u64, u64, u64); 6] = [
    ("perfect", 10, 2, 6),
    ("perfect", 40, 2, 6),
    ("perfect", 160, 2, 6),
    ("triplet", 10, 3, 3),
    ("triplet", 40, 3, 3),
    ("triplet", 160, 3, 3),
];

/// One family's totals over [`SEEDS`] instances.
#[derive(Clone, Debug, Default)]
pub struct MemoryRow {
    pub family: &'static str,
    pub optimum: u64,
    pub asks: u64,
    pub instances: u64,
    pub ffd_gpus: u64,
    pub optimized_gpus: u64,
    pub lower_bound: u64,
    pub ffd_optimal: u64,
    pub optimized_optimal: u64,
    pub ffd_ms: f64,
    pub optimize_max_ms: f64,
}

/// The asks of one instance: `k` GPUs each filled exactly, shuffled.
fn instance(
    k: u64,
    min: u64,
    max: u64,
    budget_mib: u64,
    seed: u64,
) -> Result<Vec<FractionalAsk>, String> {
    let mut rng = SplitMix(seed);
    let mut parts: Vec<(u64, u64)> = Vec::new();
    for _ in 0..k {
        let n = between(min, max, &mut rng);
        let compute = cut(1000, n, &mut rng);
        let mut memory = cut(budget_mib, n, &mut rng);
        shuffle(&mut memory, &mut rng); // pairs memory with compute at random
        parts.extend(compute.into_iter().zip(memory));
    }
    shuffle(&mut parts, &mut rng);
    parts
        .iter()
        .enumerate()
        .map(|(i, &(thousandths, mib))| {
            let share = Share::ratio(thousandths, 1000).map_err(|e| e.to_string())?;
            let memory = Memory::from_mib(mib).map_err(|e| e.to_string())?;
            FractionalAsk::fraction_and_memory(&format!("a{i}"), share, memory)
                .map_err(|e| e.to_string())
        })
        .collect()
}

pub fn run(budget: Budget) -> Result<Vec<MemoryRow>, String> {
    let l40s = find_model("L40S").ok_or("no L40S in the catalogue")?;
    let budget_mib = l40s.usable_memory().mib;
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        gpu_model: Some("L40S".into()),
        context_overhead_mib: Some(0),
        ..Default::default()
    };
    let mut rows = Vec::new();
    for (family, k, min, max) in FAMILIES {
        let mut row = MemoryRow {
            family,
            optimum: k,
            ..Default::default()
        };
        for seed in 0..SEEDS {
            let asks = instance(
                k,
                min,
                max,
                budget_mib,
                0x6d65_6d00 ^ k << 20 ^ min << 16 ^ seed,
            )?;
            let pack = |optimize: Option<Budget>| -> Result<
                (gpu_share_core::internals::pack::OptimizedPack, f64),
                String,
            > {
                let started = Instant::now();
                let p = bin_pack_with(&asks, &caps, &PackOptions { optimize })
                    .map_err(|e| e.to_string())?;
                Ok((p, started.elapsed().as_secs_f64() * 1e3))
            };
            let (ffd, ffd_ms) = pack(None)?;
            let (opt, opt_ms) = pack(Some(budget))?;
            if !ffd.result.unplaced.is_empty() || !opt.result.unplaced.is_empty() {
                return Err(format!(
                    "{family} k={k} seed {seed}: asks unplaced without a GPU limit"
                ));
            }
            row.instances += 1;
            row.asks += asks.len() as u64;
            row.ffd_gpus += ffd.result.gpus_used;
            row.optimized_gpus += opt.result.gpus_used;
            row.lower_bound += opt.lower_bound;
            row.ffd_optimal += u64::from(ffd.result.gpus_used == k);
            row.optimized_optimal += u64::from(opt.result.gpus_used == k);
            row.ffd_ms += ffd_ms;
            row.optimize_max_ms = row.optimize_max_ms.max(opt_ms);
        }
        eprintln!(
            "memory {family:8} k={k:4}: FFD {} GPUs ({} optimal), optimize {} ({} optimal), optimum {}, bound {}",
            row.ffd_gpus,
            row.ffd_optimal,
            row.optimized_gpus,
            row.optimized_optimal,
            k * row.instances,
            row.lower_bound
        );
        rows.push(row);
    }
    Ok(rows)
}
