//! The linear relaxation put to work (branch-and-price): a proven bound, exact searches it prunes, and a dive it guides.
//!
//! On most benchmark instances the round-up of the pattern formulation's relaxation is the
//! optimum, and the searches fall short of it, not the bounds. This solves the relaxation by
//! column generation (`master`), proves its bound in integers (integer prices from the duals, an
//! exact knapsack: no bin is worth more than `most`, so ⌈Σ demand·price / most⌉ bins are needed
//! whatever the floats did), and then looks for a packing into the bound with the prices:
//!
//! - where few patterns leave no more than the gap the bound allows, all of them are listed and
//!   an exact cover by them searched (`cover`);
//! - otherwise bin completion priced by them (`completion::Prices`), which only lets through bins
//!   worth nearly a whole bin at the relaxation's prices;
//! - then a dive (`dive`): patterns the relaxation uses fixed one at a time, the relaxation
//!   solved again after each.
//!
//! The first two are exact: run to their end without a packing they prove the bound one too low,
//! and the next count is tried.

use super::dive::Dive;
use super::exact::{integer_prices, Exact, Settled};
use super::master::Master;
use super::patterns::{Types, CELLS_PER_WORK};
use super::search::Problem;
use super::Work;

/// The priced bin completion of the whole gets this share of the relaxation's work where the
/// patterns are too many to list: where it is quick, it proves the bound too low, which the dive
/// cannot.
const ROOT_EXACT_SHARE: u64 = 20;
/// The cover search gets this share where the patterns could be listed.
const COVER_SHARE: u64 = 4;

/// What the relaxation found.
pub(crate) struct Relaxed {
    /// A packing into fewer bins than the caller's, if one was found.
    pub(crate) packing: Option<Vec<Vec<usize>>>,
    /// A proven lower bound on the bins (0 when none was proven).
    pub(crate) bound: u64,
}

/// Whether the relaxation of packing `items` can be priced (every size within capacity, the
/// knapsack table affordable).
pub(crate) fn applies(problem: &Problem, items: &[usize]) -> bool {
    Types::new(problem.sizes, items, problem.capacity).is_some()
}

/// Solves the relaxation of packing `items` (`bins`, a packing of them, seeds it), proves its bound
/// in integers, then searches for a packing into the bound (at least `bound`, the caller's) as the
/// module says. `None` where the relaxation does not apply or the budget does not cover setting it
/// up.
pub(crate) fn relax(
    problem: &Problem,
    items: &[usize],
    bins: &[Vec<usize>],
    bound: u64,
    work: &mut Work,
) -> Option<Relaxed> {
    let types = Types::new(problem.sizes, items, problem.capacity)?;
    let type_of = types.type_of(problem.sizes.len());
    let mut master = seeded(problem, &types, &type_of, bins, work)?;
    let mut relaxed = Relaxed {
        packing: None,
        bound: 0,
    };
    let shares = work.left;
    if master.optimize(work, |_| false).is_none() {
        return Some(relaxed);
    }
    let demand = types.demand();
    let Some(priced) = integer_prices(&master, &types, &type_of, &demand, work) else {
        return Some(relaxed);
    };
    relaxed.bound = priced.bound;
    let root = Exact {
        problem,
        types: &types,
        items,
        demand: &demand,
        priced: &priced,
    };
    let (cover_work, exact_work) = (shares / COVER_SHARE, shares / ROOT_EXACT_SHARE);
    let mut target = bound.max(priced.bound);
    while target < bins.len() as u64 {
        let packed = match root.settle(target, cover_work, exact_work, work) {
            Settled::Patterns(patterns) => types.bins_of(&patterns),
            Settled::Bins(bins) => Some(bins),
            Settled::Impossible => {
                target += 1;
                relaxed.bound = relaxed.bound.max(target);
                continue;
            }
            Settled::Unknown => break,
        };
        relaxed.packing = packed.map(|p| p.into_iter().filter(|b| !b.is_empty()).collect());
        return Some(relaxed);
    }
    // Patterns ignore an item limit: the dive only runs where the limit cannot bind.
    let smallest = *types.weight.last()?;
    let unlimited = problem.max_items as u64 >= (types.cap / smallest) as u64;
    if target < bins.len() as u64 && unlimited {
        relaxed.packing = Dive::new(problem, &types, type_of, master, target).run(work);
    }
    Some(relaxed)
}

/// The master over `types`, seeded with the patterns of `bins`, once the budget covers setting it
/// up: the basis inverse (m × m), each item's type and the seed patterns.
fn seeded<'t>(
    problem: &Problem,
    types: &'t Types,
    type_of: &[usize],
    bins: &[Vec<usize>],
    work: &mut Work,
) -> Option<Master<'t>> {
    let m = types.len() as u64;
    let setup = m.saturating_mul(m) / CELLS_PER_WORK + problem.sizes.len() as u64;
    if !work.spend(setup) {
        return None;
    }
    let mut master = Master::new(types, types.demand());
    for bin in bins {
        master.add(types.pattern_of(type_of, bin));
    }
    Some(master)
}

#[cfg(test)]
mod tests;
