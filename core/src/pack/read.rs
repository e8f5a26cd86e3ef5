//! Reading a pack result back from its JSON — what `gpu-share pack --json` prints and npm `binPack`
//! returns (with snake_case keys) — checking every rule the packer keeps, so that a result edited
//! into an impossible state is an error naming the field, never a `GpuLayout` the packer could not
//! have built: MIG instances at valid placements of the result's GPU model without overlap, shares
//! of a GPU adding up to at most one, one GPU per fractional ask and its count of GPUs per whole
//! ask, each GPU's `asks` and `used_fraction` as its tenants make them, and nodes that hold their
//! GPUs. The keys a pack response adds beside the result (`optimize`, `caps_from`, and the CLI's
//! `recorded`) are allowed and ignored; any other key is refused.

mod check;
mod json;

use super::gpu_layout::{GpuLayout, MigInstance, SharedSlot, Tenants};
use super::layout::{PackResult, Unplaced};
use super::{MAX_ASKS, MPS_CLIENTS_PER_GPU};
use crate::ask::validate_name;
use crate::caps::nodes::MAX_NODES;
use crate::caps::MAX_GPU_COUNT;
use crate::catalog::{find_model, GpuModel};
use crate::error::{Error, ErrorKind, Result};
use crate::pack::{NodeLayout, NodeRole};
use crate::plan::{Choice, Mechanism};
use crate::units::Share;
use json::{count, get, keys, object, opt, range, share, string, syntax, Fields};
use serde::Deserialize;
use serde_json::Value;

/// The keys of a pack result, and those a pack response adds around it.
const KEYS: &[&str] = &[
    "gpus_used",
    "lower_bound",
    "gpu_count",
    "gpu_model",
    "utilisation",
    "unplaced",
    "unplaced_reasons",
    "gpus",
    "choices",
    "notes",
    "nodes",
    "optimize",
    "caps_from",
    "recorded",
];

impl PackResult {
    /// Reads a pack result from JSON text, refusing text longer than
    /// [`MAX_INPUT_BYTES`](crate::parse::MAX_INPUT_BYTES) before reading it.
    ///
    /// # Errors
    /// `TooLarge`, `Syntax` for text that is not JSON, and the errors of [`PackResult::from_json`].
    pub fn from_json_str(text: &str) -> Result<PackResult> {
        crate::parse::check_size(text, "the pack result")?;
        let value: Value = serde_json::from_str(text)
            .map_err(|e| Error::new(ErrorKind::Syntax, format!("not JSON: {e}")))?;
        PackResult::from_json(&value)
    }

    /// Reads a pack result from its JSON value (snake_case keys), checking it as described in
    /// this module's documentation. `from_json(&serde_json::to_value(r)?)` gives `r` back.
    ///
    /// # Errors
    /// `Syntax` for a wrong shape, a missing or unknown key (field: the path, `gpus[2].slots`);
    /// `OutOfRange` for values that break a rule (overlapping instances, shares above one GPU, an
    /// ask on the wrong number of GPUs); `UnknownModel`, `UnknownProfile`, `DuplicateName`;
    /// `TooLarge` for more GPUs, asks or nodes than the packer makes.
    pub fn from_json(value: &Value) -> Result<PackResult> {
        let map = object(value, "a pack result")?;
        keys(map, KEYS)?;
        let gpu_model = match opt(map, "gpu_model") {
            Some(v) => Some(string(v).map_err(|e| e.in_field("gpu_model"))?.to_string()),
            None => None,
        };
        let model = match &gpu_model {
            Some(name) => Some(find_model(name).ok_or_else(|| {
                Error::new(
                    ErrorKind::UnknownModel,
                    format!("{name:?} is not in the catalogue"),
                )
                .in_field("gpu_model")
            })?),
            None => None,
        };
        let gpus = Fields::at(map, "gpus", MAX_GPU_COUNT as usize)?.read(|v| read_gpu(v, model))?;
        let mut result = PackResult {
            gpus_used: count(get(map, "gpus_used")?).map_err(|e| e.in_field("gpus_used"))?,
            lower_bound: count(get(map, "lower_bound")?).map_err(|e| e.in_field("lower_bound"))?,
            gpu_count: gpu_count(map)?,
            gpu_model,
            gpus,
            unplaced: Fields::at(map, "unplaced_reasons", MAX_ASKS)?.read(read_unplaced)?,
            choices: Fields::at(map, "choices", MAX_ASKS)?.read(read_choice)?,
            notes: Fields::at(map, "notes", MAX_ASKS)?.read(|v| string(v).map(str::to_string))?,
            nodes: match opt(map, "nodes") {
                Some(_) => Fields::at(map, "nodes", MAX_NODES)?.read(read_node)?,
                None => Vec::new(),
            },
            utilisation: Share::ZERO,
        };
        result.utilisation = result.measure_utilisation();
        check::result(&result, map)?;
        Ok(result)
    }
}

fn gpu_count(map: &serde_json::Map<String, Value>) -> Result<Option<u64>> {
    let Some(v) = opt(map, "gpu_count") else {
        return Ok(None);
    };
    match count(v) {
        Ok(n) if (1..=MAX_GPU_COUNT).contains(&n) => Ok(Some(n)),
        Ok(n) => Err(range(format!("must be from 1 to {MAX_GPU_COUNT}, got {n}"))),
        Err(e) => Err(e),
    }
    .map_err(|e| e.in_field("gpu_count"))
}

/// An ask's name as the packer keeps it: what [`validate_name`] accepts, unchanged.
fn ask_name(v: &Value) -> Result<String> {
    let name = string(v)?;
    match validate_name(name) {
        Ok(valid) if valid == name => Ok(valid),
        Ok(_) => Err(syntax("has spaces around it; names are trimmed")),
        Err(e) => Err(Error { field: None, ..e }),
    }
}

fn read_choice(v: &Value) -> Result<Choice> {
    let choice = Choice::deserialize(v).map_err(|e| syntax(format!("invalid choice: {e}")))?;
    ask_name(&Value::String(choice.name.clone())).map_err(|e| e.in_field("name"))?;
    let gpus_ok = match choice.mechanism {
        Mechanism::Whole => choice.gpus >= 1,
        _ => choice.gpus == 1,
    };
    if !gpus_ok {
        return Err(range(format!(
            "a {} choice cannot take {} GPUs",
            choice.mechanism, choice.gpus
        ))
        .in_field("gpus"));
    }
    if (choice.mechanism == Mechanism::Mig) != choice.mig_profile.is_some() {
        return Err(
            range("a MIG choice, and only a MIG choice, names its profile").in_field("mig_profile"),
        );
    }
    Ok(choice)
}

fn read_unplaced(v: &Value) -> Result<Unplaced> {
    let map = object(v, "an unplaced ask")?;
    keys(map, &["name", "mechanism", "reason"])?;
    Ok(Unplaced {
        name: ask_name(get(map, "name")?).map_err(|e| e.in_field("name"))?,
        mechanism: mechanism(get(map, "mechanism")?)?,
        reason: string(get(map, "reason")?)
            .map_err(|e| e.in_field("reason"))?
            .to_string(),
    })
}

fn mechanism(v: &Value) -> Result<Mechanism> {
    Mechanism::deserialize(v).map_err(|_| {
        syntax("must be \"mig\", \"mps\", \"timeslice\" or \"whole\"").in_field("mechanism")
    })
}

fn read_node(v: &Value) -> Result<NodeLayout> {
    let map = object(v, "a node")?;
    keys(map, &["name", "role", "capacity", "gpus"])?;
    let name = string(get(map, "name")?).map_err(|e| e.in_field("name"))?;
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(syntax("a node needs a printable name").in_field("name"));
    }
    let role = match opt(map, "role") {
        None => None,
        Some(v) => Some(
            [NodeRole::Exclusive, NodeRole::TimeSlicing, NodeRole::Mps]
                .into_iter()
                .find(|r| v.as_str() == Some(r.as_str()))
                .ok_or_else(|| {
                    syntax("must be \"exclusive\", \"time-slicing\", \"mps\" or null")
                        .in_field("role")
                })?,
        ),
    };
    Ok(NodeLayout {
        name: name.to_string(),
        role,
        capacity: count(get(map, "capacity")?).map_err(|e| e.in_field("capacity"))?,
        gpus: Fields::at(map, "gpus", MAX_GPU_COUNT as usize)?.read(count)?,
    })
}

/// One GPU: its tenants by mechanism, then `asks` and `used_fraction` checked against them.
fn read_gpu(v: &Value, model: Option<&'static GpuModel>) -> Result<GpuLayout> {
    let map = object(v, "a GPU")?;
    let mechanism = mechanism(get(map, "mechanism")?)?;
    let tenants_key = if mechanism == Mechanism::Mig {
        "instances"
    } else {
        "slots"
    };
    keys(
        map,
        &[
            "index",
            "node",
            "mechanism",
            "asks",
            "used_fraction",
            "memory_used_mib",
            "memory_budget_mib",
            tenants_key,
        ],
    )?;
    let index = count(get(map, "index")?).map_err(|e| e.in_field("index"))?;
    let node = match opt(map, "node") {
        Some(v) => Some(string(v).map_err(|e| e.in_field("node"))?.to_string()),
        None => None,
    };
    let tenants = match mechanism {
        Mechanism::Mig => {
            let model = model.filter(|m| m.is_mig_capable()).ok_or_else(|| {
                range("a MIG GPU needs the result's gpu_model to be a MIG-capable model")
                    .in_field("instances")
            })?;
            Tenants::Mig(read_instances(map, model)?)
        }
        Mechanism::Whole => Tenants::Whole(read_whole(map)?),
        shared => {
            let slots = read_slots(map, shared)?;
            if shared == Mechanism::Mps {
                Tenants::Mps(slots)
            } else {
                Tenants::Timeslice(slots)
            }
        }
    };
    let budget = model.map(|m| m.usable_memory().mib);
    let gpu = GpuLayout::checked(index, node, tenants, model, budget);
    check::asks_and_use(&gpu, map)?;
    check_memory(&gpu, map, budget)?;
    Ok(gpu)
}

/// A shared GPU's memory as the packer keeps it: tenants with memory need the model (which
/// sets the budget), never hold more than it, and the totals given are the ones computed.
fn check_memory(
    gpu: &GpuLayout,
    map: &serde_json::Map<String, Value>,
    budget: Option<u64>,
) -> Result<()> {
    let with_memory = gpu.slots().iter().any(|s| s.memory_mib.is_some());
    if with_memory && budget.is_none() {
        return Err(range(
            "slots with memory need the result's gpu_model, which sets what a GPU offers",
        )
        .in_field("slots"));
    }
    let given = |key: &str| -> Result<Option<u64>> {
        opt(map, key)
            .map(|v| count(v).map_err(|e| e.in_field(key)))
            .transpose()
    };
    let (used, offered) = (given("memory_used_mib")?, given("memory_budget_mib")?);
    let memory = gpu.memory();
    if let Some(m) = memory {
        if m.used_mib > m.budget_mib {
            return Err(range(format!(
                "the tenants hold {} MiB, more than the {} MiB the GPU offers",
                m.used_mib, m.budget_mib
            ))
            .in_field("slots"));
        }
    }
    if used != memory.map(|m| m.used_mib) {
        return Err(range("must be the sum of the slots' memory_mib").in_field("memory_used_mib"));
    }
    if offered != memory.map(|m| m.budget_mib) {
        return Err(
            range("must be the GPU model's memory less the driver's reserve")
                .in_field("memory_budget_mib"),
        );
    }
    Ok(())
}

/// MIG instances by start, each with its profile's slices, at placements valid together.
fn read_instances(
    map: &serde_json::Map<String, Value>,
    model: &GpuModel,
) -> Result<Vec<MigInstance>> {
    let instances =
        Fields::at(map, "instances", usize::from(u8::MAX))?.read(|v| read_instance(v, model))?;
    if instances.is_empty() {
        return Err(range("a GPU in use holds at least one instance").in_field("instances"));
    }
    if instances.windows(2).any(|w| w[0].start >= w[1].start) {
        return Err(range("instances are listed by start, one per start").in_field("instances"));
    }
    let layout: Vec<(&str, u8)> = instances.iter().map(|i| (i.profile, i.start)).collect();
    let validation = crate::validate_mig::validate_placements(model, &layout)
        .map_err(|e| Error { field: None, ..e }.in_field("instances"))?;
    match validation.reason {
        Some(why) if !validation.valid => Err(range(format!(
            "this MIG layout is impossible on {}: {why}",
            model.name
        ))
        .in_field("instances")),
        _ => Ok(instances),
    }
}

fn read_instance(v: &Value, model: &GpuModel) -> Result<MigInstance> {
    let map = object(v, "a MIG instance")?;
    keys(
        map,
        &["ask", "profile", "start", "memory_slices", "compute_slices"],
    )?;
    let name = string(get(map, "profile")?).map_err(|e| e.in_field("profile"))?;
    let profile = model
        .require_profile(name)
        .map_err(|e| Error { field: None, ..e }.in_field("profile"))?;
    let small = |key: &str| -> Result<u8> {
        let n = count(get(map, key)?).map_err(|e| e.in_field(key))?;
        u8::try_from(n).map_err(|_| range(format!("{n} is beyond any MIG geometry")).in_field(key))
    };
    let (memory, compute) = (small("memory_slices")?, small("compute_slices")?);
    if (memory, compute) != (profile.memory_slices, profile.compute_slices) {
        return Err(range(format!(
            "{} on {} has {} memory and {} compute slices",
            profile.name, model.name, profile.memory_slices, profile.compute_slices
        ))
        .in_field("memory_slices"));
    }
    Ok(MigInstance {
        ask: ask_name(get(map, "ask")?).map_err(|e| e.in_field("ask"))?,
        profile: profile.name,
        start: small("start")?,
        memory_slices: memory,
        compute_slices: compute,
    })
}

/// MPS or time-sliced shares: each above zero, at most one GPU in all, MPS within its client limit.
fn read_slots(
    map: &serde_json::Map<String, Value>,
    mechanism: Mechanism,
) -> Result<Vec<SharedSlot>> {
    let limit = match mechanism {
        Mechanism::Mps => MPS_CLIENTS_PER_GPU as usize,
        _ => MAX_ASKS,
    };
    let slots = Fields::at(map, "slots", limit)?.read(read_slot)?;
    if slots.is_empty() {
        return Err(range("a GPU in use holds at least one ask").in_field("slots"));
    }
    let mut total = Share::ZERO;
    for (i, slot) in slots.iter().enumerate() {
        total = total
            .checked_add(slot.share)
            .filter(|t| *t <= Share::ONE)
            .ok_or_else(|| {
                range("the shares add up to more than one GPU")
                    .in_field(format!("slots[{i}].share"))
            })?;
    }
    Ok(slots)
}

fn read_slot(v: &Value) -> Result<SharedSlot> {
    let map = object(v, "a slot")?;
    keys(map, &["ask", "share", "memory_mib"])?;
    let share = share(get(map, "share")?).map_err(|e| e.in_field("share"))?;
    if share.is_zero() {
        return Err(range("must be greater than 0").in_field("share"));
    }
    let memory_mib = opt(map, "memory_mib")
        .map(|v| count(v).map_err(|e| e.in_field("memory_mib")))
        .transpose()?;
    Ok(SharedSlot::new(
        ask_name(get(map, "ask")?).map_err(|e| e.in_field("ask"))?,
        share,
        memory_mib,
    ))
}

/// A whole GPU: one slot, the whole GPU.
fn read_whole(map: &serde_json::Map<String, Value>) -> Result<String> {
    let mut slots = Fields::at(map, "slots", 1)?.read(read_slot)?;
    match slots.pop() {
        Some(slot) if slot.share == Share::ONE => Ok(slot.ask),
        Some(_) => Err(range("a whole GPU's one slot has share 1").in_field("slots[0].share")),
        None => Err(range("a whole GPU holds one ask").in_field("slots")),
    }
}

#[cfg(test)]
mod tests;
