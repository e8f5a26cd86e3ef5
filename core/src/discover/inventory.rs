//! The inventory discovery yields (GPUs, nodes, MIG profiles) and the `ClusterGpuCaps` it implies.

use crate::caps::nodes::NodeSpec;
use crate::caps::ClusterGpuCaps;
use std::collections::BTreeMap;

mod implied_caps;

/// The text formats discovery reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SourceFormat {
    /// `nvidia-smi -q -x`.
    SmiXml,
    /// `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]`.
    SmiQueryCsv,
    /// `nvidia-smi -L`.
    SmiList,
    /// `nvidia-smi` with no arguments: the summary table, with its "MIG devices" block.
    SmiTable,
    /// `nvidia-smi mig -lgip` (and `-lgipp`).
    SmiMigProfiles,
    /// `nvidia-smi mig -lgi`: the GPU instances, with their placements.
    SmiMigGpuInstances,
    /// `nvidia-smi mig -lci`: the compute instances, with their GPU instances' IDs.
    SmiMigComputeInstances,
    /// `kubectl get nodes -o json` (a NodeList or one Node).
    KubectlNodes,
    /// `kubectl get resourceslices -o json` or `-o yaml`: the NVIDIA DRA driver's devices.
    KubectlResourceSlices,
}

impl SourceFormat {
    /// Every format, in the order detection prefers them for GPU facts.
    pub const ALL: [SourceFormat; 9] = [
        SourceFormat::SmiXml,
        SourceFormat::SmiQueryCsv,
        SourceFormat::SmiTable,
        SourceFormat::SmiList,
        SourceFormat::SmiMigGpuInstances,
        SourceFormat::SmiMigComputeInstances,
        SourceFormat::SmiMigProfiles,
        SourceFormat::KubectlNodes,
        SourceFormat::KubectlResourceSlices,
    ];

    /// The command that prints this format.
    pub fn command(self) -> &'static str {
        match self {
            SourceFormat::SmiXml => "nvidia-smi -q -x",
            SourceFormat::SmiQueryCsv => "nvidia-smi --query-gpu=… --format=csv",
            SourceFormat::SmiList => "nvidia-smi -L",
            SourceFormat::SmiTable => "nvidia-smi",
            SourceFormat::SmiMigProfiles => "nvidia-smi mig -lgip",
            SourceFormat::SmiMigGpuInstances => "nvidia-smi mig -lgi",
            SourceFormat::SmiMigComputeInstances => "nvidia-smi mig -lci",
            SourceFormat::KubectlNodes => "kubectl get nodes -o json",
            SourceFormat::KubectlResourceSlices => "kubectl get resourceslices",
        }
    }
}

/// What discovery found: GPUs (per node when known), Kubernetes nodes, MIG profiles, and notes
/// on everything that was assumed rather than read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Inventory {
    pub gpus: Vec<DiscoveredGpu>,
    pub nodes: Vec<DiscoveredNode>,
    /// MIG profile names from `nvidia-smi mig -lgip`, in the order listed, without repeats.
    pub mig_profiles: Vec<String>,
    /// The formats read, each once, in the order first read.
    pub sources: Vec<SourceFormat>,
    /// What was assumed, guessed or skipped, one sentence each.
    pub notes: Vec<String>,
}

/// One physical GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct DiscoveredGpu {
    /// The Kubernetes node it is on, when the input names one; when several nvidia-smi inputs are
    /// merged, the label of the input it came from (`input 2`, or a file name).
    pub node: Option<String>,
    /// nvidia-smi's index (for Kubernetes: the position among the node's GPUs).
    pub index: u64,
    /// The product name as reported (`NVIDIA A100-SXM4-40GB`, `Tesla-T4-SHARED`).
    pub name: String,
    /// The catalogue's canonical model name (`A100-SXM4-40GB`); `None` when the catalogue does not know it.
    pub model: Option<String>,
    /// Total framebuffer as reported, in MiB.
    pub memory_mib: Option<u64>,
    /// The board supports MIG (nvidia-smi reports a MIG mode other than N/A, or the catalogue says so).
    pub mig_capable: bool,
    /// MIG mode is currently enabled.
    pub mig_enabled: bool,
    /// Whether the input shows the MIG mode (or MIG devices, which only an enabled GPU has);
    /// otherwise `mig_enabled` is an assumption: `nvidia-smi -L` lists an enabled GPU without
    /// instances just as a disabled one.
    pub mig_mode_shown: bool,
    /// The MIG mode after the next GPU reset, when reported.
    pub mig_pending: Option<bool>,
    /// Existing GPU instances, each with the compute instances (the MIG devices nvidia-smi lists)
    /// inside it.
    pub mig_devices: Vec<DiscoveredMigDevice>,
    pub uuid: Option<String>,
    pub pci_bus_id: Option<String>,
    /// PCI device and vendor id, as `0x20B010DE`.
    pub pci_device_id: Option<String>,
    /// Default board power limit in watts.
    pub power_limit_w: Option<u32>,
}

/// One existing GPU instance: a slice of the GPU's memory (and compute), divided into one or more
/// compute instances. Each compute instance is one MIG device in nvidia-smi's listings, so two
/// `-L` lines `1c.3g.71gb` and `2c.3g.71gb` are one 3g.71gb GPU instance here (docs/hardware-facts.md §1.1).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct DiscoveredMigDevice {
    /// The GPU-instance profile (`3g.40gb`); read where the input names it, else derived from the
    /// device's memory (and multiprocessors) against the catalogue, with a note; `unknown` when neither works.
    pub profile: String,
    /// The first memory slice, when the input gives the placement: only `nvidia-smi mig -lgi` does
    /// (its `Start:Size` column); the table, the XML and `-L` do not.
    pub start: Option<u8>,
    pub gpu_instance_id: Option<u32>,
    pub memory_mib: Option<u64>,
    /// The compute instances inside it, in the order listed; empty when the input shows none.
    pub compute_instances: Vec<DiscoveredComputeInstance>,
}

/// One compute instance: a share of its GPU instance's compute slices over the GPU instance's
/// whole memory; what nvidia-smi lists as a MIG device.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct DiscoveredComputeInstance {
    /// The name as listed: `1c.3g.71gb` for 1 of a 3g.71gb GPU instance's 3 compute slices, the
    /// GPU-instance profile (`3g.71gb`) when it spans them all; `None` where the input names no
    /// profile (the table, the XML).
    pub profile: Option<String>,
    pub compute_instance_id: Option<u32>,
    /// nvidia-smi's MIG device index (`Device N` in `nvidia-smi -L`, `MIG Dev` in the table).
    pub device_index: Option<u32>,
    /// Its multiprocessors (SMs), where the input shows them.
    pub multiprocessors: Option<u32>,
    /// Its first compute slice within the GPU instance, where the input gives the placement
    /// (`nvidia-smi mig -lci`).
    pub start: Option<u8>,
}

/// One Kubernetes node with NVIDIA GPUs, from its GPU Feature Discovery labels and allocatable resources.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct DiscoveredNode {
    pub name: String,
    /// Physical GPUs (for the single MIG strategy: inferred from the MIG device count, with a note).
    pub gpu_count: u64,
    /// `nvidia.com/gpu.sharing-strategy`: `none`, `time-slicing` or `mps`.
    pub sharing_strategy: Option<String>,
    /// `nvidia.com/gpu.replicas`.
    pub replicas: Option<u32>,
    /// `nvidia.com/mig.strategy`: `single` or `mixed`.
    pub mig_strategy: Option<String>,
    /// `nvidia.com/mig.config`: the mig-parted configuration selected for the node.
    pub mig_config: Option<String>,
    /// MIG devices per profile on the node (mixed strategy: `nvidia.com/mig-<profile>.count`).
    pub mig_device_counts: BTreeMap<String, u64>,
}

impl Inventory {
    /// The [`ClusterGpuCaps`] this inventory implies. The rules, and why:
    ///
    /// - **gpu_model**: the catalogue model of the GPUs — the most common one when they are mixed (the
    ///   planner assumes one model; [`detect`](super::detect) notes the others). A model the catalogue
    ///   does not know is given by its reported name, which [`ClusterGpuCaps::resolve`] accepts for
    ///   planning without MIG.
    /// - **gpu_count**: the number of GPUs (`None` when only MIG profiles were read).
    /// - **supports_mig**: some GPU of that model has MIG enabled now (or `nvidia-smi mig -lgip`
    ///   listed profiles, which it does only with MIG enabled). A MIG-capable GPU with MIG
    ///   disabled does not count: enabling it is an administrative step that needs the GPU idle and
    ///   reset, so a plan must not move work onto MIG unasked; the note says MIG is there to turn on.
    ///   Always false for a model the catalogue does not know, since MIG needs its geometry.
    /// - **mig_profiles**: the profiles `nvidia-smi mig -lgip` listed (those the model offers), else `None`
    ///   (every profile of the model).
    /// - **supports_timeslicing / supports_mps**: from the device plugin's
    ///   `nvidia.com/gpu.sharing-strategy` labels when any node has one. nvidia-smi cannot show the
    ///   device plugin's configuration, so without labels: time-slicing is assumed (any GPU can be
    ///   time-sliced), and MPS is assumed unless every GPU has MIG enabled (the device plugin's MPS "is
    ///   not supported on devices with MIG enabled", docs/hardware-facts.md §2). The notes say each assumption.
    pub fn caps(&self) -> ClusterGpuCaps {
        self.caps_with_notes().0
    }

    /// GPUs that support MIG but have it disabled now (a plan with MIG needs them reset first).
    pub fn mig_disabled_gpus(&self) -> usize {
        self.gpus
            .iter()
            .filter(|g| g.mig_capable && !g.mig_enabled)
            .count()
    }

    /// The GPU instances that exist already, on every GPU (a plan from empty GPUs ignores them).
    pub fn mig_instances(&self) -> usize {
        self.gpus.iter().map(|g| g.mig_devices.len()).sum()
    }
}

impl Inventory {
    /// The Kubernetes nodes as the planner's nodes, when every GPU read is on one of them (so the
    /// nodes' GPUs are the GPU count); `None` otherwise.
    fn node_specs(&self) -> Option<Vec<NodeSpec>> {
        let nodes: Vec<NodeSpec> = self
            .nodes
            .iter()
            .filter(|n| n.gpu_count > 0)
            .map(|n| NodeSpec {
                name: n.name.clone(),
                gpus: n.gpu_count,
            })
            .collect();
        let total: u64 = nodes.iter().map(|n| n.gpus).sum();
        let all_on_nodes = self.gpus.iter().all(|g| {
            g.node
                .as_ref()
                .is_some_and(|name| nodes.iter().any(|n| &n.name == name))
        });
        (!nodes.is_empty() && all_on_nodes && total == self.gpus.len() as u64).then_some(nodes)
    }
}

/// The catalogue model, else the reported name.
fn model_key(g: &DiscoveredGpu) -> String {
    g.model.clone().unwrap_or_else(|| g.name.clone())
}

/// `GPU 0` or `GPU 0 on node-a`.
pub(super) fn gpu_label(g: &DiscoveredGpu) -> String {
    match &g.node {
        Some(n) => format!("GPU {} on {n}", g.index),
        None => format!("GPU {}", g.index),
    }
}

/// At most eight items, then a count of the rest.
fn list(items: &[String]) -> String {
    if items.len() <= 8 {
        items.join(", ")
    } else {
        let shown: Vec<&str> = items.iter().take(8).map(String::as_str).collect();
        format!("{} and {} more", shown.join(", "), items.len() - 8)
    }
}

fn on_off(b: bool) -> &'static str {
    if b {
        "enabled"
    } else {
        "disabled"
    }
}
