//! The linear relaxation of the pattern formulation as a revised simplex that keeps its basis while demands change.
//!
//! Rows are item types (`patterns::Types`), columns patterns; the program is min Σ x over
//! A·x = d, x ≥ 0 (every bin of a packing is a pattern, so a packing into `k` bins is a solution
//! of value `k`). The basis inverse is kept dense (m × m for m types). Column generation
//! ([`Master::optimize`]) runs the primal simplex: a column from the pool of patterns seen so far
//! or, when none improves, from the pricing knapsack. A dive lowers demands as it fixes patterns
//! ([`Master::set_demand`]): the prices stay dual feasible, so the dual simplex over the pool
//! restores feasibility in a few pivots where solving afresh would take hundreds.
//!
//! Everything here is floating point and only guides the search: a dive's fixed patterns are
//! checked in integers, and the proven bound comes from `relax` (integer prices, exact knapsack).
//! The arithmetic is plain IEEE double in a fixed order, so native and WebAssembly builds take the
//! same path.

use super::patterns::{Pattern, Types, CELLS_PER_WORK};
use super::Work;
use std::collections::BTreeMap;

/// A reduced cost below `-IMPROVE` improves the objective.
const IMPROVE: f64 = 1e-9;
/// Pivot elements smaller than this are treated as zero.
const PIVOT_TOL: f64 = 1e-7;
/// Basic values this far below zero count as infeasible.
const FEASIBLE_TOL: f64 = 1e-9;
/// Extra columns each pricing may add besides the best.
const EXTRA_COLUMNS: usize = 4;
/// Weight of the best prices so far in the smoothed prices the knapsack is asked at.
const SMOOTHING: f64 = 0.9;
/// Pool columns entered between two pricings: a pricing (pieces × capacity cells) costs several
/// pivots (m² entries) at the sizes the relaxation is tried on, and re-optimising over the whole
/// pool before each pricing spent most of the time in degenerate pivots.
const POOL_PIVOTS: usize = 10;

/// The stability centre of smoothed pricing and the Farley bound it gave.
struct Smoothing {
    lower: f64,
    center: Option<Vec<f64>>,
}

/// Where column generation stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Solved {
    /// The value of the current basis: the relaxation is worth at most this.
    pub(crate) upper: f64,
    /// Farley's bound from the last pricing: the relaxation is worth at least this (a float,
    /// for pruning, not for proof).
    pub(crate) lower: f64,
}

/// The master's columns, stored one after another (a scan of the pool reads one array): each a
/// pattern (cost 1, one bin) or an exchange (cost 0).
#[derive(Default)]
struct Columns {
    /// Column `j`'s coefficients are `rows[start[j]..start[j + 1]]` and `values[…]`.
    start: Vec<usize>,
    rows: Vec<usize>,
    values: Vec<f64>,
    cost: Vec<f64>,
    /// The pattern of a pattern column.
    pattern: Vec<Option<Pattern>>,
}

impl Columns {
    fn len(&self) -> usize {
        self.cost.len()
    }

    fn push(&mut self, cost: f64, entries: &[(usize, f64)], pattern: Option<Pattern>) -> usize {
        if self.start.is_empty() {
            self.start.push(0);
        }
        for &(t, a) in entries {
            self.rows.push(t);
            self.values.push(a);
        }
        self.start.push(self.rows.len());
        self.cost.push(cost);
        self.pattern.push(pattern);
        self.cost.len() - 1
    }

    /// Column `j`'s coefficients.
    fn entries(&self, j: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.start[j]..self.start[j + 1];
        self.rows[range.clone()]
            .iter()
            .copied()
            .zip(self.values[range].iter().copied())
    }

    /// Σ coefficient · `y` over column `j`.
    fn dot(&self, j: usize, y: &[f64]) -> f64 {
        self.entries(j).map(|(t, a)| y[t] * a).sum()
    }
}

pub(crate) struct Master<'t> {
    types: &'t Types,
    m: usize,
    demand: Vec<u64>,
    columns: Columns,
    known: BTreeMap<Pattern, usize>,
    /// The column at each basis position.
    basis: Vec<usize>,
    /// Each column's basis position, or `usize::MAX`.
    position: Vec<usize>,
    /// The basis inverse, row-major.
    binv: Vec<f64>,
    /// Basic values by position.
    x: Vec<f64>,
    /// Pivots since the inverse was last computed afresh.
    pivots: usize,
    /// Pivots in a row that did not move the basic solution; past `m` of them the entering
    /// column is chosen by Bland's rule, which cannot cycle.
    degenerate: usize,
}

impl<'t> Master<'t> {
    /// The master over `types` with demands `demand`, on the basis of one homogeneous pattern per
    /// type (as many copies as fit, at most the demand): diagonal, and feasible for any demand.
    ///
    /// Beside the patterns it holds the exchange columns of Ben Amor, Desrosiers and Valério de
    /// Carvalho (2006): a bin's slot for an item fits any smaller item, so the cover may hand an
    /// item's place to the next smaller type (and drop the smallest) at no cost. In the dual these
    /// are the inequalities y₁ ≥ y₂ ≥ … ≥ 0 (sizes descending), which some optimal prices always
    /// meet: the optimum is unchanged, but the prices stop swinging and column generation needs
    /// far fewer rounds.
    pub(crate) fn new(types: &'t Types, demand: Vec<u64>) -> Self {
        let m = types.len();
        let mut master = Master {
            types,
            m,
            demand,
            columns: Columns::default(),
            known: BTreeMap::new(),
            basis: Vec::new(),
            position: Vec::new(),
            binv: vec![0.0; m * m],
            x: vec![0.0; m],
            pivots: 0,
            degenerate: 0,
        };
        for t in 0..m {
            let copies = master.demand[t].min(types.fit(t)).max(1);
            master.add(vec![(t, copies)]);
        }
        for t in 0..m {
            let mut entries = vec![(t, -1.0)];
            if t + 1 < m {
                entries.push((t + 1, 1.0));
            }
            master.columns.push(0.0, &entries, None);
            master.position.push(usize::MAX);
        }
        master.reset_basis();
        master
    }

    /// Adds a pattern to the pool (once); its column index.
    pub(crate) fn add(&mut self, pattern: Pattern) -> usize {
        if let Some(&j) = self.known.get(&pattern) {
            return j;
        }
        let entries: Vec<(usize, f64)> = pattern.iter().map(|&(t, k)| (t, k as f64)).collect();
        self.known.insert(pattern.clone(), self.columns.len());
        self.position.push(usize::MAX);
        self.columns.push(1.0, &entries, Some(pattern))
    }

    /// Column `j`'s pattern; `None` for an exchange column.
    pub(crate) fn pattern(&self, j: usize) -> Option<&Pattern> {
        self.columns.pattern[j].as_ref()
    }

    /// The basic columns and their values.
    pub(crate) fn basic(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.basis.iter().copied().zip(self.x.iter().copied())
    }

    /// The objective of the current basis.
    pub(crate) fn value(&self) -> f64 {
        self.basic().map(|(j, x)| self.columns.cost[j] * x).sum()
    }

    /// Dual prices: the basic columns' costs times the basis inverse.
    pub(crate) fn duals(&self) -> Vec<f64> {
        let m = self.m;
        let mut y = vec![0.0f64; m];
        for (row, &j) in self.binv.chunks_exact(m.max(1)).zip(&self.basis) {
            let c = self.columns.cost[j];
            if c == 0.0 {
                continue;
            }
            for (yj, b) in y.iter_mut().zip(row) {
                *yj += c * b;
            }
        }
        y
    }

    /// Column `j`'s reduced cost at prices `y`.
    fn reduced(&self, j: usize, y: &[f64]) -> f64 {
        self.columns.cost[j] - self.columns.dot(j, y)
    }

    /// Work for a pass over the basis inverse.
    fn pivot_work(&self) -> u64 {
        1 + (self.m as u64) * (self.m as u64) / CELLS_PER_WORK
    }

    /// Whether column `j` may enter: exchanges and the homogeneous patterns (one per row) always
    /// may; another pattern only while no more copies of a type are needed than are left.
    fn may_enter(&self, j: usize) -> bool {
        j < self.m
            || self.columns.pattern[j]
                .as_ref()
                .is_none_or(|p| p.iter().all(|&(t, k)| k <= self.demand[t]))
    }

    /// Column generation to optimality from the current (feasible) basis. `None` when the budget
    /// runs out first. Stops early once `stop(solved)` holds.
    ///
    /// Each round enters up to [`POOL_PIVOTS`] columns from the pool, then asks the knapsack for
    /// new ones. The knapsack is asked at smoothed prices (Wentges 1997): a point between the best
    /// prices so far (those that gave the highest Farley bound) and the current ones, which damps
    /// the swings of the prices that make plain column generation slow; when that point yields no
    /// column that improves the current basis, the current prices are asked themselves.
    pub(crate) fn optimize(
        &mut self,
        work: &mut Work,
        stop: impl Fn(&Solved) -> bool,
    ) -> Option<Solved> {
        let mut smoothing = Smoothing {
            lower: 0.0,
            center: None,
        };
        let mut from_pool = 0;
        loop {
            if !work.spend(self.pivot_work()) {
                return None;
            }
            let y = self.duals();
            if from_pool < POOL_PIVOTS {
                if let Some(j) = self.best_in_pool(&y, work) {
                    from_pool += 1;
                    self.enter(j)?;
                    continue;
                }
            }
            // Below the limit the pool had nothing left to offer.
            let pool_done = from_pool < POOL_PIVOTS;
            from_pool = 0;
            let found = self.price(&y, &mut smoothing, work)?;
            let upper = self.value();
            let Some(first) = found.first().cloned() else {
                if pool_done {
                    return Some(Solved {
                        upper,
                        lower: upper,
                    });
                }
                continue;
            };
            let solved = Solved {
                upper,
                lower: smoothing.lower,
            };
            if stop(&solved) {
                return Some(solved);
            }
            for pattern in found {
                self.add(pattern);
            }
            let j = self.add(first);
            self.enter(j)?;
        }
    }

    /// New patterns that improve the basis priced `y`: asked at the smoothed prices, then, if they
    /// yield none, at `y`. Raises `smoothing.lower` to the best Farley bound seen. `None` when the
    /// budget ran out.
    fn price(&self, y: &[f64], smoothing: &mut Smoothing, work: &mut Work) -> Option<Vec<Pattern>> {
        let smoothed: Option<Vec<f64>> = smoothing.center.as_ref().map(|c| {
            c.iter()
                .zip(y)
                .map(|(a, b)| SMOOTHING * a + (1.0 - SMOOTHING) * b)
                .collect()
        });
        for at in smoothed.iter().map(Vec::as_slice).chain([y]) {
            if !work.spend(self.types.pricing_work(&self.demand)) {
                return None;
            }
            let (worth, patterns) = self.types.price(at, &self.demand, EXTRA_COLUMNS, 0.0);
            // Farley: prices no pattern is worth more than 1 of, once divided by the most any
            // is worth, are feasible for the dual, so Σ demand·price / most bounds the relaxation.
            let dual: f64 = self
                .demand
                .iter()
                .zip(at)
                .map(|(&d, &p)| d as f64 * p.max(0.0))
                .sum();
            if worth > 0.0 && dual / worth.max(1.0) > smoothing.lower {
                smoothing.lower = dual / worth.max(1.0);
                smoothing.center = Some(at.iter().map(|p| p.max(0.0)).collect());
            }
            let improving: Vec<Pattern> = patterns
                .into_iter()
                .filter(|p| 1.0 - p.iter().map(|&(t, k)| y[t] * k as f64).sum::<f64>() < -IMPROVE)
                .collect();
            if !improving.is_empty() {
                return Some(improving);
            }
        }
        Some(Vec::new())
    }

    /// The pool column with the most negative reduced cost, if any improves.
    fn best_in_pool(&self, y: &[f64], work: &mut Work) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        let mut scanned = 0u64;
        for j in 0..self.columns.len() {
            scanned += 1 + (self.columns.start[j + 1] - self.columns.start[j]) as u64;
            if self.position[j] != usize::MAX {
                continue;
            }
            let rc = self.reduced(j, y);
            if rc < -IMPROVE && best.is_none_or(|(b, _)| rc < b) && self.may_enter(j) {
                best = Some((rc, j));
                if self.degenerate > self.m {
                    break; // Bland's rule: the first improving column
                }
            }
        }
        work.spend(1 + scanned / CELLS_PER_WORK);
        best.map(|(_, j)| j)
    }

    /// B⁻¹·a for pattern `j`.
    fn ftran(&self, j: usize) -> Vec<f64> {
        let m = self.m;
        (0..m)
            .map(|i| self.columns.dot(j, &self.binv[i * m..(i + 1) * m]))
            .collect()
    }

    /// Primal simplex step: column `j` enters, the ratio test picks who leaves. `None` when no
    /// basic value limits it (numerically impossible for a bounded program: stop).
    fn enter(&mut self, j: usize) -> Option<()> {
        let u = self.ftran(j);
        // Harris's two-pass ratio test: the largest step any basic value allows within a small
        // tolerance, then among the rows that bind within it the largest pivot (a tiny pivot
        // ruins the inverse); in a degenerate run, the basic column of least index (Bland).
        let bound = (0..self.m)
            .filter(|&i| u[i] > PIVOT_TOL)
            .map(|i| (self.x[i].max(0.0) + FEASIBLE_TOL) / u[i])
            .min_by(f64::total_cmp)?;
        let bland = self.degenerate > self.m;
        let r = (0..self.m)
            .filter(|&i| u[i] > PIVOT_TOL && self.x[i].max(0.0) / u[i] <= bound)
            .max_by(|&a, &b| {
                if bland {
                    self.basis[b].cmp(&self.basis[a])
                } else {
                    u[a].total_cmp(&u[b])
                        .then(self.basis[b].cmp(&self.basis[a]))
                }
            })?;
        let step = self.x[r].max(0.0) / u[r];
        self.degenerate = if step <= FEASIBLE_TOL {
            self.degenerate + 1
        } else {
            0
        };
        self.pivot(r, j, &u);
        Some(())
    }

    /// Column `j` replaces the basic column at position `r`; `u` = B⁻¹·a_j.
    fn pivot(&mut self, r: usize, j: usize, u: &[f64]) {
        let m = self.m;
        let theta = self.x[r] / u[r];
        for (xi, &ui) in self.x.iter_mut().zip(u) {
            *xi -= theta * ui;
        }
        self.x[r] = theta;
        let pivot = u[r];
        let leave_row: Vec<f64> = self.binv[r * m..(r + 1) * m]
            .iter()
            .map(|b| b / pivot)
            .collect();
        for (i, &f) in u.iter().enumerate() {
            if i == r || f == 0.0 {
                continue;
            }
            for (b, l) in self.binv[i * m..(i + 1) * m].iter_mut().zip(&leave_row) {
                *b -= f * l;
            }
        }
        self.binv[r * m..(r + 1) * m].copy_from_slice(&leave_row);
        self.position[self.basis[r]] = usize::MAX;
        self.basis[r] = j;
        self.position[j] = r;
        self.pivots += 1;
    }

    /// New demands (a dive fixed or released patterns): the basic values follow, and the dual
    /// simplex restores feasibility. `None` when the budget runs out or it cannot.
    pub(crate) fn set_demand(&mut self, demand: Vec<u64>, work: &mut Work) -> Option<()> {
        self.demand = demand;
        if self.pivots >= self.m.max(8) {
            if !work.spend(self.pivot_work().saturating_mul(self.m as u64)) {
                return None;
            }
            self.refactor();
        } else {
            if !work.spend(self.pivot_work()) {
                return None;
            }
            self.recompute_x();
        }
        self.dual_simplex(work)
    }

    /// x = B⁻¹·d.
    fn recompute_x(&mut self) {
        let m = self.m;
        for i in 0..m {
            let row = &self.binv[i * m..(i + 1) * m];
            self.x[i] = row
                .iter()
                .zip(&self.demand)
                .map(|(b, &d)| b * d as f64)
                .sum();
        }
    }

    /// Dual simplex over the pool until every basic value is non-negative.
    fn dual_simplex(&mut self, work: &mut Work) -> Option<()> {
        let m = self.m;
        loop {
            let Some(r) = (0..m)
                .filter(|&i| self.x[i] < -FEASIBLE_TOL)
                .min_by(|&a, &b| self.x[a].total_cmp(&self.x[b]))
            else {
                return Some(());
            };
            if !work.spend(self.pivot_work()) {
                return None;
            }
            let y = self.duals();
            let row = &self.binv[r * m..(r + 1) * m];
            // (reduced cost, −α) of each column that could enter: α < 0 in the leaving row.
            let mut candidates: Vec<(f64, f64, usize)> = Vec::new();
            let mut scanned = 0u64;
            for j in 0..self.columns.len() {
                scanned += 1 + (self.columns.start[j + 1] - self.columns.start[j]) as u64;
                if self.position[j] != usize::MAX {
                    continue;
                }
                let alpha: f64 = self.columns.dot(j, row);
                if alpha < -PIVOT_TOL && self.may_enter(j) {
                    candidates.push((self.reduced(j, &y).max(0.0), -alpha, j));
                }
            }
            work.spend(scanned / CELLS_PER_WORK);
            // Harris's ratio test on the reduced costs: the largest step that keeps every one
            // above −tolerance, then the largest pivot among the columns it lets in.
            let bound = candidates
                .iter()
                .map(|&(rc, a, _)| (rc + FEASIBLE_TOL) / a)
                .min_by(f64::total_cmp)?;
            let (_, _, j) = candidates
                .into_iter()
                .filter(|&(rc, a, _)| rc / a <= bound)
                .max_by(|p, q| p.1.total_cmp(&q.1).then(q.2.cmp(&p.2)))?;
            let u = self.ftran(j);
            self.pivot(r, j, &u);
        }
    }

    /// Computes the basis inverse afresh (Gauss–Jordan with partial pivoting), then the basic
    /// values; a basis that has become singular in floating point is replaced by the homogeneous
    /// one.
    fn refactor(&mut self) {
        let m = self.m;
        let mut a = vec![0.0f64; m * m];
        for (pos, &j) in self.basis.iter().enumerate() {
            for (t, v) in self.columns.entries(j) {
                a[t * m + pos] = v;
            }
        }
        match invert(&mut a, m) {
            Some(inv) => {
                self.binv = inv;
                self.pivots = 0;
                self.recompute_x();
            }
            None => self.reset_basis(),
        }
    }

    /// The basis of homogeneous patterns (columns `0..m`), with their copies set to the demand.
    fn reset_basis(&mut self) {
        let m = self.m;
        for j in self.basis.drain(..) {
            self.position[j] = usize::MAX;
        }
        self.binv.iter_mut().for_each(|b| *b = 0.0);
        for t in 0..m {
            let copies = self.columns.values[self.columns.start[t]];
            self.basis.push(t);
            self.position[t] = t;
            self.binv[t * m + t] = 1.0 / copies;
        }
        self.pivots = 0;
        self.recompute_x();
    }
}

/// The inverse of the m × m matrix `a` (row-major; destroyed), or `None` when it is singular.
fn invert(a: &mut [f64], m: usize) -> Option<Vec<f64>> {
    let mut inv = vec![0.0f64; m * m];
    for i in 0..m {
        inv[i * m + i] = 1.0;
    }
    for col in 0..m {
        let pivot_row =
            (col..m).max_by(|&p, &q| a[p * m + col].abs().total_cmp(&a[q * m + col].abs()))?;
        if a[pivot_row * m + col].abs() < PIVOT_TOL {
            return None;
        }
        if pivot_row != col {
            for k in 0..m {
                a.swap(pivot_row * m + k, col * m + k);
                inv.swap(pivot_row * m + k, col * m + k);
            }
        }
        let p = a[col * m + col];
        for k in 0..m {
            a[col * m + k] /= p;
            inv[col * m + k] /= p;
        }
        for row in 0..m {
            let f = a[row * m + col];
            if row == col || f == 0.0 {
                continue;
            }
            for k in 0..m {
                a[row * m + k] -= f * a[col * m + k];
                inv[row * m + k] -= f * inv[col * m + k];
            }
        }
    }
    Some(inv)
}
