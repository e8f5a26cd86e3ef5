//! Arguments of `replay`: a node list and a pod list (the Alibaba 2023 GPU trace's CSV form), the
//! policies, seeds and tune, turned into the core's `ReplayRequest`.

use super::flags::at_flag;
use super::{format, read_input, svg_to, Format, SvgTo};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::api::{Policy, ReplayRequest, ReplaySettings, Tune};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The node list: CSV with sn,cpu_milli,memory_mib,gpu,model (`-` is stdin).
    #[arg(long, value_name = "FILE")]
    pub nodes: PathBuf,
    /// The pod list: CSV with name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,…].
    #[arg(long, value_name = "FILE")]
    pub pods: PathBuf,
    /// Policies to replay, comma-separated or repeated: random, dot-product, gpu-clustering,
    /// gpu-packing, best-fit, fgd, gpu-share (default: all seven).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub policy: Vec<String>,
    /// Seeds of the arrivals' order and copies, comma-separated or repeated (default 42; the
    /// paper's are 42–51).
    #[arg(long, value_name = "N", value_delimiter = ',')]
    pub seed: Vec<u64>,
    /// Fill until the arrivals ask this share of the cluster's GPU capacity: 1.3 or 130%
    /// (default 1.3, the paper's).
    #[arg(long, value_name = "RATIO")]
    pub tune: Option<String>,
    /// Also write the allocation chart to FILE as a standalone SVG document; `-` writes it to
    /// standard output instead of the text (not with --json).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `replay`, checked.
pub struct ReplayConfig {
    pub request: ReplayRequest,
    /// The files' names, for errors about their lines.
    pub nodes_name: String,
    pub pods_name: String,
    pub format: Format,
    pub svg: Option<SvgTo>,
}

impl ReplayArgs {
    pub fn into_config(self) -> Result<ReplayConfig, CliError> {
        let policies = self
            .policy
            .iter()
            .map(|p| Policy::parse(p).map_err(|e| CliError::from(at_flag(e, "--policy"))))
            .collect::<Result<_, _>>()?;
        let tune = self
            .tune
            .as_deref()
            .map(|t| Tune::parse(t).map_err(|e| CliError::from(at_flag(e, "--tune"))))
            .transpose()?;
        let format = format(self.json);
        Ok(ReplayConfig {
            request: ReplayRequest {
                nodes_csv: read_input(&self.nodes)?,
                pods_csv: read_input(&self.pods)?,
                options: ReplaySettings {
                    policies,
                    seeds: self.seed,
                    tune,
                },
            },
            nodes_name: self.nodes.display().to_string(),
            pods_name: self.pods.display().to_string(),
            svg: svg_to(self.svg, format)?,
            format,
        })
    }
}
