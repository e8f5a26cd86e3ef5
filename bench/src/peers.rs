//! Peers on the same BPPLIB instances: the Rust crate `bin-packing` (in this process), the npm
//! package `bin-packer` (in Node) and the PyPI package `binpacking` (in Python), each at the version
//! pinned in xtask/Cargo.toml, bench/scripts/package-lock.json and bench/scripts/requirements.txt.

use super::bpplib::Instance;
use super::node::node_modules;
use bin_packing::one_d::{solve_1d, CutDemand1D, OneDAlgorithm, OneDOptions, OneDProblem, Stock1D};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The `bin-packing` crate's version, as pinned in xtask/Cargo.toml.
const CRATE_VERSION: &str = "0.4.0";

/// One peer algorithm: bins and milliseconds per instance file.
pub struct PeerRun {
    /// The package, its version and its registry: `bin-packer 1.7.0 (npm)`.
    pub tool: String,
    /// The algorithm called, in short (BENCHMARKS.md says what each is).
    pub algorithm: &'static str,
    pub results: BTreeMap<String, (u64, f64)>,
}

/// Runs every peer on every instance.
pub fn run(instances: &[Instance], bpplib: &Path, root: &Path) -> Result<Vec<PeerRun>, String> {
    let list: String = instances
        .iter()
        .map(|i| format!("{}\t{}\n", bpplib.join(&i.file).display(), i.file))
        .collect();
    let list_file = root.join("target/bench/peer-files.tsv");
    std::fs::write(&list_file, list).map_err(|e| e.to_string())?;
    let mut runs = rust_crate(instances)?;
    runs.extend(npm(&list_file, root)?);
    runs.extend(python(&list_file, root)?);
    Ok(runs)
}

/// `bin_packing::one_d::solve_1d`: its first-fit and best-fit decreasing, and `Auto` (those two,
/// its multistart local search and, on small instances, its column generation; seed 1).
fn rust_crate(instances: &[Instance]) -> Result<Vec<PeerRun>, String> {
    let algorithms = [
        (OneDAlgorithm::FirstFitDecreasing, "FFD"),
        (OneDAlgorithm::BestFitDecreasing, "BFD"),
        (OneDAlgorithm::Auto, "Auto"),
    ];
    let mut runs: Vec<PeerRun> = algorithms
        .iter()
        .map(|&(_, algorithm)| PeerRun {
            tool: format!("bin-packing {CRATE_VERSION} (crates.io)"),
            algorithm,
            results: BTreeMap::new(),
        })
        .collect();
    for inst in instances {
        let problem = problem(inst)?;
        for (run, &(algorithm, _)) in runs.iter_mut().zip(&algorithms) {
            let options = OneDOptions {
                algorithm,
                seed: Some(1),
                ..Default::default()
            };
            let started = Instant::now();
            let solution = solve_1d(problem.clone(), options)
                .map_err(|e| format!("bin-packing on {}: {e}", inst.file))?;
            let ms = started.elapsed().as_secs_f64() * 1e3;
            if !solution.unplaced.is_empty() {
                return Err(format!("bin-packing left cuts of {} unplaced", inst.file));
            }
            run.results
                .insert(inst.file.clone(), (solution.stock_count as u64, ms));
        }
    }
    eprintln!(
        "peers: bin-packing {CRATE_VERSION} on {} instances",
        instances.len()
    );
    Ok(runs)
}

/// An instance as a cutting-stock problem: one stock of length c, a demand per distinct weight.
fn problem(inst: &Instance) -> Result<OneDProblem, String> {
    let narrow = |x: u64| u32::try_from(x).map_err(|_| format!("{}: over u32", inst.file));
    let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
    for &w in &inst.weights {
        *counts.entry(w).or_default() += 1;
    }
    let demands = counts
        .into_iter()
        .map(|(length, quantity)| {
            Ok(CutDemand1D {
                name: length.to_string(),
                length: narrow(length)?,
                quantity,
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(OneDProblem {
        stock: vec![Stock1D {
            name: "bin".into(),
            length: narrow(inst.capacity)?,
            kerf: 0,
            trim: 0,
            cost: 1.0,
            available: None,
        }],
        demands,
    })
}

/// `bin-packer`'s first-fit and best-fit decreasing through bench/scripts/peers.mjs.
fn npm(list_file: &Path, root: &Path) -> Result<Vec<PeerRun>, String> {
    let bench = node_modules(root)?;
    let package = std::fs::read_to_string(bench.join("node_modules/bin-packer/package.json"))
        .map_err(|e| format!("cannot read bin-packer's package.json: {e}"))?;
    let version: serde_json::Value = serde_json::from_str(&package).map_err(|e| e.to_string())?;
    let tool = format!(
        "bin-packer {} (npm)",
        version["version"].as_str().unwrap_or("?")
    );
    let mut cmd = Command::new("node");
    cmd.arg(bench.join("peers.mjs"))
        .arg(list_file)
        .current_dir(&bench);
    let lines = json_lines(cmd, "peers.mjs")?;
    Ok(vec![
        collect(&lines, &tool, "firstFitDecreasing", "FFD"),
        collect(&lines, &tool, "bestFitDecreasing", "BFD"),
    ])
}

/// `binpacking.to_constant_volume` through bench/scripts/peers.py, in a virtual environment under
/// target/bench/python made from bench/scripts/requirements.txt.
fn python(list_file: &Path, root: &Path) -> Result<Vec<PeerRun>, String> {
    let env = root.join("target/bench/python");
    let bin = env.join("bin/python");
    let requirements = root.join("bench/scripts/requirements.txt");
    if !bin.exists() {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&env)
            .status()
            .map_err(|e| format!("the peers need python3 (with venv): {e}"))?;
        if !made.success() {
            return Err("python3 -m venv failed: install python3-venv".into());
        }
    }
    let installed = Command::new(&bin)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(&requirements)
        .status()
        .map_err(|e| format!("cannot run pip: {e}"))?;
    if !installed.success() {
        return Err(format!("pip install -r {} failed", requirements.display()));
    }
    let mut cmd = Command::new(&bin);
    cmd.arg(root.join("bench/scripts/peers.py")).arg(list_file);
    let lines = json_lines(cmd, "peers.py")?;
    let version = lines
        .iter()
        .find_map(|v| v["version"].as_str())
        .unwrap_or("?");
    let tool = format!("binpacking {version} (PyPI)");
    Ok(vec![collect(
        &lines,
        &tool,
        "toConstantVolume",
        "to_constant_volume",
    )])
}

/// Runs a peer script; its standard output, one JSON value per line.
fn json_lines(mut cmd: Command, name: &str) -> Result<Vec<serde_json::Value>, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{name} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).map_err(|e| format!("{name}: {e}")))
        .collect()
}

/// One algorithm's results from a peer script's lines `{file, <key>: {bins, ms}}`.
fn collect(lines: &[serde_json::Value], tool: &str, key: &str, algorithm: &'static str) -> PeerRun {
    let results = lines
        .iter()
        .filter_map(|v| {
            let file = v["file"].as_str()?;
            let bins = v[key]["bins"].as_u64()?;
            Some((file.to_string(), (bins, v[key]["ms"].as_f64()?)))
        })
        .collect();
    PeerRun {
        tool: tool.to_string(),
        algorithm,
        results,
    }
}
