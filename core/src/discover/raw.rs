//! GPUs as one nvidia-smi format reports them (any field may be missing), merged across formats and settled.

use super::inventory::{DiscoveredComputeInstance, DiscoveredGpu, DiscoveredMigDevice};
use super::profile::{self, Derived};
use super::values::{self, gi_profile, MigMode};
use crate::catalog::{self, GpuModel};
use std::collections::{BTreeSet, HashMap, HashSet};

mod devices;
use devices::settle_devices;

/// A GPU as one format reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct RawGpu {
    pub index: u64,
    pub name: Option<String>,
    pub memory_mib: Option<u64>,
    pub mig_current: Option<MigMode>,
    pub mig_pending: Option<MigMode>,
    /// `None`: the format does not show MIG devices; `Some(empty)`: it shows there are none.
    pub devices: Option<Vec<RawDevice>>,
    /// GPU instances as `nvidia-smi mig -lgi` lists them (the other formats show MIG devices only).
    pub instances: Option<Vec<RawInstance>>,
    pub uuid: Option<String>,
    pub pci_bus_id: Option<String>,
    pub pci_device_id: Option<String>,
    pub power_limit_w: Option<u32>,
}

/// A MIG device (one compute instance) as one format reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct RawDevice {
    /// nvidia-smi's MIG device index (`MIG Dev` in the table, `Device N` in `-L`).
    pub device_index: Option<u32>,
    /// The name as listed, without `MIG ` (`1c.3g.71gb`, `3g.71gb`).
    pub profile: Option<String>,
    pub gpu_instance_id: Option<u32>,
    pub compute_instance_id: Option<u32>,
    /// The GPU instance's memory (every compute instance of it shows the same).
    pub memory_mib: Option<u64>,
    /// The compute instance's multiprocessors.
    pub multiprocessors: Option<u32>,
    /// Its first compute slice within the GPU instance (`nvidia-smi mig -lci`).
    pub start: Option<u8>,
}

/// A GPU instance as `nvidia-smi mig -lgi` lists it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct RawInstance {
    pub gpu_instance_id: u32,
    /// Without `MIG ` (`3g.40gb`).
    pub profile: String,
    /// Its placement in memory slices, where the listing has the column.
    pub start: Option<u8>,
    pub size: Option<u8>,
}

/// Fills what `into` lacks from `from` (both describe the same machine), GPU by GPU (matched by index).
pub(super) fn merge_same_machine(into: &mut Vec<RawGpu>, from: Vec<RawGpu>) {
    let mut at: HashMap<u64, usize> = HashMap::new();
    for (i, g) in into.iter().enumerate() {
        at.entry(g.index).or_insert(i);
    }
    for g in from {
        let Some(t) = at.get(&g.index).and_then(|&i| into.get_mut(i)) else {
            at.insert(g.index, into.len());
            into.push(g);
            continue;
        };
        fill(&mut t.name, g.name);
        fill(&mut t.memory_mib, g.memory_mib);
        fill(&mut t.mig_current, g.mig_current);
        fill(&mut t.mig_pending, g.mig_pending);
        fill(&mut t.uuid, g.uuid);
        fill(&mut t.pci_bus_id, g.pci_bus_id);
        fill(&mut t.pci_device_id, g.pci_device_id);
        fill(&mut t.power_limit_w, g.power_limit_w);
        match (&mut t.devices, g.devices) {
            (None, d) => t.devices = d,
            (Some(mine), Some(theirs)) => merge_devices(mine, theirs),
            (Some(_), None) => {}
        }
        match (&mut t.instances, g.instances) {
            (None, i) => t.instances = i,
            (Some(mine), Some(theirs)) => {
                let known: HashSet<u32> = mine.iter().map(|i| i.gpu_instance_id).collect();
                mine.extend(
                    theirs
                        .into_iter()
                        .filter(|i| !known.contains(&i.gpu_instance_id)),
                );
            }
            (Some(_), None) => {}
        }
    }
}

/// Fills `mine` from `theirs`, device by device: the same MIG device index, else the same GPU and
/// compute instance IDs (`-lci` shows no device index). Devices of neither kind are added.
fn merge_devices(mine: &mut Vec<RawDevice>, theirs: Vec<RawDevice>) {
    let mut by_index: HashMap<u32, usize> = HashMap::new();
    let mut by_ids: HashMap<(u32, u32), usize> = HashMap::new();
    for (i, m) in mine.iter().enumerate() {
        if let Some(k) = m.device_index {
            by_index.entry(k).or_insert(i);
        }
        if let (Some(gi), Some(ci)) = (m.gpu_instance_id, m.compute_instance_id) {
            by_ids.entry((gi, ci)).or_insert(i);
        }
    }
    for d in theirs {
        let at = d
            .device_index
            .and_then(|k| by_index.get(&k))
            .or_else(|| {
                d.gpu_instance_id
                    .zip(d.compute_instance_id)
                    .and_then(|ids| by_ids.get(&ids))
            })
            .copied();
        match at.and_then(|i| mine.get_mut(i)) {
            Some(m) => {
                fill(&mut m.device_index, d.device_index);
                fill(&mut m.profile, d.profile);
                fill(&mut m.gpu_instance_id, d.gpu_instance_id);
                fill(&mut m.compute_instance_id, d.compute_instance_id);
                fill(&mut m.memory_mib, d.memory_mib);
                fill(&mut m.multiprocessors, d.multiprocessors);
                fill(&mut m.start, d.start);
            }
            None => {
                if let Some(k) = d.device_index {
                    by_index.insert(k, mine.len());
                }
                if let (Some(gi), Some(ci)) = (d.gpu_instance_id, d.compute_instance_id) {
                    by_ids.insert((gi, ci), mine.len());
                }
                mine.push(d);
            }
        }
    }
}

fn fill<T>(slot: &mut Option<T>, value: Option<T>) {
    if slot.is_none() {
        *slot = value;
    }
}

/// Settles raw GPUs: catalogue model, MIG state, device profiles. Notes what was assumed.
pub(super) fn settle(raw: Vec<RawGpu>, notes: &mut Vec<String>) -> Vec<DiscoveredGpu> {
    const NAMED: usize = 10;
    let mut unknown_names: BTreeSet<String> = BTreeSet::new();
    let index = ModelIndex::new();
    let mut models: HashMap<String, Option<&'static GpuModel>> = HashMap::new();
    let mut gpus = Vec::with_capacity(raw.len());
    for r in raw {
        let devices = r.devices.clone().unwrap_or_default();
        let instances = r.instances.clone().unwrap_or_default();
        let (name, model) = match &r.name {
            Some(name) => {
                let model = *models
                    .entry(name.clone())
                    .or_insert_with(|| index.find(name));
                if model.is_none()
                    && unknown_names.insert(name.clone())
                    && unknown_names.len() <= NAMED
                {
                    notes.push(format!(
                        "{name:?} is not in the catalogue: planned as a GPU without MIG{}",
                        r.memory_mib
                            .map(|m| format!(", with its {m} MiB"))
                            .unwrap_or_default()
                    ));
                }
                (name.clone(), model)
            }
            None => (
                "unknown".to_string(),
                unnamed_model(r.index, &devices, &instances, notes),
            ),
        };
        let listed = !devices.is_empty() || !instances.is_empty();
        let mig_capable = match r.mig_current {
            Some(MigMode::Enabled | MigMode::Disabled) => true,
            Some(MigMode::Unsupported) => false,
            None => model.is_some_and(GpuModel::is_mig_capable) || listed,
        };
        let mig_enabled = match r.mig_current {
            Some(m) => m == MigMode::Enabled,
            None => listed,
        };
        let mig_pending = match r.mig_pending {
            Some(MigMode::Enabled) => Some(true),
            Some(MigMode::Disabled) => Some(false),
            _ => None,
        };
        let mig_devices = settle_devices(
            r.index,
            devices,
            &instances,
            &name,
            model,
            r.memory_mib,
            notes,
        );
        gpus.push(DiscoveredGpu {
            node: None,
            index: r.index,
            name,
            model: model.map(|m| m.name.to_string()),
            memory_mib: r.memory_mib,
            mig_capable,
            mig_enabled,
            mig_mode_shown: r.mig_current.is_some() || listed,
            mig_pending,
            mig_devices,
            uuid: r.uuid,
            pci_bus_id: r.pci_bus_id,
            pci_device_id: r.pci_device_id,
            power_limit_w: r.power_limit_w,
        });
    }
    if unknown_names.len() > NAMED {
        notes.push(format!(
            "{} more GPU names are not in the catalogue either: planned as GPUs without MIG",
            unknown_names.len() - NAMED
        ));
    }
    gpus
}

/// The model of a GPU that the input does not name (`nvidia-smi mig -lgi` and `-lci` show only an index):
/// the one catalogue model whose profiles include every GPU-instance profile listed — or the first
/// of boards sharing one profile table (an SXM board and its PCIe sibling), naming the others — else
/// none. Noted.
fn unnamed_model(
    gpu: u64,
    devices: &[RawDevice],
    instances: &[RawInstance],
    notes: &mut Vec<String>,
) -> Option<&'static GpuModel> {
    let mut profiles: Vec<&str> = instances.iter().map(|i| i.profile.as_str()).collect();
    profiles.extend(
        devices
            .iter()
            .filter_map(|d| d.profile.as_deref())
            .map(|p| values::split_ci(p).1),
    );
    profiles.sort_unstable();
    profiles.dedup();
    let models = if profiles.is_empty() {
        Vec::new()
    } else {
        catalog::models_with_profiles(profiles.iter().copied())
    };
    match models.as_slice() {
        [only] => {
            notes.push(format!(
                "GPU {gpu}: the input does not name the GPU; of the catalogue's models only {} has MIG profiles {}, so it is taken to be one",
                only.name,
                profiles.join(", ")
            ));
            Some(only)
        }
        [first, rest @ ..] if rest.iter().all(|m| m.same_profiles(first)) => {
            let others: Vec<&str> = rest.iter().map(|m| m.name).collect();
            notes.push(format!(
                "GPU {gpu}: the input does not name the GPU; of the catalogue's models only {} and {} (the same profiles) have MIG profiles {}, so it is taken to be {}; the output of nvidia-smi -L or nvidia-smi -q -x names it",
                first.name,
                others.join(", "),
                profiles.join(", "),
                first.name
            ));
            Some(first)
        }
        several => {
            let which = if several.is_empty() {
                String::new()
            } else {
                let names: Vec<&str> = several.iter().map(|m| m.name).collect();
                format!(" (its MIG profiles fit {})", names.join(", "))
            };
            notes.push(format!(
                "GPU {gpu}: the input does not name the GPU{which}, so its model is unknown; the output of nvidia-smi -L or nvidia-smi -q -x names it"
            ));
            None
        }
    }
}

/// [`catalog::find_model`] as a hash lookup: the same names match (ignoring case, spaces, `-`, `_`
/// and a leading `NVIDIA`), without normalising the whole catalogue for every GPU name.
pub(super) struct ModelIndex(HashMap<String, &'static GpuModel>);

impl ModelIndex {
    pub(super) fn new() -> ModelIndex {
        let mut map = HashMap::new();
        for m in catalog::models() {
            for n in std::iter::once(m.name)
                .chain(m.smi_names.iter().copied())
                .chain(m.aliases.iter().copied())
            {
                map.entry(key(n)).or_insert(m);
            }
        }
        ModelIndex(map)
    }

    pub(super) fn find(&self, name: &str) -> Option<&'static GpuModel> {
        let k = key(name);
        (!k.is_empty()).then(|| self.0.get(&k).copied()).flatten()
    }
}

/// The comparison key of `catalog::find_model`: lower case without ` `, `-`, `_`, then without `nvidia`.
fn key(name: &str) -> String {
    let n: String = name
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    match n.strip_prefix("nvidia") {
        Some(rest) => rest.to_string(),
        None => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_finds_what_find_model_finds() {
        let index = ModelIndex::new();
        let mut names: Vec<String> = Vec::new();
        for m in catalog::models() {
            names.push(m.name.into());
            names.extend(m.smi_names.iter().map(|s| s.to_string()));
            names.extend(m.aliases.iter().map(|s| s.to_string()));
        }
        for extra in [
            "NVIDIA-A100-SXM4-40GB",
            "Tesla-T4",
            "nvidia h100 80gb hbm3",
            "A100",
            "NVIDIA",
            "",
            "  ",
            "Board 7",
            "NVIDIA GeForce RTX 4090",
        ] {
            names.push(extra.into());
        }
        for n in &names {
            assert_eq!(
                index.find(n).map(|m| m.name),
                catalog::find_model(n).map(|m| m.name),
                "{n:?}"
            );
        }
    }
}
