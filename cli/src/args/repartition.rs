//! Arguments of `repartition`: the GPUs as they are, the instances that may go, and the asks.

use super::live::{ask_flags, LiveArgs};
use super::{flags::at_flag, format, Format};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::api::{Error, ErrorKind, FreeInstance, RepartitionOptions, RepartitionRequest};

#[derive(Args, Debug)]
pub struct RepartitionArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// A GPU instance that is not in use and may be destroyed: GPU:GI (GPU index and GPU instance
    /// ID as `nvidia-smi mig -lgi` shows them), or FILE-LABEL/GPU:GI for a GPU of one file among
    /// several; repeatable. Every other instance is in use: it may move, never disappear.
    #[arg(long = "free", value_name = "GPU:GI")]
    pub free: Vec<String>,
    /// An ask to fit: NAME:SIZE with SIZE a MIG profile (3g.40gb) or a fraction (0.25); repeatable.
    #[arg(long = "ask", value_name = "NAME:SIZE", required = true)]
    pub asks: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `repartition`, checked.
pub struct RepartitionConfig {
    pub request: RepartitionRequest,
    pub format: Format,
}

impl RepartitionArgs {
    pub fn into_config(self) -> Result<RepartitionConfig, CliError> {
        let asks = ask_flags(&self.asks)?;
        let free = self
            .free
            .iter()
            .enumerate()
            .map(|(i, spec)| parse_free(spec).map_err(|e| at_flag(e, format!("--free #{}", i + 1))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RepartitionConfig {
            request: RepartitionRequest {
                current: self.live.inputs()?,
                asks,
                options: RepartitionOptions {
                    gpu_model: self.live.gpu_model,
                    free,
                },
            },
            format: format(self.json),
        })
    }
}

/// `3:12` or `node-a/3:12`.
fn parse_free(spec: &str) -> Result<FreeInstance, Error> {
    let bad = || {
        Error::new(
            ErrorKind::Syntax,
            format!("{spec:?} is not GPU:GI (a GPU index and a GPU instance ID, e.g. 3:12)"),
        )
    };
    let (node, rest) = match spec.rsplit_once('/') {
        Some((node, rest)) if !node.is_empty() => (Some(node.to_string()), rest),
        _ => (None, spec),
    };
    let (gpu, gi) = rest.split_once(':').ok_or_else(bad)?;
    Ok(FreeInstance {
        node,
        gpu: gpu.trim().parse().map_err(|_| bad())?,
        gpu_instance_id: gi.trim().parse().map_err(|_| bad())?,
    })
}
