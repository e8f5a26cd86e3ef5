//! `cargo xtask bench`: packing quality against known optima (BPPLIB), speed as users meet it,
//! peers, the replay and the engine model; writes BENCHMARKS.md.
//!
//! Its own crate, outside the task runner: `cargo xtask bench` runs it as a release build (a debug
//! build's timings mean nothing) in the caller's folder, and it calls the core in-process.

mod api;
mod bpplib;
mod engine;
mod generate;
mod memory_quality;
mod mig_quality;
mod node;
mod page;
mod peers;
mod quality;
mod repartition;
mod replay;
mod report;
mod speed;
mod unseen;

use gpu_share_core::internals::pack::optimize::Budget;
use std::path::{Path, PathBuf};
use xtask::shell::{cargo, root, run as run_cmd};

const USAGE: &str = "usage: cargo xtask bench --bpplib DIR [--trace DIR] [--tsv FILE] [--budget-ms N] \
[--only PART[,PART…]] (parts: quality, unseen, peers, mig, memory, repartition, speed, api, page, replay, engine) [--vllm DIR] [--family NAME] [--no-write] (--help: what DIR holds)
(with --only or --family the report goes to target/bench/BENCHMARKS-partial.md, not BENCHMARKS.md)";

/// What `--bpplib DIR` must hold; the data is not in the repository.
const BPPLIB_DIR: &str = "\
--bpplib DIR names the BPPLIB benchmark data, which the repository does not ship; the quality,
unseen and peers parts (everything but `--only mig`, `--only memory`, `--only repartition`, `--only speed`, `--only api` and `--only page`) need it. DIR must hold:
  - the instances, one folder per family (Falkenauer_T/, Scholl_1/, Hard28/, ...), each instance a
    `.txt` file: n (the number of items) on the first line, the capacity c on the second, then n
    integer weights, one per line;
  - optima.tsv: a tab-separated table whose header names at least the columns `file` (the instance's
    path relative to DIR, e.g. `Scholl_1/N1C1W1_A.txt`) and `OPT` (its known optimal bin count).
The instances are the BPPLIB collection (Delorme, Iori, Martello; github.com/mdelorme2/BPPLIB); the
optima are in its published bounds tables.

--trace DIR names the Alibaba 2023 GPU trace's openb lists (github.com/alibaba/clusterdata,
cluster-trace-gpu-v2023; not shipped: its terms ask for research or study use), for the replay part:
openb_node_list_gpu_node.csv, the openb_pod_list_*.csv workloads, and optionally the paper's means
as expected_allocation.tsv (workload, policy, seeds, mean at 100%, mean at 130%, spread at 130%).
Without --trace the replay part is left out.";

struct Options {
    /// The BPPLIB folder, made absolute (the parts run their tools at the repository root).
    bpplib: Option<PathBuf>,
    /// The trace folder, made absolute.
    trace: Option<PathBuf>,
    /// The vLLM start-ups folder (runs.tsv), made absolute.
    vllm: Option<PathBuf>,
    tsv: PathBuf,
    budget_ms: u64,
    only: Option<String>,
    family: Option<String>,
    write: bool,
    help: bool,
}

impl Options {
    /// Where the report goes: BENCHMARKS.md for a whole run; a partial run (`--only`, `--family`)
    /// writes beside the build instead, so that it never replaces the whole report with a part.
    fn report_path(&self) -> PathBuf {
        if self.only.is_none() && self.family.is_none() {
            root().join("BENCHMARKS.md")
        } else {
            root().join("target/bench/BENCHMARKS-partial.md")
        }
    }

    /// No `--only`, or `--only` names `part` among its comma-separated parts.
    fn wants(&self, part: &str) -> bool {
        self.only
            .as_deref()
            .is_none_or(|only| only.split(',').any(|p| p == part))
    }
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        bpplib: None,
        trace: None,
        vllm: None,
        tsv: root().join("target/bench/bpplib.tsv"),
        budget_ms: 1000,
        only: None,
        family: None,
        write: true,
        help: false,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| USAGE.to_string());
        match flag.as_str() {
            "--bpplib" => {
                let dir = PathBuf::from(value()?);
                o.bpplib = Some(std::path::absolute(&dir).unwrap_or(dir));
            }
            "--trace" => {
                let dir = PathBuf::from(value()?);
                o.trace = Some(std::path::absolute(&dir).unwrap_or(dir));
            }
            "--vllm" => {
                let dir = PathBuf::from(value()?);
                o.vllm = Some(std::path::absolute(&dir).unwrap_or(dir));
            }
            "--tsv" => o.tsv = PathBuf::from(value()?),
            "--budget-ms" => o.budget_ms = value()?.parse().map_err(|_| USAGE.to_string())?,
            "--only" => o.only = Some(value()?),
            "--family" => o.family = Some(value()?),
            "--no-write" => o.write = false,
            "-h" | "--help" => o.help = true,
            _ => return Err(USAGE.into()),
        }
    }
    Ok(o)
}

/// The BPPLIB folder, when a part that needs it is wanted: given, a folder, with its optima.tsv.
fn bpplib(o: &Options) -> Result<Option<&Path>, String> {
    let wants = |part: &str| o.wants(part);
    if !(wants("quality") || wants("peers") || wants("unseen")) {
        return Ok(None);
    }
    let Some(dir) = &o.bpplib else {
        return Err(format!("no --bpplib DIR given\n{BPPLIB_DIR}\n{USAGE}"));
    };
    if !dir.join("optima.tsv").is_file() {
        let what = if dir.is_dir() {
            "has no optima.tsv"
        } else {
            "is not a folder"
        };
        return Err(format!("--bpplib {} {what}\n{BPPLIB_DIR}", dir.display()));
    }
    Ok(Some(dir))
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    if options.help {
        println!("{USAGE}\n\n{BPPLIB_DIR}");
        return Ok(());
    }
    let bpplib = bpplib(&options)?;
    // The command as BENCHMARKS.md names it: each folder given as `DIR`.
    let with_dir = |dir: &str| -> Vec<String> {
        let mut out = Vec::with_capacity(args.len());
        let mut it = args.iter();
        while let Some(a) = it.next() {
            out.push(a.clone());
            if a == "--bpplib" || a == "--trace" || a == "--vllm" {
                it.next();
                out.push(dir.to_string());
            }
        }
        out
    };
    if cfg!(debug_assertions) {
        return Err("the bench times a release build: run it as `cargo xtask bench`".into());
    }
    let started = std::time::Instant::now();
    let wants = |part: &str| options.wants(part);
    let mut instances = Vec::new();
    if let Some(dir) = bpplib {
        instances = bpplib::load(dir)?;
        if let Some(f) = &options.family {
            instances.retain(|i| i.file.contains(f.as_str()));
        }
        eprintln!(
            "bench: {} instances from {}",
            instances.len(),
            dir.display()
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
    let unseen = if wants("unseen") {
        unseen::run(&instances, Budget::from_millis(options.budget_ms))
    } else {
        Default::default()
    };
    let peers = match bpplib {
        Some(dir) if wants("peers") => peers::run(&instances, dir, &root())?,
        _ => Default::default(),
    };
    let mig_rows = if wants("mig") {
        mig_quality::run(Budget::from_millis(options.budget_ms))?
    } else {
        Vec::new()
    };
    let memory_rows = if wants("memory") {
        memory_quality::run(Budget::from_millis(options.budget_ms))?
    } else {
        Vec::new()
    };
    let repartition_rows = if wants("repartition") {
        repartition::run()?
    } else {
        Vec::new()
    };
    let mut speed = Vec::new();
    let mut mig = Vec::new();
    let mut optimizer = Vec::new();
    let npm_built = wants("speed") || wants("api") || (wants("replay") && options.trace.is_some());
    if npm_built {
        run_cmd(cargo(["run", "--quiet", "-p", "xtask", "--", "npm"]))?;
    }
    if wants("speed") {
        speed = speed::native();
        speed::wasm(&mut speed, &root())?;
        mig = speed::mig(&[100_000, 1_000_000])?;
        optimizer = speed::optimizer(&[100_000, 1_000_000]);
    }
    let (api, npm_builds) = if wants("api") {
        (api::run(&root())?, api::builds(&root())?)
    } else {
        Default::default()
    };
    let page = if wants("page") {
        Some(page::run(&root())?)
    } else {
        None
    };
    let engine_rows = match &options.vllm {
        Some(dir) if wants("engine") => {
            let rows = engine::run(dir, &root())?;
            engine::print(&rows);
            rows
        }
        _ => Vec::new(),
    };
    if let (false, false) = (options.write, engine_rows.is_empty()) {
        print!("{}", engine::markdown(&engine_rows));
    }
    let replay = match &options.trace {
        Some(dir) if wants("replay") => Some(replay::run(dir, &root())?),
        _ => None,
    };
    if let (false, Some(replay)) = (options.write, &replay) {
        print!("{}", replay::markdown(replay));
    }
    if options.write {
        let mut command = String::from("cargo xtask bench");
        for a in with_dir("DIR") {
            command.push(' ');
            command.push_str(&a);
        }
        let md = report::markdown(&report::Report {
            command,
            budget_ms: options.budget_ms,
            rows: &rows,
            unseen: &unseen,
            peers: &peers,
            mig_rows: &mig_rows,
            memory_rows: &memory_rows,
            repartition: &repartition_rows,
            speed: &speed,
            mig: &mig,
            optimizer: &optimizer,
            api: &api,
            npm_builds: &npm_builds,
            page: page.as_ref(),
            replay: replay.as_ref(),
            engine: &engine_rows,
            wall_s: started.elapsed().as_secs_f64(),
        });
        let path = options.report_path();
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        std::fs::write(&path, md).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!(
            "bench: wrote {} and {}",
            path.display(),
            options.tsv.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(args: &[&str]) -> Options {
        parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn only_a_whole_run_writes_benchmarks_md() {
        let whole = options(&["--bpplib", "d", "--trace", "t"]);
        assert_eq!(whole.report_path(), root().join("BENCHMARKS.md"));
        for partial in [
            &["--only", "speed"][..],
            &["--bpplib", "d", "--family", "AI"],
        ] {
            assert_eq!(
                options(partial).report_path(),
                root().join("target/bench/BENCHMARKS-partial.md"),
                "{partial:?}"
            );
        }
    }
}
