//! `cargo xtask fuzz`: every cargo-fuzz target in `fuzz/` for a fixed time, on the stable toolchain
//! (`--sanitizer none`), with the number of runs each made; and the no-panic property suite at a
//! large case count.

use crate::shell::{cargo, root, run};
use std::time::Instant;

/// The targets, one per parser plus the packer, the exports and the SVG diagram (see
/// `fuzz/Cargo.toml`).
pub const TARGETS: [&str; 11] = [
    "ask_spec",
    "asks_list",
    "scenario",
    "discover",
    "ledger",
    "mig_parted",
    "pack",
    "export",
    "svg",
    "model_config",
    "replay_trace",
];

/// Seconds per target when `--seconds` is not given.
pub const DEFAULT_SECONDS: u64 = 30;

/// Seconds per target in `cargo xtask test` (CI): 11 targets × 12 s, plus the build.
pub const TEST_SECONDS: u64 = 12;

/// Cases per property of `core/tests/core/no_panic.rs` in `cargo xtask test`.
pub const PROPTEST_CASES: u32 = 100_000;

pub struct Options {
    pub seconds: u64,
    pub target: Option<String>,
}

impl Options {
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let usage = "usage: cargo xtask fuzz [--seconds N] [--target NAME]";
        let mut options = Options {
            seconds: DEFAULT_SECONDS,
            target: None,
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().ok_or(usage)?;
            match flag.as_str() {
                "--seconds" => {
                    options.seconds = value
                        .parse()
                        .ok()
                        .filter(|&s| s > 0)
                        .ok_or(format!("--seconds takes a whole number above 0; {usage}"))?;
                }
                "--target" if TARGETS.contains(&value.as_str()) => {
                    options.target = Some(value.clone());
                }
                "--target" => {
                    return Err(format!(
                        "unknown fuzz target {value:?}; the targets are {}",
                        TARGETS.join(", ")
                    ))
                }
                _ => return Err(usage.into()),
            }
        }
        Ok(options)
    }
}

/// Builds the targets once, runs each for `options.seconds`, prints a table of runs, and fails
/// on the first crash (or timeout, or out-of-memory) with the input that caused it.
pub fn run_targets(options: &Options) -> Result<(), String> {
    crate::setup::cargo_fuzz()?;
    run(cargo(["fuzz", "build", "--sanitizer", "none"]))?;
    let targets: Vec<&str> = match &options.target {
        Some(t) => vec![t.as_str()],
        None => TARGETS.to_vec(),
    };
    let mut rows = Vec::new();
    for target in targets {
        let runs = run_one(target, options.seconds)?;
        rows.push((target, runs));
    }
    println!(
        "fuzz: {} s per target, release build with debug assertions, --sanitizer none",
        options.seconds
    );
    println!("  {:<12} {:>12}", "target", "runs");
    for (target, runs) in &rows {
        println!("  {target:<12} {runs:>12}");
    }
    let total: u64 = rows.iter().map(|(_, r)| r).sum();
    println!(
        "  {:<12} {total:>12}  (no crash, timeout or out-of-memory)",
        "total"
    );
    Ok(())
}

/// One target for `seconds`: its libFuzzer's "Done N runs" count, or the crash.
fn run_one(target: &str, seconds: u64) -> Result<u64, String> {
    let fuzz = root().join("fuzz");
    // libFuzzer adds what it finds to the first folder: the working corpus (git-ignored), never
    // the checked-in seeds or the nvidia-smi captures after it, which are only read.
    let working = fuzz.join("corpus").join(target);
    std::fs::create_dir_all(&working)
        .map_err(|e| format!("cannot create {}: {e}", working.display()))?;
    let mut corpora = vec![working];
    let seeds = fuzz.join("corpus-seeds").join(target);
    if seeds.is_dir() {
        corpora.push(seeds);
    }
    // Discovery also starts from the real nvidia-smi captures in tests/fixtures/, read in place.
    let captures = root().join("tests/fixtures/nvidia-smi");
    if target == "discover" && captures.is_dir() {
        corpora.push(captures);
    }
    let mut args: Vec<String> = ["fuzz", "run", "--sanitizer", "none", target]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(corpora.iter().map(|p| p.display().to_string()));
    args.extend([
        "--".to_string(),
        format!("-max_total_time={seconds}"),
        // A single input taking this long is a hang: reported like a crash.
        "-timeout=10".to_string(),
        "-rss_limit_mb=2048".to_string(),
    ]);
    eprintln!("$ cargo {}", args.join(" "));
    let started = Instant::now();
    let out = cargo(&args)
        .command()
        .output()
        .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    let done = log.lines().rev().find_map(done_runs);
    match (out.status.success(), done) {
        (true, Some(runs)) => {
            eprintln!(
                "fuzz: {target}: {runs} runs in {:.0} s",
                started.elapsed().as_secs_f64()
            );
            Ok(runs)
        }
        _ => {
            let tail: Vec<&str> = log.lines().rev().take(60).collect();
            for line in tail.iter().rev() {
                eprintln!("{line}");
            }
            let artifact = log
                .lines()
                .find_map(|l| l.split_once("Test unit written to ").map(|(_, p)| p.trim()))
                .map_or(String::new(), |p| {
                    format!(
                        "; the input is in {p} (replay: cargo fuzz run --sanitizer none {target} {p})"
                    )
                });
            Err(format!(
                "fuzz target {target} failed ({}){artifact}",
                out.status
            ))
        }
    }
}

/// `N` from libFuzzer's closing line `Done N runs in S second(s)`.
fn done_runs(line: &str) -> Option<u64> {
    let rest = line.trim().strip_prefix("Done ")?;
    let (n, rest) = rest.split_once(' ')?;
    rest.starts_with("runs in ")
        .then(|| n.parse().ok())
        .flatten()
}

/// The no-panic property suite of the core at [`PROPTEST_CASES`] cases per property: the
/// `no_panic` module of the core's one test binary, `core`, alone (by its name, `no_panic::`).
pub fn no_panic_properties() -> Result<(), String> {
    let started = Instant::now();
    run(cargo([
        "test",
        "-p",
        "gpu-share-core",
        "--test",
        "core",
        "no_panic::",
    ])
    .env("PROPTEST_CASES", &PROPTEST_CASES.to_string()))?;
    println!(
        "proptest: core/tests/core/no_panic.rs, {PROPTEST_CASES} cases per property, {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_libfuzzers_closing_line() {
        assert_eq!(
            done_runs("Done 4072281 runs in 31 second(s)"),
            Some(4_072_281)
        );
        assert_eq!(done_runs("#4072281\tDONE   cov: 1"), None);
        assert_eq!(done_runs("Done x runs in 1 second(s)"), None);
    }

    #[test]
    fn the_targets_are_the_bins_of_fuzz_cargo_toml() {
        let manifest = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).unwrap();
        let bins: Vec<&str> = manifest
            .split("[[bin]]")
            .skip(1)
            .filter_map(|bin| bin.lines().find_map(|l| l.strip_prefix("name = ")))
            .map(|name| name.trim_matches('"'))
            .collect();
        assert_eq!(
            bins, TARGETS,
            "fuzz/Cargo.toml and TARGETS list the same targets"
        );
        for target in TARGETS {
            assert!(
                root()
                    .join(format!("fuzz/fuzz_targets/{target}.rs"))
                    .is_file(),
                "{target}"
            );
        }
    }

    #[test]
    fn options() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let o = Options::parse(&args(&["--seconds", "5", "--target", "pack"])).unwrap();
        assert_eq!((o.seconds, o.target.as_deref()), (5, Some("pack")));
        assert_eq!(Options::parse(&[]).unwrap().seconds, DEFAULT_SECONDS);
        assert!(Options::parse(&args(&["--target", "nope"])).is_err());
        assert!(Options::parse(&args(&["--seconds", "0"])).is_err());
        assert!(Options::parse(&args(&["--seconds"])).is_err());
    }
}
