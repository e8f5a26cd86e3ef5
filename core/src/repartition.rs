//! The smallest change to live MIG layouts that fits new work, found exactly.
//!
//! Every GPU instance in use must exist afterwards (same profile; same GPU and start when it is
//! *kept*, anywhere on a GPU of the same model when it is *moved*); a freed instance may stay where
//! it is, serve an ask of its profile, or go. The search picks one final layout per GPU from every
//! valid layout of the model (`pack::mig::verify`'s rules, docs/hardware-facts.md §1.1–1.2) and
//! minimises, in this order: asks left unplaced, instances moved, GPUs touched. It is a dynamic
//! programme over the GPUs whose state is the demand still to place (per profile), so its answer
//! is the optimum, not a heuristic's; `brute_force` below checks it on small cases.

use crate::catalog::GpuModel;
use crate::pack::mig::{check_counts, Placed};
use std::collections::HashMap;

/// One existing GPU instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Existing {
    pub placed: Placed,
    /// In use: it must exist afterwards. Otherwise freed: it may stay, serve an ask, or go.
    pub in_use: bool,
}

/// What a GPU ends as: its layout, and which of its freed instances only stay (serving no ask).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Choice {
    pub layout: Vec<Placed>,
    /// Per instance of `layout`: a freed instance left as it is, counted against no demand.
    pub leftover: Vec<bool>,
}

/// The optimum: one choice per GPU, and how many asks of each profile found no room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    pub choices: Vec<Choice>,
    pub unplaced: Vec<u32>,
    pub moved: u32,
    pub touched: u32,
}

/// The search gives up past this many (state, layout) steps: the exact answer would take too long.
pub(crate) const MAX_WORK: u64 = 40_000_000;

/// Why no solution was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// More work than [`MAX_WORK`].
    TooLarge,
}

/// Every valid layout of `model` that holds at most `limit[p]` instances of each profile `p`,
/// each sorted by start (the empty layout first).
pub(crate) fn layouts(model: &GpuModel, limit: &[u32]) -> Vec<Vec<Placed>> {
    let mut candidates: Vec<Placed> = Vec::new();
    for (p, profile) in model.profiles.iter().enumerate() {
        if limit.get(p).copied().unwrap_or(0) > 0 {
            candidates.extend(
                profile
                    .starts
                    .iter()
                    .map(|&start| Placed { profile: p, start }),
            );
        }
    }
    candidates.sort_by_key(|c| (c.start, c.profile));
    let mut out = Vec::new();
    let mut counts = vec![0u8; model.profiles.len()];
    let mut chosen = Vec::new();
    grow(
        model,
        limit,
        &candidates,
        0,
        0,
        &mut counts,
        &mut chosen,
        &mut out,
    );
    out
}

#[allow(clippy::too_many_arguments)] // one recursion's state, kept flat for speed
fn grow(
    model: &GpuModel,
    limit: &[u32],
    candidates: &[Placed],
    from: usize,
    used: u16,
    counts: &mut Vec<u8>,
    chosen: &mut Vec<Placed>,
    out: &mut Vec<Vec<Placed>>,
) {
    out.push(chosen.clone());
    for i in from..candidates.len() {
        let c = candidates[i];
        let mask = model.profiles[c.profile].mask_at(c.start);
        if used & mask != 0 || u32::from(counts[c.profile]) >= limit[c.profile] {
            continue;
        }
        counts[c.profile] += 1;
        // The count rules only ever get harder as instances are added: prune at the first break.
        if check_counts(model, counts).is_ok() {
            chosen.push(c);
            grow(
                model,
                limit,
                candidates,
                i + 1,
                used | mask,
                counts,
                chosen,
                out,
            );
            chosen.pop();
        }
        counts[c.profile] -= 1;
    }
}

/// How one layout serves one GPU: instances kept in place, whether the GPU changes, and for each
/// way of counting its freed instances (serving asks or only staying) the demand it consumes.
struct Option_ {
    layout: usize,
    kept: u32,
    touched: bool,
    /// (leftover flags, demand consumed per profile)
    uses: Vec<(Vec<bool>, Vec<u32>)>,
}

fn options(model: &GpuModel, gpu: &[Existing], all: &[Vec<Placed>]) -> Vec<Option_> {
    let n = model.profiles.len();
    let mut out = Vec::with_capacity(all.len());
    for (index, layout) in all.iter().enumerate() {
        let find = |p: &Placed| gpu.iter().find(|e| e.placed == *p);
        let kept = layout
            .iter()
            .filter(|p| find(p).is_some_and(|e| e.in_use))
            .count() as u32;
        // An instance in use that this layout drops must be re-created elsewhere: allowed (moved).
        let touched = layout.len() != gpu.len() || layout.iter().any(|p| find(p).is_none());
        let mut consumed = vec![0u32; n];
        let mut freed_here: Vec<usize> = Vec::new();
        for (k, p) in layout.iter().enumerate() {
            consumed[p.profile] += 1;
            if find(p).is_some_and(|e| !e.in_use) {
                freed_here.push(k);
            }
        }
        // Each freed instance kept in place either serves an ask of its profile or only stays.
        let mut uses = Vec::with_capacity(1 << freed_here.len());
        for bits in 0u32..(1 << freed_here.len()) {
            let mut leftover = vec![false; layout.len()];
            let mut c = consumed.clone();
            for (j, &k) in freed_here.iter().enumerate() {
                if bits & (1 << j) != 0 {
                    leftover[k] = true;
                    c[layout[k].profile] -= 1;
                }
            }
            uses.push((leftover, c));
        }
        out.push(Option_ {
            layout: index,
            kept,
            touched,
            uses,
        });
    }
    out
}

/// The score of a partial plan: (instances kept, GPUs touched); more kept is better, then fewer touched.
type Score = (u32, u32);

fn better(a: Score, b: Score) -> bool {
    a.0 > b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// The optimum for `gpus` (each GPU's existing instances) of one `model`, placing `asks[p]` new
/// instances of each profile `p` besides every instance in use.
pub(crate) fn solve(
    model: &GpuModel,
    gpus: &[Vec<Existing>],
    asks: &[u32],
) -> Result<Solution, Refusal> {
    let n = model.profiles.len();
    let mut demand = asks.to_vec();
    demand.resize(n, 0);
    let mut limit = demand.clone();
    for gpu in gpus {
        for e in gpu {
            if e.in_use {
                demand[e.placed.profile] += 1;
            }
            limit[e.placed.profile] += 1;
        }
    }
    for (p, profile) in model.profiles.iter().enumerate() {
        limit[p] = limit[p].max(demand[p]).min(u32::from(profile.max_count));
    }
    let all = layouts(model, &limit);
    let in_use: u32 = gpus.iter().flatten().filter(|e| e.in_use).count() as u32;
    // states[g]: remaining demand → (score, back-pointer to the state before, option, use).
    type Back = (Vec<u32>, usize, usize);
    let mut layers: Vec<HashMap<Vec<u32>, (Score, Option<Back>)>> =
        Vec::with_capacity(gpus.len() + 1);
    layers.push(HashMap::from([(demand.clone(), ((0, 0), None))]));
    let mut work = 0u64;
    let per_gpu: Vec<Vec<Option_>> = gpus.iter().map(|g| options(model, g, &all)).collect();
    for (g, opts) in per_gpu.iter().enumerate() {
        let mut next: HashMap<Vec<u32>, (Score, Option<Back>)> = HashMap::new();
        let mut states: Vec<(&Vec<u32>, &(Score, Option<Back>))> = layers[g].iter().collect();
        states.sort_by(|a, b| a.0.cmp(b.0)); // deterministic order of ties
        for (state, (score, _)) in states {
            for (oi, opt) in opts.iter().enumerate() {
                for (ui, (_, consumed)) in opt.uses.iter().enumerate() {
                    work += 1;
                    if work > MAX_WORK {
                        return Err(Refusal::TooLarge);
                    }
                    if consumed.iter().zip(state).any(|(c, s)| c > s) {
                        continue;
                    }
                    let rest: Vec<u32> = state.iter().zip(consumed).map(|(s, c)| s - c).collect();
                    let s = (score.0 + opt.kept, score.1 + u32::from(opt.touched));
                    let back = Some((state.clone(), oi, ui));
                    match next.get(&rest) {
                        Some((old, _)) if !better(s, *old) => {}
                        _ => {
                            next.insert(rest, (s, back));
                        }
                    }
                }
            }
        }
        layers.push(next);
    }
    // Every instance in use placed; of the rest, fewest asks unplaced, then the best score.
    let in_use_of = |p: usize| demand[p] - asks.get(p).copied().unwrap_or(0);
    let last = layers.last().expect("one layer per GPU and the start");
    let mut best: Option<(u32, Score, &Vec<u32>)> = None;
    let mut finals: Vec<(&Vec<u32>, &(Score, Option<Back>))> = last.iter().collect();
    finals.sort_by(|a, b| a.0.cmp(b.0));
    for (rest, (score, _)) in finals {
        let placed_all_in_use = (0..n).all(|p| demand[p] - rest[p] >= in_use_of(p));
        if !placed_all_in_use {
            continue;
        }
        let unplaced: u32 = rest.iter().sum();
        let wins = match best {
            None => true,
            Some((u, s, _)) => unplaced < u || (unplaced == u && better(*score, s)),
        };
        if wins {
            best = Some((unplaced, *score, rest));
        }
    }
    // The current layouts always qualify (nothing moved, every ask unplaced), so there is a best.
    let (_, score, rest) = best.expect("keeping every layout as it is is always possible");
    let mut choices = vec![
        Choice {
            layout: Vec::new(),
            leftover: Vec::new()
        };
        gpus.len()
    ];
    let mut state = rest.clone();
    for g in (0..gpus.len()).rev() {
        let (_, back) = &layers[g + 1][&state];
        let (before, oi, ui) = back
            .clone()
            .expect("every layer after the first has a back-pointer");
        let opt = &per_gpu[g][oi];
        choices[g] = Choice {
            layout: all[opt.layout].clone(),
            leftover: opt.uses[ui].0.clone(),
        };
        state = before;
    }
    Ok(Solution {
        choices,
        unplaced: rest.clone(),
        moved: in_use - score.0,
        touched: score.1,
    })
}

#[cfg(test)]
mod tests;
