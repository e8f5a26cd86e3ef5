//! GPUs as one nvidia-smi format reports them (any field may be missing), merged across formats and settled.

use super::inventory::{DiscoveredComputeInstance, DiscoveredGpu, DiscoveredMigDevice};
use super::profile::{self, Derived};
use super::values::{self, gi_profile, MigMode};
use crate::catalog::{self, GpuModel};
use std::collections::{BTreeSet, HashMap, HashSet};

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

/// Notes about one GPU's MIG devices, at most [`DEVICE_NOTES`] of them (a huge listing stays readable).
struct DeviceNotes<'a> {
    notes: &'a mut Vec<String>,
    gpu: u64,
    written: usize,
    skipped: usize,
}

const DEVICE_NOTES: usize = 8;

impl DeviceNotes<'_> {
    fn push(&mut self, note: String) {
        if self.written < DEVICE_NOTES {
            self.notes.push(note);
            self.written += 1;
        } else {
            self.skipped += 1;
        }
    }

    fn finish(self) {
        if self.skipped > 0 {
            self.notes.push(format!(
                "GPU {}: {} more notes about its MIG devices left out",
                self.gpu, self.skipped
            ));
        }
    }
}

/// The compute instances of one GPU instance, as the GPU's MIG devices list them.
struct Group<'a> {
    gpu_instance_id: Option<u32>,
    members: Vec<&'a RawDevice>,
    /// For a group formed from unnumbered `<c>c.<profile>` names: the GPU-instance profile, its compute
    /// slices and the slices its members take so far.
    open: Option<(&'a str, u32, u32)>,
}

/// Groups MIG devices (compute instances) into GPU instances: by GPU instance ID where the input shows
/// one (the table, the XML); else by name, since `nvidia-smi -L` shows none — a `<c>c.<profile>` device
/// joins the one listed just before it when both are compute instances of the same profile and their
/// compute slices still fit in it (docs/hardware-facts.md §1.1); any other device is a GPU instance of its own.
fn group_devices<'a>(devices: &'a [RawDevice], notes: &mut DeviceNotes) -> Vec<Group<'a>> {
    let mut groups: Vec<Group<'a>> = Vec::new();
    let mut by_id: HashMap<u32, usize> = HashMap::new();
    let mut last_open: Option<usize> = None;
    for d in devices {
        if let Some(gi) = d.gpu_instance_id {
            last_open = None;
            let at = *by_id.entry(gi).or_insert_with(|| {
                groups.push(Group {
                    gpu_instance_id: Some(gi),
                    members: Vec::new(),
                    open: None,
                });
                groups.len() - 1
            });
            if let Some(g) = groups.get_mut(at) {
                g.members.push(d);
            }
            continue;
        }
        let (slices, gi_name) = d.profile.as_deref().map_or((None, ""), values::split_ci);
        if let Some(c) = slices {
            let joined =
                last_open
                    .and_then(|i| groups.get_mut(i))
                    .is_some_and(|g| match &mut g.open {
                        Some((name, total, used)) if *name == gi_name && *used + c <= *total => {
                            *used += c;
                            g.members.push(d);
                            true
                        }
                        _ => false,
                    });
            if joined {
                continue;
            }
            let total = values::gi_slices(gi_name).unwrap_or(0);
            groups.push(Group {
                gpu_instance_id: None,
                members: vec![d],
                open: (c <= total).then_some((gi_name, total, c)),
            });
            last_open = Some(groups.len() - 1);
        } else {
            groups.push(Group {
                gpu_instance_id: None,
                members: vec![d],
                open: None,
            });
            last_open = None;
        }
    }
    for g in &groups {
        if g.gpu_instance_id.is_none() && g.members.len() > 1 {
            let names: Vec<String> = g
                .members
                .iter()
                .map(|d| match d.device_index {
                    Some(k) => format!("{} (device {k})", d.profile.as_deref().unwrap_or("?")),
                    None => d.profile.clone().unwrap_or_default(),
                })
                .collect();
            notes.push(format!(
                "GPU {}: {} are compute instances of one {} GPU instance (nvidia-smi -L shows no GPU instance IDs: compute instances listed one after the other whose compute slices fit in one GPU instance are taken as sharing it)",
                notes.gpu,
                names.join(" and "),
                g.open.map_or("", |(name, _, _)| name)
            ));
        }
    }
    groups
}

/// The name of a MIG device as listed, without `MIG `.
fn listed_name(p: &str) -> &str {
    let p = p.trim();
    p.strip_prefix("MIG ").unwrap_or(p).trim()
}

/// Pairs `nvidia-smi -L` devices (a MIG device index and a name, no IDs) with `nvidia-smi mig -lci`
/// compute instances (IDs and a name, no device index) of the same GPU. Both list the same compute
/// instances; nvidia-smi numbers MIG devices by GPU instance ID, then compute instance ID
/// (docs/hardware-facts.md §1.1), so taken in that order the two lists pair up — trusted only when
/// every pair has the same name. When they do not, the `-lci` instances are kept and `-L`'s dropped.
fn pair_list_with_lci(devices: Vec<RawDevice>, notes: &mut DeviceNotes) -> Vec<RawDevice> {
    let unnumbered = devices
        .iter()
        .filter(|d| d.gpu_instance_id.is_none())
        .count();
    let lci: Vec<&RawDevice> = devices
        .iter()
        .filter(|d| d.gpu_instance_id.is_some() && d.device_index.is_none())
        .collect();
    if unnumbered == 0 || lci.is_empty() {
        return devices;
    }
    let mut lci: Vec<RawDevice> = lci.into_iter().cloned().collect();
    lci.sort_by_key(|d| (d.gpu_instance_id, d.compute_instance_id));
    let mut listed: Vec<RawDevice> = devices
        .iter()
        .filter(|d| d.gpu_instance_id.is_none())
        .cloned()
        .collect();
    listed.sort_by_key(|d| d.device_index);
    let agree = listed.len() == lci.len()
        && listed.iter().zip(&lci).all(|(l, c)| {
            matches!((&l.profile, &c.profile), (Some(a), Some(b)) if listed_name(a) == listed_name(b))
        });
    let rest = devices
        .into_iter()
        .filter(|d| d.gpu_instance_id.is_some() && d.device_index.is_some());
    if agree {
        notes.push(format!(
            "GPU {}: the MIG devices of nvidia-smi -L and the compute instances of nvidia-smi mig -lci are paired in order (devices are numbered by GPU instance ID, then compute instance ID); their names agree",
            notes.gpu
        ));
        let paired = listed.into_iter().zip(lci).map(|(mut l, c)| {
            l.gpu_instance_id = c.gpu_instance_id;
            l.compute_instance_id = c.compute_instance_id;
            fill(&mut l.start, c.start);
            fill(&mut l.memory_mib, c.memory_mib);
            fill(&mut l.multiprocessors, c.multiprocessors);
            l
        });
        rest.chain(paired).collect()
    } else {
        notes.push(format!(
            "GPU {}: nvidia-smi -L lists {} MIG devices that do not pair with the {} compute instances of nvidia-smi mig -lci (were they taken at different times?); the -lci ones are used",
            notes.gpu,
            listed.len(),
            lci.len()
        ));
        rest.chain(lci).collect()
    }
}

/// Matches `nvidia-smi mig -lgi` GPU instances to the groups of MIG devices: by GPU instance ID, else
/// (groups from `-L`, which shows no IDs) in order — groups as listed, GPU instances by ID, as MIG
/// devices are numbered — when every pair has the same profile. Returns, per group, the GPU instance
/// it is (if any), and the GPU instances no group is.
fn match_instances<'i>(
    groups: &mut [Group],
    instances: &'i [RawInstance],
    notes: &mut DeviceNotes,
) -> (Vec<Option<&'i RawInstance>>, Vec<&'i RawInstance>) {
    let mut of_group: Vec<Option<&RawInstance>> = vec![None; groups.len()];
    let by_id: HashMap<u32, usize> = groups
        .iter()
        .enumerate()
        .filter_map(|(i, g)| g.gpu_instance_id.map(|gi| (gi, i)))
        .collect();
    let mut unmatched: Vec<&RawInstance> = Vec::new();
    for inst in instances {
        match by_id
            .get(&inst.gpu_instance_id)
            .and_then(|&i| of_group.get_mut(i))
        {
            Some(slot) if slot.is_none() => *slot = Some(inst),
            _ => unmatched.push(inst),
        }
    }
    let unnamed: Vec<usize> = (0..groups.len())
        .filter(|&i| groups.get(i).is_some_and(|g| g.gpu_instance_id.is_none()))
        .collect();
    if unnamed.is_empty() || unmatched.is_empty() {
        return (of_group, unmatched);
    }
    let mut sorted = unmatched.clone();
    sorted.sort_by_key(|i| i.gpu_instance_id);
    let agree = sorted.len() == unnamed.len()
        && unnamed.iter().zip(&sorted).all(|(&g, inst)| {
            groups
                .get(g)
                .and_then(|g| g.members.first())
                .and_then(|d| d.profile.as_deref())
                .is_some_and(|p| values::split_ci(p).1 == inst.profile)
        });
    if agree {
        notes.push(format!(
            "GPU {}: the MIG devices of nvidia-smi -L are paired with the GPU instances of nvidia-smi mig -lgi in order (devices are numbered by GPU instance ID); their profiles agree",
            notes.gpu
        ));
        for (&g, inst) in unnamed.iter().zip(sorted) {
            if let Some(group) = groups.get_mut(g) {
                group.gpu_instance_id = Some(inst.gpu_instance_id);
            }
            if let Some(slot) = of_group.get_mut(g) {
                *slot = Some(inst);
            }
        }
        (of_group, Vec::new())
    } else {
        notes.push(format!(
            "GPU {}: the MIG devices of nvidia-smi -L do not pair with the GPU instances of nvidia-smi mig -lgi (were they taken at different times?); both are listed",
            notes.gpu
        ));
        (of_group, unmatched)
    }
}

/// One entry per GPU instance, its compute instances inside, each with a profile name; placements and
/// IDs from `nvidia-smi mig -lgi` where given.
fn settle_devices(
    gpu: u64,
    devices: Vec<RawDevice>,
    instances: &[RawInstance],
    board: &str,
    model: Option<&'static GpuModel>,
    gpu_memory_mib: Option<u64>,
    notes: &mut Vec<String>,
) -> Vec<DiscoveredMigDevice> {
    let mut notes = DeviceNotes {
        notes,
        gpu,
        written: 0,
        skipped: 0,
    };
    let devices = pair_list_with_lci(devices, &mut notes);
    let mut groups = group_devices(&devices, &mut notes);
    let (of_group, alone) = match_instances(&mut groups, instances, &mut notes);
    let mut out: Vec<DiscoveredMigDevice> = Vec::with_capacity(groups.len() + alone.len());
    for (i, g) in groups.iter().enumerate() {
        let inst = of_group.get(i).copied().flatten();
        let which = match (
            g.gpu_instance_id,
            g.members.first().and_then(|d| d.device_index),
        ) {
            (Some(gi), _) => format!("GPU {gpu} GPU instance {gi}"),
            (None, Some(k)) => format!("GPU {gpu} MIG device {k}"),
            (None, None) => format!("GPU {gpu} MIG device {i}"),
        };
        let named = g.members.iter().find_map(|d| d.profile.as_deref());
        let memory_mib = g.members.iter().find_map(|d| d.memory_mib);
        let sms: Vec<u32> = g.members.iter().filter_map(|d| d.multiprocessors).collect();
        let profile = match (inst, named, model, memory_mib) {
            (Some(inst), named, _, _) => {
                if let Some(n) = named.map(gi_profile).filter(|n| *n != inst.profile) {
                    notes.push(format!(
                        "{which}: nvidia-smi mig -lgi says {}, its MIG devices say {n}; taken as {}",
                        inst.profile, inst.profile
                    ));
                }
                inst.profile.clone()
            }
            (None, Some(p), _, _) => gi_profile(p),
            (None, None, Some(m), Some(mem)) => {
                match profile::derive(m, board, gpu_memory_mib, mem, &sms) {
                    Ok(Derived { name, uncertain }) => {
                        if let Some(why) = uncertain {
                            notes.push(format!(
                                "{which}: named {name} from its {} SMs, a count that is uncertain: {why}",
                                sms.first().copied().unwrap_or_default()
                            ));
                        }
                        name.to_string()
                    }
                    Err(why) => {
                        notes.push(format!(
                            "{which}: profile unknown, not guessed: {why} (the output of nvidia-smi -L or nvidia-smi mig -lgi names it)"
                        ));
                        "unknown".to_string()
                    }
                }
            }
            (None, None, _, _) => {
                notes.push(format!(
                    "{which}: profile unknown (neither a name nor a known model and memory size)"
                ));
                "unknown".to_string()
            }
        };
        if let Some(inst) = inst {
            check_placement(&which, inst, model, &mut notes);
        }
        out.push(DiscoveredMigDevice {
            profile,
            start: inst.and_then(|i| i.start),
            gpu_instance_id: g.gpu_instance_id,
            memory_mib,
            compute_instances: g
                .members
                .iter()
                .map(|d| DiscoveredComputeInstance {
                    profile: d.profile.as_deref().map(|p| listed_name(p).to_string()),
                    compute_instance_id: d.compute_instance_id,
                    device_index: d.device_index,
                    multiprocessors: d.multiprocessors,
                    start: d.start,
                })
                .collect(),
        });
    }
    for inst in alone {
        let which = format!("GPU {gpu} GPU instance {}", inst.gpu_instance_id);
        check_placement(&which, inst, model, &mut notes);
        out.push(DiscoveredMigDevice {
            profile: inst.profile.clone(),
            start: inst.start,
            gpu_instance_id: Some(inst.gpu_instance_id),
            memory_mib: None,
            compute_instances: Vec::new(),
        });
    }
    notes.finish();
    out
}

/// Notes a `-lgi` placement the catalogue does not allow for the profile (docs/hardware-facts.md §1.2):
/// the planner keeps to the catalogue's placements.
fn check_placement(
    which: &str,
    inst: &RawInstance,
    model: Option<&'static GpuModel>,
    notes: &mut DeviceNotes,
) {
    let (Some(m), Some(start), Some(size)) = (model, inst.start, inst.size) else {
        return;
    };
    let Some(p) = m.profile(&inst.profile) else {
        notes.push(format!(
            "{which}: nvidia-smi mig -lgi lists profile {}, which the catalogue does not have for {}",
            inst.profile, m.name
        ));
        return;
    };
    if p.memory_slices != size || !p.valid_start(start) {
        let starts: Vec<String> = p.starts.iter().map(u8::to_string).collect();
        notes.push(format!(
            "{which}: nvidia-smi mig -lgi places {} at {start}:{size}, where the catalogue for {} allows {{{}}}:{}",
            inst.profile,
            m.name,
            starts.join(","),
            p.memory_slices
        ));
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
