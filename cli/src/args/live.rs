//! The arguments `fit` and `repartition` share: the GPUs as they are, the model where the files do
//! not name it, and `--ask` specs.

use super::{detect::read_all, flags::at_flag};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::api::{DetectInput, FractionalAsk};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct LiveArgs {
    /// The GPUs as they are: the output of `nvidia-smi mig -lgi` (the placements), with
    /// `nvidia-smi -L` or `-q -x` in the same file to name the model; one file per machine
    /// (`-` is stdin); repeatable.
    #[arg(long = "current", value_name = "FILE", required = true)]
    pub current: Vec<PathBuf>,
    /// The GPU model, where the files do not name it (`nvidia-smi mig -lgi` alone does not).
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: Option<String>,
}

impl LiveArgs {
    /// The files read, each labelled by its name.
    pub fn inputs(&self) -> Result<Vec<DetectInput>, CliError> {
        read_all(&self.current)
    }
}

/// `--ask NAME:SIZE` values, each error naming its flag (`--ask #2`).
pub fn ask_flags(specs: &[String]) -> Result<Vec<FractionalAsk>, CliError> {
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            FractionalAsk::parse_spec(spec)
                .map_err(|e| CliError::from(at_flag(e, format!("--ask #{}", i + 1))))
        })
        .collect()
}
