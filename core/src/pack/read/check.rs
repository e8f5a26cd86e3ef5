//! The rules between the parts of a pack result read back (`read.rs`): each GPU's `asks` and
//! `used_fraction` as its tenants make them, GPUs in index order, every ask placed as its choice
//! says (one GPU, or its count of whole GPUs, all on one node) or unplaced once, and nodes that
//! hold exactly the GPUs that name them, each of the node's role.

use super::json::{get, range, share, string, Fields};
use crate::error::{Error, ErrorKind, Result};
use crate::pack::NodeRole;
use crate::pack::{GpuLayout, PackResult};
use crate::plan::{Choice, Mechanism};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// `asks` and `used_fraction` of one GPU agree with its tenants.
pub(super) fn asks_and_use(gpu: &GpuLayout, map: &Map<String, Value>) -> Result<()> {
    let listed = Fields::at(map, "asks", usize::MAX)?.read(|v| string(v).map(str::to_string))?;
    if !listed.iter().map(String::as_str).eq(gpu.asks()) {
        return Err(range("must name the GPU's tenants in placement order").in_field("asks"));
    }
    let used = share(get(map, "used_fraction")?).map_err(|e| e.in_field("used_fraction"))?;
    if used != gpu.used_fraction() {
        return Err(range(format!(
            "is {used}, but the tenants take {}",
            gpu.used_fraction()
        ))
        .in_field("used_fraction"));
    }
    Ok(())
}

/// The rules across the result's parts.
pub(super) fn result(r: &PackResult, map: &Map<String, Value>) -> Result<()> {
    if r.gpus_used != r.gpus.len() as u64 {
        return Err(range(format!(
            "is {}, but {} GPUs are listed",
            r.gpus_used,
            r.gpus.len()
        ))
        .in_field("gpus_used"));
    }
    if let Some(limit) = r.gpu_count.filter(|&n| n < r.gpus_used) {
        return Err(range(format!(
            "{} GPUs are in use, above the limit of {limit}",
            r.gpus_used
        ))
        .in_field("gpus"));
    }
    if let Some(k) = r
        .gpus
        .iter()
        .enumerate()
        .position(|(k, g)| g.index != k as u64)
    {
        return Err(
            range(format!("must be {k}: GPUs are listed in index order"))
                .in_field(format!("gpus[{k}].index")),
        );
    }
    let names = Fields::at(map, "unplaced", usize::MAX)?.read(|v| string(v).map(str::to_string))?;
    if !names
        .iter()
        .map(String::as_str)
        .eq(r.unplaced.iter().map(|u| u.name.as_str()))
    {
        return Err(range("must name the asks of unplaced_reasons, in order").in_field("unplaced"));
    }
    let choices = by_name(&r.choices)?;
    placements(r, &choices)?;
    nodes(r)?;
    let utilisation = share(get(map, "utilisation")?).map_err(|e| e.in_field("utilisation"))?;
    if utilisation != r.utilisation {
        return Err(range(format!(
            "is {utilisation}, but the GPUs make {}",
            r.utilisation
        ))
        .in_field("utilisation"));
    }
    Ok(())
}

/// The choices by name, each name once.
fn by_name(choices: &[Choice]) -> Result<BTreeMap<&str, &Choice>> {
    let mut map = BTreeMap::new();
    for (i, c) in choices.iter().enumerate() {
        if map.insert(c.name.as_str(), c).is_some() {
            return Err(Error::new(
                ErrorKind::DuplicateName,
                format!("two choices are named {:?}", c.name),
            )
            .in_field(format!("choices[{i}].name")));
        }
    }
    Ok(map)
}

/// Every tenant has a choice of its GPU's mechanism, with its profile or share; every choice is
/// on its count of GPUs, or unplaced once and on none.
fn placements(r: &PackResult, choices: &BTreeMap<&str, &Choice>) -> Result<()> {
    let mut on: BTreeMap<&str, u64> = BTreeMap::new();
    for (k, gpu) in r.gpus.iter().enumerate() {
        tenants_match(gpu, choices).map_err(|e| e.in_field(format!("gpus[{k}]")))?;
        for ask in gpu.asks() {
            *on.entry(ask).or_default() += 1;
        }
    }
    let mut unplaced: BTreeMap<&str, ()> = BTreeMap::new();
    for (i, u) in r.unplaced.iter().enumerate() {
        let field = format!("unplaced_reasons[{i}]");
        let mechanism = choices.get(u.name.as_str()).map(|c| c.mechanism);
        if mechanism != Some(u.mechanism) {
            return Err(
                range(format!("{:?} has no {} choice", u.name, u.mechanism)).in_field(field)
            );
        }
        if unplaced.insert(&u.name, ()).is_some() || on.contains_key(u.name.as_str()) {
            return Err(
                range(format!("{:?} is unplaced once and placed nowhere", u.name)).in_field(field),
            );
        }
    }
    for (i, c) in r.choices.iter().enumerate() {
        let placed = on.get(c.name.as_str()).copied().unwrap_or(0);
        let want = if unplaced.contains_key(c.name.as_str()) {
            0
        } else {
            c.gpus
        };
        if placed != want {
            return Err(range(format!(
                "{:?} is on {placed} GPUs, but its choice takes {want}",
                c.name
            ))
            .in_field(format!("choices[{i}]")));
        }
    }
    Ok(())
}

fn tenants_match(gpu: &GpuLayout, choices: &BTreeMap<&str, &Choice>) -> Result<()> {
    let choice = |ask: &str, field: String| -> Result<&Choice> {
        match choices.get(ask) {
            Some(c) if c.mechanism == gpu.mechanism() => Ok(c),
            _ => Err(range(format!("{ask:?} has no {} choice", gpu.mechanism())).in_field(field)),
        }
    };
    for (i, inst) in gpu.instances().iter().enumerate() {
        let field = format!("instances[{i}]");
        let c = choice(&inst.ask, field.clone())?;
        if c.mig_profile.as_deref() != Some(inst.profile) {
            return Err(range(format!("{:?} chose another profile", inst.ask)).in_field(field));
        }
    }
    for (i, slot) in gpu.slots().iter().enumerate() {
        let field = format!("slots[{i}]");
        let c = choice(&slot.ask, field.clone())?;
        if c.allocated_fraction != slot.share {
            return Err(range(format!(
                "{:?} was allocated {}",
                slot.ask, c.allocated_fraction
            ))
            .in_field(field + ".share"));
        }
    }
    if let crate::pack::Tenants::Whole(ask) = gpu.tenants() {
        choice(ask, "slots[0]".into())?;
    }
    Ok(())
}

/// Each node lists GPUs that name it and suit its role, within its capacity, each GPU once; with
/// nodes every GPU is on one, and a whole ask's GPUs are on one node.
fn nodes(r: &PackResult) -> Result<()> {
    let mut node_of: Vec<Option<&str>> = vec![None; r.gpus.len()];
    let mut names: BTreeMap<&str, ()> = BTreeMap::new();
    for (n, node) in r.nodes.iter().enumerate() {
        let field = format!("nodes[{n}]");
        if names.insert(&node.name, ()).is_some() {
            return Err(Error::new(
                ErrorKind::DuplicateName,
                format!("two nodes are named {:?}", node.name),
            )
            .in_field(field));
        }
        if node.gpus.len() as u64 > node.capacity {
            return Err(range(format!(
                "holds {} of {} GPUs",
                node.gpus.len(),
                node.capacity
            ))
            .in_field(field));
        }
        for (j, &g) in node.gpus.iter().enumerate() {
            let field = format!("{field}.gpus[{j}]");
            let slot = usize::try_from(g).ok().and_then(|g| node_of.get_mut(g));
            let Some(slot) = slot.filter(|s| s.is_none()) else {
                return Err(
                    range(format!("GPU {g} is not in use, or on two nodes")).in_field(field)
                );
            };
            *slot = Some(&node.name);
            if node.role != Some(NodeRole::of(r.gpus[g as usize].mechanism())) {
                return Err(range(format!("GPU {g} does not suit the node's role")).in_field(field));
            }
        }
    }
    let mut whole_on: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    for (k, gpu) in r.gpus.iter().enumerate() {
        if gpu.node.as_deref() != node_of[k] {
            return Err(
                range("must be the node that lists this GPU").in_field(format!("gpus[{k}].node"))
            );
        }
        if gpu.mechanism() == Mechanism::Whole {
            let ask = gpu.asks().next().unwrap_or_default();
            if *whole_on.entry(ask).or_insert(node_of[k]) != node_of[k] {
                return Err(range(format!("{ask:?}'s GPUs must be on one node"))
                    .in_field(format!("gpus[{k}].node")));
            }
        }
    }
    Ok(())
}
