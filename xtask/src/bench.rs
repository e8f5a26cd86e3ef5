//! `cargo xtask bench`: packing quality against known optima (BPPLIB), packing speed, and peers.
//!
//! The timing must not run in a debug build, so a debug `cargo xtask bench` re-runs itself as
//! `cargo run --release -p xtask -- bench …` and the release process does the work in-process,
//! calling the core directly.

mod bpplib;
mod mig_quality;
mod peers;
mod quality;
mod report;
mod speed;

use crate::shell::{cargo, root, run as run_cmd};
use gpu_share_core::pack::optimize::Budget;
use std::path::PathBuf;

const USAGE: &str = "usage: cargo xtask bench [--bpplib DIR] [--tsv FILE] [--budget-ms N] \
[--only quality|mig|speed|peers] [--family NAME] [--no-write]";

struct Options {
    bpplib: PathBuf,
    tsv: PathBuf,
    budget_ms: u64,
    only: Option<String>,
    family: Option<String>,
    write: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        bpplib: root().join("../shared/bench/bpplib"),
        tsv: root().join("target/bench/bpplib.tsv"),
        budget_ms: 1000,
        only: None,
        family: None,
        write: true,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| USAGE.to_string());
        match flag.as_str() {
            "--bpplib" => o.bpplib = PathBuf::from(value()?),
            "--tsv" => o.tsv = PathBuf::from(value()?),
            "--budget-ms" => o.budget_ms = value()?.parse().map_err(|_| USAGE.to_string())?,
            "--only" => o.only = Some(value()?),
            "--family" => o.family = Some(value()?),
            "--no-write" => o.write = false,
            _ => return Err(USAGE.into()),
        }
    }
    Ok(o)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    if cfg!(debug_assertions) {
        let mut cmd = vec!["run", "--quiet", "--release", "-p", "xtask", "--", "bench"];
        cmd.extend(args.iter().map(String::as_str));
        return run_cmd(cargo(cmd));
    }
    let started = std::time::Instant::now();
    let wants = |part: &str| options.only.as_deref().is_none_or(|o| o == part);
    let mut instances = Vec::new();
    if wants("quality") || wants("peers") {
        instances = bpplib::load(&options.bpplib)?;
        if let Some(f) = &options.family {
            instances.retain(|i| i.file.contains(f.as_str()));
        }
        eprintln!(
            "bench: {} instances from {}",
            instances.len(),
            options.bpplib.display()
        );
    }
    let mut rows = Vec::new();
    if wants("quality") {
        rows = quality::run(&instances, Budget::from_millis(options.budget_ms), 2);
        for s in quality::summarise(&rows) {
            eprintln!(
                "{:14} {:4} ffd-opt {:4} opt-opt {:4} ffd-excess {:4} opt-excess {:4} lb-hits {:4} proven {:4} max {:7.1} ms total {:8.1} ms",
                s.family, s.instances, s.ffd_optimal, s.optimized_optimal, s.ffd_excess,
                s.optimized_excess, s.bound_hits, s.proven, s.max_ms, s.total_ms
            );
        }
        if let Some(dir) = options.tsv.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        std::fs::write(&options.tsv, quality::tsv(&rows))
            .map_err(|e| format!("cannot write {}: {e}", options.tsv.display()))?;
    }
    let peers = if wants("peers") {
        peers::run(&instances, &options.bpplib, &root())?
    } else {
        Default::default()
    };
    let mig_rows = if wants("mig") {
        mig_quality::run(Budget::from_millis(options.budget_ms))?
    } else {
        Vec::new()
    };
    let mut speed = Vec::new();
    let mut mig = None;
    if wants("speed") {
        speed = speed::native();
        run_cmd(cargo(["run", "--quiet", "-p", "xtask", "--", "npm"]))?;
        speed::wasm(&mut speed, &root())?;
        let n = 100_000;
        let (ms, gpus) = speed::mig(n)?;
        mig = Some((n, ms, gpus));
    }
    if options.write {
        let mut command = String::from("cargo xtask bench");
        for a in args {
            command.push(' ');
            command.push_str(a);
        }
        let md = report::markdown(&report::Report {
            command,
            budget_ms: options.budget_ms,
            rows: &rows,
            peers: &peers,
            mig_rows: &mig_rows,
            speed: &speed,
            mig,
            wall_s: started.elapsed().as_secs_f64(),
        });
        std::fs::write(root().join("BENCHMARKS.md"), md)
            .map_err(|e| format!("cannot write BENCHMARKS.md: {e}"))?;
        eprintln!("bench: wrote BENCHMARKS.md and {}", options.tsv.display());
    }
    Ok(())
}
