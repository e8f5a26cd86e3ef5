//! `--optimize`: fewer bins than first-fit-decreasing where a better packing exists, within a work budget.
//!
//! Starts from the better of FFD and minimum-bin-slack (`mbs`) and a lower bound (Martello–Toth L2
//! after dual feasible functions). While the packing is above the bound:
//!
//! 1. an exact bin completion into that many bins (`completion`), which either finds one (a proven
//!    optimum) or proves there is none and raises the bound;
//! 2. where the pattern formulation's linear relaxation can be priced (a knapsack table over the
//!    capacity after the sizes' common divisor: BPPLIB's instances, GPU shares in round steps),
//!    the local searches for a tenth of the budget, then the relaxation (`relax`): solved by column
//!    generation (`master`, `patterns`), its bound proven in integers from its duals, then a
//!    packing into the bound searched with the prices: every pattern within the gap listed and an
//!    exact cover by them (`cover`) or bin completion pruned by them, and a dive that fixes the
//!    patterns the relaxation uses (`dive`). On the benchmarks the optimizer missed, the bound was
//!    already the optimum and the searches fell short of it; the relaxation's prices say which
//!    bins an optimal packing can hold;
//! 3. local searches that remove one bin at a time: a consistent neighbourhood search that
//!    repairs a partial packing (`cns`) and a tabu search over overfilled packings (`search`).
//!
//! It stops at a proven optimum (bins = bound) or when the budget is spent.
//!
//! The core has no clock, so the time limit is a deterministic **work budget**: a count of
//! elementary search steps. [`Budget::from_millis`] converts milliseconds with a constant measured
//! on a 2-core 2020s server in release mode (`cargo xtask bench` reports the real times), so the
//! same input and budget always give the same packing, on any machine and in WebAssembly.

mod by_bin;
mod cns;
mod completion;
mod cover;
mod dive;
mod exact;
mod master;
mod mbs;
mod patterns;
mod relax;
mod search;
mod vector;

use super::bounds::{dff_l2, l2};
use super::ffd::first_fit_decreasing;
use by_bin::{group, Renumbered};
use completion::Outcome;
pub use search::Problem;
use search::Rebalancer;
pub use vector::{improve_vector, VectorPacking, VectorProblem};

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

    /// Runs `f` on at most `limit` steps of this budget, and charges what it spent.
    fn slice<T>(&mut self, limit: u64, f: impl FnOnce(&mut Work) -> T) -> T {
        let mut part = Work {
            left: limit.min(self.left),
        };
        let granted = part.left;
        let out = f(&mut part);
        self.left -= granted - part.left;
        out
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

/// The deepest any search here recurses (an item or a bin per level): past it a search stops as
/// if its budget had run out. WebAssembly in V8 has about a megabyte of stack (984 KB in Node):
/// `binPack` of 9,000 uniform asks with `optimize` threw "Maximum call stack size exceeded" in
/// bin completion thousands of levels deep, and a million asks overflowed the CLI's 8 MB. At this
/// depth that search needs 400–500 KB in Node (it passes with `node --stack-size=500`, not 400;
/// at 2,000 levels it failed at 500), about half the stack; bin completion of BPPLIB's largest
/// instances (1,000 items) needs a level per item.
pub(crate) const MAX_DEPTH: usize = 1_200;

/// Dual feasible functions the bound tries (u⁽¹⁾ … u⁽⁴⁰⁾; on BPPLIB more found nothing new).
const DFF_K: u64 = 40;
/// Work charged per item and function for that bound (each is an L2 pass: a sort, binary searches).
const DFF_WORK_PER_ITEM: u64 = 8;
/// Bin completion may use up to 1/3 of the budget where the relaxation does not apply. Where it
/// does, the relaxation's priced bin completion is the stronger exact search, and the plain one
/// gets 1/12, for what it settles at once (perfect packings of few items per bin).
const EXACT_SHARE: u64 = 3;
const EXACT_SHARE_BESIDE_RELAXATION: u64 = 12;
/// Beside the relaxation, the local searches first get 1/10 of the budget: what they settle they
/// mostly settle quickly, while the relaxation's first step, solving it, can cost a tenth of the
/// budget on instances of a few hundred sizes, and an instance the searches would have settled at
/// once should not wait for it. Then the relaxation gets 3/4 of what is left, and the local
/// searches the rest.
const FIRST_SEARCH_SHARE: u64 = 10;
const RELAXATION_PERCENT: u64 = 75;

/// The best lower bound this module computes before searching: L2 after the dual feasible
/// functions of [`dff_l2`] (never below L2). Bin completion may raise it further (see [`improve`]).
pub fn lower_bound(sizes: &[u64], capacity: u64) -> u64 {
    dff_l2(sizes, capacity, DFF_K)
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
    let mut bound = first_bound(problem, &rest, &mut work);
    let mut bins = group(&rest, bin_of);
    // A second start: bins filled one at a time as full as possible often beat FFD outright. It
    // rescans the remaining items for each bin, about items × bins / 2 steps, and an unfinished
    // fill is worth nothing: where that would take over half the budget it is not started (on a
    // million asks it used to spend the whole budget and leave the searches nothing).
    let mbs_work = (rest.len() as u64).saturating_mul(bins.len() as u64) / 2;
    if bins.len() as u64 > bound && mbs_work <= work.left / 2 {
        if let Some(packed) = mbs::mbs(problem, &rest, &mut work, None) {
            if packed.len() < bins.len() {
                bins = packed;
            }
        }
    }
    search(problem, &rest, &mut bins, &mut bound, budget, &mut work);
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

/// The bound of `items` before searching: L2 after the dual feasible functions where the budget
/// allows (about forty L2 passes), plain L2 where not, and the item limit's count.
fn first_bound(problem: &Problem, items: &[usize], work: &mut Work) -> u64 {
    let sizes: Vec<u64> = items.iter().map(|&i| problem.sizes[i]).collect();
    let count_bound = (items.len() as u64).div_ceil(problem.max_items.max(1) as u64);
    let dff_work = (items.len() as u64).saturating_mul(DFF_K * DFF_WORK_PER_ITEM);
    let by_size = if work.left >= dff_work {
        work.spend(dff_work);
        lower_bound(&sizes, problem.capacity)
    } else {
        l2(&sizes, problem.capacity)
    };
    by_size.max(count_bound)
}

/// The searches for fewer `bins` (a packing of `items`), raising `bound` where they prove it.
///
/// First bin completion, exact. Where the relaxation applies (see `dive`): the local searches for
/// a while, then the relaxation (which proves a bound no formula reaches and searches with it),
/// then the local searches with the rest. Elsewhere the local searches get all that is left.
fn search(
    problem: &Problem,
    items: &[usize],
    bins: &mut Vec<Vec<usize>>,
    bound: &mut u64,
    budget: Budget,
    work: &mut Work,
) {
    let relaxable = relax::applies(problem, items);
    let exact_share = if relaxable {
        EXACT_SHARE_BESIDE_RELAXATION
    } else {
        EXACT_SHARE
    };
    exact(problem, items, bins, bound, budget.work / exact_share, work);
    if relaxable && bins.len() as u64 > *bound {
        let first = std::mem::take(bins);
        *bins = work.slice(budget.work / FIRST_SEARCH_SHARE, |w| {
            remove_bins(problem, first, *bound, 1, w)
        });
    }
    if relaxable && bins.len() as u64 > *bound {
        let share = work.left / 100 * RELAXATION_PERCENT;
        let relaxed = work.slice(share, |w| relax::relax(problem, items, bins, *bound, w));
        if let Some(relaxed) = relaxed {
            *bound = (*bound).max(relaxed.bound);
            if let Some(packed) = relaxed.packing.filter(|p| p.len() < bins.len()) {
                *bins = packed;
            }
        }
    }
    if bins.len() as u64 > *bound && work.left > 0 {
        *bins = remove_bins(problem, std::mem::take(bins), *bound, 0, work);
    }
}

/// A complete search for a packing into exactly the lower bound, with up to `limit` of `work`: where
/// it succeeds, the result is a proven optimum; where it runs to the end without one, it has proved
/// that no packing into that many bins exists, so the bound rises by one and the search goes on
/// with the next count.
fn exact(
    problem: &Problem,
    items: &[usize],
    bins: &mut Vec<Vec<usize>>,
    bound: &mut u64,
    limit: u64,
    work: &mut Work,
) {
    work.slice(limit, |exact| {
        while (bins.len() as u64) > *bound {
            match completion::complete(problem, items, *bound, exact) {
                Outcome::Packed(packed) => {
                    *bins = packed.into_iter().filter(|b| !b.is_empty()).collect();
                    break;
                }
                Outcome::Impossible => *bound += 1,
                Outcome::Unknown => break,
            }
        }
    });
}

/// The local searches, one bin fewer at a time while the packing is above `bound` and `work` is
/// left. `round` enters their random choices, so that a second call on the same packing does not
/// retrace the first (round 0 makes the choices they made before there was a second call). They read each bin's sizes again and again: they work on the items numbered bin by bin
/// (see `by_bin`), and only when they run (a packing already at its bound is not renumbered).
fn remove_bins(
    problem: &Problem,
    mut bins: Vec<Vec<usize>>,
    bound: u64,
    round: u64,
    work: &mut Work,
) -> Vec<Vec<usize>> {
    let renumbered = Renumbered::new(problem.sizes, &mut bins);
    let numbered = Problem {
        sizes: &renumbered.sizes,
        ..*problem
    };
    let number = |i: usize| renumbered.original[i];
    let mut attempt = 0u64;
    while bins.len() as u64 > bound && work.left > 0 {
        let seed = 0x6770_752d_7368_6172
            ^ (problem.sizes.len() as u64)
            ^ attempt.rotate_left(32)
            ^ round.rotate_left(48);
        attempt += 1;
        // The two searches find different packings (each solves benchmark instances the other
        // misses), so the consistent one gets half of what is left and the overflow one the rest.
        let half = work.left / 2;
        let attempt = work
            .slice(half, |w| cns::one_fewer(&numbered, &bins, number, seed, w))
            .or_else(|| Rebalancer::new(&numbered, bins.clone(), seed).and_then(|r| r.run(work)));
        match attempt {
            Some(better) => bins = better.into_iter().filter(|b| !b.is_empty()).collect(),
            None => break,
        }
    }
    renumbered.restore(&mut bins);
    bins
}

#[cfg(test)]
mod tests;
