//! The linear relaxation put to work (branch-and-price's two sides): a proven bound, an exact search it prunes, and a dive.
//!
//! On most benchmark instances the round-up of the pattern formulation's relaxation is the
//! optimum. This solves the relaxation by column generation (`master`), proves its bound in
//! integers (integer prices, exact knapsack), and then looks for a packing into the bound:
//!
//! - bin completion priced by the relaxation's duals (`completion::Prices`): only bins whose items
//!   are worth nearly a whole bin at the relaxation's prices can be part of a packing into the
//!   bound, which cuts the search to the few bins the relaxation would use. It is exact: run to
//!   the end without a packing, it proves the bound one too low;
//! - a dive: every pattern the relaxation's solution uses a whole number of times is fixed (the
//!   residual relaxation stays optimal: the same basis prices it), then one copy of the pattern
//!   used most, and the relaxation is solved again; once few bins are left, the priced bin
//!   completion searches the rest. A fix after which the residual relaxation proves that the bins
//!   left cannot hold the items left (Farley's bound) is undone and the next pattern tried, as a
//!   limited discrepancy search: the first pass follows the relaxation's first choice everywhere,
//!   the next allows one second choice, and so on while the budget lasts.
//!
//! Patterns count copies by size and ignore a limit on items per bin, so this only runs where that
//! limit cannot bind. A packing it returns is checked in integers.

use super::completion::{self, Outcome, Prices};
use super::master::{Master, Solved};
use super::patterns::{Pattern, Types, CELLS_PER_WORK};
use super::search::Problem;
use super::{Work, MAX_DEPTH};

/// Basic values within this of a whole number count as whole.
const WHOLE: f64 = 1e-6;
/// Bins left at which the dive tries the priced bin completion on the rest.
const LEAF_BINS: u64 = 20;
/// Work the priced bin completion may take at a leaf.
const LEAF_WORK: u64 = 300_000;
/// Patterns tried at one node, besides the relaxation's first choice.
const MAX_DISCREPANCY: u32 = 3;
/// The priced bin completion of the whole gets this share of the relaxation's work (the dive
/// the rest): where it is quick, it proves the bound too low, which the dive cannot.
const ROOT_EXACT_SHARE: u64 = 20;

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
/// in integers, then searches for a packing into the bound (at least `bound`, the caller's): the
/// priced bin completion of the whole with a [`ROOT_EXACT_SHARE`] of `work`, which proves the
/// bound one too low where it runs to the end (then the next count is tried), and the dive with
/// the rest. `None` where the relaxation does not apply or the budget does not cover setting it
/// up.
pub(crate) fn relax(
    problem: &Problem,
    items: &[usize],
    bins: &[Vec<usize>],
    bound: u64,
    work: &mut Work,
) -> Option<Relaxed> {
    let types = Types::new(problem.sizes, items, problem.capacity)?;
    // Setting up: the basis inverse (m × m), each item's type and the seed patterns.
    let m = types.len() as u64;
    let setup = m.saturating_mul(m) / CELLS_PER_WORK + problem.sizes.len() as u64;
    if !work.spend(setup) {
        return None;
    }
    let type_of = types.type_of(problem.sizes.len());
    let mut master = Master::new(&types, types.demand());
    for bin in bins {
        master.add(types.pattern_of(&type_of, bin));
    }
    let mut relaxed = Relaxed {
        packing: None,
        bound: 0,
    };
    let exact_work = work.left / ROOT_EXACT_SHARE;
    if master.optimize(work, |_| false).is_none() {
        return Some(relaxed);
    }
    let mut dive = Dive {
        problem,
        types: &types,
        type_of,
        demand: types.demand(),
        synced: true,
        master,
        fixed: Vec::new(),
        fixed_bins: 0,
        target: 0,
        leaf: Vec::new(),
    };
    let Some(priced) = dive.prices(work) else {
        return Some(relaxed);
    };
    relaxed.bound = priced.bound;
    let mut target = bound.max(priced.bound);
    while target < bins.len() as u64 {
        let outcome = work.slice(exact_work, |w| {
            completion::complete_priced(problem, items, target, Some(&priced.prices), w)
        });
        match outcome {
            Outcome::Packed(packed) => {
                relaxed.packing = Some(packed.into_iter().filter(|b| !b.is_empty()).collect());
                return Some(relaxed);
            }
            Outcome::Impossible => {
                target += 1;
                relaxed.bound = relaxed.bound.max(target);
            }
            Outcome::Unknown => break,
        }
    }
    // Patterns ignore an item limit: the dive only runs where the limit cannot bind.
    let smallest = *types.weight.last()?;
    let unlimited = problem.max_items as u64 >= (types.cap / smallest) as u64;
    if target < bins.len() as u64 && unlimited {
        dive.target = target;
        relaxed.packing = dive.run(work);
    }
    Some(relaxed)
}

struct Dive<'a, 't> {
    problem: &'a Problem<'a>,
    types: &'t Types,
    type_of: Vec<usize>,
    /// What is left to pack, by type.
    demand: Vec<u64>,
    /// Whether the master has `demand` (fixes change it lazily, when the next node solves).
    synced: bool,
    master: Master<'t>,
    /// Patterns fixed so far, as (column, copies).
    fixed: Vec<(usize, u64)>,
    fixed_bins: u64,
    target: u64,
    /// The exact search's bins for what the fixed patterns leave.
    leaf: Vec<Vec<usize>>,
}

/// Integer prices at the master's current duals, and the bound they prove for what is left.
struct Priced {
    prices: Prices,
    bound: u64,
}

impl Dive<'_, '_> {
    /// Bins the fixed patterns leave for the rest.
    fn left(&self) -> u64 {
        self.target.saturating_sub(self.fixed_bins)
    }

    /// Whether the relaxation proves the rest needs more bins than are left.
    fn hopeless(&self, solved: &Solved) -> bool {
        let need = (solved.lower - WHOLE).ceil().max(0.0) as u64;
        self.fixed_bins + need > self.target
    }

    /// The master brought up to the current demands; `None` when the budget ran out.
    fn sync(&mut self, work: &mut Work) -> Option<()> {
        if !self.synced {
            self.master.set_demand(self.demand.clone(), work)?;
            self.synced = true;
        }
        Some(())
    }

    /// Integer prices from the master's duals for what is left, and the bound they prove
    /// (⌈Σ demand·price / most⌉, exact whatever the floats did); `None` without budget.
    fn prices(&self, work: &mut Work) -> Option<Priced> {
        let per_item = self.type_of.len() as u64 / CELLS_PER_WORK;
        if !work.spend(self.types.pricing_work(&self.demand) + per_item) {
            return None;
        }
        let y = self.master.duals();
        let (by_type, best) = self.types.integer_prices(&y, &self.demand);
        let most = *best.last()?;
        let total: u128 = (0..self.types.len())
            .map(|t| u128::from(self.demand[t]) * u128::from(by_type[t]))
            .sum();
        let bound = if most == 0 {
            0
        } else {
            u64::try_from(total.div_ceil(u128::from(most))).ok()?
        };
        let value = self
            .type_of
            .iter()
            .map(|&t| by_type.get(t).copied().unwrap_or(0))
            .collect();
        Some(Priced {
            prices: Prices {
                value,
                most,
                best,
                unit: self.types.unit,
            },
            bound,
        })
    }
}

impl Dive<'_, '_> {
    /// Limited discrepancy search: passes allowing 0, 1, … second choices until one finds a
    /// packing or the budget runs out.
    fn run(&mut self, work: &mut Work) -> Option<Vec<Vec<usize>>> {
        for discrepancies in 0..=MAX_DISCREPANCY {
            if self.node(discrepancies, work)? {
                return self.packing();
            }
        }
        None
    }

    /// Searches below the current fixes with `discrepancies` second choices allowed; `Some(true)`
    /// with the packing complete (the fixes are kept), `Some(false)` when this subtree holds none,
    /// `None` when the budget ran out.
    fn node(&mut self, discrepancies: u32, work: &mut Work) -> Option<bool> {
        // Each level fixes at least a bin. Past half the depth any search here may take (the
        // leaves' bin completion needs the rest), stop as if the budget had run out.
        if self.fixed.len() >= MAX_DEPTH / 2 {
            return None;
        }
        self.sync(work)?;
        let (target, fixed_bins) = (self.target, self.fixed_bins);
        let solved = self.master.optimize(work, |s| {
            fixed_bins + ((s.lower - WHOLE).ceil().max(0.0) as u64) > target
        })?;
        if self.hopeless(&solved) {
            return Some(false);
        }
        let rounded = self.round_down();
        self.sync(work)?;
        match self.below(discrepancies, work) {
            Some(true) => Some(true),
            found => {
                self.release(rounded);
                found
            }
        }
    }

    /// After the whole-number patterns are fixed: done, a leaf, or a branch on a fractional one.
    fn below(&mut self, discrepancies: u32, work: &mut Work) -> Option<bool> {
        if self.demand.iter().all(|&d| d == 0) {
            return Some(true);
        }
        if self.left() <= LEAF_BINS {
            match self.leaf(work)? {
                Outcome::Packed(_) => return Some(true),
                Outcome::Impossible => return Some(false),
                Outcome::Unknown => {}
            }
        }
        let mut candidates: Vec<(f64, usize, usize)> = self
            .master
            .basic()
            .filter_map(|(j, x)| Some((j, x, self.master.pattern(j)?)))
            .filter(|&(_, x, p)| x > WHOLE && self.fits(p))
            .map(|(j, x, p)| (x, self.types.fill(p), j))
            .collect();
        candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        for (rank, &(_, _, j)) in candidates.iter().enumerate() {
            let Some(rest) = discrepancies.checked_sub(rank as u32) else {
                break;
            };
            self.fix(j, 1);
            if self.node(rest, work)? {
                return Some(true);
            }
            self.unfix();
        }
        Some(false)
    }

    /// Whether one more copy of `pattern` fits what is left.
    fn fits(&self, pattern: &Pattern) -> bool {
        pattern.iter().all(|&(t, k)| k <= self.demand[t])
    }

    /// Fixes every pattern the relaxation uses a whole number of times; how many fixes it made.
    fn round_down(&mut self) -> usize {
        let whole: Vec<(usize, u64)> = self
            .master
            .basic()
            .filter(|&(j, x)| x >= 1.0 - WHOLE && self.master.pattern(j).is_some())
            .map(|(j, x)| (j, (x + WHOLE).floor() as u64))
            .collect();
        let mut count = 0;
        for (j, copies) in whole {
            let Some(pattern) = self.master.pattern(j) else {
                continue;
            };
            let most = pattern
                .iter()
                .map(|&(t, k)| self.demand[t] / k)
                .min()
                .unwrap_or(0);
            let copies = copies.min(most).min(self.left());
            if copies > 0 {
                self.fix(j, copies);
                count += 1;
            }
        }
        count
    }

    /// Fixes `copies` of column `j` (the master catches up at the next node).
    fn fix(&mut self, j: usize, copies: u64) {
        if let Some(pattern) = self.master.pattern(j) {
            for &(t, k) in pattern {
                self.demand[t] -= k * copies;
            }
            self.fixed.push((j, copies));
            self.fixed_bins += copies;
            self.synced = false;
        }
    }

    /// Undoes the last fix.
    fn unfix(&mut self) {
        if let Some((j, copies)) = self.fixed.pop() {
            if let Some(pattern) = self.master.pattern(j) {
                for &(t, k) in pattern {
                    self.demand[t] += k * copies;
                }
            }
            self.fixed_bins -= copies;
            self.synced = false;
        }
    }

    /// Undoes the last `count` fixes.
    fn release(&mut self, count: usize) {
        for _ in 0..count {
            self.unfix();
        }
    }

    /// The items not yet in a fixed pattern: of each type, the last `demand` (fixed patterns take
    /// items from the front).
    fn residual_items(&self) -> Vec<usize> {
        self.types
            .items
            .iter()
            .zip(&self.demand)
            .flat_map(|(members, &d)| members[members.len() - d as usize..].iter().copied())
            .collect()
    }

    /// The priced bin completion of what is left into the bins left (at the duals of the
    /// relaxation just solved); a packing it finds is kept as the leaf. `None` when the budget
    /// ran out.
    fn leaf(&mut self, work: &mut Work) -> Option<Outcome> {
        let priced = self.prices(work)?;
        if !work.spend(self.type_of.len() as u64 / CELLS_PER_WORK) {
            return None;
        }
        if priced.bound > self.left() {
            return Some(Outcome::Impossible);
        }
        let rest = self.residual_items();
        let left = self.left();
        let problem = self.problem;
        let outcome = work.slice(LEAF_WORK, |w| {
            completion::complete_priced(problem, &rest, left, Some(&priced.prices), w)
        });
        if work.left == 0 {
            return None;
        }
        if let Outcome::Packed(bins) = &outcome {
            self.leaf = bins.iter().filter(|b| !b.is_empty()).cloned().collect();
        }
        Some(outcome)
    }

    /// The fixed patterns as bins of items, and the leaf's bins; checked in integers.
    fn packing(&self) -> Option<Vec<Vec<usize>>> {
        let mut next: Vec<usize> = vec![0; self.types.len()];
        let mut bins: Vec<Vec<usize>> = Vec::new();
        for &(j, copies) in &self.fixed {
            let pattern = self.master.pattern(j)?;
            for _ in 0..copies {
                let mut bin = Vec::new();
                for &(t, k) in pattern {
                    for _ in 0..k {
                        bin.push(*self.types.items[t].get(next[t])?);
                        next[t] += 1;
                    }
                }
                bins.push(bin);
            }
        }
        bins.extend(self.leaf.iter().cloned());
        let mut seen = vec![false; self.problem.sizes.len()];
        for &i in bins.iter().flatten() {
            if std::mem::replace(&mut seen[i], true) {
                return None;
            }
        }
        let count = bins.iter().map(Vec::len).sum::<usize>();
        let total: usize = self.types.items.iter().map(Vec::len).sum();
        let sizes = self.problem.sizes;
        let fits = bins.iter().all(|b| {
            b.iter().map(|&i| sizes[i]).sum::<u64>() <= self.problem.capacity
                && b.len() <= self.problem.max_items
        });
        (fits && count == total && bins.len() as u64 <= self.target).then_some(bins)
    }
}

#[cfg(test)]
mod tests;
