//! NVIDIA k8s-device-plugin configs (`version: v1`): the MIG strategy, and time-slicing or MPS replicas chosen from the plan.
//!
//! Time-slicing and MPS are mutually exclusive on a node and one method applies to every GPU of
//! a node (docs/hardware-facts.md §2), so each kind of GPU in the plan gets its own named config, selected per node
//! by the label `nvidia.com/device-plugin.config=<name>`.

use super::yaml::{self, Map, Value};
use super::{gpu_list, ExportOptions, MigStrategy, Plan};
use crate::error::{Error, ErrorKind, Result};
use crate::pack::{GpuLayout, MPS_CLIENTS_PER_GPU};
use crate::plan::mps_replicas::{half_the_memory, share_covered};
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

/// Whether the equal share at `replicas` gives MPS client `c` its ask: the threads of its share,
/// and as pinned memory the memory it asked (an ask with memory) or its share of the GPU's.
fn client_covered(replicas: u32, c: &Choice, total_mib: Option<u64>) -> bool {
    share_covered(replicas, c.allocated_fraction, c.memory_mib, total_mib)
}

/// The sharing of the plan's GPUs of `mechanism` (MPS or time-slicing), if it has any.
///
/// # Errors
/// `OutOfRange` naming the ask (`asks[i]`) when an MPS ask is larger than the equal share every
/// client gets at the plugin's minimum of 2 replicas: the plugin cannot give it its ask.
pub(crate) fn sharing(plan: &Plan, mechanism: Mechanism) -> Result<Option<Sharing>> {
    let gpus: Vec<&GpuLayout> = plan
        .result
        .gpus
        .iter()
        .filter(|g| g.mechanism() == mechanism)
        .collect();
    if gpus.is_empty() {
        return Ok(None);
    }
    let Some(busiest) = gpus
        .iter()
        .max_by_key(|g| (g.ask_count(), std::cmp::Reverse(g.index)))
    else {
        return Ok(None);
    };
    let most = busiest.ask_count().max(1) as u32;
    let indices: Vec<u64> = gpus.iter().map(|g| g.index).collect();
    let per_gpu = format!(
        "the most asks the plan puts on one of these GPUs ({}, on GPU {})",
        busiest.ask_count(),
        busiest.index
    );
    let (replicas, why, client_percent) = if mechanism == Mechanism::Timeslice {
        (most.max(2), timeslice_why(most.max(2), &per_gpu), 100)
    } else {
        let clients = clients(plan, &gpus);
        mps_replicas(plan, &clients, most, &per_gpu, indices.len())?
    };
    Ok(Some(Sharing {
        mechanism,
        gpus: indices,
        replicas,
        why,
        client_percent,
    }))
}

/// The choices of the asks on `gpus`, GPU by GPU.
fn clients<'a>(plan: &Plan<'a>, gpus: &[&'a GpuLayout]) -> Vec<&'a Choice> {
    let choices: BTreeMap<&str, &Choice> = plan
        .result
        .choices
        .iter()
        .map(|c| (c.name.as_str(), c))
        .collect();
    gpus.iter()
        .flat_map(|g| g.asks())
        .filter_map(|a| choices.get(a).copied())
        .collect()
}

/// Why `replicas` when it is the busiest GPU's count of asks.
fn busiest_reason(replicas: u32, per_gpu: &str) -> String {
    format!("replicas: {replicas} = {per_gpu}, at least 2 (the plugin's minimum).")
}

/// Why time-slicing's `replicas`, and what replicas do and do not give.
fn timeslice_why(replicas: u32, per_gpu: &str) -> Vec<String> {
    vec![
        busiest_reason(replicas, per_gpu),
        format!(
            "What replicas do: each GPU is advertised {replicas} times as nvidia.com/gpu.shared (renameByDefault); a pod takes one replica, and a pod asking for more fails (failRequestsGreaterThanOne)."
        ),
        "What they do not: each pod keeps its own CUDA context and memory protection, but time-slicing sets no memory limit (any pod can take all the GPU's memory), gives no share of compute (a replica is not a share: every pod on a GPU takes turns on all of it) and no fault isolation (the pods on a GPU share one fault domain: NVIDIA k8s-device-plugin docs). The plan's fractions are planning shares, enforced by nothing.".into(),
        format!(
            "The scheduler counts replicas, not fractions: it may put any {replicas} of these pods on one GPU whatever their fractions."
        ),
    ]
}

/// MPS replicas: the busiest GPU's count of asks when every client's equal share still covers
/// its ask there, else the most replicas that do (fewer clients to a GPU than planned). Returns
/// the replicas, why, and each client's thread percentage.
///
/// # Errors
/// `OutOfRange` naming the ask when even 2 replicas (the plugin's minimum) give too little.
fn mps_replicas(
    plan: &Plan,
    clients: &[&Choice],
    most: u32,
    per_gpu: &str,
    planned_gpus: usize,
) -> Result<(u32, Vec<String>, u32)> {
    let largest = clients
        .iter()
        .copied()
        .max_by_key(|c| (c.allocated_fraction, std::cmp::Reverse(c.name.as_str())));
    let memory_mib = plan.model.map(|m| m.memory_mib);
    let fair = fair_replicas(clients, largest, memory_mib);
    if fair < 2 {
        return Err(beyond_equal_share(plan, clients, largest, memory_mib));
    }
    let mut why = Vec::new();
    let replicas = if most.max(2) <= fair {
        why.push(busiest_reason(most.max(2), per_gpu));
        most.max(2)
    } else {
        why.push(fewer_than_planned(
            fair,
            most,
            clients.len(),
            planned_gpus,
            largest,
        ));
        fair
    };
    let client_percent = 100 / replicas;
    why.extend(mps_what_replicas_give(plan, replicas, client_percent));
    Ok((replicas, why, client_percent))
}

/// The most replicas (at most [`MPS_CLIENTS_PER_GPU`]) whose equal share still covers every
/// client: the largest share, and each ask's memory. Below 2 when none does.
fn fair_replicas(clients: &[&Choice], largest: Option<&Choice>, memory_mib: Option<u64>) -> u32 {
    let one = Share::ONE.units();
    let largest_units = largest.map_or(one, |c| c.allocated_fraction.units().max(1));
    let covered = |r: u32| clients.iter().all(|c| client_covered(r, c, memory_mib));
    let mut fair = u32::try_from(one / largest_units)
        .unwrap_or(u32::MAX)
        .min(MPS_CLIENTS_PER_GPU);
    while fair >= 2 && !covered(fair) {
        fair -= 1;
    }
    fair
}

/// The largest client's name, quoted, and its fraction (empty and one without clients).
fn named_share(largest: Option<&Choice>) -> (String, Share) {
    largest.map_or((String::new(), Share::ONE), |c| {
        (yaml::quoted(&c.name), c.allocated_fraction)
    })
}

/// Why `replicas` is below the busiest GPU's count of asks, and what that does to the plan.
fn fewer_than_planned(
    replicas: u32,
    most: u32,
    clients: usize,
    planned_gpus: usize,
    largest: Option<&Choice>,
) -> String {
    let (name, fraction) = named_share(largest);
    let n = clients as u64;
    let needed = n.div_ceil(u64::from(replicas));
    let planned = planned_gpus as u64;
    let spread = if needed > planned {
        format!("its {n} MPS asks need at least {needed} GPUs, not the plan's {planned}")
    } else {
        format!("its {n} MPS asks are spread at most {replicas} to a GPU, not as planned ({needed} GPUs suffice)")
    };
    format!(
        "replicas: {replicas}, the most that give every ask its share of threads and memory (the largest share: {name}, {fraction} of a GPU). The plan puts up to {most} asks on one GPU, but with equal replicas only {replicas} fit: {spread}."
    )
}

/// What MPS replicas give each client (threads and pinned memory) and what MPS does not give.
fn mps_what_replicas_give(plan: &Plan, replicas: u32, client_percent: u32) -> [String; 2] {
    let memory = plan
        .model
        .map(|m| {
            format!(
                " and {} MiB of pinned memory (total/replicas, rounded down, {})",
                m.memory_mib / u64::from(replicas),
                m.name
            )
        })
        .unwrap_or_else(|| {
            " and total/replicas of the GPU's memory as its pinned-memory limit".into()
        });
    [
        format!(
            "What replicas do: each GPU is advertised {replicas} times as nvidia.com/gpu.shared; the plugin's MPS daemon gives every client {client_percent}% of the threads (100/replicas, rounded down){memory} (NVIDIA k8s-device-plugin). The thread percentage is a ceiling, not a reservation: it limits what a client may use and reserves nothing, so clients' kernels may share SMs (NVIDIA MPS docs)."
        ),
        "What they do not: MPS has no error isolation: a fault in one client can end every client on the GPU. MPS in the plugin is experimental (since v0.15.0) and not supported on MIG-enabled GPUs (NVIDIA MPS and k8s-device-plugin docs).".into(),
    ]
}

/// The error when not even 2 replicas cover every MPS client: an ask's memory beyond half the
/// GPU's, when one is, else the largest share beyond half the threads.
fn beyond_equal_share(
    plan: &Plan,
    clients: &[&Choice],
    largest: Option<&Choice>,
    memory_mib: Option<u64>,
) -> Error {
    let uncovered = clients
        .iter()
        .copied()
        .find(|c| c.memory_mib.is_some() && !client_covered(2, c, memory_mib));
    if let (Some(c), Some(m)) = (uncovered, plan.model) {
        let e = Error::new(
            ErrorKind::OutOfRange,
            format!(
                "{} asks {} MiB of memory on an MPS GPU, but the NVIDIA device plugin gives every MPS client the same total/replicas of the memory as its pinned limit, with at least 2 replicas: at most {} MiB of the {}'s {} MiB. Plan it as a whole GPU or a MIG instance; nothing exported",
                yaml::quoted(&c.name),
                c.memory_mib.unwrap_or(0),
                m.memory_mib / 2,
                m.name,
                m.memory_mib
            ),
        );
        return at_ask(plan, Some(&c.name), e);
    }
    let (name, fraction) = named_share(largest);
    let memory = half_the_memory(plan.model);
    let e = Error::new(
        ErrorKind::OutOfRange,
        format!(
            "{name} asks {fraction} of an MPS GPU, but the NVIDIA device plugin gives every MPS client the same 100/replicas of the threads and total/replicas of the memory, with at least 2 replicas: at most 50% of the threads{memory}, less than the ask. Plan it as a whole GPU or a MIG instance; nothing exported"
        ),
    );
    at_ask(plan, largest.map(|c| c.name.as_str()), e)
}

/// `e` at the placed ask named `name` (`asks[i]`), when there is one.
fn at_ask(plan: &Plan, name: Option<&str>, e: Error) -> Error {
    match name
        .and_then(|n| plan.placed.iter().find(|a| a.name == n))
        .map(|a| a.index)
    {
        Some(i) => e.in_field(format!("asks[{i}]")),
        None => e,
    }
}

/// One named device-plugin config: a kind of GPU in the plan and how the plugin shares it.
struct Config {
    role: &'static str,
    gpus: Vec<u64>,
    mig_strategy: &'static str,
    notes: Vec<String>,
    sharing: Option<Sharing>,
}

/// The device-plugin configs for the plan, one YAML document each.
///
/// # Errors
/// An MPS ask the plugin's equal shares cannot give its ask (see [`sharing`]).
pub(crate) fn configs(plan: &Plan, options: &ExportOptions) -> Result<String> {
    let mig = plan.gpus_of(Mechanism::Mig);
    let mut list = config_list(plan, options, &mig)?;
    let mut out = plan.header("device-plugin");
    let intro = intro(&list);
    if list.is_empty() {
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
        yaml::write_comment(&mut out, 0, &config_comment(plan, c, &name, &mig));
        out.push_str(&yaml::document(&config_doc(c)));
    }
    Ok(out)
}

/// One config per kind of GPU the plugin must treat apart: MIG (with the whole GPUs beside it
/// under the mixed strategy), whole, time-sliced, MPS.
fn config_list(plan: &Plan, options: &ExportOptions, mig: &[u64]) -> Result<Vec<Config>> {
    let whole = plan.gpus_of(Mechanism::Whole);
    let mut list = Vec::new();
    if !mig.is_empty() {
        list.push(mig_config(plan, options, mig, &whole));
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
        if let Some(s) = sharing(plan, mechanism)? {
            list.push(Config {
                role,
                gpus: s.gpus.clone(),
                mig_strategy: "none",
                notes: Vec::new(),
                sharing: Some(s),
            });
        }
    }
    Ok(list)
}

/// The MIG GPUs' config under the chosen strategy: mixed also holds the whole GPUs; single
/// warns of GPUs it cannot expose.
fn mig_config(plan: &Plan, options: &ExportOptions, mig: &[u64], whole: &[u64]) -> Config {
    let mut gpus = mig.to_vec();
    let mut notes = Vec::new();
    match options.mig_strategy {
        MigStrategy::Mixed => {
            notes.push("mixed strategy: each MIG profile is its own resource, nvidia.com/mig-<profile> with '+' as '.'.".into());
            if !whole.is_empty() {
                gpus.extend(whole);
                gpus.sort_unstable();
                notes.push(format!(
                    "The whole {} may sit on these nodes: GPUs without MIG stay nvidia.com/gpu.",
                    gpu_list(whole)
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
    Config {
        role: "mig",
        gpus,
        mig_strategy: options.mig_strategy.as_str(),
        notes,
        sharing: None,
    }
}

/// The comment before the documents: where each goes, and why there are several.
fn intro(list: &[Config]) -> String {
    let mut intro = String::from("NVIDIA k8s-device-plugin configs (its api/config/v1), one document per named config: put each in the plugin's config map under its name (Helm: config.map.<name>) and label the nodes holding its GPUs nvidia.com/device-plugin.config=<name>. GPU numbers are the plan's.");
    let shares_both =
        list.iter().any(|c| c.role == "time-slicing") && list.iter().any(|c| c.role == "mps");
    if shares_both {
        intro.push_str("\nTime-slicing and MPS are mutually exclusive on a node, and one method applies to all GPUs of a node: the time-sliced and the MPS GPUs need different nodes, so they get two configs.");
    }
    if list.is_empty() {
        intro.push_str("\nThe plan places nothing on a GPU: one config without sharing.");
    }
    intro
}

/// The comment before a config: its GPUs, its notes and reasons, and the label commands.
fn config_comment(plan: &Plan, c: &Config, name: &str, mig: &[u64]) -> String {
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
    let labels = plan.label_commands(&c.gpus, "nvidia.com/device-plugin.config", name);
    if !labels.is_empty() {
        text.push_str("\nSelect it on its nodes:");
        for l in labels {
            text.push_str("\n  ");
            text.push_str(&l);
        }
    }
    text
}

/// The config's YAML document: `version`, the MIG strategy, and the sharing with its replicas.
fn config_doc(c: &Config) -> Map {
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
    doc
}

#[cfg(test)]
mod tests;
