//! The NVIDIA DRA driver's ResourceSlices as an [`Inventory`](crate::discover::Inventory)'s GPUs, nodes and MIG profiles.
//!
//! The driver's shape (docs/hardware-facts.md §13): a whole GPU is a device `gpu-<minor>` with
//! `type: gpu`, `uuid`, `productName` and capacity `memory`; a MIG device has `type: mig`,
//! `profile`, `parentUUID`, `productName` of its board, capacities `memory`, `multiprocessors`
//! and, when it exists (static MIG), `uuid` and one `memorySliceN` per memory slice it holds.
//! Under the driver's alpha DynamicMIG gate the slices list every placement the driver could
//! create (`gpu-<minor>-mig-<profile>-<id>-<start>`, consuming `memory-slice-N` counters), none
//! of which exists yet: those are MIG profiles on offer, not a live layout.

use super::{ResourceSlices, SliceDevice, NVIDIA_DRIVER};
use crate::catalog::{self, GpuModel};
use crate::discover::inventory::{
    DiscoveredComputeInstance, DiscoveredGpu, DiscoveredMigDevice, DiscoveredNode,
};
use crate::discover::mig_profiles::ProfileRow;
use std::collections::{BTreeMap, BTreeSet};

/// What the slices yield for discovery.
#[derive(Debug, Default)]
pub(in crate::discover) struct Read {
    pub gpus: Vec<DiscoveredGpu>,
    pub nodes: Vec<DiscoveredNode>,
    pub profiles: Vec<ProfileRow>,
    pub notes: Vec<String>,
}

/// One physical GPU as the slices show it.
struct Board<'a> {
    node: String,
    minor: Option<u64>,
    uuid: String,
    whole: Option<&'a SliceDevice>,
    product: Option<&'a str>,
    live: Vec<&'a SliceDevice>,
    offered: BTreeMap<String, u32>,
}

/// The GPU minor in a device name `gpu-<minor>` or `gpu-<minor>-mig-…`.
fn minor(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("gpu-")?;
    rest.split('-').next()?.parse().ok()
}

/// The NVIDIA devices of the newest generation of each pool, with the node they are on.
fn current_devices<'a>(
    slices: &'a ResourceSlices,
    notes: &mut Vec<String>,
) -> Vec<(String, &'a SliceDevice)> {
    let mut newest: BTreeMap<&str, i64> = BTreeMap::new();
    for s in slices.slices.iter().filter(|s| s.driver == NVIDIA_DRIVER) {
        let g = newest.entry(s.pool.as_str()).or_insert(s.generation);
        *g = (*g).max(s.generation);
    }
    let others: BTreeSet<&str> = slices
        .slices
        .iter()
        .filter(|s| s.driver != NVIDIA_DRIVER)
        .map(|s| s.driver.as_str())
        .collect();
    if !others.is_empty() {
        let names: Vec<&str> = others.into_iter().collect();
        notes.push(format!(
            "slices of other drivers skipped: {} (gpu-share reads the NVIDIA DRA driver's, {NVIDIA_DRIVER})",
            names.join(", ")
        ));
    }
    let mut stale = 0;
    let mut out = Vec::new();
    for s in slices.slices.iter().filter(|s| s.driver == NVIDIA_DRIVER) {
        if newest.get(s.pool.as_str()) != Some(&s.generation) {
            stale += 1;
            continue;
        }
        let node = s.node.clone().unwrap_or_else(|| s.pool.clone());
        out.extend(s.devices.iter().map(|d| (node.clone(), d)));
    }
    if stale > 0 {
        notes.push(format!(
            "{stale} slice(s) of an older pool generation skipped: the scheduler reads only a pool's newest"
        ));
    }
    out
}

/// Groups the devices by physical GPU (its UUID), in the order first seen.
fn boards<'a>(devices: &[(String, &'a SliceDevice)]) -> Vec<Board<'a>> {
    let mut boards: Vec<Board> = Vec::new();
    let mut at: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (node, d) in devices {
        let kind = d.nvidia("type");
        let uuid = match kind {
            Some("gpu") => d.nvidia("uuid"),
            Some("mig") => d.nvidia("parentUUID"),
            _ => None,
        };
        let Some(uuid) = uuid else { continue };
        let key = (node.clone(), uuid.to_string());
        let i = *at.entry(key).or_insert_with(|| {
            boards.push(Board {
                node: node.clone(),
                minor: minor(&d.name),
                uuid: uuid.to_string(),
                whole: None,
                product: None,
                live: Vec::new(),
                offered: BTreeMap::new(),
            });
            boards.len() - 1
        });
        let b = &mut boards[i];
        b.product = b.product.or(d.nvidia("productName"));
        b.minor = b.minor.or(minor(&d.name));
        match (kind, d.nvidia("profile")) {
            (Some("gpu"), _) => b.whole = Some(d),
            (Some("mig"), Some(_)) if d.nvidia("uuid").is_some() && d.consumes.is_empty() => {
                b.live.push(d);
            }
            (Some("mig"), Some(profile)) => *b.offered.entry(profile.to_string()).or_insert(0) += 1,
            _ => {}
        }
    }
    boards
}

/// Reads the NVIDIA driver's devices of `slices` for discovery.
pub(in crate::discover) fn read(slices: &ResourceSlices) -> Read {
    let mut out = Read {
        notes: slices.notes.clone(),
        ..Read::default()
    };
    let devices = current_devices(slices, &mut out.notes);
    let mut boards = boards(&devices);
    // nvidia-smi's order: by node, then by the GPU's minor number.
    boards.sort_by(|a, b| (a.node.as_str(), a.minor).cmp(&(b.node.as_str(), b.minor)));
    let mut per_node: BTreeMap<String, u64> = BTreeMap::new();
    let mut node_order: Vec<String> = Vec::new();
    let mut twice = Vec::new();
    let mut dynamic = Vec::new();
    for b in &boards {
        let index = per_node.entry(b.node.clone()).or_insert(0);
        if *index == 0 {
            node_order.push(b.node.clone());
        }
        let gpu = board_gpu(b, *index);
        if b.whole.is_some() && !b.live.is_empty() {
            twice.push(super::super::inventory::gpu_label(&gpu));
        }
        if !b.offered.is_empty() {
            dynamic.push(super::super::inventory::gpu_label(&gpu));
            for (name, total) in &b.offered {
                out.profiles.push(ProfileRow {
                    gpu: u32::try_from(*index).unwrap_or(u32::MAX),
                    name: name.clone(),
                    id: 0,
                    free: *total,
                    total: *total,
                });
            }
        }
        out.gpus.push(gpu);
        *index += 1;
    }
    for name in node_order {
        let gpus: Vec<&DiscoveredGpu> = out
            .gpus
            .iter()
            .filter(|g| g.node.as_deref() == Some(name.as_str()))
            .collect();
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for d in gpus.iter().flat_map(|g| &g.mig_devices) {
            *counts.entry(d.profile.clone()).or_insert(0) += 1;
        }
        out.nodes.push(DiscoveredNode {
            name,
            gpu_count: gpus.len() as u64,
            sharing_strategy: None,
            replicas: None,
            mig_strategy: None,
            mig_config: None,
            mig_device_counts: counts,
        });
    }
    notes(&mut out.notes, &twice, &dynamic, out.gpus.is_empty());
    out
}

fn notes(notes: &mut Vec<String>, twice: &[String], dynamic: &[String], none: bool) {
    if none {
        notes.push(format!(
            "no device of the NVIDIA DRA driver ({NVIDIA_DRIVER}) with type gpu or mig in these slices"
        ));
        return;
    }
    notes.push("ResourceSlices show the devices, not which are allocated (that is in each ResourceClaim's status): the live layout is the MIG devices that exist".into());
    notes.push("the DRA driver's feature gates (TimeSlicingSettings, MPSSupport, DynamicMIG) are not visible in ResourceSlices: time-slicing and MPS below are assumptions".into());
    if !twice.is_empty() {
        notes.push(format!(
            "{} advertised both whole and as MIG devices: the scheduler may hand out the whole GPU and its MIG devices at once (dra-driver-nvidia-gpu#719); do not plan whole-GPU claims on them",
            list(twice)
        ));
    }
    if !dynamic.is_empty() {
        notes.push(format!(
            "{}: MIG placements offered for the driver's DynamicMIG gate (alpha): devices are created when a claim is allocated, so the profiles are on offer, not a layout",
            list(dynamic)
        ));
    }
}

/// At most eight items, then a count of the rest.
fn list(items: &[String]) -> String {
    if items.len() <= 8 {
        return items.join(", ");
    }
    format!("{} and {} more", items[..8].join(", "), items.len() - 8)
}

/// One board as a discovered GPU, the `index`-th of its node.
fn board_gpu(b: &Board, index: u64) -> DiscoveredGpu {
    let name = b.product.unwrap_or("unknown NVIDIA GPU").to_string();
    let model: Option<&'static GpuModel> = catalog::find_model(&name);
    let memory_mib = b
        .whole
        .and_then(|d| d.nvidia_capacity("memory"))
        .map(super::quantity::mib);
    let pci = [b.whole, b.live.first().copied()]
        .into_iter()
        .flatten()
        .find_map(|d| {
            d.string("resource.kubernetes.io/pciBusID")
                .or(d.nvidia("pcieBusID"))
        });
    DiscoveredGpu {
        node: Some(b.node.clone()),
        index,
        name,
        model: model.map(|m| m.name.to_string()),
        memory_mib,
        mig_capable: model.is_some_and(GpuModel::is_mig_capable)
            || !b.live.is_empty()
            || !b.offered.is_empty(),
        mig_enabled: !b.live.is_empty(),
        // Slices show MIG only through MIG devices, made (static) or offered (dynamic).
        mig_mode_shown: !b.live.is_empty() || !b.offered.is_empty(),
        mig_pending: None,
        mig_devices: b.live.iter().map(|d| mig_device(d)).collect(),
        uuid: Some(b.uuid.clone()),
        pci_bus_id: pci.map(str::to_string),
        pci_device_id: None,
        power_limit_w: None,
    }
}

fn mig_device(d: &SliceDevice) -> DiscoveredMigDevice {
    let profile = d.nvidia("profile").unwrap_or("unknown").to_string();
    let multiprocessors = d
        .nvidia_capacity("multiprocessors")
        .and_then(|n| u32::try_from(n).ok());
    DiscoveredMigDevice {
        profile: profile.clone(),
        start: d.memory_slices().first().copied(),
        gpu_instance_id: None,
        memory_mib: d.nvidia_capacity("memory").map(super::quantity::mib),
        compute_instances: vec![DiscoveredComputeInstance {
            profile: Some(profile),
            compute_instance_id: None,
            device_index: None,
            multiprocessors,
            start: None,
        }],
    }
}
