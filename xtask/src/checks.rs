//! Checks on the workspace itself: the core stays pure and builds for wasm32.

use crate::shell::{cargo, output, run};

/// Crates that would mean the core does JS, CLI, I/O-ish or random things.
const FORBIDDEN_IN_CORE: &[&str] = &[
    "wasm-bindgen",
    "js-sys",
    "web-sys",
    "serde-wasm-bindgen",
    "clap",
    "leptos",
    "dirs",
    "getrandom",
    "rand",
    "tokio",
    "chrono",
    "libc",
];

pub fn core_builds_for_wasm() -> Result<(), String> {
    run(cargo([
        "build",
        "-p",
        "gpu-share-core",
        "--target",
        "wasm32-unknown-unknown",
        "--release",
    ]))
}

pub fn core_dependencies_are_pure() -> Result<(), String> {
    let tree = output(cargo([
        "tree",
        "-p",
        "gpu-share-core",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--all-features",
    ]))
    .ok_or("cargo tree failed")?;
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let bad: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| FORBIDDEN_IN_CORE.contains(n))
        .collect();
    if bad.is_empty() {
        eprintln!("core dependencies are pure: {}", {
            let mut uniq = names.clone();
            uniq.sort_unstable();
            uniq.dedup();
            uniq.join(", ")
        });
        Ok(())
    } else {
        Err(format!(
            "gpu-share-core must not depend on {}",
            bad.join(", ")
        ))
    }
}
