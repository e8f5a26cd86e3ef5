//! Consistent neighbourhood search (after Buljubašić & Vasquez 2016): one bin fewer by repairing a partial packing.
//!
//! To go from `m` bins to `m − 1`, the three least-filled bins are emptied into a *trash can* and
//! the other `m − 3` bins are kept, always within capacity and item limit (the partial packing stays
//! "consistent"). The search moves items between the bins and the trash can to make the trash can
//! lighter, until what it holds fits the two bins still to fill. Two kinds of move alternate:
//!
//! - a tabu search over swaps of up to two items of one bin for up to two of the trash can: each
//!   step takes the move that leaves the least weight in the trash can and, at equal weight, the
//!   most items (many small items are easier to pack than a few large ones); an item that left a bin
//!   may not go back to it for a few steps, so the search does not undo itself;
//! - a descent that refills one bin at a time from its own items and the trash can together, as
//!   full as a bounded subset search can, while that makes the trash can lighter.
//!
//! Unlike the overflow search in `search`, no bin is ever over capacity, so the moves stay small and
//! cheap, and the goal is measured in one place.

use super::search::{groups, Group, Lowest, Problem, SplitMix};
use super::{Work, MAX_DEPTH};
use std::cmp::Reverse;

/// Bins left for the trash can; one more than this is emptied at the start.
const SPARE: usize = 2;
/// Tabu steps without a lighter trash can before a descent.
const STALL: u64 = 200;
/// Nodes one bin's refill may search.
const PACK_NODES: u64 = 2_000;
/// Nodes the check "does the trash can fit the spare bins" may search.
const FIT_NODES: u64 = 10_000;
/// Trash-can groups looked at below the largest that fits, per bin group (for tabu and ties).
const SCAN: usize = 6;

/// Packs the items of `bins` (a feasible packing) into at least one bin fewer; `None` when the
/// budget runs out first or there are fewer than two bins. `number(i)` is item `i`'s number in the
/// caller's numbering, which orders the bins the search keeps (the optimizer renumbers the items
/// for the cache, and the search takes the same path as on the caller's numbers).
pub(crate) fn one_fewer(
    problem: &Problem,
    bins: &[Vec<usize>],
    number: impl Fn(usize) -> usize,
    seed: u64,
    work: &mut Work,
) -> Option<Vec<Vec<usize>>> {
    let mut search = Cns::new(problem, bins, number, seed)?;
    loop {
        if let Some(done) = search.finish(work) {
            return Some(done);
        }
        search.tabu(work)?;
        search.descent(work)?;
    }
}

struct Cns<'a> {
    problem: &'a Problem<'a>,
    bins: Vec<Vec<usize>>,
    load: Vec<u64>,
    trash: Vec<usize>,
    trash_load: u64,
    /// Bins the trash can must fit into.
    spare: usize,
    /// The bin each item last left for the trash can, and the step before which it may not go back.
    banned: Vec<(usize, u64)>,
    step: u64,
    rng: SplitMix,
}

/// A candidate tabu move: group `out` of bin `bin` goes to the trash can, group `into` comes in.
#[derive(Clone, Copy)]
struct Move {
    bin: usize,
    out: Group,
    into: Group,
}

impl<'a> Cns<'a> {
    fn new(
        problem: &'a Problem<'a>,
        bins: &[Vec<usize>],
        number: impl Fn(usize) -> usize,
        seed: u64,
    ) -> Option<Self> {
        let sizes = problem.sizes;
        let target = bins.len().checked_sub(1).filter(|&t| t > 0)?;
        let spare = SPARE.min(target);
        // Sort keys computed once, not per comparison: each was a walk through a bin's items,
        // a cache miss apiece at a million asks (BENCHMARKS.md, growth).
        let loads: Vec<u64> = bins
            .iter()
            .map(|b| b.iter().map(|&i| sizes[i]).sum())
            .collect();
        let mut order: Vec<(u64, Reverse<usize>)> = loads
            .iter()
            .enumerate()
            .map(|(b, &l)| (l, Reverse(b)))
            .collect();
        order.sort_unstable();
        let (emptied, kept) = order.split_at(bins.len() - (target - spare));
        let trash: Vec<usize> = emptied
            .iter()
            .flat_map(|&(_, Reverse(b))| bins[b].iter().copied())
            .collect();
        // A fixed order (by first item, as the caller numbers items) for the kept bins, rather
        // than the order of their loads; equal keys (empty bins) keep the order of their loads.
        let mut kept: Vec<(Option<usize>, usize, usize)> = kept
            .iter()
            .enumerate()
            .map(|(at, &(_, Reverse(b)))| (bins[b].first().map(|&i| number(i)), at, b))
            .collect();
        kept.sort_unstable();
        Some(Cns {
            problem,
            load: kept.iter().map(|&(_, _, b)| loads[b]).collect(),
            bins: kept.iter().map(|&(_, _, b)| bins[b].clone()).collect(),
            trash_load: trash.iter().map(|&i| sizes[i]).sum(),
            trash,
            spare,
            banned: vec![(usize::MAX, 0); sizes.len()],
            step: 0,
            rng: SplitMix::new(seed),
        })
    }

    /// The goal, lexicographic: a lighter trash can, then one with more items.
    fn objective(&self) -> (u64, Reverse<usize>) {
        (self.trash_load, Reverse(self.trash.len()))
    }

    /// The full packing, once the trash can fits the spare bins (bins the search emptied dropped).
    fn finish(&self, work: &mut Work) -> Option<Vec<Vec<usize>>> {
        let spare = self.pack_trash(work)?;
        let bins = self.bins.iter().cloned().chain(spare);
        Some(bins.filter(|b| !b.is_empty()).collect())
    }

    /// The trash can split into `spare` bins, if a bounded search finds a way.
    fn pack_trash(&self, work: &mut Work) -> Option<Vec<Vec<usize>>> {
        let (cap, max) = (self.problem.capacity, self.problem.max_items);
        let n = self.trash.len();
        if self.trash_load > self.spare as u64 * cap || n > self.spare.saturating_mul(max) {
            return None;
        }
        match self.spare {
            0 => (n == 0).then(Vec::new),
            1 => Some(vec![self.trash.clone()]),
            _ => {
                let sizes = self.problem.sizes;
                let mut items = self.trash.clone();
                items.sort_by_key(|&i| Reverse(sizes[i]));
                let mut split = Split {
                    sizes,
                    items: &items,
                    low: self.trash_load.saturating_sub(cap),
                    cap,
                    min_count: n.saturating_sub(max),
                    max_count: max,
                    chosen: Vec::new(),
                    nodes: 0,
                };
                // The largest item goes to the first bin: the two bins are interchangeable.
                split.chosen.push(0);
                let found = split.run(1, sizes[items[0]]);
                work.spend(split.nodes);
                let first: Vec<usize> = split.chosen.iter().map(|&k| items[k]).collect();
                let second = (0..n)
                    .filter(|k| !split.chosen.contains(k))
                    .map(|k| items[k])
                    .collect();
                found.then(|| vec![first, second])
            }
        }
    }

    /// Tabu steps until the trash can fits or stops getting lighter; `None` when the budget is gone.
    fn tabu(&mut self, work: &mut Work) -> Option<()> {
        let sizes = self.problem.sizes;
        let mut bin_groups: Vec<Vec<Group>> = vec![Vec::new(); self.bins.len()];
        let mut stale = vec![true; self.bins.len()];
        let mut trash_groups = Vec::new();
        let mut best = self.objective();
        let mut stall = 0;
        while stall < STALL {
            if !work.spend(1) {
                return None;
            }
            for (b, g) in bin_groups.iter_mut().enumerate() {
                if stale[b] {
                    groups(&self.bins[b], sizes, g);
                    g.push(Group::EMPTY);
                    g.sort_by_key(|g| g.size);
                    stale[b] = false;
                }
            }
            groups(&self.trash, sizes, &mut trash_groups);
            trash_groups.push(Group::EMPTY);
            trash_groups.sort_by_key(|g| g.size);
            work.spend(trash_groups.len() as u64);
            let Some(m) = self.best_move(&bin_groups, &trash_groups, work) else {
                return Some(());
            };
            self.apply(&m);
            stale[m.bin] = true;
            self.step += 1;
            if self.objective() < best {
                best = self.objective();
                stall = 0;
                if self.pack_trash(work).is_some() {
                    return Some(());
                }
            } else {
                stall += 1;
            }
        }
        Some(())
    }

    /// The best non-tabu swap over all bins (ties at random).
    fn best_move(
        &mut self,
        bin_groups: &[Vec<Group>],
        trash_groups: &[Group],
        work: &mut Work,
    ) -> Option<Move> {
        let (cap, max) = (self.problem.capacity, self.problem.max_items);
        let sizes = self.problem.sizes;
        // Keyed by the change in the trash can's weight, then in minus its item count.
        let mut best = Lowest::new();
        for (bin, outs) in bin_groups.iter().enumerate() {
            work.spend(2 * outs.len() as u64);
            let room = cap - self.load[bin];
            let count = self.bins[bin].len();
            for out in outs {
                let limit = room + out.size;
                let end = trash_groups.partition_point(|g| g.size <= limit);
                for into in trash_groups[..end].iter().rev().take(SCAN) {
                    if (out.len == 0 && into.len == 0)
                        || count + into.len - out.len > max
                        || same_sizes(out, into, sizes)
                        || into.members().iter().any(|&i| {
                            let (from, until) = self.banned[i];
                            from == bin && until > self.step
                        })
                    {
                        continue;
                    }
                    let key = (
                        i128::from(out.size) - i128::from(into.size),
                        into.len as i64 - out.len as i64,
                    );
                    best.offer(key, &mut self.rng, || Move {
                        bin,
                        out: *out,
                        into: *into,
                    });
                }
            }
        }
        best.into_best()
    }

    fn apply(&mut self, m: &Move) {
        let sizes = self.problem.sizes;
        let tenure = 1 + self.rng.below(1 + self.bins.len().min(10) as u64);
        for &i in m.out.members() {
            self.bins[m.bin].retain(|&x| x != i);
            self.load[m.bin] -= sizes[i];
            self.trash.push(i);
            self.trash_load += sizes[i];
            self.banned[i] = (m.bin, self.step + tenure);
        }
        for &i in m.into.members() {
            self.trash.retain(|&x| x != i);
            self.trash_load -= sizes[i];
            self.bins[m.bin].push(i);
            self.load[m.bin] += sizes[i];
        }
    }

    /// Refills bins one at a time from their items and the trash can while that lightens the trash
    /// can; `None` when the budget is gone.
    fn descent(&mut self, work: &mut Work) -> Option<()> {
        let sizes = self.problem.sizes;
        let (cap, max) = (self.problem.capacity, self.problem.max_items);
        let count = self.bins.len();
        if count == 0 {
            return Some(());
        }
        let mut improved = true;
        while improved {
            improved = false;
            let offset = self.rng.below(count as u64) as usize;
            for k in 0..count {
                let b = (k + offset) % count;
                let mut pool: Vec<usize> =
                    self.bins[b].iter().chain(&self.trash).copied().collect();
                pool.sort_by_key(|&i| Reverse(sizes[i]));
                let mut fill = Fill {
                    sizes,
                    pool: &pool,
                    cap,
                    max,
                    chosen: Vec::new(),
                    best: Vec::new(),
                    best_key: (self.load[b], Reverse(self.bins[b].len())),
                    nodes: 0,
                };
                let suffix: Vec<u64> = suffix_sums(&pool, sizes);
                fill.run(0, 0, &suffix);
                if !work.spend(fill.nodes + pool.len() as u64) {
                    return None;
                }
                if fill.best.is_empty() {
                    continue;
                }
                let into: Vec<usize> = fill.best.iter().map(|&k| pool[k]).collect();
                let back: Vec<usize> = (0..pool.len())
                    .filter(|k| !fill.best.contains(k))
                    .map(|k| pool[k])
                    .collect();
                self.load[b] = fill.best_key.0;
                self.trash_load = back.iter().map(|&i| sizes[i]).sum();
                self.bins[b] = into;
                self.trash = back;
                improved = true;
                if self.pack_trash(work).is_some() {
                    return Some(());
                }
            }
        }
        Some(())
    }
}

/// Two groups of the same sizes: swapping them changes nothing that matters.
fn same_sizes(a: &Group, b: &Group, sizes: &[u64]) -> bool {
    if a.len != b.len || a.size != b.size {
        return false;
    }
    let sorted = |g: &Group| {
        let mut s = [0u64; 2];
        for (k, &i) in g.members().iter().enumerate() {
            s[k] = sizes[i];
        }
        s.sort_unstable();
        s
    };
    sorted(a) == sorted(b)
}

/// `out[k]` is the total size of `items[k..]`.
fn suffix_sums(items: &[usize], sizes: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; items.len() + 1];
    for k in (0..items.len()).rev() {
        out[k] = out[k + 1] + sizes[items[k]];
    }
    out
}

/// A subset of `items` (largest first) whose total is in `low..=cap` and count in
/// `min_count..=max_count`: the first of two bins, the rest the second.
struct Split<'a> {
    sizes: &'a [u64],
    items: &'a [usize],
    low: u64,
    cap: u64,
    min_count: usize,
    max_count: usize,
    chosen: Vec<usize>,
    nodes: u64,
}

impl Split<'_> {
    fn run(&mut self, from: usize, fill: u64) -> bool {
        if fill >= self.low && self.chosen.len() >= self.min_count {
            return true;
        }
        for k in from..self.items.len() {
            self.nodes += 1;
            if self.nodes > FIT_NODES {
                return false;
            }
            let size = self.sizes[self.items[k]];
            if fill + size > self.cap || self.chosen.len() >= self.max_count.min(MAX_DEPTH) {
                continue;
            }
            self.chosen.push(k);
            if self.run(k + 1, fill + size) {
                return true;
            }
            self.chosen.pop();
        }
        false
    }
}

/// The fullest subset of `pool` (largest first) within capacity and item limit; at equal fill the
/// one with fewer items. Only subsets better than `best_key` are recorded.
struct Fill<'a> {
    sizes: &'a [u64],
    pool: &'a [usize],
    cap: u64,
    max: usize,
    chosen: Vec<usize>,
    best: Vec<usize>,
    best_key: (u64, Reverse<usize>),
    nodes: u64,
}

impl Fill<'_> {
    fn run(&mut self, from: usize, fill: u64, suffix: &[u64]) {
        let key = (fill, Reverse(self.chosen.len()));
        if key > self.best_key {
            self.best_key = key;
            self.best.clone_from(&self.chosen);
        }
        let mut last_tried = None;
        for k in from..self.pool.len() {
            if fill + suffix[k] < self.best_key.0 || self.best_key.0 == self.cap {
                return;
            }
            self.nodes += 1;
            if self.nodes > PACK_NODES || self.chosen.len() >= self.max.min(MAX_DEPTH) {
                return;
            }
            let size = self.sizes[self.pool[k]];
            // Equal sizes are interchangeable: trying one of them at this level is enough.
            if last_tried == Some(size) || fill + size > self.cap {
                continue;
            }
            last_tried = Some(size);
            self.chosen.push(k);
            self.run(k + 1, fill + size, suffix);
            self.chosen.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// First fit in input order, within capacity and item limit.
    fn first_fit(sizes: &[u64], capacity: u64, max_items: usize) -> Vec<Vec<usize>> {
        let mut bins: Vec<Vec<usize>> = Vec::new();
        let mut load: Vec<u64> = Vec::new();
        for (i, &s) in sizes.iter().enumerate() {
            match (0..bins.len()).find(|&b| load[b] + s <= capacity && bins[b].len() < max_items) {
                Some(b) => {
                    bins[b].push(i);
                    load[b] += s;
                }
                None => {
                    bins.push(vec![i]);
                    load.push(s);
                }
            }
        }
        bins
    }

    fn check(problem: &Problem, bins: &[Vec<usize>]) {
        let mut seen: Vec<usize> = bins.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..problem.sizes.len()).collect::<Vec<_>>());
        for b in bins {
            assert!(!b.is_empty());
            assert!(b.len() <= problem.max_items, "{} items", b.len());
            let load: u64 = b.iter().map(|&i| problem.sizes[i]).sum();
            assert!(load <= problem.capacity, "load {load}");
        }
    }

    #[test]
    fn repairs_the_perfect_triplets_first_fit_misses() {
        // Bins of 100 filled exactly by 50+30+20 and 45+35+20 (three times each); first fit in
        // this order pairs the large items and needs a bin more.
        let sizes = [
            50, 45, 50, 45, 50, 45, 35, 35, 35, 30, 30, 30, 20, 20, 20, 20, 20, 20,
        ];
        let problem = Problem {
            sizes: &sizes,
            capacity: 100,
            max_items: usize::MAX,
        };
        let start = first_fit(&sizes, 100, usize::MAX);
        assert_eq!(start.len(), 7);
        let better = one_fewer(&problem, &start, |i| i, 1, &mut Work { left: 1_000_000 }).unwrap();
        assert_eq!(better.len(), 6, "six bins are full: none can go");
        check(&problem, &better);
    }

    #[test]
    fn gives_up_when_the_budget_is_spent_and_on_one_bin() {
        // Five items of 60 need five bins: no search can save one.
        let sizes = [60; 5];
        let problem = Problem {
            sizes: &sizes,
            capacity: 100,
            max_items: usize::MAX,
        };
        let start = first_fit(&sizes, 100, usize::MAX);
        let mut work = Work { left: 50_000 };
        assert!(one_fewer(&problem, &start, |i| i, 1, &mut work).is_none());
        assert_eq!(work.left, 0);
        assert!(one_fewer(&problem, &start[..1], |i| i, 1, &mut Work { left: 1000 }).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn one_bin_fewer_is_always_a_feasible_packing(
            sizes in prop::collection::vec(1u64..=100, 2..60),
            max_items in 2usize..6,
            seed in any::<u64>(),
        ) {
            let problem = Problem { sizes: &sizes, capacity: 100, max_items };
            let start = first_fit(&sizes, 100, max_items);
            let run = || one_fewer(&problem, &start, |i| i, seed, &mut Work { left: 20_000 });
            let result = run();
            if let Some(bins) = &result {
                prop_assert!(bins.len() < start.len());
                check(&problem, bins);
            }
            prop_assert_eq!(result, run(), "deterministic");
        }
    }
}
