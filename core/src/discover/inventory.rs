//! The inventory discovery yields (GPUs, nodes, MIG profiles) and the `ClusterGpuCaps` it implies.

use crate::caps::nodes::NodeSpec;
use crate::caps::ClusterGpuCaps;
use crate::catalog::{self, GpuModel};
use std::collections::{BTreeMap, HashMap};

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

    /// [`Inventory::caps`] and the notes explaining it.
    pub(crate) fn caps_with_notes(&self) -> (ClusterGpuCaps, Vec<String>) {
        let mut notes = Vec::new();
        // Tally models (unknown ones by their reported name) in order of first appearance.
        let mut tally: Vec<(String, usize)> = Vec::new();
        let mut position: HashMap<String, usize> = HashMap::new();
        for g in &self.gpus {
            let key = model_key(g);
            match position.get(&key).and_then(|&i| tally.get_mut(i)) {
                Some((_, n)) => *n += 1,
                None => {
                    position.insert(key.clone(), tally.len());
                    tally.push((key, 1));
                }
            }
        }
        let chosen = tally
            .iter()
            .fold(None::<&(String, usize)>, |best, t| match best {
                Some(b) if b.1 >= t.1 => Some(b),
                _ => Some(t),
            })
            .map(|(k, _)| k.clone());
        if tally.len() > 1 {
            let all: Vec<String> = tally.iter().map(|(k, n)| format!("{n}× {k}")).collect();
            notes.push(format!(
                "mixed GPU models ({}): the caps describe {} (the most common, or the first of equally common ones) for all {} GPUs; plan the others separately, naming their model",
                list(&all),
                chosen.as_deref().unwrap_or("?"),
                self.gpus.len()
            ));
        }
        let chosen_model: Option<&'static GpuModel> =
            chosen.as_deref().and_then(catalog::find_model);
        let of_chosen: Vec<&DiscoveredGpu> = self
            .gpus
            .iter()
            .filter(|g| chosen.as_deref() == Some(g.model.as_deref().unwrap_or(&g.name)))
            .collect();

        // MIG.
        let mig_model = chosen_model.is_some_and(GpuModel::is_mig_capable);
        let supports_mig = if self.gpus.is_empty() {
            !self.mig_profiles.is_empty()
        } else {
            // `nvidia-smi mig -lgip` lists profiles only with MIG enabled, so a listing counts too.
            mig_model
                && (!self.mig_profiles.is_empty()
                    || of_chosen.iter().any(|g| g.mig_capable && g.mig_enabled))
        };
        let all_disabled: Vec<String> = of_chosen
            .iter()
            .filter(|g| g.mig_capable && !g.mig_enabled)
            .map(|g| gpu_label(g))
            .collect();
        let assumed = of_chosen
            .iter()
            .any(|g| g.mig_capable && !g.mig_enabled && !g.mig_mode_shown);
        if mig_model && !supports_mig && !all_disabled.is_empty() {
            let state = if assumed {
                "supported, and its mode not shown (so taken as disabled),"
            } else {
                "supported but disabled"
            };
            notes.push(format!(
                "MIG is {state} on {}: left out of the caps, so the plan does not move work onto MIG unasked; turn MIG on to plan with it, and enable it on the GPUs first if it is off (it needs each GPU idle and a GPU reset: `nvidia-smi -i <index> -mig 1`)",
                list(&all_disabled)
            ));
        } else if !self.gpus.is_empty() && !supports_mig {
            let capable: Vec<String> = self
                .gpus
                .iter()
                .filter(|g| g.mig_capable)
                .map(gpu_label)
                .collect();
            if !capable.is_empty() {
                notes.push(format!(
                    "MIG left out of the caps although {} support{} it: {}",
                    list(&capable),
                    if capable.len() == 1 { "s" } else { "" },
                    if chosen_model.is_none() {
                        "the model is not in the catalogue, so its MIG geometry is unknown"
                    } else {
                        "the caps describe another model"
                    }
                ));
            }
        }
        if supports_mig {
            let disabled: Vec<String> = of_chosen
                .iter()
                .filter(|g| g.mig_capable && !g.mig_enabled)
                .map(|g| gpu_label(g))
                .collect();
            if !disabled.is_empty() {
                notes.push(format!(
                    "MIG is supported but disabled on {}: enabling it needs the GPU idle and a GPU reset (`nvidia-smi -i <index> -mig 1`), so a plan that uses MIG needs that first",
                    list(&disabled)
                ));
            }
        }
        for g in &self.gpus {
            if let Some(p) = g.mig_pending.filter(|&p| p != g.mig_enabled) {
                notes.push(format!(
                    "{}: MIG mode is {} now and becomes {} after the next GPU reset",
                    gpu_label(g),
                    on_off(g.mig_enabled),
                    on_off(p)
                ));
            }
        }
        let mig_profiles = if self.mig_profiles.is_empty() || !supports_mig {
            None
        } else {
            match chosen_model {
                Some(m) => {
                    let (known, unknown): (Vec<&String>, Vec<&String>) = self
                        .mig_profiles
                        .iter()
                        .partition(|p| m.profile(p).is_some());
                    if !unknown.is_empty() {
                        let names: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
                        notes.push(format!(
                            "MIG profiles {} from `nvidia-smi mig -lgip` are not in the catalogue for {}; left out of the caps",
                            names.join(", "),
                            m.name
                        ));
                    }
                    let known: Vec<String> = known.into_iter().cloned().collect();
                    (!known.is_empty()).then_some(known)
                }
                None => Some(self.mig_profiles.clone()),
            }
        };

        // Sharing: the device plugin's labels when there are any, else the stated assumptions.
        let labelled: Vec<(&str, &str)> = self
            .nodes
            .iter()
            .filter_map(|n| n.sharing_strategy.as_deref().map(|s| (n.name.as_str(), s)))
            .collect();
        let (supports_timeslicing, supports_mps) = if labelled.is_empty() {
            let any_gpu = !self.gpus.is_empty() || !self.mig_profiles.is_empty();
            let without_mig: Vec<&DiscoveredGpu> =
                self.gpus.iter().filter(|g| !g.mig_enabled).collect();
            let with_mig: Vec<String> = self
                .gpus
                .iter()
                .filter(|g| g.mig_enabled)
                .map(gpu_label)
                .collect();
            let mps = !without_mig.is_empty();
            if any_gpu {
                notes.push(
                    "time-slicing assumed available: any GPU can be time-sliced, but this input does not show whether the device plugin (or scheduler) is configured for it"
                        .into(),
                );
            }
            if mps {
                let except = if with_mig.is_empty() {
                    String::new()
                } else {
                    format!(" (not on {}: MIG is enabled there)", list(&with_mig))
                };
                notes.push(format!(
                    "MPS assumed available{except}: whether an MPS control daemon is configured is not visible here; the device plugin's MPS is experimental and not supported on devices with MIG enabled"
                ));
            } else if any_gpu {
                notes.push(
                    "MPS left out: MIG is enabled on every GPU, and the device plugin does not support MPS on devices with MIG enabled"
                        .into(),
                );
            }
            (any_gpu, mps)
        } else {
            let ts = labelled.iter().any(|(_, s)| *s == "time-slicing");
            let mps = labelled.iter().any(|(_, s)| *s == "mps");
            let by_strategy: Vec<String> = ["time-slicing", "mps", "none"]
                .iter()
                .filter_map(|s| {
                    let nodes: Vec<String> = labelled
                        .iter()
                        .filter(|(_, l)| l == s)
                        .map(|(n, _)| n.to_string())
                        .collect();
                    (!nodes.is_empty()).then(|| format!("{s} on {}", list(&nodes)))
                })
                .collect();
            notes.push(format!(
                "time-slicing and MPS from the nodes' nvidia.com/gpu.sharing-strategy labels: {}",
                by_strategy.join("; ")
            ));
            let unlabelled: Vec<String> = self
                .nodes
                .iter()
                .filter(|n| n.sharing_strategy.is_none())
                .map(|n| n.name.clone())
                .collect();
            if !unlabelled.is_empty() {
                notes.push(format!(
                    "node{} {} ha{} no sharing-strategy label and count{} as sharing nothing",
                    if unlabelled.len() == 1 { "" } else { "s" },
                    list(&unlabelled),
                    if unlabelled.len() == 1 { "s" } else { "ve" },
                    if unlabelled.len() == 1 { "s" } else { "" },
                ));
            }
            (ts, mps)
        };

        let caps = ClusterGpuCaps {
            supports_mig,
            mig_profiles,
            supports_mps,
            supports_timeslicing,
            gpu_model: chosen,
            gpu_count: (!self.gpus.is_empty()).then_some(self.gpus.len() as u64),
            nodes: self.node_specs(),
            context_overhead_mib: None,
        };
        (caps, notes)
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
