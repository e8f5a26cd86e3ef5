//! Packing speed: the tree FFD natively and through the npm package, the quadratic reference, and MIG.

use gpu_share_core::catalog::find_model;
use gpu_share_core::pack::optimize::{optimize_sizes, Budget};
use gpu_share_core::pack::{bin_pack, bins_used, first_fit_decreasing, reference_ffd};
use gpu_share_core::{ClusterGpuCaps, FractionalAsk};
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

/// Best of `runs` wall times of `f`, in milliseconds, and its last result.
pub fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = f();
    for _ in 0..runs {
        let t = Instant::now();
        out = f();
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    (best, out)
}

pub fn native() -> Vec<Timing> {
    SIZES
        .iter()
        .map(|&n| {
            let s: Vec<u64> = sizes(n).into_iter().map(u64::from).collect();
            let runs = 5;
            let (tree_ms, bins) = best_of(runs, || {
                bins_used(&first_fit_decreasing(&s, u64::from(CAPACITY)))
            });
            let reference_ms = (n <= REFERENCE_UP_TO).then(|| {
                let (ms, r) = best_of(1, || bins_used(&reference_ffd(&s, u64::from(CAPACITY))));
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
        root.join("xtask/bench/speed.mjs").display().to_string(),
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

/// Runs per size of the slower timings (MIG packing, the optimizer): one run of each size made
/// the growth ratio swing by half between bench runs on the 2-core machine; a million asks take
/// seconds, so two of those.
pub fn slow_runs(n: usize) -> usize {
    if n >= 1_000_000 {
        2
    } else {
        3
    }
}

/// Full `bin_pack` of `n` MIG asks (random A100 40GB profiles): milliseconds, the best of
/// [`slow_runs`], and GPUs used.
pub fn mig(n: usize) -> Result<(f64, u64), String> {
    let a100 = find_model("a100-40gb").ok_or("no a100-40gb in the catalogue")?;
    let names: Vec<&str> = a100
        .profiles
        .iter()
        .map(|p| p.name)
        .filter(|p| !p.contains("+me"))
        .collect();
    let mut rng = SplitMix(7);
    let asks: Vec<FractionalAsk> = (0..n)
        .map(|i| {
            let p = names[(rng.next() % names.len() as u64) as usize];
            FractionalAsk::mig(&format!("m{i}"), p).map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    let caps = ClusterGpuCaps {
        supports_mig: true,
        gpu_model: Some("a100-40gb".into()),
        ..Default::default()
    };
    let (ms, r) = best_of(slow_runs(n), || bin_pack(&asks, &caps));
    let r = r.map_err(|e| e.to_string())?;
    Ok((ms, r.gpus_used))
}

/// Search steps per ask the optimizer gets in the growth timing: a budget that grows with the
/// asks, so that its time over two sizes shows how each step's cost grows.
pub const OPTIMIZER_STEPS_PER_ASK: u64 = 100;

/// `optimize_sizes` of the speed table's `n` sizes with [`OPTIMIZER_STEPS_PER_ASK`] steps per
/// ask (uniform sizes rarely reach their lower bound, so it spends them all).
pub struct OptimizerTiming {
    pub n: usize,
    /// The best of [`slow_runs`], FFD and the bounds included.
    pub ms: f64,
    /// Steps spent.
    pub work: u64,
    pub bins: usize,
}

pub fn optimizer(n: usize) -> OptimizerTiming {
    let s: Vec<u64> = sizes(n).into_iter().map(u64::from).collect();
    let budget = Budget::work(OPTIMIZER_STEPS_PER_ASK * n as u64);
    let (ms, r) = best_of(slow_runs(n), || {
        optimize_sizes(&s, u64::from(CAPACITY), budget)
    });
    eprintln!("speed: optimizer at {n} asks: {ms:.0} ms, {} steps", r.work);
    OptimizerTiming {
        n,
        ms,
        work: r.work,
        bins: r.bins,
    }
}
