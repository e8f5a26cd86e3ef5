//! Arguments of `export` and `validate-mig`, turned at once into plain configs.

use super::{read_input, Format, PackArgs};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::api::{
    DraOptions, Error, ErrorKind, ExportFormat, ExportOptions, ExportRequest, MigManagement,
    MigPartedRequest, MigStrategy, ValidateMigRequest,
};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(mut_arg("json", |a| a.hide(true)))]
pub struct ExportArgs {
    /// What to write: k8s (Deployments), kserve (InferenceServices), device-plugin (configs),
    /// mig-parted (config), mig-commands (nvidia-smi script), slurm (GRES lines), dra
    /// (Kubernetes DRA claims for the NVIDIA DRA driver, and Deployments) or launch (a script
    /// starting the --model engines of --engine vllm in order).
    #[arg(value_name = "FORMAT", value_parser = ["k8s", "kubernetes", "kserve", "device-plugin", "mig-parted", "mig-commands", "slurm", "dra", "launch"])]
    pub format: String,
    #[command(flatten)]
    pub pack: PackArgs,
    /// How the device plugin exposes MIG devices.
    #[arg(long, value_name = "S", value_parser = ["single", "mixed"], default_value = "mixed")]
    pub mig_strategy: String,
    /// Kubernetes namespace of the workloads (a DNS-1123 label).
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,
    /// Container image of the workloads (default: a placeholder under .invalid).
    #[arg(long, value_name = "IMAGE")]
    pub image: Option<String>,
    /// The slurmd the slurm format targets (e.g. 23.02.5): before 23.02.6 slurmd named MIG
    /// devices by their memory, rounded; by default 23.02.6 or later, which uses NVML's names.
    #[arg(long, value_name = "VERSION")]
    pub slurm_version: Option<String>,
    /// Name of the mig-parted and device-plugin configs.
    #[arg(long, value_name = "NAME", default_value = gpu_share_core::api::DEFAULT_CONFIG_NAME)]
    pub config_name: String,
    #[command(flatten)]
    pub dra: DraArgs,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The DRA export's options (`export dra`, `simulate-dra`).
#[derive(Args, Debug)]
pub struct DraArgs {
    /// dra: the cluster's Kubernetes version (1.34 and later: resource.k8s.io/v1; 1.32 and 1.33:
    /// v1beta1).
    #[arg(long, value_name = "VERSION", default_value = gpu_share_core::api::DEFAULT_KUBERNETES_VERSION)]
    pub k8s_version: String,
    /// dra: MIG devices made beforehand (static) or by the driver's DynamicMIG gate (dynamic).
    #[arg(long, value_name = "M", value_parser = ["static", "dynamic"], default_value = "static")]
    pub dra_mig: String,
    /// dra: the time slice of time-sliced GPUs (the driver's GpuConfig interval).
    #[arg(long, value_name = "I", value_parser = ["Default", "Short", "Medium", "Long"], default_value = "Default")]
    pub time_slice_interval: String,
    /// dra: the driver publishes GPU memory as consumable capacity (its ConsumableShares gate).
    #[arg(long)]
    pub consumable_memory: bool,
}

impl DraArgs {
    /// The options as the core takes them (the interval is checked there too, by name).
    pub fn options(self) -> Result<DraOptions, CliError> {
        Ok(DraOptions {
            kubernetes_version: self.k8s_version,
            mig: if self.dra_mig == "dynamic" {
                MigManagement::Dynamic
            } else {
                MigManagement::Static
            },
            time_slice_interval: self.time_slice_interval.parse()?,
            consumable_memory: self.consumable_memory,
        })
    }
}

/// `export`, checked.
pub struct ExportConfig {
    pub request: ExportRequest,
    pub output: Option<PathBuf>,
}

impl ExportArgs {
    pub fn into_config(self) -> Result<ExportConfig, CliError> {
        let pack = self.pack.into_config()?;
        if pack.format == Format::Json {
            return Err(CliError::Usage(
                "export writes its FORMAT; --json does not apply (use `pack --json`)".into(),
            ));
        }
        let format: ExportFormat = self.format.parse()?;
        let mig_strategy: MigStrategy = self.mig_strategy.parse()?;
        let defaults = ExportOptions::default();
        let options = ExportOptions {
            mig_strategy,
            namespace: self.namespace,
            image: self.image.unwrap_or(defaults.image),
            config_name: self.config_name,
            slurm_version: self.slurm_version,
            dra: self.dra.options()?,
        };
        Ok(ExportConfig {
            request: ExportRequest {
                format,
                pack: pack.request,
                options,
            },
            output: self.output,
        })
    }
}

#[derive(Args, Debug)]
pub struct ValidateMigArgs {
    /// GPU model (canonical, nvidia-smi or short name: A100-SXM4-40GB, h100, a30).
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: String,
    /// One profile per instance, comma-separated: 3g.20gb,2g.10gb,2g.10gb.
    #[arg(
        value_name = "PROFILE,...",
        value_delimiter = ',',
        required_unless_present = "file",
        conflicts_with = "file"
    )]
    pub profiles: Vec<String>,
    /// Check every MIG-enabled entry of a mig-parted config (YAML) instead; `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `validate-mig` checks.
pub enum ValidateMigInput {
    Profiles(ValidateMigRequest),
    /// A mig-parted config file, read from YAML.
    File(MigPartedRequest),
}

/// `validate-mig`, checked.
pub struct ValidateMigConfig {
    pub input: ValidateMigInput,
    pub format: Format,
}

impl ValidateMigArgs {
    pub fn into_config(self) -> Result<ValidateMigConfig, CliError> {
        let model = self.gpu_model;
        let input = match self.file {
            Some(path) => {
                let label = path.display().to_string();
                let config = read_yaml(&read_input(&path)?, &label)?;
                ValidateMigInput::File(MigPartedRequest {
                    model,
                    label,
                    config,
                })
            }
            None => ValidateMigInput::Profiles(ValidateMigRequest {
                model,
                profiles: self.profiles,
            }),
        };
        Ok(ValidateMigConfig {
            input,
            format: super::format(self.json),
        })
    }
}

/// A YAML document as the JSON value it means; a syntax error names the file and its line.
fn read_yaml(text: &str, label: &str) -> Result<serde_json::Value, CliError> {
    serde_norway::from_str(text).map_err(|e| {
        let mut err = Error::new(
            ErrorKind::Syntax,
            format!("not valid YAML: {e} (in {label})"),
        )
        .in_field("--file");
        if let Some(at) = e.location() {
            err = err.at_line(at.line());
        }
        CliError::Input(err)
    })
}
