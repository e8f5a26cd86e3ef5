//! The exact step at one bin count, shared by the relaxation and its dive: integer prices proven
//! from the relaxation's duals, and the searches they prune (an exact cover by the patterns the
//! prices allow, else priced bin completion), which find a packing into the count or prove there
//! is none.

use super::completion::{self, Outcome, Prices};
use super::cover::{self, Covered};
use super::master::Master;
use super::patterns::{Pattern, Types, CELLS_PER_WORK};
use super::search::Problem;
use super::Work;

/// Patterns listed at most for the cover search: where the relaxation's round-up is the optimum
/// the gap is a sliver and the list short; past this many the cover search has little chance.
const COVER_PATTERNS: usize = 20_000;

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
