//! Arguments of `detect`, and `--caps-from` for `plan` and `pack`: discovery files read at once into text.

use super::{format, read_input, Format};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::api::DetectInput;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DetectArgs {
    /// Read the output of `nvidia-smi -q -x`, `nvidia-smi`, `nvidia-smi -L`, `nvidia-smi --query-gpu=…
    /// --format=csv`, `nvidia-smi mig -lgip`, `kubectl get nodes -o json` or `kubectl get resourceslices -o json|yaml` from FILE (`-` is stdin);
    /// repeat to merge several. Without it, runs `nvidia-smi -q -x`.
    #[arg(long = "from", value_name = "FILE")]
    pub from: Vec<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Where `detect` reads from.
pub enum DetectFrom {
    /// Each file's name (as given) and text.
    Files(Vec<DetectInput>),
    /// Run `nvidia-smi -q -x`.
    NvidiaSmi,
}

/// `detect`, checked.
pub struct DetectConfig {
    pub from: DetectFrom,
    pub format: Format,
}

impl DetectArgs {
    pub fn into_config(self) -> Result<DetectConfig, CliError> {
        let from = if self.from.is_empty() {
            DetectFrom::NvidiaSmi
        } else {
            DetectFrom::Files(read_all(&self.from)?)
        };
        Ok(DetectConfig {
            from,
            format: format(self.json),
        })
    }
}

/// Reads each file (`-`: stdin) into a labelled discovery input.
///
/// # Errors
/// Unreadable or oversized files (usage or input errors naming the file).
pub fn read_all(paths: &[PathBuf]) -> Result<Vec<DetectInput>, CliError> {
    paths
        .iter()
        .map(|p| {
            Ok(DetectInput {
                label: p.display().to_string(),
                text: read_input(p)?,
            })
        })
        .collect()
}
