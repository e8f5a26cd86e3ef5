//! Peers: the npm package `bin-packer` (first-fit and best-fit decreasing) on the same BPPLIB instances.

use super::bpplib::Instance;
use std::collections::BTreeMap;
use std::path::Path;

/// A peer's bins and milliseconds on one instance.
#[derive(Clone, Copy, Default)]
pub struct Peer {
    pub ffd: u64,
    pub ffd_ms: f64,
    pub bfd: u64,
    pub bfd_ms: f64,
}

/// xtask/bench, its npm dependencies (the peers, Lighthouse) installed from its lock file if any
/// is missing.
pub fn node_modules(root: &Path) -> Result<std::path::PathBuf, String> {
    let bench = root.join("xtask/bench");
    let installed = ["bin-packer", "lighthouse", "chrome-launcher"]
        .iter()
        .all(|p| bench.join("node_modules").join(p).exists());
    if !installed {
        let ok = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&bench)
            .status()
            .map_err(|e| format!("cannot run npm: {e}"))?
            .success();
        if !ok {
            return Err("npm ci in xtask/bench failed".into());
        }
    }
    Ok(bench)
}

/// Runs peers.mjs on every instance.
pub fn run(
    instances: &[Instance],
    bpplib: &Path,
    root: &Path,
) -> Result<BTreeMap<String, Peer>, String> {
    let bench = node_modules(root)?;
    let list: String = instances
        .iter()
        .map(|i| format!("{}\t{}\n", bpplib.join(&i.file).display(), i.file))
        .collect();
    let list_file = root.join("target/bench/peer-files.tsv");
    std::fs::write(&list_file, list).map_err(|e| e.to_string())?;
    let out = std::process::Command::new("node")
        .arg(bench.join("peers.mjs"))
        .arg(&list_file)
        .current_dir(&bench)
        .output()
        .map_err(|e| format!("cannot run node: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "peers.mjs failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut peers = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let get = |algo: &str, key: &str| v[algo][key].as_f64().unwrap_or(f64::NAN);
        peers.insert(
            v["file"].as_str().unwrap_or_default().to_string(),
            Peer {
                ffd: get("firstFitDecreasing", "bins") as u64,
                ffd_ms: get("firstFitDecreasing", "ms"),
                bfd: get("bestFitDecreasing", "bins") as u64,
                bfd_ms: get("bestFitDecreasing", "ms"),
            },
        );
    }
    Ok(peers)
}
