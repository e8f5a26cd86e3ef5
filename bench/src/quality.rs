//! Packing quality on BPPLIB: bins used by FFD and by `--optimize` against the optimum and the lower bound.

use super::bpplib::Instance;
use gpu_share_core::internals::pack::optimize::{optimize_sizes, Budget};
use gpu_share_core::internals::pack::{bins_used, first_fit_decreasing};
use std::time::Instant;

/// One instance's outcome.
pub struct Row {
    pub family: String,
    pub file: String,
    pub n: usize,
    pub optimum: Option<u64>,
    pub lower_bound: u64,
    pub ffd: u64,
    pub optimized: u64,
    pub proven: bool,
    /// Wall time of `first_fit_decreasing` alone.
    pub ffd_ms: f64,
    /// Wall time of `optimize_sizes` (FFD, bounds and search).
    pub ms: f64,
}

/// Runs FFD and the optimizer on every instance, on `threads` threads; rows in input order.
pub fn run(instances: &[Instance], budget: Budget, threads: usize) -> Vec<Row> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let rows = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(inst) = instances.get(i) else { break };
                let row = measure(inst, budget);
                rows.lock().map(|mut r| r.push((i, row))).ok();
            });
        }
    });
    let mut rows = rows.into_inner().unwrap_or_default();
    rows.sort_by_key(|(i, _)| *i);
    rows.into_iter().map(|(_, r)| r).collect()
}

fn measure(inst: &Instance, budget: Budget) -> Row {
    let start = Instant::now();
    let ffd = bins_used(&first_fit_decreasing(&inst.weights, inst.capacity)) as u64;
    let ffd_ms = start.elapsed().as_secs_f64() * 1000.0;
    let start = Instant::now();
    let opt = optimize_sizes(&inst.weights, inst.capacity, budget);
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    Row {
        family: inst.family.clone(),
        file: inst.file.clone(),
        n: inst.weights.len(),
        optimum: inst.optimum,
        lower_bound: opt.lower_bound,
        ffd,
        optimized: opt.bins as u64,
        proven: opt.proven_optimal,
        ffd_ms,
        ms,
    }
}

/// Per-family totals.
pub struct Summary {
    pub family: String,
    pub instances: usize,
    pub with_optimum: usize,
    pub ffd_optimal: usize,
    pub optimized_optimal: usize,
    pub ffd_excess: u64,
    pub optimized_excess: u64,
    pub bound_hits: usize,
    pub proven: usize,
    pub max_ms: f64,
    pub total_ms: f64,
}

pub fn summarise(rows: &[Row]) -> Vec<Summary> {
    let mut families: Vec<&str> = rows.iter().map(|r| r.family.as_str()).collect();
    families.dedup();
    families
        .into_iter()
        .map(|f| {
            let rs: Vec<&Row> = rows.iter().filter(|r| r.family == f).collect();
            let known: Vec<(&Row, u64)> = rs
                .iter()
                .filter_map(|r| r.optimum.map(|o| (*r, o)))
                .collect();
            Summary {
                family: f.to_string(),
                instances: rs.len(),
                with_optimum: known.len(),
                ffd_optimal: known.iter().filter(|(r, o)| r.ffd == *o).count(),
                optimized_optimal: known.iter().filter(|(r, o)| r.optimized == *o).count(),
                ffd_excess: known.iter().map(|(r, o)| r.ffd.saturating_sub(*o)).sum(),
                optimized_excess: known
                    .iter()
                    .map(|(r, o)| r.optimized.saturating_sub(*o))
                    .sum(),
                bound_hits: known.iter().filter(|(r, o)| r.lower_bound == *o).count(),
                proven: rs.iter().filter(|r| r.proven).count(),
                max_ms: rs.iter().map(|r| r.ms).fold(0.0, f64::max),
                total_ms: rs.iter().map(|r| r.ms).sum(),
            }
        })
        .collect()
}

/// The TSV: one row per instance.
pub fn tsv(rows: &[Row]) -> String {
    let mut out = String::from("file\tn\toptimum\tlower_bound\tffd_gpus\toptimized_gpus\tms\n");
    for r in rows {
        let opt = r.optimum.map(|o| o.to_string()).unwrap_or_default();
        out += &format!(
            "{}\t{}\t{opt}\t{}\t{}\t{}\t{:.1}\n",
            r.file, r.n, r.lower_bound, r.ffd, r.optimized, r.ms
        );
    }
    out
}
