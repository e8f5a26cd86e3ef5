//! NVIDIA k8s-device-plugin configs (`version: v1`): the MIG strategy, and time-slicing or MPS replicas chosen from the plan.
//!
//! Time-slicing and MPS are mutually exclusive on a node and one method applies to every GPU of
//! a node (docs/hardware-facts.md §2), so each kind of GPU in the plan gets its own named config, selected per node
//! by the label `nvidia.com/device-plugin.config=<name>`.

use super::yaml::{self, Map, Value};
use super::{gpu_list, ExportOptions, MigStrategy, Plan};
use crate::pack::MPS_CLIENTS_PER_GPU;
use crate::plan::{Choice, Mechanism};
use crate::units::Share;
use std::collections::BTreeMap;

/// How the plan's time-sliced or MPS GPUs are shared through the device plugin.
pub(crate) struct Sharing {
    pub mechanism: Mechanism,
    pub gpus: Vec<u64>,
    /// `replicas` of `nvidia.com/gpu` (at least 2, the plugin's minimum).
    pub replicas: u32,
    /// Why this many and what replicas do and do not give, as comment lines.
    pub why: Vec<String>,
    /// MPS: the thread percentage the plugin's daemon gives each client (100 / replicas).
    pub client_percent: u32,
}

/// The sharing of the plan's GPUs of `mechanism` (MPS or time-slicing), if it has any.
pub(crate) fn sharing(plan: &Plan, mechanism: Mechanism) -> Option<Sharing> {
    let gpus: Vec<&crate::pack::GpuLayout> = plan
        .result
        .gpus
        .iter()
        .filter(|g| g.mechanism == mechanism)
        .collect();
    if gpus.is_empty() {
        return None;
    }
    let choices: BTreeMap<&str, &Choice> = plan
        .result
        .choices
        .iter()
        .map(|c| (c.name.as_str(), c))
        .collect();
    let busiest = gpus
        .iter()
        .max_by_key(|g| (g.asks.len(), std::cmp::Reverse(g.index)))?;
    let most = busiest.asks.len().max(1) as u32;
    let clients: Vec<&Choice> = gpus
        .iter()
        .flat_map(|g| g.asks.iter())
        .filter_map(|a| choices.get(a.as_str()).copied())
        .collect();
    let largest = clients
        .iter()
        .copied()
        .max_by_key(|c| (c.allocated_fraction, std::cmp::Reverse(c.name.as_str())));
    let indices: Vec<u64> = gpus.iter().map(|g| g.index).collect();
    let per_gpu = format!(
        "the most asks the plan puts on one of these GPUs ({}, on GPU {})",
        busiest.asks.len(),
        busiest.index
    );
    let mut why = Vec::new();
    let replicas;
    let mut client_percent = 100;
    if mechanism == Mechanism::Timeslice {
        replicas = most.max(2);
        why.push(format!(
            "replicas: {replicas} = {per_gpu}, at least 2 (the plugin's minimum)."
        ));
        why.push(format!(
            "What replicas do: each GPU is advertised {replicas} times as nvidia.com/gpu.shared (renameByDefault); a pod takes one replica, and a pod asking for more fails (failRequestsGreaterThanOne)."
        ));
        why.push("What they do not: time-slicing has no memory or fault isolation, and a replica is not a share of compute: every pod on a GPU takes turns on all of it (NVIDIA k8s-device-plugin docs). The plan's fractions are planning shares, enforced by nothing.".into());
        why.push(format!(
            "The scheduler counts replicas, not fractions: it may put any {replicas} of these pods on one GPU whatever their fractions."
        ));
    } else {
        let one = Share::ONE.units();
        let largest_units = largest.map_or(one, |c| c.allocated_fraction.units().max(1));
        // The most replicas that still give every client at least its share: 100/R >= fraction.
        let fair = u32::try_from(one / largest_units)
            .unwrap_or(u32::MAX)
            .min(MPS_CLIENTS_PER_GPU);
        let (name, fraction) = largest.map_or((String::new(), Share::ONE), |c| {
            (yaml::quoted(&c.name), c.allocated_fraction)
        });
        if most.max(2) <= fair {
            replicas = most.max(2);
            why.push(format!(
                "replicas: {replicas} = {per_gpu}, at least 2 (the plugin's minimum)."
            ));
        } else if fair >= 2 {
            replicas = fair;
            let n = clients.len() as u64;
            let needed = n.div_ceil(u64::from(replicas));
            let planned = indices.len() as u64;
            let spread = if needed > planned {
                format!("its {n} MPS asks need at least {needed} GPUs, not the plan's {planned}")
            } else {
                format!("its {n} MPS asks are spread at most {replicas} to a GPU, not as planned ({needed} GPUs suffice)")
            };
            why.push(format!(
                "replicas: {replicas}, the most that give the largest ask ({name}, {fraction} of a GPU) its share. The plan puts up to {most} asks on one GPU, but with equal replicas only {replicas} fit: {spread}."
            ));
        } else {
            replicas = 2;
            why.push(format!(
                "replicas: 2, the plugin's minimum. ⚠ {name} asks {fraction} of a GPU, more than the 50% the plugin gives any MPS client with 2 replicas: it would get less than asked; plan it as a whole GPU instead."
            ));
        }
        client_percent = 100 / replicas;
        let memory = plan
            .model
            .map(|m| {
                format!(
                    " and {} MiB of pinned memory (total/replicas, {})",
                    m.memory_mib / u64::from(replicas),
                    m.name
                )
            })
            .unwrap_or_else(|| {
                " and total/replicas of the GPU's memory as its pinned-memory limit".into()
            });
        why.push(format!(
            "What replicas do: each GPU is advertised {replicas} times as nvidia.com/gpu.shared; the plugin's MPS daemon gives every client {client_percent}% of the threads (100/replicas){memory} (NVIDIA k8s-device-plugin)."
        ));
        why.push("What they do not: MPS has no error isolation: a fault in one client can end every client on the GPU. MPS in the plugin is experimental (since v0.15.0) and not supported on MIG-enabled GPUs (NVIDIA MPS and k8s-device-plugin docs).".into());
    }
    Some(Sharing {
        mechanism,
        gpus: indices,
        replicas,
        why,
        client_percent,
    })
}

struct Config {
    role: &'static str,
    gpus: Vec<u64>,
    mig_strategy: &'static str,
    notes: Vec<String>,
    sharing: Option<Sharing>,
}

/// The device-plugin configs for the plan, one YAML document each.
pub(crate) fn configs(plan: &Plan, options: &ExportOptions) -> String {
    let mig = plan.gpus_of(Mechanism::Mig);
    let whole = plan.gpus_of(Mechanism::Whole);
    let mut list = Vec::new();
    if !mig.is_empty() {
        let mut gpus = mig.clone();
        let mut notes = Vec::new();
        match options.mig_strategy {
            MigStrategy::Mixed => {
                notes.push("mixed strategy: each MIG profile is its own resource, nvidia.com/mig-<profile> with '+' as '.'.".into());
                if !whole.is_empty() {
                    gpus.extend(&whole);
                    gpus.sort_unstable();
                    notes.push(format!(
                        "The whole {} may sit on these nodes: GPUs without MIG stay nvidia.com/gpu.",
                        gpu_list(&whole)
                    ));
                }
            }
            MigStrategy::Single => {
                notes.push("single strategy: every GPU of these nodes must be MIG-enabled with one profile; the MIG devices appear as nvidia.com/gpu (NVIDIA k8s-device-plugin docs).".into());
                for g in &plan.mig_gpus {
                    let profiles = g.distinct_profiles();
                    if profiles.len() > 1 {
                        notes.push(format!(
                            "⚠ GPU {} holds {}: the single strategy cannot expose it; use mixed.",
                            g.index,
                            profiles.join(" and ")
                        ));
                    }
                }
            }
        }
        list.push(Config {
            role: "mig",
            gpus,
            mig_strategy: options.mig_strategy.as_str(),
            notes,
            sharing: None,
        });
    }
    if !whole.is_empty() && (mig.is_empty() || options.mig_strategy == MigStrategy::Single) {
        list.push(Config {
            role: "whole",
            gpus: whole.clone(),
            mig_strategy: "none",
            notes: vec!["No sharing: each GPU is one nvidia.com/gpu.".into()],
            sharing: None,
        });
    }
    for (mechanism, role) in [
        (Mechanism::Timeslice, "time-slicing"),
        (Mechanism::Mps, "mps"),
    ] {
        if let Some(s) = sharing(plan, mechanism) {
            list.push(Config {
                role,
                gpus: s.gpus.clone(),
                mig_strategy: "none",
                notes: Vec::new(),
                sharing: Some(s),
            });
        }
    }
    let mut out = plan.header("device-plugin");
    let mut intro = String::from("NVIDIA k8s-device-plugin configs (its api/config/v1), one document per named config: put each in the plugin's config map under its name (Helm: config.map.<name>) and label the nodes holding its GPUs nvidia.com/device-plugin.config=<name>. GPU numbers are the plan's.");
    let shares_both =
        list.iter().any(|c| c.role == "time-slicing") && list.iter().any(|c| c.role == "mps");
    if shares_both {
        intro.push_str("\nTime-slicing and MPS are mutually exclusive on a node, and one method applies to all GPUs of a node: the time-sliced and the MPS GPUs need different nodes, so they get two configs.");
    }
    if list.is_empty() {
        intro.push_str("\nThe plan places nothing on a GPU: one config without sharing.");
        list.push(Config {
            role: "none",
            gpus: Vec::new(),
            mig_strategy: "none",
            notes: Vec::new(),
            sharing: None,
        });
    }
    yaml::write_comment(&mut out, 0, &intro);
    let single = list.len() == 1;
    for c in &list {
        let name = if single {
            options.config_name.clone()
        } else {
            format!("{}-{}", options.config_name, c.role)
        };
        out.push_str("---\n");
        let mig_here: Vec<u64> = c.gpus.iter().copied().filter(|g| mig.contains(g)).collect();
        let whole_here: Vec<u64> = c
            .gpus
            .iter()
            .copied()
            .filter(|g| !mig.contains(g))
            .collect();
        let mut text = format!("config {name}: ");
        text.push_str(&match c.role {
            "mig" if whole_here.is_empty() => format!("MIG {}", gpu_list(&mig_here)),
            "mig" => format!(
                "MIG {}, whole {}",
                gpu_list(&mig_here),
                gpu_list(&whole_here)
            ),
            "whole" => format!("whole {}", gpu_list(&c.gpus)),
            "time-slicing" => format!("time-sliced {}", gpu_list(&c.gpus)),
            "mps" => format!("MPS {}", gpu_list(&c.gpus)),
            _ => "no GPUs".to_string(),
        });
        for n in c.notes.iter().chain(c.sharing.iter().flat_map(|s| &s.why)) {
            text.push('\n');
            text.push_str(n);
        }
        yaml::write_comment(&mut out, 0, &text);
        let mut doc = Map::new();
        doc.insert("version", "v1");
        doc.insert("flags", Map::new().with("migStrategy", c.mig_strategy));
        if let Some(s) = &c.sharing {
            let key = if s.mechanism == Mechanism::Mps {
                "mps"
            } else {
                "timeSlicing"
            };
            let resource = Map::new()
                .with("name", "nvidia.com/gpu")
                .with("replicas", s.replicas);
            let spec = Map::new()
                .with("renameByDefault", true)
                .with("failRequestsGreaterThanOne", true)
                .with("resources", Value::Seq(vec![resource.into()]));
            doc.insert("sharing", Map::new().with(key, spec));
        }
        out.push_str(&yaml::document(&doc));
    }
    out
}
