//! Reading BPPLIB instances (n, c, then n weights, one per line) and their known optima (`optima.tsv`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One instance: integer weights and a capacity.
pub struct Instance {
    /// Family (folder name), e.g. `Falkenauer_T`.
    pub family: String,
    /// Path relative to the BPPLIB folder, as in `optima.tsv`: `Falkenauer_T/Falkenauer_t60_00.txt`.
    pub file: String,
    pub capacity: u64,
    pub weights: Vec<u64>,
    /// The optimum, when `optima.tsv` knows it.
    pub optimum: Option<u64>,
}

/// Every `*.txt` instance below `dir` (one folder per family), sorted by path.
pub fn load(dir: &Path) -> Result<Vec<Instance>, String> {
    let optima = read_optima(&dir.join("optima.tsv"));
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let family = rel.split('/').next().unwrap_or_default().to_string();
        if family == rel {
            continue; // README and other files at the top level
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let numbers: Result<Vec<u64>, _> = text.split_whitespace().map(str::parse).collect();
        let numbers = numbers.map_err(|e| format!("{rel}: not a BPPLIB instance ({e})"))?;
        let [n, c, weights @ ..] = numbers.as_slice() else {
            return Err(format!("{rel}: needs n and c on the first two lines"));
        };
        if weights.len() as u64 != *n {
            return Err(format!(
                "{rel}: says n = {n} but has {} weights",
                weights.len()
            ));
        }
        out.push(Instance {
            family,
            optimum: optima.get(&rel).copied(),
            file: rel,
            capacity: *c,
            weights: weights.to_vec(),
        });
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "txt") {
            out.push(path);
        }
    }
    Ok(())
}

/// `file → OPT` from the `set file n c L1 L2 OPT …` table; a missing table means no known optima.
fn read_optima(path: &Path) -> BTreeMap<String, u64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut header: Vec<&str> = Vec::new();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.trim_end_matches('\r').split('\t').collect();
        if header.is_empty() {
            header = cols;
            continue;
        }
        let col = |name: &str| {
            header
                .iter()
                .position(|h| *h == name)
                .and_then(|i| cols.get(i))
        };
        if let (Some(file), Some(Ok(opt))) = (col("file"), col("OPT").map(|o| o.parse())) {
            out.insert(file.to_string(), opt);
        }
    }
    out
}
