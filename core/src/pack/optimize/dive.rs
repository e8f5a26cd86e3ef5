//! A dive through the linear relaxation (branch-and-price's primal side): patterns fixed one at a time, each fix priced again.
//!
//! Every pattern the relaxation's solution uses a whole number of times is fixed (the residual
//! relaxation stays optimal: the same basis prices it), then one copy of the pattern used most,
//! and the relaxation is solved again (`master`: the dual simplex restores it in a few pivots);
//! once few bins are left, the priced bin completion (`completion::Prices`) searches the rest. A
//! fix after which the residual relaxation proves that the bins left cannot hold the items left
//! (Farley's bound, in floats: it only prunes) is undone and the next pattern tried, as a limited
//! discrepancy search: the first pass follows the relaxation's first choice everywhere, the next
//! allows one second choice, and so on while the budget lasts.
//!
//! Patterns count copies by size and ignore a limit on items per bin, so the dive only runs where
//! that limit cannot bind (`relax`). A packing it returns is checked in integers.

use super::exact::{integer_prices, Exact, Settled};
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

pub(crate) struct Dive<'a, 't> {
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
    /// The exact search's packing of what the fixed patterns leave: bins of items, or patterns.
    leaf: Vec<Vec<usize>>,
    leaf_patterns: Vec<Pattern>,
}

impl<'a, 't> Dive<'a, 't> {
    /// A dive for a packing into `target` bins, from `master` solved for all of `types`.
    pub(crate) fn new(
        problem: &'a Problem<'a>,
        types: &'t Types,
        type_of: Vec<usize>,
        master: Master<'t>,
        target: u64,
    ) -> Self {
        Dive {
            problem,
            types,
            type_of,
            demand: types.demand(),
            synced: true,
            master,
            fixed: Vec::new(),
            fixed_bins: 0,
            target,
            leaf: Vec::new(),
            leaf_patterns: Vec::new(),
        }
    }

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
}

impl Dive<'_, '_> {
    /// Limited discrepancy search: passes allowing 0, 1, … second choices until one finds a
    /// packing or the budget runs out.
    pub(crate) fn run(&mut self, work: &mut Work) -> Option<Vec<Vec<usize>>> {
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
                Settled::Patterns(_) | Settled::Bins(_) => return Some(true),
                Settled::Impossible => return Some(false),
                Settled::Unknown => {}
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
    fn leaf(&mut self, work: &mut Work) -> Option<Settled> {
        let priced = integer_prices(&self.master, self.types, &self.type_of, &self.demand, work)?;
        if !work.spend(self.type_of.len() as u64 / CELLS_PER_WORK) {
            return None;
        }
        if priced.bound > self.left() {
            return Some(Settled::Impossible);
        }
        let rest = self.residual_items();
        let exact = Exact {
            problem: self.problem,
            types: self.types,
            items: &rest,
            demand: &self.demand,
            priced: &priced,
        };
        let settled = exact.settle(self.left(), LEAF_WORK, LEAF_WORK, work);
        if work.left == 0 {
            return None;
        }
        match &settled {
            Settled::Patterns(patterns) => self.leaf_patterns.clone_from(patterns),
            Settled::Bins(bins) => {
                self.leaf = bins.iter().filter(|b| !b.is_empty()).cloned().collect();
            }
            _ => {}
        }
        Some(settled)
    }

    /// The fixed patterns as bins of items, and the leaf's bins; checked in integers.
    fn packing(&self) -> Option<Vec<Vec<usize>>> {
        let mut next: Vec<usize> = vec![0; self.types.len()];
        let mut bins: Vec<Vec<usize>> = Vec::new();
        let fixed = self
            .fixed
            .iter()
            .map(|&(j, copies)| Some((self.master.pattern(j)?, copies)));
        let leaf = self.leaf_patterns.iter().map(|p| Some((p, 1)));
        for fix in fixed.chain(leaf) {
            let (pattern, copies) = fix?;
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
