//! Arguments of `fit`: the GPUs as they are, and asks to place without moving anything.

use super::live::{ask_flags, LiveArgs};
use super::{format, Format};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::api::{FitRequest, LiveOptions};

#[derive(Args, Debug)]
pub struct FitArgs {
    #[command(flatten)]
    pub live: LiveArgs,
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
        Ok(FitConfig {
            request: FitRequest {
                asks: ask_flags(&self.asks)?,
                current: self.live.inputs()?,
                options: LiveOptions {
                    gpu_model: self.live.gpu_model,
                },
            },
            format: format(self.json),
        })
    }
}
