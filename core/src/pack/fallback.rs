//! When a GPU limit leaves asks unplaced, moves asks to a weaker mechanism the cluster also offers
//! (MIG → MPS → time-slicing) where that places more of them.
//!
//! One mechanism runs per GPU, so the mechanism each ask prefers alone can be the wrong one for the
//! set: four asks of 0.5 on two GPUs take a 4g.20gb each under MIG (one per GPU, two unplaced), but
//! all fit under MPS. Moving one ask at a time rarely helps (it needs a GPU of its own), so the
//! search moves groups: the first j asks of an order (largest first, then smallest first) down one
//! level, for every j (or, for many asks, a spread of j), keeping the packing that places the most
//! asks, then uses the fewest GPUs, then moves the fewest asks; a second round may move asks one
//! more level. Then each moved ask is tried back up and kept there when nothing is lost. The
//! number of re-packs is bounded by their work, so a huge input stays fast (and may then keep
//! asks unplaced that a longer search would place).

use super::layout::Builder;
use super::PackResult;
use crate::ask::FractionalAsk;
use crate::caps::ResolvedCaps;
use crate::plan::{alternatives, Choice};
use std::cmp::Reverse;

/// Re-packs at most this many ask-placements in all (asks × re-packs).
const WORK: usize = 4_000_000;

/// A packing and how many asks it moved.
struct Trial {
    result: PackResult,
    level: Vec<usize>,
}

impl Trial {
    fn placed(&self) -> usize {
        self.result.choices.len() - self.result.unplaced.len()
    }

    fn moved(&self) -> usize {
        self.level.iter().filter(|&&l| l > 0).count()
    }

    /// Most asks placed, then fewest GPUs, then fewest asks moved.
    fn key(&self) -> (Reverse<usize>, u64, usize) {
        (Reverse(self.placed()), self.result.gpus_used, self.moved())
    }
}

/// The packing of `asks` with the strongest mechanism each allows, or, when that leaves asks
/// unplaced, with some of them moved to weaker ones (said in the result's notes and the moved
/// asks' notes).
pub(super) fn pack(asks: &[FractionalAsk], caps: &ResolvedCaps) -> PackResult {
    let first = run(
        asks.iter()
            .map(|a| crate::plan::select_resolved(a, caps))
            .collect(),
        caps,
    );
    if first.unplaced.is_empty() || caps.gpu_count.is_none() {
        return first;
    }
    let preferred = first.choices.clone();
    // Only asks that have a weaker mechanism take part; the others keep their one choice.
    let options: Vec<Vec<Choice>> = asks
        .iter()
        .zip(&preferred)
        .map(|(a, p)| {
            let mut alt = alternatives(a, caps);
            if alt.first().map(|c| c.mechanism) != Some(p.mechanism) {
                alt.insert(0, p.clone());
            }
            alt
        })
        .collect();
    let mut tries = (WORK / asks.len().max(1)).clamp(4, 512);
    let mut best = Trial {
        result: first,
        level: vec![0; asks.len()],
    };
    for _round in 0..2 {
        if best.result.unplaced.is_empty() {
            break;
        }
        let movable: Vec<usize> = (0..asks.len())
            .filter(|&i| best.level[i] + 1 < options[i].len())
            .collect();
        let size = |i: usize| options[i][best.level[i]].allocated_fraction;
        let mut largest = movable.clone();
        crate::sort::sort_by_key(&mut largest, |&i| Reverse(size(i)));
        let mut smallest = movable;
        crate::sort::sort_by_key(&mut smallest, |&i| size(i));
        let mut round_best: Option<Trial> = None;
        for order in [&largest, &smallest] {
            for j in spread(order.len(), tries / 2) {
                tries = tries.saturating_sub(1);
                let mut level = best.level.clone();
                for &i in &order[..j] {
                    level[i] += 1;
                }
                let trial = Trial {
                    result: run(chosen(&options, &level), caps),
                    level,
                };
                if round_best.as_ref().is_none_or(|b| trial.key() < b.key()) {
                    round_best = Some(trial);
                }
            }
        }
        match round_best {
            Some(t) if t.key() < best.key() => best = t,
            _ => break,
        }
    }
    // Move asks back up where that loses nothing.
    for i in 0..asks.len() {
        while best.level[i] > 0 && tries > 0 {
            tries -= 1;
            let mut level = best.level.clone();
            level[i] -= 1;
            let trial = Trial {
                result: run(chosen(&options, &level), caps),
                level,
            };
            if trial.placed() >= best.placed() && trial.result.gpus_used <= best.result.gpus_used {
                best = trial;
            } else {
                break;
            }
        }
    }
    let names: Vec<String> = (0..asks.len())
        .filter(|&i| best.level[i] > 0)
        .map(|i| {
            format!(
                "{} ({} → {})",
                preferred[i].name, preferred[i].mechanism, options[i][best.level[i]].mechanism
            )
        })
        .collect();
    let mut result = best.result;
    if !names.is_empty() {
        let limit = caps.gpu_count.unwrap_or_default();
        result.notes.push(format!(
            "moved to a weaker mechanism so that more asks fit on {limit} GPUs (one mechanism runs per GPU): {}",
            names.join(", ")
        ));
    }
    result
}

/// Prefix lengths 1..=n to try: all of them when `budget` allows, else about `budget` spread
/// evenly (always including n).
fn spread(n: usize, budget: usize) -> Vec<usize> {
    if n == 0 || budget == 0 {
        return Vec::new();
    }
    if n <= budget {
        return (1..=n).collect();
    }
    let mut out: Vec<usize> = (1..=budget).map(|k| (k * n).div_ceil(budget)).collect();
    out.dedup();
    out
}

/// The choices at each ask's level, with a note on each moved one.
fn chosen(options: &[Vec<Choice>], level: &[usize]) -> Vec<Choice> {
    options
        .iter()
        .zip(level)
        .map(|(o, &l)| {
            let mut c = o[l].clone();
            if l > 0 {
                c.notes.insert(
                    0,
                    format!(
                        "{} would leave asks unplaced within the GPU limit; {} places more",
                        o[0].mechanism, c.mechanism
                    ),
                );
            }
            c
        })
        .collect()
}

/// First-fit-decreasing of fixed choices.
pub(super) fn run(choices: Vec<Choice>, caps: &ResolvedCaps) -> PackResult {
    let mut builder = Builder::new(choices, caps);
    builder.place_all();
    builder.finish()
}
