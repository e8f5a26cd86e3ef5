//! The bench's own npm dependencies (bench/scripts: the peers, Lighthouse), installed from its lock file.

use std::path::{Path, PathBuf};

/// bench/scripts, its npm dependencies installed from its lock file if any is missing.
pub fn node_modules(root: &Path) -> Result<PathBuf, String> {
    let bench = root.join("bench/scripts");
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
            return Err("npm ci in bench/scripts failed".into());
        }
    }
    Ok(bench)
}
