//! `--optimize` for MIG GPUs: empty a GPU whenever its instances fit at valid placements on the others.
//!
//! First-fit-decreasing places each instance on the first GPU that can take it, which can leave
//! a GPU holding a few small instances that the others had room for once their layouts are
//! rearranged (the packer re-solves a GPU's placements from its set of profiles, so room is a
//! question of which sets are placeable, not of where instances sit now). This pass takes the
//! least-used MIG GPU, moves every instance to the first other GPU whose set stays placeable,
//! and drops the GPU if all moved; it repeats until no GPU can be emptied or the budget is spent.

use super::super::mig::{layout, layout_by_start, Counts};
use super::super::{GpuLayout, PackResult};
use crate::catalog::{self, GpuModel};
use crate::plan::Mechanism;

/// Empties what MIG GPUs it can within `work` placement checks; returns the checks spent.
pub(super) fn optimize_mig(result: &mut PackResult, mut work: u64) -> u64 {
    let granted = work;
    let Some(model) = result
        .gpu_model
        .as_deref()
        .and_then(catalog::find_model)
        .filter(|m| m.is_mig_capable())
    else {
        return 0;
    };
    // Each MIG GPU as (position in result.gpus, its instances as (ask, profile index)).
    let mut gpus: Vec<(usize, Vec<(String, usize)>)> = result
        .gpus
        .iter()
        .enumerate()
        .filter(|(_, g)| g.mechanism() == Mechanism::Mig)
        .map(|(at, g)| {
            let instances = g
                .instances()
                .iter()
                .filter_map(|i| Some((i.ask.clone(), profile_index(model, i.profile)?)))
                .collect();
            (at, instances)
        })
        .collect();
    let mut emptied: Vec<usize> = Vec::new();
    'outer: while gpus.len() > 1 && work > 0 {
        // Least memory in use first: the easiest to empty.
        let mut order: Vec<usize> = (0..gpus.len()).collect();
        crate::sort::sort_by_key(&mut order, |&g| memory_used(model, &gpus[g].1));
        for &from in &order {
            // Copying the state is work too: charge it, so huge plans stop on budget.
            work = work.saturating_sub(gpus.len() as u64);
            let mut trial: Vec<Vec<(String, usize)>> =
                gpus.iter().map(|(_, i)| i.clone()).collect();
            let mut instances = std::mem::take(&mut trial[from]);
            crate::sort::sort_by_key(&mut instances, |(_, p)| {
                std::cmp::Reverse(model.profiles[*p].memory_slices)
            });
            if instances
                .into_iter()
                .all(|x| make_room(model, &mut trial, from, x, &mut work))
            {
                emptied.push(gpus[from].0);
                gpus.remove(from);
                trial.remove(from);
                for ((_, inst), new) in gpus.iter_mut().zip(trial) {
                    *inst = new;
                }
                continue 'outer;
            }
            if work == 0 {
                break 'outer;
            }
        }
        break;
    }
    if emptied.is_empty() {
        return granted - work;
    }
    for (at, instances) in &gpus {
        result.gpus[*at] = mig_gpu(model, instances);
    }
    let mut at = 0;
    result.gpus.retain(|_| {
        at += 1;
        !emptied.contains(&(at - 1))
    });
    granted - work
}

/// Puts instance `x` on a GPU other than `from`: directly where the set stays placeable, or by
/// moving one instance `y` of a GPU `h` to a third GPU `k` so that `x` fits on `h` (a swap first
/// fit cannot find on its own). Changes `gpus` only on success.
fn make_room(
    model: &GpuModel,
    gpus: &mut [Vec<(String, usize)>],
    from: usize,
    x: (String, usize),
    work: &mut u64,
) -> bool {
    let fits =
        |instances: &[(String, usize)], add: usize, remove: Option<usize>, work: &mut u64| {
            *work = work.saturating_sub(1);
            let mut counts = counts_of(model, instances);
            counts[add] += 1;
            if let Some(r) = remove {
                counts[r] -= 1;
            }
            *work > 0 && layout(model, &counts).is_some()
        };
    let others = || (0..gpus.len()).filter(move |&h| h != from);
    if let Some(h) = others().find(|&h| fits(&gpus[h], x.1, None, work)) {
        gpus[h].push(x);
        return true;
    }
    for h in others() {
        let mut tried: Vec<usize> = Vec::new();
        for at in 0..gpus[h].len() {
            let y = gpus[h][at].1;
            if tried.contains(&y) || !fits(&gpus[h], x.1, Some(y), work) {
                continue;
            }
            tried.push(y);
            if let Some(k) = others()
                .filter(|&k| k != h)
                .find(|&k| fits(&gpus[k], y, None, work))
            {
                let moved = gpus[h].remove(at);
                gpus[k].push(moved);
                gpus[h].push(x);
                return true;
            }
        }
        if *work == 0 {
            return false;
        }
    }
    false
}

fn memory_used(model: &GpuModel, instances: &[(String, usize)]) -> u32 {
    instances
        .iter()
        .map(|(_, p)| u32::from(model.profiles[*p].memory_slices))
        .sum()
}

fn profile_index(model: &GpuModel, name: &str) -> Option<usize> {
    model.profiles.iter().position(|p| p.name == name)
}

fn counts_of(model: &GpuModel, instances: &[(String, usize)]) -> Counts {
    let mut counts = vec![0u8; model.profiles.len()];
    for (_, p) in instances {
        counts[*p] += 1;
    }
    counts
}

/// A MIG GPU's layout for a set of instances that [`layout`] has already shown placeable.
fn mig_gpu(model: &GpuModel, instances: &[(String, usize)]) -> GpuLayout {
    let placed = layout_by_start(model, &counts_of(model, instances)).unwrap_or_default();
    let asks = instances.iter().map(|(ask, p)| (*p, ask.clone())).collect();
    GpuLayout::mig(0, model, &placed, asks)
}
