//! The MIG devices of one GPU, settled: compute instances grouped into GPU instances, `nvidia-smi -L`
//! paired with `mig -lci`, `mig -lgi` instances matched, profiles and placements checked.

use super::*;

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
    crate::sort::sort_by_key(&mut lci, |d| (d.gpu_instance_id, d.compute_instance_id));
    let mut listed: Vec<RawDevice> = devices
        .iter()
        .filter(|d| d.gpu_instance_id.is_none())
        .cloned()
        .collect();
    crate::sort::sort_by_key(&mut listed, |d| d.device_index);
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
    crate::sort::sort_by_key(&mut sorted, |i| i.gpu_instance_id);
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
pub(super) fn settle_devices(
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
    let of = OfGpu {
        index: gpu,
        board,
        model,
        memory_mib: gpu_memory_mib,
    };
    let devices = pair_list_with_lci(devices, &mut notes);
    let mut groups = group_devices(&devices, &mut notes);
    let (of_group, alone) = match_instances(&mut groups, instances, &mut notes);
    let mut out: Vec<DiscoveredMigDevice> = Vec::with_capacity(groups.len() + alone.len());
    for (i, g) in groups.iter().enumerate() {
        let inst = of_group.get(i).copied().flatten();
        out.push(settle_group(&of, i, g, inst, &mut notes));
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

/// The GPU whose MIG devices are settled, with what naming a device from its size needs.
struct OfGpu<'b> {
    index: u64,
    /// The board's name, as nvidia-smi reports it.
    board: &'b str,
    model: Option<&'static GpuModel>,
    memory_mib: Option<u64>,
}

/// The `i`th group of compute instances as one GPU instance, with `inst`, its `-lgi` entry, if any.
fn settle_group(
    of: &OfGpu,
    i: usize,
    g: &Group,
    inst: Option<&RawInstance>,
    notes: &mut DeviceNotes,
) -> DiscoveredMigDevice {
    let gpu = of.index;
    let which = match (
        g.gpu_instance_id,
        g.members.first().and_then(|d| d.device_index),
    ) {
        (Some(gi), _) => format!("GPU {gpu} GPU instance {gi}"),
        (None, Some(k)) => format!("GPU {gpu} MIG device {k}"),
        (None, None) => format!("GPU {gpu} MIG device {i}"),
    };
    let memory_mib = g.members.iter().find_map(|d| d.memory_mib);
    let profile = group_profile(of, &which, g, inst, memory_mib, notes);
    if let Some(inst) = inst {
        check_placement(&which, inst, of.model, notes);
    }
    DiscoveredMigDevice {
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
    }
}

/// A GPU instance's profile: `-lgi`'s (noting a device name that says otherwise), else its
/// devices' name, else derived from its memory and SMs on a known model, else `unknown`.
fn group_profile(
    of: &OfGpu,
    which: &str,
    g: &Group,
    inst: Option<&RawInstance>,
    memory_mib: Option<u64>,
    notes: &mut DeviceNotes,
) -> String {
    let named = g.members.iter().find_map(|d| d.profile.as_deref());
    let sms: Vec<u32> = g.members.iter().filter_map(|d| d.multiprocessors).collect();
    match (inst, named, of.model, memory_mib) {
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
            match profile::derive(m, of.board, of.memory_mib, mem, &sms) {
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
    }
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
