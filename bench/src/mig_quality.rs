//! MIG packing quality: how many GPUs `--optimize` saves over first-fit-decreasing on random MIG ask sets.
//!
//! There are no published optima for MIG geometry, so the yardstick is the packer's own lower bound
//! (memory and compute slices, per-profile limits): where the optimizer meets it, the packing is optimal.

use super::speed::SplitMix;
use gpu_share_core::internals::catalog::find_model;
use gpu_share_core::internals::pack::optimize::Budget;
use gpu_share_core::internals::pack::{bin_pack_with, PackOptions};
use gpu_share_core::internals::{ClusterGpuCaps, FractionalAsk};
use std::time::Instant;

/// Instances per ask count.
const SEEDS: u64 = 20;
/// Ask counts.
pub const SIZES: [usize; 3] = [20, 60, 200];

/// One ask count's totals over [`SEEDS`] instances.
#[derive(Clone, Debug, Default)]
pub struct MigRow {
    pub asks: usize,
    pub instances: u64,
    pub ffd_gpus: u64,
    pub optimized_gpus: u64,
    pub lower_bound: u64,
    /// Instances where optimize used fewer GPUs than FFD.
    pub improved: u64,
    /// Instances where FFD already met the lower bound.
    pub ffd_at_bound: u64,
    /// Instances where optimize met the lower bound (proven optimal).
    pub proven: u64,
    pub max_ms: f64,
}

/// Random A100-SXM4-40GB profile asks (media-extension profiles included, at a tenth of the
/// weight, since their one-per-GPU limit is part of the geometry being tested).
fn asks(n: usize, seed: u64) -> Result<Vec<FractionalAsk>, String> {
    let a100 = find_model("A100-SXM4-40GB").ok_or("no A100-SXM4-40GB in the catalogue")?;
    let weighted: Vec<&str> = a100
        .profiles
        .iter()
        .flat_map(|p| {
            let weight = if p.name.contains("+me") { 1 } else { 10 };
            std::iter::repeat_n(p.name, weight)
        })
        .collect();
    let mut rng = SplitMix(seed);
    (0..n)
        .map(|i| {
            let p = weighted[(rng.next() % weighted.len() as u64) as usize];
            FractionalAsk::mig(&format!("m{i}"), p).map_err(|e| e.to_string())
        })
        .collect()
}

pub fn run(budget: Budget) -> Result<Vec<MigRow>, String> {
    let caps = ClusterGpuCaps {
        supports_mig: true,
        gpu_model: Some("A100-SXM4-40GB".into()),
        ..Default::default()
    };
    let mut rows = Vec::new();
    for n in SIZES {
        let mut row = MigRow {
            asks: n,
            ..Default::default()
        };
        for seed in 0..SEEDS {
            let asks = asks(n, 0x6d69_6700 ^ (n as u64) << 16 ^ seed)?;
            let started = Instant::now();
            let packed = bin_pack_with(
                &asks,
                &caps,
                &PackOptions {
                    optimize: Some(budget),
                },
            )
            .map_err(|e| e.to_string())?;
            let ms = started.elapsed().as_secs_f64() * 1e3;
            row.instances += 1;
            row.ffd_gpus += packed.ffd_gpus;
            row.optimized_gpus += packed.result.gpus_used;
            row.lower_bound += packed.lower_bound;
            row.improved += u64::from(packed.result.gpus_used < packed.ffd_gpus);
            row.ffd_at_bound += u64::from(packed.ffd_gpus == packed.lower_bound);
            row.proven += u64::from(packed.proven_optimal);
            row.max_ms = row.max_ms.max(ms);
        }
        eprintln!(
            "mig {:4} asks: {} instances, FFD {} GPUs, optimize {} GPUs, bound {}, improved {}, proven {}",
            row.asks,
            row.instances,
            row.ffd_gpus,
            row.optimized_gpus,
            row.lower_bound,
            row.improved,
            row.proven
        );
        rows.push(row);
    }
    Ok(rows)
}
