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
    crate::sort::sort_by_key(&mut candidates, |c| (c.start, c.profile));
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

/// Demand still to place, per profile.
type Demand = Vec<u32>;

/// The best way found to a demand after some GPUs: its score, and the step back to the demand
/// before this GPU with the option and the use of its freed instances that were taken.
#[derive(Clone, Debug)]
struct Reached {
    score: Score,
    back: Option<(Demand, usize, usize)>,
}

/// Every demand reachable after each GPU (layer `g + 1` is after GPU `g`), best score each.
type Layers = Vec<HashMap<Demand, Reached>>;

/// The demand of the instances in use and the asks, and the most of each profile one layout may hold.
fn demand_and_limit(model: &GpuModel, gpus: &[Vec<Existing>], asks: &[u32]) -> (Demand, Vec<u32>) {
    let n = model.profiles.len();
    let mut demand = asks.to_vec();
    demand.resize(n, 0);
    let mut limit = demand.clone();
    for e in gpus.iter().flatten() {
        if e.in_use {
            demand[e.placed.profile] += 1;
        }
        limit[e.placed.profile] += 1;
    }
    for (p, profile) in model.profiles.iter().enumerate() {
        limit[p] = limit[p].max(demand[p]).min(u32::from(profile.max_count));
    }
    (demand, limit)
}

/// The forward pass: per GPU, every option applied to every demand reached so far.
fn search(per_gpu: &[Vec<Option_>], demand: Demand, max_work: u64) -> Result<Layers, Refusal> {
    let mut layers: Layers = vec![HashMap::from([(
        demand,
        Reached {
            score: (0, 0),
            back: None,
        },
    )])];
    let mut work = 0u64;
    for (g, opts) in per_gpu.iter().enumerate() {
        let mut next: HashMap<Demand, Reached> = HashMap::new();
        let mut states: Vec<(&Demand, &Reached)> = layers[g].iter().collect();
        crate::sort::sort_by(&mut states, |a, b| a.0.cmp(b.0)); // the same ties win on every run
        for (state, reached) in states {
            for (oi, opt) in opts.iter().enumerate() {
                for (ui, (_, consumed)) in opt.uses.iter().enumerate() {
                    work += 1;
                    if work > max_work {
                        return Err(Refusal::TooLarge);
                    }
                    if consumed.iter().zip(state).any(|(c, s)| c > s) {
                        continue;
                    }
                    let rest: Demand = state.iter().zip(consumed).map(|(s, c)| s - c).collect();
                    let score = (
                        reached.score.0 + opt.kept,
                        reached.score.1 + u32::from(opt.touched),
                    );
                    if next.get(&rest).is_none_or(|old| better(score, old.score)) {
                        let back = Some((state.clone(), oi, ui));
                        next.insert(rest, Reached { score, back });
                    }
                }
            }
        }
        layers.push(next);
    }
    Ok(layers)
}

/// The optimum for `gpus` (each GPU's existing instances) of one `model`, placing `asks[p]` new
/// instances of each profile `p` besides every instance in use.
pub(crate) fn solve(
    model: &GpuModel,
    gpus: &[Vec<Existing>],
    asks: &[u32],
) -> Result<Solution, Refusal> {
    solve_within(model, gpus, asks, MAX_WORK)
}

/// [`solve`] within `max_work` (state, layout) steps.
pub(crate) fn solve_within(
    model: &GpuModel,
    gpus: &[Vec<Existing>],
    asks: &[u32],
    max_work: u64,
) -> Result<Solution, Refusal> {
    let (demand, limit) = demand_and_limit(model, gpus, asks);
    let all = layouts(model, &limit);
    let per_gpu: Vec<Vec<Option_>> = gpus.iter().map(|g| options(model, g, &all)).collect();
    let layers = search(&per_gpu, demand.clone(), max_work)?;
    // Every instance in use placed; of the rest, fewest asks unplaced, then the best score. The
    // current layouts always qualify (nothing moved, every ask unplaced), so there is a best.
    let in_use_of = |p: usize| demand[p] - asks.get(p).copied().unwrap_or(0);
    let mut finals: Vec<(&Demand, &Reached)> = layers[gpus.len()].iter().collect();
    crate::sort::sort_by(&mut finals, |a, b| a.0.cmp(b.0));
    let mut best: Option<(u32, Score, &Demand)> = None;
    for (rest, reached) in finals {
        if (0..rest.len()).any(|p| demand[p] - rest[p] < in_use_of(p)) {
            continue;
        }
        let unplaced: u32 = rest.iter().sum();
        let wins = best
            .is_none_or(|(u, s, _)| unplaced < u || (unplaced == u && better(reached.score, s)));
        if wins {
            best = Some((unplaced, reached.score, rest));
        }
    }
    let (_, score, rest) = best.expect("keeping every layout as it is is always possible");
    let in_use: u32 = gpus.iter().flatten().filter(|e| e.in_use).count() as u32;
    Ok(Solution {
        choices: trace_back(&layers, &per_gpu, &all, rest),
        unplaced: rest.clone(),
        moved: in_use - score.0,
        touched: score.1,
    })
}

/// The choice per GPU that led to `rest`, following the back-pointers.
fn trace_back(
    layers: &Layers,
    per_gpu: &[Vec<Option_>],
    all: &[Vec<Placed>],
    rest: &Demand,
) -> Vec<Choice> {
    let mut choices = Vec::with_capacity(per_gpu.len());
    let mut state = rest.clone();
    for g in (0..per_gpu.len()).rev() {
        let (before, oi, ui) = layers[g + 1][&state]
            .back
            .clone()
            .expect("every layer after the first has a back-pointer");
        let opt = &per_gpu[g][oi];
        choices.push(Choice {
            layout: all[opt.layout].clone(),
            leftover: opt.uses[ui].0.clone(),
        });
        state = before;
    }
    choices.reverse();
    choices
}

#[cfg(test)]
mod tests;
