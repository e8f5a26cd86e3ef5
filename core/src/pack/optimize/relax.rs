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

use super::completion::{self, Outcome, Prices};
use super::cover::{self, Covered};
use super::dive::Dive;
use super::master::Master;
use super::patterns::{Pattern, Types, CELLS_PER_WORK};
use super::search::Problem;
use super::Work;

/// The priced bin completion of the whole gets this share of the relaxation's work where the
/// patterns are too many to list: where it is quick, it proves the bound too low, which the dive
/// cannot.
const ROOT_EXACT_SHARE: u64 = 20;
/// The cover search gets this share where the patterns could be listed.
const COVER_SHARE: u64 = 4;
/// Patterns listed at most for the cover search: where the relaxation's round-up is the optimum
/// the gap is a sliver and the list short; past this many the cover search has little chance.
const COVER_PATTERNS: usize = 20_000;

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

/// What an exact search at the relaxation's prices found.
pub(crate) enum Settled {
    /// A packing, as patterns (by size) …
    Patterns(Vec<Pattern>),
    /// … or as bins of items.
    Bins(Vec<Vec<usize>>),
    /// No packing into that many bins exists.
    Impossible,
    /// The budget ran out first.
    Unknown,
}

/// Where an exact search at the relaxation's prices runs: `items`, `demand` of each type.
pub(crate) struct Exact<'a> {
    pub(crate) problem: &'a Problem<'a>,
    pub(crate) types: &'a Types,
    pub(crate) items: &'a [usize],
    pub(crate) demand: &'a [u64],
    pub(crate) priced: &'a Priced,
}

impl Exact<'_> {
    /// A packing into `target` bins, a proof that there is none, or neither within the budget:
    /// the cover search with up to `cover_work` where the patterns can be listed, the priced bin
    /// completion with up to `exact_work` where not.
    pub(crate) fn settle(
        &self,
        target: u64,
        cover_work: u64,
        exact_work: u64,
        work: &mut Work,
    ) -> Settled {
        let prices = &self.priced.prices;
        let worth: u128 = (0..self.types.len())
            .map(|t| u128::from(self.demand[t]) * u128::from(self.priced.by_type[t]))
            .sum();
        let gap = (u128::from(target) * u128::from(prices.most)).checked_sub(worth);
        let Some(gap) = gap.and_then(|g| u64::try_from(g).ok()) else {
            return Settled::Impossible; // below the relaxation's bound
        };
        let listing = cover::Priced {
            types: self.types,
            value: &self.priced.by_type,
            best: &prices.best,
            most: prices.most,
            max_items: self.problem.max_items,
        };
        let covered = work.slice(cover_work, |w| {
            let columns = cover::enumerate(&listing, self.demand, gap, COVER_PATTERNS, w)?;
            Some(cover::cover(
                &columns,
                self.types.len(),
                self.demand,
                target,
                gap,
                w,
            ))
        });
        match covered {
            Some(Covered::Packed(patterns)) => Settled::Patterns(patterns),
            Some(Covered::Impossible) => Settled::Impossible,
            Some(Covered::Unknown) => Settled::Unknown,
            None => {
                let outcome = work.slice(exact_work, |w| {
                    completion::complete_priced(self.problem, self.items, target, Some(prices), w)
                });
                match outcome {
                    Outcome::Packed(bins) => Settled::Bins(bins),
                    Outcome::Impossible => Settled::Impossible,
                    Outcome::Unknown => Settled::Unknown,
                }
            }
        }
    }
}

/// Integer prices from a master's duals, what they allow and the bound they prove.
pub(crate) struct Priced {
    /// By item, for bin completion.
    pub(crate) prices: Prices,
    /// Each type's price.
    pub(crate) by_type: Vec<u64>,
    /// ⌈Σ demand·price / most⌉.
    pub(crate) bound: u64,
}

/// Integer prices from `master`'s duals for `demand` (of `types`; `type_of` gives each item's
/// type), and the bound they prove: exact whatever the floats did. `None` without budget.
pub(crate) fn integer_prices(
    master: &Master,
    types: &Types,
    type_of: &[usize],
    demand: &[u64],
    work: &mut Work,
) -> Option<Priced> {
    let per_item = type_of.len() as u64 / CELLS_PER_WORK;
    if !work.spend(types.pricing_work(demand) + per_item) {
        return None;
    }
    let y = master.duals();
    let (by_type, best) = types.integer_prices(&y, demand);
    let most = *best.last()?;
    let total: u128 = (0..types.len())
        .map(|t| u128::from(demand[t]) * u128::from(by_type[t]))
        .sum();
    let bound = if most == 0 {
        0
    } else {
        u64::try_from(total.div_ceil(u128::from(most))).ok()?
    };
    let value = type_of
        .iter()
        .map(|&t| by_type.get(t).copied().unwrap_or(0))
        .collect();
    Some(Priced {
        prices: Prices {
            value,
            most,
            best,
            unit: types.unit,
        },
        by_type,
        bound,
    })
}

impl Types {
    /// `patterns` (with repetition) as bins of items, each type's items taken in order; `None`
    /// unless they hold every item exactly once.
    pub(crate) fn bins_of(&self, patterns: &[Pattern]) -> Option<Vec<Vec<usize>>> {
        let mut next: Vec<usize> = vec![0; self.len()];
        let mut bins = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            let mut bin = Vec::new();
            for &(t, k) in pattern {
                for _ in 0..k {
                    bin.push(*self.items[t].get(next[t])?);
                    next[t] += 1;
                }
            }
            bins.push(bin);
        }
        (0..self.len())
            .all(|t| next[t] == self.items[t].len())
            .then_some(bins)
    }
}

#[cfg(test)]
mod tests;
