//! Arguments of `detect`, and `--caps-from` for `plan` and `pack`: discovery files read at once into text.

use super::{format, read_input, Format};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::discover::{detect_labelled, failed_input, Inventory};
use gpu_share_core::{ClusterGpuCaps, Error};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DetectArgs {
    /// Read the output of `nvidia-smi -q -x`, `nvidia-smi`, `nvidia-smi -L`, `nvidia-smi --query-gpu=…
    /// --format=csv`, `nvidia-smi mig -lgip` or `kubectl get nodes -o json` from FILE (`-` is stdin);
    /// repeat to merge several. Without it, runs `nvidia-smi -q -x`.
    #[arg(long = "from", value_name = "FILE")]
    pub from: Vec<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Where `detect` reads from.
pub enum DetectInput {
    /// Each file's name (as given) and text.
    Files(Vec<(String, String)>),
    /// Run `nvidia-smi -q -x`.
    NvidiaSmi,
}

/// `detect`, checked.
pub struct DetectConfig {
    pub input: DetectInput,
    pub format: Format,
}

impl DetectArgs {
    pub fn into_config(self) -> Result<DetectConfig, CliError> {
        let input = if self.from.is_empty() {
            DetectInput::NvidiaSmi
        } else {
            DetectInput::Files(read_all(&self.from)?)
        };
        Ok(DetectConfig {
            input,
            format: format(self.json),
        })
    }
}

/// Caps read from discovery files by `--caps-from`.
#[derive(Clone, Debug)]
pub struct Discovered {
    pub files: Vec<String>,
    pub inventory: Inventory,
    pub caps: ClusterGpuCaps,
}

/// Reads and detects `--caps-from` files.
///
/// # Errors
/// Unreadable files (usage), or discovery errors naming the file.
pub fn discover_files(paths: &[PathBuf]) -> Result<Discovered, CliError> {
    let inputs = read_all(paths)?;
    let inventory = detect_inputs(&inputs)?;
    Ok(Discovered {
        files: inputs.into_iter().map(|(name, _)| name).collect(),
        caps: inventory.caps(),
        inventory,
    })
}

fn read_all(paths: &[PathBuf]) -> Result<Vec<(String, String)>, CliError> {
    paths
        .iter()
        .map(|p| Ok((p.display().to_string(), read_input(p)?)))
        .collect()
}

/// Discovery over named inputs (GPUs of different files stay apart); an error names the input it is about.
///
/// # Errors
/// The core's discovery error, with `(in NAME)` added to its message.
pub fn detect_inputs(inputs: &[(String, String)]) -> Result<Inventory, CliError> {
    let named: Vec<(&str, &str)> = inputs
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    detect_labelled(&named).map_err(|e| {
        let Some((i, inner)) = failed_input(&e) else {
            return CliError::Input(e);
        };
        let inner = inner.map(str::to_string);
        let name = inputs.get(i).map_or("?", |(n, _)| n.as_str());
        CliError::Input(Error {
            message: format!("{} (in {name})", e.message),
            field: inner,
            ..e
        })
    })
}
