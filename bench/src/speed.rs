//! Packing speed: the tree FFD natively and through the npm package, the quadratic reference, and MIG.

use gpu_share_core::internals::catalog::find_model;
use gpu_share_core::internals::pack::optimize::{optimize_sizes, Budget};
use gpu_share_core::internals::pack::{bin_pack, bins_used, first_fit_decreasing, reference_ffd};
use gpu_share_core::internals::{ClusterGpuCaps, FractionalAsk};
use std::path::Path;
use std::time::Instant;

/// Sizes are integers in 1..=CAPACITY: a share of a GPU in millionths.
pub const CAPACITY: u32 = 1_000_000;
pub const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];
/// The quadratic reference is timed up to this many asks (at 1M it would take minutes).
pub const REFERENCE_UP_TO: usize = 100_000;

/// splitmix64: a tiny seeded generator, so every run (and Node) packs the same sizes.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `n` sizes uniform in 1..=CAPACITY, from seed `n`.
pub fn sizes(n: usize) -> Vec<u32> {
    let mut rng = SplitMix(n as u64);
    (0..n)
        .map(|_| 1 + (rng.next() % u64::from(CAPACITY)) as u32)
        .collect()
}

pub struct Timing {
    pub n: usize,
    pub bins: usize,
    pub tree_ms: f64,
    pub reference_ms: Option<f64>,
    pub wasm_ms: Option<f64>,
}

/// Best of `runs` wall times of `f`, in milliseconds, and its last result: [`interleaved`] of
/// one.
pub fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    interleaved(1, runs, |_| f()).swap_remove(0)
}

/// Rounds of [`interleaved`] for first-fit-decreasing, which takes milliseconds.
pub const FFD_ROUNDS: usize = 5;

/// The best wall time (ms) of `rounds` runs of `f(i)` for each `i` in `0..count`, and its
/// result, the sizes taken in turn within each round after one warm-up run of each. A growth
/// ratio compares two sizes: timed in turn, both see the same spells of a noisy host, where one
/// size's runs after the other's had put a slow spell on one side only (FFD's 1M / 100k ratio
/// read 11.8× and 12.8× on the same code in two bench runs).
pub fn interleaved<T>(count: usize, rounds: usize, mut f: impl FnMut(usize) -> T) -> Vec<(f64, T)> {
    let mut best: Vec<(f64, T)> = (0..count).map(|i| (f64::INFINITY, f(i))).collect();
    for _ in 0..rounds {
        for (i, slot) in best.iter_mut().enumerate() {
            let t = Instant::now();
            let out = f(i);
            *slot = (slot.0.min(t.elapsed().as_secs_f64() * 1000.0), out);
        }
    }
    best
}

pub fn native() -> Vec<Timing> {
    let all: Vec<Vec<u64>> = SIZES
        .iter()
        .map(|&n| sizes(n).into_iter().map(u64::from).collect())
        .collect();
    let tree = interleaved(all.len(), FFD_ROUNDS, |i| {
        bins_used(&first_fit_decreasing(&all[i], u64::from(CAPACITY)))
    });
    SIZES
        .iter()
        .zip(&all)
        .zip(tree)
        .map(|((&n, s), (tree_ms, bins))| {
            let reference_ms = (n <= REFERENCE_UP_TO).then(|| {
                let (ms, r) = best_of(1, || bins_used(&reference_ffd(s, u64::from(CAPACITY))));
                assert_eq!(r, bins, "the reference and the tree disagree");
                ms
            });
            eprintln!("speed: {n} asks: tree {tree_ms:.1} ms, reference {reference_ms:?} ms");
            Timing {
                n,
                bins,
                tree_ms,
                reference_ms,
                wasm_ms: None,
            }
        })
        .collect()
}

/// Times FFD in Node through the built npm package (target/npm); fills `wasm_ms`.
pub fn wasm(timings: &mut [Timing], root: &Path) -> Result<(), String> {
    let dir = root.join("target/bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut args = vec![
        root.join("bench/scripts/speed.mjs").display().to_string(),
        root.join("target/npm").display().to_string(),
        CAPACITY.to_string(),
    ];
    for t in timings.iter() {
        let file = dir.join(format!("sizes-{}.u32", t.n));
        let bytes: Vec<u8> = sizes(t.n).iter().flat_map(|s| s.to_le_bytes()).collect();
        std::fs::write(&file, bytes).map_err(|e| e.to_string())?;
        args.push(file.display().to_string());
    }
    for line in node(&args)?.lines() {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let n = v["n"].as_u64().unwrap_or(0) as usize;
        if let Some(t) = timings.iter_mut().find(|t| t.n == n) {
            if v["bins"].as_u64() != Some(t.bins as u64) {
                return Err(format!(
                    "wasm FFD used {} bins at {n}, native {}",
                    v["bins"], t.bins
                ));
            }
            t.wasm_ms = v["ms"].as_f64();
        }
    }
    Ok(())
}

/// Runs `node ARGS` (a bench script and its arguments) and returns what it printed.
pub fn node(args: &[String]) -> Result<String, String> {
    let out = std::process::Command::new("node")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run node: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "node {} failed: {}",
            args.first().map_or("", String::as_str),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Rounds of [`interleaved`] for the slower timings (MIG packing, the optimizer): a million asks
/// take seconds.
pub const SLOW_ROUNDS: usize = 3;

/// Full `bin_pack` of `n` MIG asks (random A100 40GB profiles) for each `n` of `ns`, timed in
/// turn ([`interleaved`], [`SLOW_ROUNDS`]): `(n, milliseconds, GPUs used)`.
pub fn mig(ns: &[usize]) -> Result<Vec<(usize, f64, u64)>, String> {
    let a100 = find_model("a100-40gb").ok_or("no a100-40gb in the catalogue")?;
    let names: Vec<&str> = a100
        .profiles
        .iter()
        .map(|p| p.name)
        .filter(|p| !p.contains("+me"))
        .collect();
    let caps = ClusterGpuCaps {
        supports_mig: true,
        gpu_model: Some("a100-40gb".into()),
        ..Default::default()
    };
    let asks: Vec<Vec<FractionalAsk>> = ns
        .iter()
        .map(|&n| {
            let mut rng = SplitMix(7);
            (0..n)
                .map(|i| {
                    let p = names[(rng.next() % names.len() as u64) as usize];
                    FractionalAsk::mig(&format!("m{i}"), p).map_err(|e| e.to_string())
                })
                .collect::<Result<_, _>>()
        })
        .collect::<Result<_, _>>()?;
    let timed = interleaved(ns.len(), SLOW_ROUNDS, |i| bin_pack(&asks[i], &caps));
    ns.iter()
        .zip(timed)
        .map(|(&n, (ms, r))| Ok((n, ms, r.map_err(|e| e.to_string())?.gpus_used)))
        .collect()
}

/// Search steps per ask the optimizer gets in the growth timing: a budget that grows with the
/// asks, so that its time over two sizes shows how each step's cost grows.
pub const OPTIMIZER_STEPS_PER_ASK: u64 = 100;

/// `optimize_sizes` of the speed table's `n` sizes with [`OPTIMIZER_STEPS_PER_ASK`] steps per
/// ask (uniform sizes rarely reach their lower bound, so it spends them all).
pub struct OptimizerTiming {
    pub n: usize,
    /// The best of [`SLOW_ROUNDS`], FFD and the bounds included.
    pub ms: f64,
    /// Steps spent.
    pub work: u64,
    pub bins: usize,
}

/// The optimizer's timing for each `n` of `ns`, timed in turn ([`interleaved`], [`SLOW_ROUNDS`]).
pub fn optimizer(ns: &[usize]) -> Vec<OptimizerTiming> {
    let all: Vec<Vec<u64>> = ns
        .iter()
        .map(|&n| sizes(n).into_iter().map(u64::from).collect())
        .collect();
    let timed = interleaved(ns.len(), SLOW_ROUNDS, |i| {
        let budget = Budget::work(OPTIMIZER_STEPS_PER_ASK * ns[i] as u64);
        optimize_sizes(&all[i], u64::from(CAPACITY), budget)
    });
    ns.iter()
        .zip(timed)
        .map(|(&n, (ms, r))| {
            eprintln!("speed: optimizer at {n} asks: {ms:.0} ms, {} steps", r.work);
            OptimizerTiming {
                n,
                ms,
                work: r.work,
                bins: r.bins,
            }
        })
        .collect()
}
