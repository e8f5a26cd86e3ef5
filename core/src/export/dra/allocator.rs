//! What the Kubernetes scheduler would do with a plan's claims: its DRA allocator's first fit on real ResourceSlices, and the GPUs it uses and strands, beside gpu-share's own placement.
//!
//! The allocator (docs/hardware-facts.md §13) takes one pod's claims at a time and, for each, the
//! first devices that fit — pools, their slices and their devices in order, no scoring
//! (kubernetes/kubernetes#138765). The order of a node's slices is not fixed: pools come from a
//! Go map and slices in the informer's order, so under the NVIDIA driver's DynamicMIG gate (one
//! slice per GPU) each claim may start on any GPU (dra-driver-nvidia-gpu#932). [`SliceOrder`]
//! says which order a simulation takes: as listed, or spread (the emptiest GPU's slice first,
//! the order that scatters small claims). Nodes are tried in list order; the scheduler's node
//! scoring is not simulated. Counters (partitionable devices) and `matchAttribute` constraints
//! are; consumable capacity is not (a request's memory is not checked).

mod compare;
mod gpus;
mod search;

pub use compare::{compare, per_ask_claims, PlanVsScheduler, SimulationOptions};
pub use gpus::GpuOutcome;

use crate::discover::resource_slice::{ResourceSlices, SliceDevice, NVIDIA_DRIVER};
use crate::error::{Error, ErrorKind, Result};
use crate::export::dra::claims::DraClaim;
use search::Miss;
use std::collections::{BTreeMap, BTreeSet};

/// Most claims one simulation allocates.
pub const MAX_CLAIMS: usize = 10_000;

/// The order in which each claim visits a node's slices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SliceOrder {
    /// The order of the list given.
    #[default]
    Listed,
    /// The slices with the fewest allocated devices first (list order among equals): an order the
    /// scheduler may take, which puts each small claim on another GPU.
    Spread,
}

/// One device a claim got.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Allocated {
    pub request: String,
    pub node: String,
    pub device: String,
    /// The physical GPU: its UUID (a MIG device's `parentUUID`).
    pub gpu: Option<String>,
    pub profile: Option<String>,
    pub memory_slices: Vec<u8>,
}

/// What one claim got.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct ClaimOutcome {
    pub claim: String,
    pub allocated: bool,
    pub devices: Vec<Allocated>,
    /// Why it got nothing.
    pub reason: Option<String>,
}

/// A simulation's result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct FirstFit {
    pub order: SliceOrder,
    pub claims: Vec<ClaimOutcome>,
    /// Every NVIDIA GPU of the slices, in order.
    pub gpus: Vec<GpuOutcome>,
    /// GPUs with at least one device allocated.
    pub gpus_used: u64,
    /// GPUs with nothing allocated and no MIG devices made: free to be given whole.
    pub whole_gpus_left: u64,
    /// Free memory slices of dynamic-MIG GPUs inside no placement of the profiles asked that
    /// could still be created.
    pub stranded_memory_slices: u64,
    pub notes: Vec<String>,
}

/// A device the allocator may pick, where it is.
pub(super) struct Candidate<'a> {
    pub device: &'a SliceDevice,
    pub driver: &'a str,
    /// Index of its slice in the list.
    pub slice: usize,
}

/// A node's devices in slice order, and the order this claim visits them.
pub(super) struct NodeView<'a> {
    pub name: String,
    pub candidates: Vec<Candidate<'a>>,
    pub order: Vec<usize>,
    pub in_use: BTreeSet<usize>,
    /// Counters left, per counter set.
    pub left: BTreeMap<String, BTreeMap<String, u128>>,
}

/// The slices the scheduler would read: the newest generation of complete pools.
fn usable_slices(slices: &ResourceSlices, notes: &mut Vec<String>) -> Vec<usize> {
    let mut newest: BTreeMap<(&str, &str), i64> = BTreeMap::new();
    for s in &slices.slices {
        let g = newest
            .entry((s.driver.as_str(), s.pool.as_str()))
            .or_insert(s.generation);
        *g = (*g).max(s.generation);
    }
    let current: Vec<usize> = (0..slices.slices.len())
        .filter(|&i| {
            let s = &slices.slices[i];
            newest.get(&(s.driver.as_str(), s.pool.as_str())) == Some(&s.generation)
        })
        .collect();
    let mut count: BTreeMap<(&str, &str), i64> = BTreeMap::new();
    for &i in &current {
        let s = &slices.slices[i];
        *count
            .entry((s.driver.as_str(), s.pool.as_str()))
            .or_insert(0) += 1;
    }
    current
        .into_iter()
        .filter(|&i| {
            let s = &slices.slices[i];
            let have = count[&(s.driver.as_str(), s.pool.as_str())];
            let complete = have >= s.slice_count;
            if !complete {
                notes.push(format!(
                    "pool {}/{} is incomplete ({have} of {} slices): the scheduler allocates nothing from it",
                    s.driver, s.pool, s.slice_count
                ));
            }
            complete
        })
        .collect()
}

/// The nodes (a slice's `nodeName`, else its pool) with their NVIDIA devices, in list order.
fn nodes<'a>(slices: &'a ResourceSlices, usable: &[usize]) -> Vec<NodeView<'a>> {
    let mut views: Vec<NodeView> = Vec::new();
    for &i in usable {
        let s = &slices.slices[i];
        if s.driver != NVIDIA_DRIVER {
            continue;
        }
        let name = s.node.clone().unwrap_or_else(|| s.pool.clone());
        let at = match views.iter().position(|v| v.name == name) {
            Some(at) => at,
            None => {
                views.push(NodeView {
                    name,
                    candidates: Vec::new(),
                    order: Vec::new(),
                    in_use: BTreeSet::new(),
                    left: BTreeMap::new(),
                });
                views.len() - 1
            }
        };
        let v = &mut views[at];
        for set in &s.counter_sets {
            v.left.insert(set.name.clone(), set.counters.clone());
        }
        for device in &s.devices {
            v.candidates.push(Candidate {
                device,
                driver: &s.driver,
                slice: i,
            });
        }
    }
    views
}

/// The order a claim visits a node's devices: slices as listed, or spread.
fn visit_order(view: &NodeView, order: SliceOrder) -> Vec<usize> {
    let mut slices: Vec<usize> = Vec::new();
    for c in &view.candidates {
        if !slices.contains(&c.slice) {
            slices.push(c.slice);
        }
    }
    if order == SliceOrder::Spread {
        let load = |slice: usize| {
            view.in_use
                .iter()
                .filter(|&&i| view.candidates[i].slice == slice)
                .count()
        };
        slices.sort_by_key(|&s| load(s));
    }
    slices
        .iter()
        .flat_map(|&s| (0..view.candidates.len()).filter(move |&i| view.candidates[i].slice == s))
        .collect()
}

/// Allocates `claims` in order on `slices`, as the scheduler's first fit would.
///
/// # Errors
/// `TooLarge` above [`MAX_CLAIMS`] claims; `OutOfRange` for a claim with no request or a
/// request asking for no device.
pub fn simulate(
    slices: &ResourceSlices,
    claims: &[DraClaim],
    order: SliceOrder,
) -> Result<FirstFit> {
    if claims.len() > MAX_CLAIMS {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("{} claims; the limit is {MAX_CLAIMS}", claims.len()),
        )
        .in_field("claims"));
    }
    for (i, c) in claims.iter().enumerate() {
        if c.requests.is_empty() || c.requests.iter().any(|r| r.count == 0) {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("claim {:?} asks for no device", c.name),
            )
            .in_field(format!("claims[{i}].requests")));
        }
    }
    let mut notes = slices.notes.clone();
    let usable = usable_slices(slices, &mut notes);
    let mut views = nodes(slices, &usable);
    let outcomes: Vec<ClaimOutcome> = claims
        .iter()
        .map(|claim| allocate_claim(claim, &mut views, order))
        .collect();
    if views.len() > 1 {
        notes.push("several nodes: each claim goes to the first node (in list order) where it fits; the scheduler also ranks nodes by its scoring plugins, which is not simulated".into());
    }
    let asked: BTreeSet<&str> = claims
        .iter()
        .flat_map(|c| &c.requests)
        .filter_map(|r| r.profile.as_deref())
        .collect();
    let gpus = gpus::outcomes(&views, &asked);
    Ok(FirstFit {
        order,
        gpus_used: gpus.iter().filter(|g| !g.allocated.is_empty()).count() as u64,
        whole_gpus_left: gpus.iter().filter(|g| g.free_whole).count() as u64,
        stranded_memory_slices: gpus
            .iter()
            .map(|g| g.stranded_memory_slices.len() as u64)
            .sum(),
        claims: outcomes,
        gpus,
        notes,
    })
}

/// One claim, on the first node where it fits.
fn allocate_claim(claim: &DraClaim, views: &mut [NodeView], order: SliceOrder) -> ClaimOutcome {
    let mut reason = "no node has devices that fit every request".to_string();
    for view in views.iter_mut() {
        view.order = visit_order(view, order);
        match search::allocate(claim, view, &view.in_use, &view.left) {
            Ok(chosen) => return commit(claim, view, chosen),
            Err(Miss::OverBudget) => {
                reason = format!(
                    "the search took more than {} steps on node {} (the scheduler gives up after a time limit too)",
                    search::STEP_BUDGET, view.name
                );
            }
            Err(Miss::NoSolution) => {}
        }
    }
    ClaimOutcome {
        claim: claim.name.clone(),
        allocated: false,
        devices: Vec::new(),
        reason: Some(reason),
    }
}

/// Marks the chosen devices in use and takes their counters.
fn commit(claim: &DraClaim, view: &mut NodeView, chosen: Vec<(usize, usize)>) -> ClaimOutcome {
    let mut devices = Vec::new();
    for (i, r) in chosen {
        let device = view.candidates[i].device;
        for u in &device.consumes {
            if let Some(left) = view.left.get_mut(&u.counter_set) {
                for (name, need) in &u.counters {
                    if let Some(have) = left.get_mut(name) {
                        *have = have.saturating_sub(*need);
                    }
                }
            }
        }
        view.in_use.insert(i);
        let kind = device.nvidia("type");
        devices.push(Allocated {
            request: claim.requests[r].name.clone(),
            node: view.name.clone(),
            device: device.name.clone(),
            gpu: match kind {
                Some("mig") => device.nvidia("parentUUID"),
                _ => device.nvidia("uuid"),
            }
            .map(str::to_string),
            profile: device.nvidia("profile").map(str::to_string),
            memory_slices: device.memory_slices(),
        });
    }
    ClaimOutcome {
        claim: claim.name.clone(),
        allocated: true,
        devices,
        reason: None,
    }
}
