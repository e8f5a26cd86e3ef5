//! mig-parted configs and `nvidia-smi mig` commands for the plan's MIG GPUs, each layout re-checked against the catalogue.
//!
//! mig-parted (docs/hardware-facts.md §1.5): `version: v1`, `mig-configs: <name>: [{devices, mig-enabled,
//! mig-devices}]`; GPUs with the same instances share an entry, other GPUs get `mig-enabled:
//! false`. The commands name profiles (IDs differ between boards, docs/hardware-facts.md §1.1) and create instances
//! in an order from [`crate::validate_mig::validate_mig()`]: one that works whatever placement the driver picks
//! when there is one, else largest memory footprint first with the expected placements stated.
//! They name no placement: NVML can create an instance at one, but NVIDIA documents no
//! `nvidia-smi mig -cgi` form for it (docs/hardware-facts.md §1.1, \[U\]).

use super::yaml::{self, Map, Value};
use super::{gpu_list, ExportOptions, MigGpu, Plan};
use crate::catalog::GpuModel;
use crate::plan::Mechanism;
use crate::validate_mig::create_command;

/// `3g.20gb 4:4, 2g.10gb 0:2` — a GPU's placements (start:size) in creation order.
fn placements(g: &MigGpu) -> String {
    let parts: Vec<String> = g
        .validation
        .placements
        .iter()
        .map(|p| format!("{} {}:{}", p.profile, p.start, p.memory_slices))
        .collect();
    parts.join(", ")
}

/// Instance counts per profile, largest profile first.
fn counts(model: Option<&GpuModel>, g: &MigGpu) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for p in &g.validation.placements {
        match out.iter_mut().find(|(name, _)| *name == p.profile) {
            Some(entry) => entry.1 += 1,
            None => out.push((p.profile.clone(), 1)),
        }
    }
    let size = |name: &str| {
        model
            .and_then(|m| m.profile(name))
            .map_or((0, 0), |p| (p.memory_slices, p.compute_slices))
    };
    crate::sort::sort_by(&mut out, |a, b| {
        size(&b.0).cmp(&size(&a.0)).then_with(|| a.0.cmp(&b.0))
    });
    out
}

fn warnings(plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in &plan.mig_gpus {
        for w in &g.validation.warnings {
            if !out.contains(w) {
                out.push(w.clone());
            }
        }
    }
    out
}

/// Instance counts per profile, and the GPUs holding exactly those.
type Group<'g> = (Vec<(String, u64)>, Vec<&'g MigGpu>);

/// The mig-parted config of the plan: one named config, entries grouped by identical instances;
/// with nodes, one config per distinct node layout, its device indices counted on the node.
pub(crate) fn mig_parted(plan: &Plan, options: &ExportOptions) -> String {
    if !plan.result.nodes.is_empty() {
        return per_node(plan, options);
    }
    let mut out = plan.header("mig-parted");
    let mut intro = format!(
        "NVIDIA mig-parted config (v1). Apply it with `nvidia-mig-parted apply -f FILE -c {name}`, or give it to the GPU Operator's mig-manager and label the nodes nvidia.com/mig.config={name}.\nDevice indices are the plan's GPU numbers, as if its GPUs sat on one node; if they do not, split the entries per node (indices count from 0 on each node).\nEvery layout below passed the catalogue's placement rules (valid starts, no overlap, maximum counts).",
        name = options.config_name
    );
    for w in warnings(plan) {
        intro.push_str(&format!("\n⚠ {w}"));
    }
    yaml::write_comment(&mut out, 0, &intro);
    let all: Vec<(u64, u64)> = plan
        .result
        .gpus
        .iter()
        .map(|g| (g.index, g.index))
        .collect();
    let entries = entries(plan, &all);
    let doc = Map::new().with("version", "v1").with(
        "mig-configs",
        Map::new().with(options.config_name.as_str(), Value::Seq(entries)),
    );
    out.push_str(&yaml::document(&doc));
    out
}

/// One config per distinct node layout (`<name>-1`, `<name>-2`, …), each node labelled with its own.
fn per_node(plan: &Plan, options: &ExportOptions) -> String {
    let mut out = plan.header("mig-parted");
    let mut configs: Vec<(Vec<Value>, Vec<&str>)> = Vec::new();
    for node in &plan.result.nodes {
        let gpus: Vec<(u64, u64)> = node
            .gpus
            .iter()
            .enumerate()
            .map(|(local, &g)| (g, local as u64))
            .collect();
        let entries = entries(plan, &gpus);
        match configs.iter_mut().find(|(e, _)| *e == entries) {
            Some((_, nodes)) => nodes.push(&node.name),
            None => configs.push((entries, vec![&node.name])),
        }
    }
    let name = |k: usize| format!("{}-{}", options.config_name, k + 1);
    let mut intro = String::from("NVIDIA mig-parted config (v1), one config per distinct node layout; device indices count from 0 on each node. Give it to the GPU Operator's mig-manager and label each node with its config:");
    for (k, (_, nodes)) in configs.iter().enumerate() {
        for node in nodes {
            intro.push_str(&format!(
                "\n  kubectl label node {node} nvidia.com/mig.config={} --overwrite",
                name(k)
            ));
        }
    }
    intro.push_str("\nEvery layout below passed the catalogue's placement rules (valid starts, no overlap, maximum counts).");
    for w in warnings(plan) {
        intro.push_str(&format!("\n⚠ {w}"));
    }
    yaml::write_comment(&mut out, 0, &intro);
    let mut all = Map::new();
    for (k, (entries, nodes)) in configs.into_iter().enumerate() {
        all.comment(format!("nodes {}", nodes.join(", ")));
        all.insert(name(k), Value::Seq(entries));
    }
    let doc = Map::new().with("version", "v1").with("mig-configs", all);
    out.push_str(&yaml::document(&doc));
    out
}

/// The entries for `gpus`, given as (plan index, device index): MIG GPUs grouped by identical
/// instances, then the others with MIG off (`devices: all` and MIG off when there are none).
fn entries(plan: &Plan, gpus: &[(u64, u64)]) -> Vec<Value> {
    let device = |g: u64| gpus.iter().find(|(p, _)| *p == g).map(|&(_, d)| d);
    let mut groups: Vec<Group> = Vec::new();
    for g in plan.mig_gpus.iter().filter(|g| device(g.index).is_some()) {
        let key = counts(plan.model, g);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(g),
            None => groups.push((key, vec![g])),
        }
    }
    let mut entries: Vec<Value> = Vec::new();
    for (key, gpus) in &groups {
        let mut entry = Map::new();
        for g in gpus {
            entry.comment(format!("GPU {}: {}", g.index, placements(g)));
        }
        let devices: Vec<Value> = gpus
            .iter()
            .filter_map(|g| device(g.index))
            .map(Value::from)
            .collect();
        entry.insert("devices", Value::FlowSeq(devices));
        entry.insert("mig-enabled", true);
        let mut mig_devices = Map::new();
        for (profile, n) in key {
            mig_devices.insert(profile, *n);
        }
        entry.insert("mig-devices", mig_devices);
        entries.push(entry.into());
    }
    let others: Vec<u64> = plan
        .result
        .gpus
        .iter()
        .filter(|g| g.mechanism() != Mechanism::Mig && device(g.index).is_some())
        .map(|g| g.index)
        .collect();
    if !others.is_empty() {
        let mut entry = Map::new();
        entry.comment(format!("without MIG in the plan: {}", gpu_list(&others)));
        entry.insert(
            "devices",
            Value::FlowSeq(
                others
                    .iter()
                    .filter_map(|&i| device(i))
                    .map(Value::from)
                    .collect(),
            ),
        );
        entry.insert("mig-enabled", false);
        entries.push(entry.into());
    }
    if entries.is_empty() {
        let mut entry = Map::new();
        entry.comment("the plan uses no GPU");
        entry.insert("devices", "all");
        entry.insert("mig-enabled", false);
        entries.push(entry.into());
    }
    entries
}

/// A shell script of `nvidia-smi mig` commands creating the plan's MIG instances.
pub(crate) fn mig_commands(plan: &Plan) -> String {
    let mut out = String::from("#!/bin/sh\n");
    out.push_str(&plan.header("mig-commands"));
    let indices: Vec<String> = plan.mig_gpus.iter().map(|g| g.index.to_string()).collect();
    let mut intro = String::from("nvidia-smi commands creating the plan's MIG instances, each with its default compute instance (-C). Run as root with the GPUs idle.");
    intro.push_str(if plan.result.nodes.is_empty() {
        " GPU numbers are the plan's: change -i to the node's indices."
    } else {
        " Run each GPU's commands on its node: -i is the GPU's index on that node."
    });
    if indices.is_empty() {
        intro.push_str("\nThe plan has no MIG GPUs: nothing to create.");
    } else {
        intro.push_str(&format!(
            "\nMIG mode must be on first (nvidia-smi -i {} -mig 1; the driver may reset the GPU) and the GPUs must hold no instances (nvidia-smi mig -i N -dci, then -dgi, removes them).",
            indices.join(",")
        ));
        intro.push_str("\nnvidia-smi/NVML picks each instance's placement itself, by a rule NVIDIA does not document (unverified). NVML can create an instance at a chosen placement, but NVIDIA's MIG User Guide shows -cgi only with profile names or IDs, never a placement, so these commands give none (unverified). Where some order succeeds whatever it picks, that order is used; otherwise the largest instances come first and the comment states the placements expected (start:size, in memory slices). If a command fails, clear the GPU and try another order: mig-parted tries every order until one succeeds.");
    }
    for w in warnings(plan) {
        intro.push_str(&format!("\n⚠ {w}"));
    }
    yaml::write_comment(&mut out, 0, &intro);
    if !indices.is_empty() {
        out.push_str("set -e\n");
    }
    for g in &plan.mig_gpus {
        let model = plan.model.map_or("", |m| m.name);
        let (on, index) = match plan.place_of(g.index) {
            Some((node, local)) => (format!(", GPU {local} of node {node}"), local),
            None => (String::new(), g.index),
        };
        let mut text = format!("GPU {}{on} ({model}): expected {}", g.index, placements(g));
        if g.validation.order_works_for_any_placement {
            text.push_str("\nthis order succeeds whatever free placement the driver picks (under the catalogue's placement rules)");
        } else {
            text.push_str(
                "\nlargest first; succeeds if the driver picks the placements above (unverified)",
            );
        }
        yaml::write_comment(&mut out, 0, &text);
        let names: Vec<&str> = g
            .validation
            .placements
            .iter()
            .map(|p| p.profile.as_str())
            .collect();
        if !names.is_empty() {
            out.push_str(&create_command(index, &names));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::ask::FractionalAsk;
    use crate::caps::ClusterGpuCaps;
    use crate::catalog::find_model;
    use crate::export::{export, ExportFormat, ExportOptions};
    use crate::pack::bin_pack;
    use crate::validate_mig::validate_mig;

    /// NVIDIA's MIG User Guide ("Getting Started with MIG", "Creating GPU Instances") creates GPU
    /// instances by profile only — "`sudo nvidia-smi mig -cgi 9,3g.20gb -C`", "we purposefully use
    /// profile ID and short profile name to showcase how either option can be used" — and gives no
    /// placement form; its one ordering rule: "Due to a known issue with the APIs, the profile ID 9
    /// or `3g.20gb` must be specified first in order." So the commands name profiles only, say why
    /// they give no placement, and on an A100-40GB every layout holding a 3g.20gb creates it first.
    #[test]
    fn commands_name_profiles_only_and_create_3g_first_on_a100() {
        let a100 = find_model("A100-SXM4-40GB").unwrap();
        let plain: Vec<&str> = a100
            .profiles
            .iter()
            .filter(|p| p.is_plain())
            .map(|p| p.name)
            .collect();
        // Every multiset of up to 7 plain instances that fits, with at least one 3g.20gb.
        let mut layouts: Vec<Vec<&str>> = vec![vec![]];
        for _ in 0..7 {
            let mut next = Vec::new();
            for l in &layouts {
                let from = l
                    .last()
                    .map_or(0, |last| plain.iter().position(|p| p == last).unwrap());
                for p in &plain[from..] {
                    let mut longer = l.clone();
                    longer.push(p);
                    next.push(longer);
                }
            }
            layouts.extend(next.iter().cloned());
            crate::sort::sort(&mut layouts);
            layouts.dedup();
        }
        let mut checked = 0;
        for l in layouts.iter().filter(|l| l.contains(&"3g.20gb")) {
            let v = validate_mig(a100, l).unwrap();
            if !v.valid {
                continue;
            }
            checked += 1;
            let cgi = v.commands[0].split(" -cgi ").nth(1).unwrap();
            let cgi = cgi.strip_suffix(" -C").unwrap();
            assert!(!cgi.contains(':'), "{}", v.commands[0]);
            assert!(
                cgi.starts_with("3g.20gb") || cgi.starts_with("4g.20gb"),
                "{l:?}: {}",
                v.commands[0]
            );
        }
        assert!(checked > 5, "{checked}");
        let asks: Vec<FractionalAsk> = ["x:3g.20gb", "y:2g.10gb", "z:1g.5gb", "w:1g.5gb"]
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect();
        let caps = ClusterGpuCaps {
            supports_mig: true,
            ..Default::default()
        };
        let r = bin_pack(&asks, &caps.clone().with_gpu_count(Some(1))).unwrap();
        let text = export(&r, ExportFormat::MigCommands, &ExportOptions::default()).unwrap();
        assert!(
            text.contains("nvidia-smi mig -i 0 -cgi 3g.20gb,2g.10gb,1g.5gb,1g.5gb -C\n"),
            "{text}"
        );
        assert!(
            text.replace("\n# ", " ")
                .contains("NVIDIA's MIG User Guide shows -cgi only with profile names or IDs"),
            "{text}"
        );
    }
}
