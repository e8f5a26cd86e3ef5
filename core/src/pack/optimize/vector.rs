//! `--optimize` for shared GPUs whose tenants ask for memory: two-dimensional vector bin packing
//! (compute share and memory), within the same deterministic work budget.
//!
//! Method: first-fit-decreasing under four orders — by compute, by memory, by the sum and by the
//! larger of the two shares of a GPU (the classic vector-packing orders of Panigrahy et al.,
//! "Heuristics for Vector Bin Packing", 2011) — keeping the packing with the fewest GPUs; then bin
//! elimination: the emptiest GPU's items are moved first-fit into the others, and where one does
//! not fit, it may swap with a smaller item of a GPU that then still fits both, the displaced item
//! going back into the pool to move; a GPU whose items all move is gone. The lower bound is the
//! larger of each dimension's Martello–Toth L2 and the item-count limit.

use super::{Budget, Work};
use crate::pack::bounds::l2;

/// A two-dimensional instance: each item's `(compute, memory)`, a bin's capacity in each, and the
/// most items one bin holds.
pub struct VectorProblem<'a> {
    pub items: &'a [(u64, u64)],
    pub capacity: (u64, u64),
    pub max_items: usize,
}

/// What the search found: a bin per item, the bins, and the bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorPacking {
    pub bin_of: Vec<usize>,
    pub bins: usize,
    pub lower_bound: u64,
}

impl VectorProblem<'_> {
    /// No packing uses fewer bins: each dimension alone, and the item count.
    pub fn lower_bound(&self) -> u64 {
        let a: Vec<u64> = self.items.iter().map(|i| i.0).collect();
        let b: Vec<u64> = self.items.iter().map(|i| i.1).collect();
        let count = (self.items.len() as u64).div_ceil(self.max_items.max(1) as u64);
        l2(&a, self.capacity.0)
            .max(l2(&b, self.capacity.1))
            .max(count)
    }

    fn fits(&self, load: (u64, u64), count: usize, item: (u64, u64)) -> bool {
        count < self.max_items
            && load.0 + item.0 <= self.capacity.0
            && load.1 + item.1 <= self.capacity.1
    }

    /// An item's size in each dimension as parts per 2^20 of a bin, to compare dimensions.
    fn scaled(&self, item: (u64, u64)) -> (u128, u128) {
        let part = |v: u64, c: u64| (u128::from(v) << 20) / u128::from(c.max(1));
        (part(item.0, self.capacity.0), part(item.1, self.capacity.1))
    }
}

/// Packs with the best of the four FFD orders, then eliminates bins while the budget lasts. The
/// result never has more bins than `start` (a feasible packing, a bin per item).
pub fn improve_vector(problem: &VectorProblem, start: &[usize], budget: Budget) -> VectorPacking {
    let mut work = Work { left: budget.work };
    let lower_bound = problem.lower_bound();
    let mut best = bins_of(start);
    for key in 0..4 {
        if best.len() as u64 <= lower_bound {
            break;
        }
        let mut order: Vec<usize> = (0..problem.items.len()).collect();
        order.sort_by_key(|&i| {
            let (a, b) = problem.scaled(problem.items[i]);
            std::cmp::Reverse(match key {
                0 => (a, b),
                1 => (b, a),
                2 => (a + b, a.max(b)),
                _ => (a.max(b), a + b),
            })
        });
        if !work.spend(problem.items.len() as u64) {
            break;
        }
        let packed = first_fit(problem, &order, &mut work);
        if packed.len() < best.len() {
            best = packed;
        }
    }
    // Bin-centric starts: fill one GPU at a time with the ask that best matches the room left
    // (largest dot product, then smallest remaining L2 norm; Panigrahy et al.).
    for rule in [Fill::DotProduct, Fill::Norm] {
        if best.len() as u64 <= lower_bound {
            break;
        }
        if let Some(packed) = fill_bins(problem, rule, &mut work) {
            if packed.len() < best.len() {
                best = packed;
            }
        }
    }
    while best.len() as u64 > lower_bound && work.left > 0 {
        match eliminate_one(problem, &best, &mut work) {
            Some(fewer) => best = fewer,
            None => break,
        }
    }
    let mut bin_of = vec![0; problem.items.len()];
    for (b, items) in best.iter().enumerate() {
        for &i in items {
            bin_of[i] = b;
        }
    }
    VectorPacking {
        bin_of,
        bins: best.len(),
        lower_bound,
    }
}

fn bins_of(bin_of: &[usize]) -> Vec<Vec<usize>> {
    let mut bins: Vec<Vec<usize>> = vec![Vec::new(); bin_of.iter().max().map_or(0, |m| m + 1)];
    for (i, &b) in bin_of.iter().enumerate() {
        bins[b].push(i);
    }
    bins.retain(|b| !b.is_empty());
    bins
}

fn load(problem: &VectorProblem, bin: &[usize]) -> (u64, u64) {
    bin.iter().fold((0, 0), |l, &i| {
        (l.0 + problem.items[i].0, l.1 + problem.items[i].1)
    })
}

/// First fit in `order` (the scan over open bins is charged to the budget).
fn first_fit(problem: &VectorProblem, order: &[usize], work: &mut Work) -> Vec<Vec<usize>> {
    let mut bins: Vec<Vec<usize>> = Vec::new();
    let mut loads: Vec<(u64, u64)> = Vec::new();
    for &i in order {
        let item = problem.items[i];
        let at = loads
            .iter()
            .zip(&bins)
            .position(|(&l, b)| problem.fits(l, b.len(), item));
        work.spend(at.map_or(bins.len(), |a| a + 1) as u64);
        match at {
            Some(b) => {
                loads[b] = (loads[b].0 + item.0, loads[b].1 + item.1);
                bins[b].push(i);
            }
            None => {
                loads.push(item);
                bins.push(vec![i]);
            }
        }
    }
    bins
}

#[derive(Clone, Copy)]
enum Fill {
    DotProduct,
    Norm,
}

/// Fills bins one at a time: into the open bin, the fitting item that scores best against the
/// room left; a new bin when none fits. `None` when the budget runs out first.
fn fill_bins(problem: &VectorProblem, rule: Fill, work: &mut Work) -> Option<Vec<Vec<usize>>> {
    let one = 1u128 << 20;
    let mut left: Vec<usize> = (0..problem.items.len()).collect();
    let mut bins = Vec::new();
    while !left.is_empty() {
        let mut bin: Vec<usize> = Vec::new();
        let mut load = (0u64, 0u64);
        loop {
            if !work.spend(left.len() as u64) {
                return None;
            }
            let (r0, r1) = {
                let (a, b) = problem.scaled(load);
                (one.saturating_sub(a), one.saturating_sub(b))
            };
            let pick = left
                .iter()
                .enumerate()
                .filter(|&(_, &i)| problem.fits(load, bin.len(), problem.items[i]))
                .max_by_key(|&(_, &i)| {
                    let (a, b) = problem.scaled(problem.items[i]);
                    match rule {
                        Fill::DotProduct => a * r0 + b * r1,
                        // Smallest ‖room − item‖² first (negated for max_by_key).
                        Fill::Norm => {
                            let (d0, d1) = (r0 - a.min(r0), r1 - b.min(r1));
                            u128::MAX - (d0 * d0 + d1 * d1)
                        }
                    }
                })
                .map(|(k, _)| k);
            let Some(k) = pick else { break };
            let i = left.swap_remove(k);
            load = (load.0 + problem.items[i].0, load.1 + problem.items[i].1);
            bin.push(i);
        }
        if bin.is_empty() {
            // An item larger than a bin: alone, as FFD puts it.
            bin.push(left.swap_remove(0));
        }
        bins.push(bin);
    }
    Some(bins)
}

/// Tries to empty one bin into the others, the least filled first, then the next; `None` when
/// no bin empties within the budget.
fn eliminate_one(
    problem: &VectorProblem,
    bins: &[Vec<usize>],
    work: &mut Work,
) -> Option<Vec<Vec<usize>>> {
    let fill = |b: &[usize]| {
        let (a, m) = problem.scaled(load(problem, b));
        a + m
    };
    let mut victims: Vec<usize> = (0..bins.len()).collect();
    victims.sort_by_key(|&v| (fill(&bins[v]), bins[v].len()));
    for victim in victims {
        if work.left == 0 {
            return None;
        }
        if let Some(fewer) = empty_into_others(problem, bins, victim, work) {
            return Some(fewer);
        }
    }
    None
}

/// Moves bin `victim`'s items into the other bins, first fit, swapping an item that does not fit
/// for a smaller one of a bin it then fits; `None` when an item finds no place.
fn empty_into_others(
    problem: &VectorProblem,
    bins: &[Vec<usize>],
    victim: usize,
    work: &mut Work,
) -> Option<Vec<Vec<usize>>> {
    let mut rest: Vec<Vec<usize>> = bins
        .iter()
        .enumerate()
        .filter(|&(b, _)| b != victim)
        .map(|(_, b)| b.clone())
        .collect();
    let mut loads: Vec<(u64, u64)> = rest.iter().map(|b| load(problem, b)).collect();
    let mut pool: Vec<usize> = bins[victim].clone();
    // Each swap puts a strictly smaller item (by the sum of its scaled sizes) back in the pool,
    // so the loop ends; the budget bounds it too.
    let size = |i: usize| {
        let (a, m) = problem.scaled(problem.items[i]);
        a + m
    };
    while let Some(i) = pool.pop() {
        if !work.spend(rest.len() as u64 + 1) {
            return None;
        }
        let item = problem.items[i];
        if let Some(b) = (0..rest.len()).find(|&b| problem.fits(loads[b], rest[b].len(), item)) {
            loads[b] = (loads[b].0 + item.0, loads[b].1 + item.1);
            rest[b].push(i);
            continue;
        }
        let swap = (0..rest.len()).find_map(|b| {
            rest[b]
                .iter()
                .position(|&j| {
                    let without = (
                        loads[b].0 - problem.items[j].0,
                        loads[b].1 - problem.items[j].1,
                    );
                    size(j) < size(i) && problem.fits(without, rest[b].len() - 1, item)
                })
                .map(|k| (b, k))
        });
        let (b, k) = swap?;
        work.spend(rest[b].len() as u64);
        let j = std::mem::replace(&mut rest[b][k], i);
        let (lj, li) = (problem.items[j], item);
        loads[b] = (loads[b].0 - lj.0 + li.0, loads[b].1 - lj.1 + li.1);
        pool.push(j);
    }
    Some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bin of capacity (c, m) split into `parts` items whose sizes sum to it exactly in both
    /// dimensions: `k` such bins need exactly `k` bins.
    fn perfect(k: usize, parts: usize, capacity: (u64, u64), seed: u64) -> Vec<(u64, u64)> {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut items = Vec::new();
        for _ in 0..k {
            let cut = |cap: u64, next: &mut dyn FnMut() -> u64| {
                let mut cuts: Vec<u64> = (1..parts).map(|_| next() % cap).collect();
                cuts.push(0);
                cuts.push(cap);
                cuts.sort_unstable();
                cuts.windows(2).map(|w| w[1] - w[0]).collect::<Vec<u64>>()
            };
            let a = cut(capacity.0, &mut next);
            let mut b = cut(capacity.1, &mut next);
            b.rotate_left(1);
            items.extend(a.into_iter().zip(b).filter(|&(a, b)| a + b > 0));
        }
        items
    }

    #[test]
    fn never_overfills_and_never_uses_more_bins_than_it_started_with() {
        for seed in 1..40 {
            let items = perfect(6, 4, (1000, 800), seed);
            let problem = VectorProblem {
                items: &items,
                capacity: (1000, 800),
                max_items: usize::MAX,
            };
            let start: Vec<usize> = (0..items.len()).collect();
            let out = improve_vector(&problem, &start, Budget::work(200_000));
            assert!(out.bins <= items.len());
            assert!(out.bins as u64 >= out.lower_bound);
            let mut loads = vec![(0u64, 0u64); out.bins];
            for (i, &b) in out.bin_of.iter().enumerate() {
                loads[b].0 += items[i].0;
                loads[b].1 += items[i].1;
            }
            assert!(loads.iter().all(|l| l.0 <= 1000 && l.1 <= 800), "{seed}");
            assert!(loads.iter().all(|l| l.0 + l.1 > 0), "no empty bin: {seed}");
        }
    }

    #[test]
    fn respects_the_item_limit() {
        let items = vec![(1, 1); 10];
        let problem = VectorProblem {
            items: &items,
            capacity: (100, 100),
            max_items: 3,
        };
        let out = improve_vector(&problem, &(0..10).collect::<Vec<_>>(), Budget::work(10_000));
        assert_eq!(out.bins, 4);
        assert_eq!(out.lower_bound, 4);
    }
}
