//! The [`ClusterGpuCaps`] an [`Inventory`] implies, and the notes that say how each was settled:
//! the model, MIG, the profiles, time-slicing and MPS (the rules are on [`Inventory::caps`]).

use super::{gpu_label, list, model_key, on_off, DiscoveredGpu, Inventory};
use crate::caps::ClusterGpuCaps;
use crate::catalog::{self, GpuModel};
use std::collections::HashMap;

impl Inventory {
    /// [`Inventory::caps`] and the notes explaining it.
    pub(crate) fn caps_with_notes(&self) -> (ClusterGpuCaps, Vec<String>) {
        let mut notes = Vec::new();
        let chosen = self.most_common_model(&mut notes);
        let chosen_model: Option<&'static GpuModel> =
            chosen.as_deref().and_then(catalog::find_model);
        let of_chosen: Vec<&DiscoveredGpu> = self
            .gpus
            .iter()
            .filter(|g| chosen.as_deref() == Some(g.model.as_deref().unwrap_or(&g.name)))
            .collect();
        let supports_mig = self.supports_mig(chosen_model, &of_chosen);
        self.note_mig_left_out(supports_mig, chosen_model, &of_chosen, &mut notes);
        if supports_mig {
            note_mig_disabled(&of_chosen, &mut notes);
        }
        self.note_mig_pending(&mut notes);
        let mig_profiles = self.listed_profiles(supports_mig, chosen_model, &mut notes);
        let (supports_timeslicing, supports_mps) = self.sharing(&mut notes);
        let caps = ClusterGpuCaps {
            supports_mig,
            mig_profiles,
            supports_mps,
            supports_timeslicing,
            gpu_model: chosen,
            gpu_count: (!self.gpus.is_empty()).then_some(self.gpus.len() as u64),
            nodes: self.node_specs(),
            context_overhead_mib: None,
            driver: None,
        };
        (caps, notes)
    }

    /// The most common model (unknown ones by their reported name; the first of equally common
    /// ones), with a note when the models are mixed.
    fn most_common_model(&self, notes: &mut Vec<String>) -> Option<String> {
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
        chosen
    }

    /// MIG is in the caps when a GPU of the chosen MIG-capable model has it enabled now, or
    /// profiles were listed.
    fn supports_mig(
        &self,
        chosen_model: Option<&'static GpuModel>,
        of_chosen: &[&DiscoveredGpu],
    ) -> bool {
        let mig_model = chosen_model.is_some_and(GpuModel::is_mig_capable);
        if self.gpus.is_empty() {
            !self.mig_profiles.is_empty()
        } else {
            // `nvidia-smi mig -lgip` lists profiles only with MIG enabled, so a listing counts too.
            mig_model
                && (!self.mig_profiles.is_empty()
                    || of_chosen.iter().any(|g| g.mig_capable && g.mig_enabled))
        }
    }

    /// Why MIG is not in the caps although GPUs support it: disabled (or its mode not shown) on
    /// the chosen model's GPUs, an unknown model, or another model.
    fn note_mig_left_out(
        &self,
        supports_mig: bool,
        chosen_model: Option<&'static GpuModel>,
        of_chosen: &[&DiscoveredGpu],
        notes: &mut Vec<String>,
    ) {
        let mig_model = chosen_model.is_some_and(GpuModel::is_mig_capable);
        let all_disabled = labels_of(of_chosen.iter().copied(), mig_off);
        let assumed = of_chosen.iter().any(|g| mig_off(g) && !g.mig_mode_shown);
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
            let capable = labels_of(&self.gpus, |g| g.mig_capable);
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
    }

    /// GPUs whose MIG mode changes at the next reset.
    fn note_mig_pending(&self, notes: &mut Vec<String>) {
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
    }

    /// The profiles `nvidia-smi mig -lgip` listed that the chosen model offers (all of them for a
    /// model the catalogue does not know); `None` when none were listed or MIG is not in the caps.
    fn listed_profiles(
        &self,
        supports_mig: bool,
        chosen_model: Option<&'static GpuModel>,
        notes: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if self.mig_profiles.is_empty() || !supports_mig {
            return None;
        }
        let Some(m) = chosen_model else {
            return Some(self.mig_profiles.clone());
        };
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

    /// Time-slicing and MPS: the device plugin's labels when there are any, else the stated
    /// assumptions.
    fn sharing(&self, notes: &mut Vec<String>) -> (bool, bool) {
        let labelled: Vec<(&str, &str)> = self
            .nodes
            .iter()
            .filter_map(|n| n.sharing_strategy.as_deref().map(|s| (n.name.as_str(), s)))
            .collect();
        if labelled.is_empty() {
            self.assumed_sharing(notes)
        } else {
            self.labelled_sharing(&labelled, notes)
        }
    }

    /// Without labels: time-slicing wherever there is a GPU, MPS where a GPU has MIG disabled.
    fn assumed_sharing(&self, notes: &mut Vec<String>) -> (bool, bool) {
        let any_gpu = !self.gpus.is_empty() || !self.mig_profiles.is_empty();
        let without_mig: Vec<&DiscoveredGpu> =
            self.gpus.iter().filter(|g| !g.mig_enabled).collect();
        let with_mig = labels_of(&self.gpus, |g| g.mig_enabled);
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
    }

    /// From the nodes' `nvidia.com/gpu.sharing-strategy` labels (`(node, strategy)`); a node
    /// without one shares nothing.
    fn labelled_sharing(&self, labelled: &[(&str, &str)], notes: &mut Vec<String>) -> (bool, bool) {
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
    }
}

/// GPUs of the chosen model with MIG supported but disabled, when MIG is in the caps: a plan that
/// uses MIG must enable it there first.
fn note_mig_disabled(of_chosen: &[&DiscoveredGpu], notes: &mut Vec<String>) {
    let disabled = labels_of(of_chosen.iter().copied(), mig_off);
    if !disabled.is_empty() {
        notes.push(format!(
            "MIG is supported but disabled on {}: enabling it needs the GPU idle and a GPU reset (`nvidia-smi -i <index> -mig 1`), so a plan that uses MIG needs that first",
            list(&disabled)
        ));
    }
}

/// MIG supported but disabled now.
fn mig_off(g: &DiscoveredGpu) -> bool {
    g.mig_capable && !g.mig_enabled
}

/// The labels of the GPUs `keep` picks, in order.
fn labels_of<'g>(
    gpus: impl IntoIterator<Item = &'g DiscoveredGpu>,
    keep: impl Fn(&DiscoveredGpu) -> bool,
) -> Vec<String> {
    gpus.into_iter()
        .filter(|g| keep(g))
        .map(gpu_label)
        .collect()
}
