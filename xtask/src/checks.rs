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

/// The folders of the front ends, which reach the core through `gpu_share_core::api` alone.
const FRONT_ENDS: &[&str] = &["cli/src", "wasm/src", "web/src", "svg/src"];

/// Fails if a front end's source names a `gpu_share_core::` path other than `gpu_share_core::api`
/// (the core's one door; `internals` is for its tests, the fuzz targets and the bench).
pub fn front_ends_use_only_the_api() -> Result<(), String> {
    let mut found = Vec::new();
    for dir in FRONT_ENDS {
        for file in rust_files(&crate::shell::root().join(dir)) {
            let text =
                std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            for (n, line) in text.lines().enumerate() {
                if past_the_door(line) {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    if found.is_empty() {
        eprintln!("front ends reach the core through gpu_share_core::api only");
        Ok(())
    } else {
        Err(format!(
            "front ends must reach the core through gpu_share_core::api only:\n{}",
            found.join("\n")
        ))
    }
}

/// Whether `line` names `gpu_share_core::<module>` for a module other than `api`.
fn past_the_door(line: &str) -> bool {
    line.match_indices("gpu_share_core::").any(|(i, m)| {
        let rest = &line[i + m.len()..];
        let module: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        !module.is_empty() && module != "api"
            || module == "api" && rest[3..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    })
}

/// Every `.rs` file below `dir`.
fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::past_the_door;

    #[test]
    fn only_the_api_path_passes() {
        assert!(!past_the_door("use gpu_share_core::api::{self, Share};"));
        assert!(!past_the_door("gpu_share_core::api::mib_text(m)"));
        assert!(!past_the_door("use gpu_share_core::api;"));
        assert!(past_the_door("use gpu_share_core::pack::Tenants;"));
        assert!(past_the_door("x(gpu_share_core::internals::bin_pack)"));
        assert!(past_the_door("use gpu_share_core::apis::X;"));
        assert!(!past_the_door("gpu_share_core::Share")); // not a module path: the check's regex, too
    }
}
