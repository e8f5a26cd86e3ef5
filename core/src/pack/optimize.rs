//! `--optimize`: fewer bins than first-fit-decreasing where a better packing exists, within a work budget.
//!
//! Starts from the better of FFD and minimum-bin-slack (`mbs`), computes the best lower bound it
//! knows (Martello–Toth L2), tries an exact bin completion into that many bins (`completion`), and
//! while the packing is above the bound runs local searches that remove one bin at a time: a
//! consistent neighbourhood search that repairs a partial packing (`cns`), then a tabu search over
//! overfilled packings (`search`). It stops at a proven optimum (bins = bound) or when the budget is spent.
//!
//! The core has no clock, so the time limit is a deterministic **work budget**: a count of
//! elementary search steps. [`Budget::from_millis`] converts milliseconds with a constant measured
//! on a 2-core 2020s server in release mode (`cargo xtask bench` reports the real times), so the
//! same input and budget always give the same packing, on any machine and in WebAssembly.

mod cns;
mod completion;
mod mbs;
mod search;

use super::bounds::l2;
use super::ffd::first_fit_decreasing;
use completion::Outcome;
pub use search::Problem;
use search::Rebalancer;

/// Elementary search steps per millisecond in a release build (measured by `cargo xtask bench`).
pub const WORK_PER_MS: u64 = 45_000;

/// How much searching `--optimize` may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Elementary search steps (a candidate swap looked at, an item tried in a bin).
    pub work: u64,
}

impl Budget {
    /// A budget of `work` search steps.
    pub const fn work(work: u64) -> Self {
        Budget { work }
    }

    /// About `ms` milliseconds of search in a release build (see [`WORK_PER_MS`]); slower
    /// machines and debug builds take proportionally longer, but never search more.
    pub const fn from_millis(ms: u64) -> Self {
        Budget {
            work: ms.saturating_mul(WORK_PER_MS),
        }
    }
}

impl Default for Budget {
    /// One second.
    fn default() -> Self {
        Budget::from_millis(1000)
    }
}

/// What the optimizer found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Optimized {
    /// Bin per item (input order); bins are numbered `0..bins` with none empty.
    pub bin_of: Vec<usize>,
    pub bins: usize,
    /// No packing uses fewer bins.
    pub lower_bound: u64,
    /// `bins == lower_bound`: nothing better exists.
    pub proven_optimal: bool,
    /// Search steps spent (≤ the budget).
    pub work: u64,
}

/// The remaining budget, spent by the search.
pub(crate) struct Work {
    left: u64,
}

impl Work {
    /// Takes `n` steps; false once the budget is gone.
    pub(crate) fn spend(&mut self, n: u64) -> bool {
        let ok = self.left > 0;
        self.left = self.left.saturating_sub(n);
        ok
    }
}

/// Packs `sizes` into bins of `capacity`, using no more bins than [`first_fit_decreasing`] and
/// fewer where the search finds a way within `budget`. Items larger than `capacity` get a bin of
/// their own (as in FFD).
pub fn optimize_sizes(sizes: &[u64], capacity: u64, budget: Budget) -> Optimized {
    let problem = Problem {
        sizes,
        capacity,
        max_items: usize::MAX,
    };
    improve(&problem, &first_fit_decreasing(sizes, capacity), budget)
}

/// The best lower bound this module knows on the bins `sizes` need.
pub fn lower_bound(sizes: &[u64], capacity: u64) -> u64 {
    l2(sizes, capacity)
}

/// Improves a feasible packing `bin_of` of `problem` (every bin within capacity and item count),
/// never returning more bins than it has.
pub fn improve(problem: &Problem, bin_of: &[usize], budget: Budget) -> Optimized {
    let sizes = problem.sizes;
    let mut work = Work { left: budget.work };
    // Oversized items cannot share a bin: they stay alone and out of the search. Zero-sized items
    // fit anywhere (FFD even puts them beside an oversized item): they join a bin at the end.
    let (big, rest): (Vec<usize>, Vec<usize>) =
        (0..sizes.len()).partition(|&i| sizes[i] > problem.capacity);
    let (zero, rest): (Vec<usize>, Vec<usize>) = rest.into_iter().partition(|&i| sizes[i] == 0);
    let rest_sizes: Vec<u64> = rest.iter().map(|&i| sizes[i]).collect();
    let count_bound = (rest.len() as u64).div_ceil(problem.max_items.max(1) as u64);
    let mut bound = lower_bound(&rest_sizes, problem.capacity).max(count_bound);
    let mut bins = group(&rest, bin_of);
    // A second start: bins filled one at a time as full as possible often beat FFD outright.
    if bins.len() as u64 > bound {
        if let Some(packed) = mbs::mbs(problem, &rest, &mut work, None) {
            if packed.len() < bins.len() {
                bins = packed;
            }
        }
    }
    // Then a complete search for a packing into exactly the lower bound, with up to half of the
    // budget: where it succeeds, the result is a proven optimum; where it runs to the end without
    // one, it has proved that no packing into that many bins exists, so the bound rises by one
    // and the search goes on with the next count.
    let mut exact = Work {
        left: (budget.work / 2).min(work.left),
    };
    let granted = exact.left;
    while (bins.len() as u64) > bound {
        match completion::complete(problem, &rest, bound, &mut exact) {
            Outcome::Packed(packed) => {
                bins = packed.into_iter().filter(|b| !b.is_empty()).collect();
                break;
            }
            Outcome::Impossible => bound += 1,
            Outcome::Unknown => break,
        }
    }
    work.left -= granted - exact.left;
    let mut attempt = 0u64;
    while bins.len() as u64 > bound && work.left > 0 {
        let seed = 0x6770_752d_7368_6172 ^ (sizes.len() as u64) ^ attempt.rotate_left(32);
        attempt += 1;
        // The two searches find different packings (each solves benchmark instances the other
        // misses), so the consistent one gets half of what is left and the overflow one the rest.
        let mut half = Work {
            left: work.left / 2,
        };
        let granted = half.left;
        let attempt = cns::one_fewer(problem, &bins, seed, &mut half);
        work.left -= granted - half.left;
        let attempt = attempt.or_else(|| {
            Rebalancer::new(problem, bins.clone(), seed).and_then(|r| r.run(&mut work))
        });
        match attempt {
            Some(better) => bins = better.into_iter().filter(|b| !b.is_empty()).collect(),
            None => break,
        }
    }
    bins.extend(big.iter().map(|&i| vec![i]));
    for &i in &zero {
        match bins.iter_mut().find(|b| b.len() < problem.max_items) {
            Some(bin) => bin.push(i),
            None => bins.push(vec![i]),
        }
    }
    let mut out = vec![usize::MAX; sizes.len()];
    for (b, items) in bins.iter().enumerate() {
        for &i in items {
            out[i] = b;
        }
    }
    let total = bins.len();
    let lower_bound = (bound + big.len() as u64)
        .max(u64::from(!zero.is_empty()))
        .max((sizes.len() as u64).div_ceil(problem.max_items.max(1) as u64));
    Optimized {
        bin_of: out,
        bins: total,
        lower_bound,
        proven_optimal: total as u64 == lower_bound,
        work: budget.work - work.left,
    }
}

/// The items of `bin_of` restricted to `items`, grouped by bin, bins renumbered in order of first use.
fn group(items: &[usize], bin_of: &[usize]) -> Vec<Vec<usize>> {
    let mut renumber = std::collections::BTreeMap::new();
    let mut bins: Vec<Vec<usize>> = Vec::new();
    for &i in items {
        let next = renumber.len();
        let b = *renumber.entry(bin_of[i]).or_insert(next);
        if b == bins.len() {
            bins.push(Vec::new());
        }
        bins[b].push(i);
    }
    bins
}

#[cfg(test)]
mod tests;
