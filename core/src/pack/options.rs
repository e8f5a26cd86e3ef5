//! `bin_pack_with`: the packer with options; today the one option is `--optimize` (shared pools and MIG GPUs).

mod mig;

use super::bounds::shared_bound;
use super::items::items;
use super::optimize::{improve, improve_vector, Budget, Problem, VectorProblem};
use super::{first_fit, GpuLayout, PackResult, SharedSlot, MPS_CLIENTS_PER_GPU};
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::error::Result;
use crate::plan::Mechanism;
use crate::units::Share;
use std::collections::BTreeMap;

/// How to pack.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackOptions {
    /// Improve on first-fit-decreasing with this much search (`None`: plain FFD).
    pub optimize: Option<Budget>,
}

/// A packing and how good it is known to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptimizedPack {
    pub result: PackResult,
    /// Every ask placed, on exactly `lower_bound` GPUs: no packing uses fewer.
    pub proven_optimal: bool,
    /// The result's lower bound (all asks, all mechanisms).
    pub lower_bound: u64,
    /// GPUs plain first-fit-decreasing used for the same asks.
    pub ffd_gpus: u64,
}

impl OptimizedPack {
    /// GPUs above the lower bound (0 when proven optimal; an upper bound on what is still to gain).
    pub fn gap(&self) -> u64 {
        self.result.gpus_used.saturating_sub(self.lower_bound)
    }
}

/// Like [`bin_pack`](super::bin_pack), then, with `options.optimize`, re-packs the MPS and time-sliced GPUs with
/// [`improve`] and empties MIG GPUs whose instances fit on the others (`options/mig.rs`);
/// the budget is split evenly between the pools in use. Whole GPUs are already optimal. GPUs a
/// better packing frees go first to asks FFD could not place under a GPU limit (shared and whole asks).
///
/// With nodes in the caps, the GPUs are then put on nodes, one sharing configuration per node
/// (`pack/nodes.rs`); asks that lose their GPU there are unplaced and the rest packed again.
///
/// # Errors
/// As [`bin_pack`](super::bin_pack).
pub fn bin_pack_with(
    asks: &[FractionalAsk],
    caps: &ClusterGpuCaps,
    options: &PackOptions,
) -> Result<OptimizedPack> {
    let (mut result, ffd_gpus) = match &caps.nodes {
        None => optimized(asks, caps, options)?,
        Some(nodes) => {
            crate::pack::nodes::pack_on_nodes(asks, nodes, |a| optimized(a, caps, options))?
        }
    };
    result.utilisation = result.measure_utilisation();
    let lower_bound = result.lower_bound;
    Ok(OptimizedPack {
        proven_optimal: result.unplaced.is_empty() && result.gpus_used == lower_bound,
        lower_bound,
        ffd_gpus,
        result,
    })
}

/// First-fit-decreasing, then the optimizer when asked; and the GPUs FFD alone used.
fn optimized(
    asks: &[FractionalAsk],
    caps: &ClusterGpuCaps,
    options: &PackOptions,
) -> Result<(PackResult, u64)> {
    let mut result = first_fit(asks, caps)?;
    let ffd_gpus = result.gpus_used;
    if let Some(budget) = options.optimize {
        let pools = [Mechanism::Mps, Mechanism::Timeslice, Mechanism::Mig];
        let in_use = pools
            .iter()
            .filter(|m| result.gpus.iter().any(|g| g.mechanism() == **m))
            .count() as u64;
        let share = Budget::work(budget.work / in_use.max(1));
        for mechanism in [Mechanism::Mps, Mechanism::Timeslice] {
            if let Some(proven) = optimize_pool(&mut result, mechanism, share) {
                // The search can prove a pool needs more GPUs than L2 says (bin completion found
                // no packing into that many). GPUs are never shared across mechanisms, so the
                // pool's bound replaces its term in the sum.
                let model = result.memory_model();
                let base = shared_bound(&items(&result.choices, None), mechanism, model);
                result.lower_bound += proven.saturating_sub(base);
            }
        }
        mig::optimize_mig(&mut result, share.work);
        place_leftovers(&mut result);
        for (index, gpu) in result.gpus.iter_mut().enumerate() {
            gpu.index = index as u64;
        }
        result.gpus_used = result.gpus.len() as u64;
        if result.gpus_used < ffd_gpus {
            result.notes.push(format!(
                "optimized: {} GPUs instead of first-fit-decreasing's {ffd_gpus}",
                result.gpus_used
            ));
        }
    }
    Ok((result, ffd_gpus))
}

/// Re-packs the GPUs of one shared mechanism in place; freed GPUs are removed. Returns the GPUs
/// the pool's placed asks are proven to need, when it searched. A pool whose tenants ask for
/// memory is packed in both dimensions (`optimize/vector.rs`).
fn optimize_pool(result: &mut PackResult, mechanism: Mechanism, budget: Budget) -> Option<u64> {
    let gpus: Vec<usize> = (0..result.gpus.len())
        .filter(|&g| result.gpus[g].mechanism() == mechanism)
        .collect();
    if gpus.len() < 2 {
        return None;
    }
    let mut slots: Vec<SharedSlot> = Vec::new();
    let mut bin_of: Vec<usize> = Vec::new();
    for (bin, &g) in gpus.iter().enumerate() {
        for slot in result.gpus[g].slots() {
            slots.push(slot.clone());
            bin_of.push(bin);
        }
    }
    let max_items = if mechanism == Mechanism::Mps {
        MPS_CLIENTS_PER_GPU as usize
    } else {
        usize::MAX
    };
    let budget_mib = result.memory_model().map(|m| m.usable_memory().mib);
    let (bins, new_bin_of, bound) = match budget_mib {
        Some(mib) if slots.iter().any(|s| s.memory_mib.is_some()) => {
            let items: Vec<(u64, u64)> = slots
                .iter()
                .map(|s| (s.share.units(), s.memory_mib.unwrap_or(0)))
                .collect();
            let problem = VectorProblem {
                items: &items,
                capacity: (Share::ONE.units(), mib),
                max_items,
            };
            let better = improve_vector(&problem, &bin_of, budget);
            (better.bins, better.bin_of, better.lower_bound)
        }
        _ => {
            let sizes: Vec<u64> = slots.iter().map(|s| s.share.units()).collect();
            let problem = Problem {
                sizes: &sizes,
                capacity: Share::ONE.units(),
                max_items,
            };
            let better = improve(&problem, &bin_of, budget);
            (better.bins, better.bin_of, better.lower_bound)
        }
    };
    if bins >= gpus.len() {
        return Some(bound);
    }
    // The new bins take the places of the pool's first GPUs; the rest are dropped.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); bins];
    for (i, &b) in new_bin_of.iter().enumerate() {
        members[b].push(i);
    }
    for (bin, items) in members.iter_mut().enumerate() {
        crate::sort::sort_by_key(items, |&i| std::cmp::Reverse(slots[i].share));
        let on_gpu: Vec<SharedSlot> = items.iter().map(|&i| slots[i].clone()).collect();
        result.gpus[gpus[bin]] = GpuLayout::shared(0, mechanism, on_gpu, budget_mib);
    }
    let dropped = &gpus[bins..];
    let mut g = 0;
    result.gpus.retain(|_| {
        g += 1;
        !dropped.contains(&(g - 1))
    });
    Some(bound)
}

/// First fit of the asks FFD left unplaced, largest first, into the room a better packing made:
/// shared asks onto a GPU of their mechanism or a new one, whole asks onto new GPUs, under the limit.
fn place_leftovers(result: &mut PackResult) {
    let Some(limit) = result.gpu_count else {
        return;
    };
    let budget_mib = result.memory_model().map(|m| m.usable_memory().mib);
    let choices: BTreeMap<&str, &crate::plan::Choice> = result
        .choices
        .iter()
        .map(|c| (c.name.as_str(), c))
        .collect();
    let mut order: Vec<usize> = (0..result.unplaced.len()).collect();
    crate::sort::sort_by_key(&mut order, |&u| {
        let c = choices.get(result.unplaced[u].name.as_str());
        std::cmp::Reverse(c.map(|c| (c.gpus, c.allocated_fraction)))
    });
    let mut placed = vec![false; result.unplaced.len()];
    for u in order {
        let Some(c) = choices.get(result.unplaced[u].name.as_str()) else {
            continue;
        };
        let free = limit.saturating_sub(result.gpus.len() as u64);
        match c.mechanism {
            Mechanism::Whole if c.gpus <= free => {
                for _ in 0..c.gpus {
                    result.gpus.push(GpuLayout::whole(0, c.name.clone()));
                }
                placed[u] = true;
            }
            Mechanism::Mps | Mechanism::Timeslice => {
                let max = if c.mechanism == Mechanism::Mps {
                    MPS_CLIENTS_PER_GPU as usize
                } else {
                    usize::MAX
                };
                let slot = SharedSlot::new(c.name.clone(), c.allocated_fraction, c.held_memory_mib);
                let fits = result.gpus.iter().position(|g| {
                    g.mechanism() == c.mechanism
                        && g.slots().len() < max
                        && g.has_room(c.allocated_fraction, c.held_memory_mib, budget_mib)
                });
                match fits {
                    Some(g) => {
                        result.gpus[g].push_slot(slot, budget_mib);
                        placed[u] = true;
                    }
                    None if free > 0 => {
                        result
                            .gpus
                            .push(GpuLayout::shared(0, c.mechanism, vec![slot], budget_mib));
                        placed[u] = true;
                    }
                    None => {}
                }
            }
            _ => {}
        }
    }
    let mut k = 0;
    result.unplaced.retain(|_| {
        k += 1;
        !placed[k - 1]
    });
}

#[cfg(test)]
mod tests;
