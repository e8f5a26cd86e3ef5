//! Speed where users call it: npm `binPack` in Node, the CLI's `pack --json` as a process, and the
//! same request through the core natively — asks as objects, a whole response back; and npm
//! `binPackColumns` against the core's `api::pack_columns` — asks as a column of fractions, the
//! packing as columns back.

use super::speed::{best_of, node, sizes};
use gpu_share_core::api::{self, AskColumns, Cluster, PackColumnsRequest, PackRequest};
use gpu_share_core::internals::{ClusterGpuCaps, FractionalAsk, Share};
use std::path::Path;
use std::process::{Command, Stdio};

/// Rounds of the native and npm timings, each round all four in turn, the best of each kept: a
/// ratio of two times taken a minute apart follows this host's swings (`binPack` / native at 100k
/// asks read 2.2× in one bench and 1.8× in the next, the same code, on 2026-12-06).
pub const ROUNDS: usize = 3;

/// Ask counts timed through the API: 1,000,000 asks make a response of about 690 MB of JSON.
pub const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

/// npm builds compared, as (rustc opt-level, wasm-opt level); `None` is Cargo.toml's `npm` profile.
/// The package ships the first.
pub const BUILDS: [(Option<&str>, &str); 4] = [
    (None, "-Oz"),
    (None, "-O3"),
    (Some("s"), "-Os"),
    (Some("z"), "-Oz"),
];

/// Asks the builds are compared at.
pub const BUILD_ASKS: usize = 100_000;

/// One npm build: its optimisation, its size and how long `binPack` of [`BUILD_ASKS`] asks took.
pub struct NpmBuild {
    pub opt_level: String,
    pub wasm_opt: &'static str,
    pub bytes: u64,
    pub gzipped: u64,
    pub bin_pack_ms: f64,
}

pub struct ApiTiming {
    pub n: usize,
    pub gpus: u64,
    /// `api::pack` and `serde_json::to_string` of the response, from asks already read.
    pub native_ms: f64,
    /// npm `binPack(asks, null, {supportsTimeslicing: true})` with asks as JavaScript objects.
    pub npm_ms: f64,
    /// The first such call at the full size in a new Node process (untimed on the native side).
    pub npm_first_ms: f64,
    /// `AskColumns::new` of the fractions and `api::pack_columns`, from fractions already made.
    pub native_columns_ms: f64,
    /// npm `binPackColumns({fractions}, null, {supportsTimeslicing: true})`, a `Float64Array`.
    pub npm_columns_ms: f64,
    /// The first such call at the full size in a new Node process.
    pub npm_columns_first_ms: f64,
    /// `gpu-share pack --asks-file F --timeslice --json` as a process, output to a file.
    pub cli_json_ms: f64,
    /// The same without `--json`.
    pub cli_text_ms: f64,
}

/// The fraction of ask `i` of `n`: the speed table's size in millionths, as JavaScript computes it.
fn fractions(n: usize) -> Vec<f64> {
    sizes(n).into_iter().map(|s| f64::from(s) / 1e6).collect()
}

fn native(n: usize) -> Result<(f64, u64), String> {
    let asks: Vec<FractionalAsk> = fractions(n)
        .iter()
        .enumerate()
        .map(|(i, &f)| {
            Share::from_f64(f).and_then(|share| FractionalAsk::fraction(&format!("a{i}"), share))
        })
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let request = PackRequest::new(asks, caps);
    let runs = if n >= 1_000_000 { 1 } else { 3 };
    let (ms, out) = best_of(runs, || -> Result<u64, String> {
        let response = api::pack(&request).map_err(|e| e.to_string())?;
        let json = serde_json::to_string(&response).map_err(|e| e.to_string())?;
        std::hint::black_box(json.len());
        Ok(response.result.gpus_used)
    });
    Ok((ms, out?))
}

/// The columns form natively: (milliseconds, GPUs).
fn native_columns(n: usize) -> Result<(f64, u64), String> {
    let fractions = fractions(n);
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let runs = if n >= 1_000_000 { 1 } else { 3 };
    let (ms, out) = best_of(runs, || -> Result<u64, String> {
        let request = PackColumnsRequest {
            asks: AskColumns::new(None, Some(&fractions), None).map_err(|e| e.to_string())?,
            gpu_count: None,
            cluster: Cluster::Given(caps.clone()),
            options: Default::default(),
        };
        let packed = api::pack_columns(&request).map_err(|e| e.to_string())?;
        std::hint::black_box(&packed.asks.gpu);
        Ok(packed.summary.gpus_used)
    });
    Ok((ms, out?))
}

/// Wall milliseconds of the CLI packing `csv`, output written to a file (best of `runs`).
fn cli(root: &Path, csv: &Path, json: bool, runs: usize) -> Result<f64, String> {
    let bin = root.join("target/release/gpu-share");
    let out = root.join("target/bench/api-cli.out");
    let (ms, status) = best_of(runs, || {
        let mut cmd = Command::new(&bin);
        cmd.args(["pack", "--timeslice", "--asks-file"]).arg(csv);
        if json {
            cmd.arg("--json");
        }
        let file = std::fs::File::create(&out).map_err(|e| e.to_string())?;
        cmd.env_clear()
            .stdout(file)
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))
    });
    match status? {
        s if s.success() => Ok(ms),
        s => Err(format!("gpu-share pack failed: {s}")),
    }
}

/// One npm timing: GPUs used, the best time after a first untimed call at the full size (as
/// [`best_of`] times the native side) and that first call's time, in milliseconds.
struct NpmTime {
    gpus: u64,
    ms: f64,
    first_ms: f64,
}

/// Times `binPack` of `n` asks (with `form` "columns", `binPackColumns`) through the npm package
/// in `npm`, in a Node process of its own.
fn npm(root: &Path, npm: &Path, n: usize, form: &str) -> Result<NpmTime, String> {
    let line = node(&[
        root.join("bench/scripts/api.mjs").display().to_string(),
        npm.display().to_string(),
        n.to_string(),
        form.to_string(),
    ])?;
    let v: serde_json::Value = serde_json::from_str(line.trim()).map_err(|e| e.to_string())?;
    let ms = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    Ok(NpmTime {
        gpus: v["gpus"].as_u64().ok_or("api.mjs printed no GPU count")?,
        ms: ms("ms"),
        first_ms: ms("first"),
    })
}

/// Builds the package at each of [`BUILDS`] (the first is target/npm, built already) and times it.
pub fn builds(root: &Path) -> Result<Vec<NpmBuild>, String> {
    let profile = "3 (Cargo.toml)";
    BUILDS
        .iter()
        .enumerate()
        .map(|(i, &(level, wasm_opt))| {
            let out = if i == 0 {
                root.join("target/npm")
            } else {
                let out = root.join(format!(
                    "target/bench/npm-{}{wasm_opt}",
                    level.unwrap_or("profile")
                ));
                let mut args = vec!["run", "--quiet", "-p", "xtask", "--", "npm"];
                if let Some(level) = level {
                    args.extend(["--opt-level", level]);
                }
                let out_arg = out.display().to_string();
                args.extend(["--wasm-opt", wasm_opt, "--out", &out_arg]);
                xtask::shell::run(xtask::shell::cargo(args))?;
                out
            };
            let (bytes, gzipped) = xtask::shell::sizes(&out.join("gpu_share_wasm_bg.wasm"));
            let bin_pack_ms = npm(root, &out, BUILD_ASKS, "objects")?.ms;
            eprintln!("api: npm opt-level {level:?} wasm-opt {wasm_opt}: {bytes} B, {gzipped} B gzipped, binPack {bin_pack_ms:.0} ms");
            Ok(NpmBuild {
                opt_level: level.map_or(profile.to_string(), str::to_string),
                wasm_opt,
                bytes,
                gzipped,
                bin_pack_ms,
            })
        })
        .collect()
}

pub fn run(root: &Path) -> Result<Vec<ApiTiming>, String> {
    xtask::shell::run(xtask::shell::cargo([
        "build",
        "--release",
        "-p",
        "gpu-share-cli",
    ]))?;
    let dir = root.join("target/bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut timings = Vec::new();
    for n in SIZES {
        let csv = dir.join(format!("api-{n}.csv"));
        let text: String = fractions(n)
            .iter()
            .enumerate()
            .map(|(i, f)| format!("a{i},{f}\n"))
            .collect();
        std::fs::write(&csv, text).map_err(|e| e.to_string())?;
        let runs = if n >= 1_000_000 { 1 } else { 3 };
        let cli_json_ms = cli(root, &csv, true, runs)?;
        let cli_text_ms = cli(root, &csv, false, runs)?;
        let mut best = [f64::INFINITY; 6];
        let mut gpus = 0;
        for _ in 0..ROUNDS {
            let (native_ms, native_gpus) = native(n)?;
            let objects = npm(root, &root.join("target/npm"), n, "objects")?;
            let (native_columns_ms, columns_gpus) = native_columns(n)?;
            let columns = npm(root, &root.join("target/npm"), n, "columns")?;
            if [objects.gpus, columns_gpus, columns.gpus] != [native_gpus; 3] {
                return Err(format!(
                    "at {n} asks: npm binPack used {} GPUs, pack_columns {columns_gpus}, binPackColumns {}, native {native_gpus}",
                    objects.gpus, columns.gpus
                ));
            }
            gpus = native_gpus;
            let round = [
                native_ms,
                objects.ms,
                objects.first_ms,
                native_columns_ms,
                columns.ms,
                columns.first_ms,
            ];
            for (b, ms) in best.iter_mut().zip(round) {
                *b = b.min(ms);
            }
        }
        let [native_ms, npm_ms, npm_first_ms, native_columns_ms, npm_columns_ms, npm_columns_first_ms] =
            best;
        eprintln!(
            "api: {n} asks: native {native_ms:.0} ms, npm {npm_ms:.0} ms (first call {npm_first_ms:.0}), columns native {native_columns_ms:.0} ms, npm {npm_columns_ms:.0} ms (first call {npm_columns_first_ms:.0}), cli --json {cli_json_ms:.0} ms, cli {cli_text_ms:.0} ms"
        );
        timings.push(ApiTiming {
            n,
            gpus,
            native_ms,
            npm_ms,
            npm_first_ms,
            native_columns_ms,
            npm_columns_ms,
            npm_columns_first_ms,
            cli_json_ms,
            cli_text_ms,
        });
    }
    Ok(timings)
}
