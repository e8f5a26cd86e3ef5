//! Arguments of `fit`: the GPUs as they are (files), the model where they do not name it, and asks.

use super::{detect::read_all, flags::at_flag, format, Format};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::api::FitRequest;
use gpu_share_core::FractionalAsk;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct FitArgs {
    /// The GPUs as they are: the output of `nvidia-smi mig -lgi` (the placements), with
    /// `nvidia-smi -L` or `-q -x` in the same file to name the model; one file per machine
    /// (`-` is stdin); repeatable.
    #[arg(long = "current", value_name = "FILE", required = true)]
    pub current: Vec<PathBuf>,
    /// The GPU model, where the files do not name it (`nvidia-smi mig -lgi` alone does not).
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: Option<String>,
    /// An ask to place in the free room without moving anything: NAME:SIZE with SIZE a MIG
    /// profile (3g.40gb) or a fraction (0.25); repeatable.
    #[arg(long = "ask", value_name = "NAME:SIZE")]
    pub asks: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `fit`, checked.
pub struct FitConfig {
    pub request: FitRequest,
    pub format: Format,
}

impl FitArgs {
    pub fn into_config(self) -> Result<FitConfig, CliError> {
        let asks = self
            .asks
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                FractionalAsk::parse_spec(spec).map_err(|e| at_flag(e, format!("--ask #{}", i + 1)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FitConfig {
            request: FitRequest {
                inputs: read_all(&self.current)?,
                gpu_model: self.gpu_model,
                asks,
            },
            format: format(self.json),
        })
    }
}
