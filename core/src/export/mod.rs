//! Exports of a pack result for the tools that make it real: Kubernetes workloads, DRA claims, device-plugin and mig-parted configs, nvidia-smi commands, Slurm GRES.
//!
//! Pure generators: a [`PackResult`] and its asks in, text out, the same text for the same input.
//! Every MIG layout is re-checked against the catalogue's placement rules before anything is
//! written; an impossible one is an error, never output. Asks the packer could not place are not
//! exported as workloads; every format lists them in a leading comment.

pub mod device_plugin;
pub mod dra;
pub mod kubernetes;
pub mod mig_parted;
mod plan;
mod serving;
pub mod slurm;
pub mod yaml;

pub use plan::ranges;
pub(crate) use plan::{gpu_list, MigGpu, PlacedAsk, Plan};

use crate::error::{Error, ErrorKind, Result};
use crate::pack::PackResult;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// What to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ExportFormat {
    /// One `apps/v1` Deployment per placed ask (`k8s`, `kubernetes`).
    #[cfg_attr(feature = "serde", serde(rename = "kubernetes", alias = "k8s"))]
    Kubernetes,
    /// One KServe `serving.kserve.io/v1beta1` InferenceService per placed ask.
    #[cfg_attr(feature = "serde", serde(rename = "kserve"))]
    KServe,
    /// NVIDIA k8s-device-plugin configs (MIG strategy, time-slicing or MPS replicas).
    #[cfg_attr(feature = "serde", serde(rename = "device-plugin"))]
    DevicePlugin,
    /// A mig-parted config for the MIG GPUs.
    #[cfg_attr(feature = "serde", serde(rename = "mig-parted"))]
    MigParted,
    /// `nvidia-smi mig -cgi … -C` commands per MIG GPU.
    #[cfg_attr(feature = "serde", serde(rename = "mig-commands"))]
    MigCommands,
    /// Slurm `gres.conf`, `slurm.conf` GRES lines and per-ask `--gres=` options.
    #[cfg_attr(feature = "serde", serde(rename = "slurm"))]
    Slurm,
    /// Kubernetes DRA (`resource.k8s.io`) ResourceClaims and templates for the NVIDIA DRA driver,
    /// and the Deployments that reference them.
    #[cfg_attr(feature = "serde", serde(rename = "dra"))]
    Dra,
    /// A bash script of `vllm serve` lines for the engines of a packing with models and an
    /// engine, each device's engines started one at a time (`api::export`; not in [`Self::ALL`],
    /// the formats of any plan).
    #[cfg_attr(feature = "serde", serde(rename = "launch"))]
    Launch,
}

impl ExportFormat {
    pub const ALL: [ExportFormat; 7] = [
        ExportFormat::Kubernetes,
        ExportFormat::KServe,
        ExportFormat::DevicePlugin,
        ExportFormat::MigParted,
        ExportFormat::MigCommands,
        ExportFormat::Slurm,
        ExportFormat::Dra,
    ];

    /// Every format a name reads as: [`Self::ALL`] and `launch`, which needs a packing's engines.
    pub const NAMED: [ExportFormat; 8] = {
        let mut named = [ExportFormat::Launch; 8];
        let mut i = 0;
        while i < Self::ALL.len() {
            named[i] = Self::ALL[i];
            i += 1;
        }
        named
    };

    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Kubernetes => "kubernetes",
            ExportFormat::KServe => "kserve",
            ExportFormat::DevicePlugin => "device-plugin",
            ExportFormat::MigParted => "mig-parted",
            ExportFormat::MigCommands => "mig-commands",
            ExportFormat::Slurm => "slurm",
            ExportFormat::Dra => "dra",
            ExportFormat::Launch => "launch",
        }
    }

    /// What the format is, for a menu: `Kubernetes Deployments`, `mig-parted config`, …
    pub fn label(self) -> &'static str {
        match self {
            ExportFormat::Kubernetes => "Kubernetes Deployments",
            ExportFormat::KServe => "KServe InferenceServices",
            ExportFormat::DevicePlugin => "NVIDIA device plugin config",
            ExportFormat::MigParted => "mig-parted config",
            ExportFormat::MigCommands => "nvidia-smi mig commands",
            ExportFormat::Slurm => "Slurm (gres.conf, GRES lines, --gres options)",
            ExportFormat::Dra => "Kubernetes DRA claims (NVIDIA DRA driver) and Deployments",
            ExportFormat::Launch => "vLLM launch script (engines in start order)",
        }
    }

    /// The name a download of this format gets: `gpu-share-k8s.yaml`, …
    pub fn file_name(self) -> &'static str {
        match self {
            ExportFormat::Kubernetes => "gpu-share-k8s.yaml",
            ExportFormat::KServe => "gpu-share-kserve.yaml",
            ExportFormat::DevicePlugin => "gpu-share-device-plugin.yaml",
            ExportFormat::MigParted => "gpu-share-mig-parted.yaml",
            ExportFormat::MigCommands => "gpu-share-mig.sh",
            ExportFormat::Slurm => "gpu-share-slurm.txt",
            ExportFormat::Dra => "gpu-share-dra.yaml",
            ExportFormat::Launch => "gpu-share-launch.sh",
        }
    }

    /// The media type of the text.
    pub fn media_type(self) -> &'static str {
        match self {
            ExportFormat::MigCommands | ExportFormat::Launch => "text/x-shellscript",
            ExportFormat::Slurm => "text/plain",
            _ => "application/yaml",
        }
    }

    /// Whether the text depends on the namespace and image options (the Kubernetes formats).
    pub fn uses_workload_options(self) -> bool {
        matches!(
            self,
            ExportFormat::Kubernetes | ExportFormat::KServe | ExportFormat::Dra
        )
    }

    /// Whether the text depends on the DRA options ([`dra::DraOptions`]).
    pub fn uses_dra_options(self) -> bool {
        self == ExportFormat::Dra
    }

    /// Whether the text depends on the MIG strategy: the formats that name the NVIDIA device
    /// plugin's resources or configure it. mig-parted, `nvidia-smi mig` commands and Slurm
    /// describe the GPUs themselves.
    pub fn uses_mig_strategy(self) -> bool {
        matches!(
            self,
            ExportFormat::Kubernetes | ExportFormat::KServe | ExportFormat::DevicePlugin
        )
    }
}

impl fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for ExportFormat {
    type Err = Error;

    /// `k8s` or `kubernetes`, `kserve`, `device-plugin`, `mig-parted`, `mig-commands`, `slurm`,
    /// `dra`, `launch` (case-insensitive).
    fn from_str(s: &str) -> Result<Self> {
        let key = s.trim().to_ascii_lowercase();
        if key == "k8s" {
            return Ok(ExportFormat::Kubernetes);
        }
        ExportFormat::NAMED
            .into_iter()
            .find(|f| f.as_str() == key)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Syntax,
                    format!(
                        "unknown export format {s:?}; expected k8s, kserve, device-plugin, mig-parted, mig-commands, slurm, dra or launch"
                    ),
                )
                .in_field("format")
            })
    }
}

/// How the NVIDIA device plugin exposes MIG devices (docs/hardware-facts.md §2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "lowercase"))]
pub enum MigStrategy {
    /// Every GPU of a node MIG-enabled with one profile; MIG devices as `nvidia.com/gpu`.
    Single,
    /// Each profile as its own resource `nvidia.com/mig-<profile>`; non-MIG GPUs as `nvidia.com/gpu`.
    #[default]
    Mixed,
}

impl MigStrategy {
    pub fn as_str(self) -> &'static str {
        match self {
            MigStrategy::Single => "single",
            MigStrategy::Mixed => "mixed",
        }
    }
}

impl fmt::Display for MigStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for MigStrategy {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "single" => Ok(MigStrategy::Single),
            "mixed" => Ok(MigStrategy::Mixed),
            _ => Err(Error::new(
                ErrorKind::Syntax,
                format!("unknown MIG strategy {s:?}; expected single or mixed"),
            )
            .in_field("mig_strategy")),
        }
    }
}

/// The container image written into workloads when none is given: a placeholder under the
/// reserved `.invalid` domain, so nothing is pulled by mistake.
pub const DEFAULT_IMAGE: &str = "registry.example.invalid/replace-me:latest";

/// The default name of the mig-parted and device-plugin configs.
pub const DEFAULT_CONFIG_NAME: &str = "gpu-share";

/// The longest config name: it becomes a node-label value (63 characters at most) with a
/// suffix such as `-time-slicing` when several configs are written.
pub const MAX_CONFIG_NAME_CHARS: usize = 50;

/// Choices for [`export`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(
    feature = "ts",
    ts(rename = "ExportFormatOptions", rename_all = "camelCase")
)]
pub struct ExportOptions {
    /// The device plugin's MIG strategy (default mixed).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub mig_strategy: MigStrategy,
    /// The Kubernetes namespace of the workloads (a DNS-1123 label); none by default.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub namespace: Option<String>,
    /// The container image of the workloads; default [`DEFAULT_IMAGE`], a placeholder.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub image: String,
    /// The name of the mig-parted and device-plugin configs; default [`DEFAULT_CONFIG_NAME`].
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub config_name: String,
    /// The slurmd version the Slurm export targets (`23.02.5`); none: 23.02.6 or later, which
    /// names MIG devices as NVML does (docs/hardware-facts.md §5).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub slurm_version: Option<String>,
    /// The Kubernetes version and NVIDIA DRA driver settings of the `dra` format.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub dra: dra::DraOptions,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            mig_strategy: MigStrategy::Mixed,
            namespace: None,
            image: DEFAULT_IMAGE.to_string(),
            config_name: DEFAULT_CONFIG_NAME.to_string(),
            slurm_version: None,
            dra: dra::DraOptions::default(),
        }
    }
}

impl ExportOptions {
    /// Checks the option strings.
    ///
    /// # Errors
    /// `Syntax` naming the field: `namespace` not a DNS-1123 label (lower-case letters, digits
    /// and `-`, at most 63, starting and ending with a letter or digit); `image` empty or holding
    /// whitespace or control characters; `config_name` not a label value of at most
    /// [`MAX_CONFIG_NAME_CHARS`] characters (letters, digits, `-`, `_`, `.`, starting and
    /// ending with a letter or digit); `slurm_version` not a version such as `23.02.6`.
    pub fn validate(&self) -> Result<()> {
        let err = |field: &str, m: String| Err(Error::new(ErrorKind::Syntax, m).in_field(field));
        if let Some(ns) = &self.namespace {
            if !is_dns_label(ns) {
                return err(
                    "namespace",
                    format!("{ns:?} is not a DNS-1123 label: lower-case letters, digits and '-', at most 63, starting and ending with a letter or digit"),
                );
            }
        }
        if self.image.is_empty() {
            return err("image", "must not be empty".into());
        }
        if let Some(c) = self
            .image
            .chars()
            .find(|c| c.is_whitespace() || c.is_control())
        {
            return err("image", format!("must not contain {c:?}"));
        }
        let name = &self.config_name;
        let ok_chars = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        let ends = name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name.ends_with(|c: char| c.is_ascii_alphanumeric());
        if !ok_chars || !ends || name.len() > MAX_CONFIG_NAME_CHARS {
            return err(
                "config_name",
                format!("{name:?} is not a valid config name: letters, digits, '-', '_' and '.', at most {MAX_CONFIG_NAME_CHARS}, starting and ending with a letter or digit"),
            );
        }
        if let Some(v) = &self.slurm_version {
            slurm::SlurmVersion::parse(v).map_err(|e| e.in_field("slurm_version"))?;
        }
        Ok(())
    }
}

/// Writes `result` in `format`. The asks are the result's own choices, so the text and the
/// packing cannot disagree.
///
/// # Errors
/// Invalid options (see [`ExportOptions::validate`]); a MIG GPU whose model is not a MIG-capable
/// one of the catalogue or whose layout breaks its placement rules; a plan the format cannot
/// express (the single MIG strategy with two profiles on one GPU; in the device-plugin and
/// Kubernetes formats, an MPS ask larger than the equal share the device plugin gives every
/// client at its minimum of 2 replicas).
pub fn export(
    result: &PackResult,
    format: ExportFormat,
    options: &ExportOptions,
) -> Result<String> {
    export_serving(result, format, options, &BTreeMap::new())
}

/// An inference engine a workload runs, as the Kubernetes formats start it: the model to load
/// (by default; the `MODEL` variable of its container), its flags, and its place in the start
/// order of the engines sharing its device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedEngine {
    pub model: Option<String>,
    pub args: Vec<String>,
    pub start_order: u64,
}

/// [`export`], with the engines some asks run (by ask name): the Kubernetes formats give their
/// containers the engine's arguments.
///
/// # Errors
/// As [`export`].
pub fn export_serving(
    result: &PackResult,
    format: ExportFormat,
    options: &ExportOptions,
    engines: &BTreeMap<String, ServedEngine>,
) -> Result<String> {
    options.validate()?;
    let mut plan = Plan::new(result)?;
    plan.engines = engines;
    match format {
        ExportFormat::Kubernetes => kubernetes::deployments(&plan, options),
        ExportFormat::KServe => kubernetes::inference_services(&plan, options),
        ExportFormat::DevicePlugin => device_plugin::configs(&plan, options),
        ExportFormat::MigParted => Ok(mig_parted::mig_parted(&plan, options)),
        ExportFormat::MigCommands => Ok(mig_parted::mig_commands(&plan)),
        ExportFormat::Slurm => Ok(slurm::slurm(&plan, options)),
        ExportFormat::Dra => dra::dra(&plan, options),
        // Written from the engines the use case plans beside the packing (`api::export`).
        ExportFormat::Launch => Err(Error::new(
            ErrorKind::Syntax,
            "a launch script is written from a packing's engines: give models and an engine",
        )
        .in_field("options.models")),
    }
}

/// Whether `s` is a DNS-1123 label (Kubernetes namespaces and most object names).
pub fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// Whether `s` is a valid Kubernetes label value.
pub(crate) fn is_label_value(s: &str) -> bool {
    s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && (s.is_empty()
            || (s.starts_with(|c: char| c.is_ascii_alphanumeric())
                && s.ends_with(|c: char| c.is_ascii_alphanumeric())))
}

#[cfg(test)]
mod tests;
