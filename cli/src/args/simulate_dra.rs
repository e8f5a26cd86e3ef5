//! Arguments of `simulate-dra`: ResourceSlices, the asks to plan as `pack` takes them, the DRA
//! export's options and the slice order, turned at once into the core's request.

use super::detect::read_all;
use super::export::DraArgs;
use super::{Format, PackArgs};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::api::{SimulateDraRequest, SimulationOptions, SliceOrder};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SimulateDraArgs {
    /// `kubectl get resourceslices -o json` (or -o yaml) output; repeatable; `-` reads stdin.
    /// Without caps flags or --caps-from, the plan is made on the caps these slices show.
    #[arg(long, value_name = "FILE", required = true)]
    pub slices: Vec<PathBuf>,
    #[command(flatten)]
    pub pack: PackArgs,
    #[command(flatten)]
    pub dra: DraArgs,
    /// The order each claim visits a node's slices: listed (as given), spread (emptiest GPU
    /// first, an order the scheduler may take: dra-driver-nvidia-gpu#932) or both, since the
    /// scheduler's own order is not fixed.
    #[arg(long, value_name = "ORDER", value_parser = ["both", "listed", "spread"], default_value = "both")]
    pub order: String,
}

/// `simulate-dra`, checked.
pub struct SimulateDraConfig {
    pub request: SimulateDraRequest,
    pub format: Format,
}

impl SimulateDraArgs {
    pub fn into_config(self) -> Result<SimulateDraConfig, CliError> {
        let pack = self.pack.into_config()?;
        let order = match self.order.as_str() {
            "listed" => Some(SliceOrder::Listed),
            "spread" => Some(SliceOrder::Spread),
            _ => None,
        };
        Ok(SimulateDraConfig {
            request: SimulateDraRequest {
                slices: read_all(&self.slices)?,
                pack: pack.request,
                options: SimulationOptions {
                    order,
                    dra: self.dra.options()?,
                },
            },
            format: pack.format,
        })
    }
}
