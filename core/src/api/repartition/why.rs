//! Why an ask the repartition leaves out is left out, found by solving again: alone (does it fit at
//! all, and with how many moves?) and in place of each ask the plan placed (which ones does it
//! compete with?). The plan leaves out the fewest asks, then moves the fewest instances, so an ask
//! that fits alone can still lose to one that needs fewer moves.

use super::search::{solve_within, Existing, Solution};
use super::FitUnplaced;
use super::Wanted;
use crate::catalog::GpuModel;

/// Each search for a reason stops past this many steps (the plan's own search may take more).
const WORK_PER_REASON: u64 = 2_000_000;

/// Past this many placed asks, the asks an unplaced one competes with are not searched one by one.
const MAX_RIVALS_SEARCHED: usize = 16;

/// The moves an ask set needs: `Some(moves)` when every ask of it fits, `None` when one does not,
/// `Err(())` when the search is too large to tell.
fn moves_for(
    model: &GpuModel,
    gpus: &[Vec<Existing>],
    asks: &[&Wanted],
) -> Result<Option<u32>, ()> {
    let mut demand = vec![0u32; model.profiles.len()];
    for w in asks {
        demand[w.profile] += 1;
    }
    let s: Solution = solve_within(model, gpus, &demand, WORK_PER_REASON).map_err(|_| ())?;
    Ok(s.unplaced.iter().all(|&u| u == 0).then_some(s.moved))
}

fn moves_text(n: u32) -> String {
    match n {
        0 => "no move".into(),
        1 => "1 move".into(),
        n => format!("{n} moves"),
    }
}

/// Why `left` is unplaced when the plan placed `placed`.
pub(super) fn reason(
    model: &GpuModel,
    gpus: &[Vec<Existing>],
    left: &Wanted,
    placed: &[&Wanted],
) -> String {
    let alone = match moves_for(model, gpus, &[left]) {
        Err(()) => return "left out; too large a search to tell whether it fits alone".into(),
        Ok(None) => return "fits nowhere, even moving instances".into(),
        Ok(Some(k)) => k,
    };
    let names = |asks: &[&Wanted]| {
        asks.iter()
            .map(|w| w.name.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // The placed asks it could take the place of, each with the moves it needs alone.
    let mut rivals: Vec<(&Wanted, u32)> = Vec::new();
    if placed.len() <= MAX_RIVALS_SEARCHED {
        for (i, rival) in placed.iter().enumerate() {
            let mut with: Vec<&Wanted> = placed.to_vec();
            with.remove(i);
            with.push(left);
            if let (Ok(Some(_)), Ok(Some(needs))) = (
                moves_for(model, gpus, &with),
                moves_for(model, gpus, &[rival]),
            ) {
                rivals.push((rival, needs));
            }
        }
    }
    let why = "the plan leaves out the fewest asks, then moves the fewest instances";
    match rivals.as_slice() {
        [] => format!(
            "fits alone with {}, but not together with the asks placed ({}); {why}",
            moves_text(alone),
            names(placed)
        ),
        [(rival, needs)] => format!(
            "fits alone with {}, but not together with {}, which needs {}; {why}",
            moves_text(alone),
            rival.name,
            moves_text(*needs)
        ),
        several => {
            let each: Vec<String> = several
                .iter()
                .map(|(w, n)| format!("{} ({})", w.name, moves_text(*n)))
                .collect();
            format!(
                "fits alone with {}, but not together with the others: it would fit in place of any one of {}; {why}",
                moves_text(alone),
                each.join(", ")
            )
        }
    }
}

/// The reason of every ask left out, in the order given: those no profile of the model serves,
/// and those the search placed nowhere.
pub(super) fn reasons(
    model: &GpuModel,
    gpus: &[Vec<Existing>],
    wanted: &[Wanted],
    placed: &[&Wanted],
    unserved: &[(usize, String)],
) -> Vec<(usize, FitUnplaced)> {
    let mut out: Vec<(usize, FitUnplaced)> = unserved
        .iter()
        .map(|(i, name)| {
            (
                *i,
                FitUnplaced {
                    name: name.clone(),
                    reason: format!("no MIG profile of {} holds it", model.name),
                },
            )
        })
        .collect();
    for w in wanted {
        if placed.iter().any(|p| p.index == w.index) {
            continue;
        }
        out.push((
            w.index,
            FitUnplaced {
                name: w.name.to_string(),
                reason: reason(model, gpus, w, placed),
            },
        ));
    }
    crate::sort::sort_by_key(&mut out, |(i, _)| *i);
    out
}
