//! The local search that removes a bin: a tabu search over overfilled packings (after Alvim et al.'s HI_BP).
//!
//! To go from `m` bins to `m − 1`, the least-filled bin is taken apart and each of its items goes
//! to the bin where it overflows least. The search then moves groups of up to two items between an
//! overfilled bin and another bin (a shift, or a swap of a group for a smaller one) to bring the
//! total overflow to zero, at which point every bin fits and one bin is saved. Each step takes the
//! move that lowers the overflow most, ties broken at random; when no move helps it takes the least
//! harmful one, and an item that just left a bin may not go back for a few steps (tabu), so the
//! search does not undo itself.

use super::Work;

/// A deterministic pseudo-random sequence (splitmix64): only for tie-breaks and tabu tenures, so the
/// same input always gives the same packing.
pub(crate) struct SplitMix(u64);

impl SplitMix {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), up to a negligible modulo bias.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The lowest-keyed of the candidates offered, ties broken uniformly at random (reservoir
/// sampling: the k-th tie replaces the kept one with probability 1/k).
pub(crate) struct Lowest<K, T> {
    best: Option<(K, T)>,
    ties: u64,
}

impl<K: Ord, T> Lowest<K, T> {
    pub(crate) fn new() -> Self {
        Lowest {
            best: None,
            ties: 0,
        }
    }

    /// Offers the candidate `make` builds, under `key` (lower is better).
    pub(crate) fn offer(&mut self, key: K, rng: &mut SplitMix, make: impl FnOnce() -> T) {
        let take = match &self.best {
            None => true,
            Some((k, _)) if key < *k => true,
            Some((k, _)) if key == *k => {
                self.ties += 1;
                rng.below(self.ties + 1) == 0
            }
            _ => false,
        };
        if take {
            if self.best.as_ref().is_none_or(|(k, _)| key < *k) {
                self.ties = 0;
            }
            self.best = Some((key, make()));
        }
    }

    /// Whether a candidate under `key` could be taken: `offer` ignores a worse one, drawing no
    /// random number for it.
    pub(crate) fn would_take(&self, key: &K) -> bool {
        self.best.as_ref().is_none_or(|(k, _)| key <= k)
    }

    /// The best key offered so far.
    pub(crate) fn key(&self) -> Option<&K> {
        self.best.as_ref().map(|(k, _)| k)
    }

    pub(crate) fn into_best(self) -> Option<T> {
        self.best.map(|(_, t)| t)
    }
}

/// A bin-packing instance: the items and the two limits every bin must respect.
pub struct Problem<'a> {
    pub sizes: &'a [u64],
    pub capacity: u64,
    /// The most items one bin may hold (MPS clients per GPU); `usize::MAX` for no limit.
    pub max_items: usize,
}

/// A set of one or two items and their total size.
#[derive(Clone, Copy)]
pub(crate) struct Group {
    pub(crate) size: u64,
    pub(crate) items: [usize; 2],
    pub(crate) len: usize,
}

impl Group {
    /// The group of no items.
    pub(crate) const EMPTY: Group = Group {
        size: 0,
        items: [0, 0],
        len: 0,
    };
}

impl Group {
    pub(crate) fn members(&self) -> &[usize] {
        &self.items[..self.len]
    }
}

/// Every one- and two-item subset of `items`.
pub(crate) fn groups(items: &[usize], sizes: &[u64], out: &mut Vec<Group>) {
    out.clear();
    for (x, &i) in items.iter().enumerate() {
        out.push(Group {
            size: sizes[i],
            items: [i, 0],
            len: 1,
        });
        for &j in &items[x + 1..] {
            out.push(Group {
                size: sizes[i] + sizes[j],
                items: [i, j],
                len: 2,
            });
        }
    }
}

/// What the scan reads of a group besides its size: how many items it has, and whether any of
/// them has moved (only then can the tabu list forbid a move, and it is read for the group).
#[derive(Clone, Copy)]
struct Shape {
    len: u8,
    moved: bool,
}

/// Every bin's groups, by size, in one array in bin order: the search scans all bins for each
/// move, and with a `Vec` per bin each bin was a cache miss at a million bins. The scan searches
/// every bin's sizes, an array of their own, and checks a candidate by its [`Shape`], a third
/// array, reading the group itself only for the move taken: nearly every bin offers a move as
/// good as the best (ties are many), and reading a 64-byte entry (the group and its members' tabu
/// entries) for each made a step read the whole table, 128 MB at a million asks, once per
/// overfilled bin.
#[derive(Default)]
struct GroupTable {
    groups: Vec<Group>,
    /// `groups[k].size`.
    sizes: Vec<u64>,
    shapes: Vec<Shape>,
    /// Where each bin's groups start, and how many there are.
    spans: Vec<(usize, usize)>,
    /// Reused while a bin's groups are made.
    fresh: Vec<Group>,
}

impl GroupTable {
    fn of(&self, b: usize) -> &[Group] {
        let (start, len) = self.spans[b];
        &self.groups[start..start + len]
    }

    /// Bin `b`'s group sizes, in the order of [`of`](Self::of).
    fn sizes_of(&self, b: usize) -> &[u64] {
        let (start, len) = self.spans[b];
        &self.sizes[start..start + len]
    }

    /// Bin `b`'s group shapes, in the order of [`of`](Self::of).
    fn shapes_of(&self, b: usize) -> &[Shape] {
        let (start, len) = self.spans[b];
        &self.shapes[start..start + len]
    }

    /// Bin `b`'s groups are `new` (bins are stored first in order): in place where they fit,
    /// else at the end (a move changes two bins, so the table grows slowly).
    fn store(&mut self, b: usize, new: &[Group], moved: impl Fn(&Group) -> bool) {
        if b == self.spans.len() {
            self.spans.push((self.groups.len(), 0));
        }
        let (start, len) = self.spans[b];
        let start = if new.len() <= len {
            self.groups[start..start + new.len()].copy_from_slice(new);
            start
        } else {
            self.groups.extend_from_slice(new);
            self.sizes.resize(self.groups.len(), 0);
            let unset = Shape {
                len: 0,
                moved: false,
            };
            self.shapes.resize(self.groups.len(), unset);
            self.groups.len() - new.len()
        };
        for (k, group) in new.iter().enumerate() {
            self.sizes[start + k] = group.size;
            self.shapes[start + k] = Shape {
                len: group.len as u8,
                moved: moved(group),
            };
        }
        self.spans[b] = (start, new.len());
    }
}

/// Whether `sizes` (a bin's group sizes) hold some g that a group of size `a` could be swapped
/// for with a change in the total overflow no worse than `best`, where `(lo, hi)` are the least
/// and the most of one bin's excess and the other's room. With d = a − g, the change is
/// −min(d, lo) up to d = hi and d − hi − lo beyond, so it is at most K for d in
/// [max(0, −K), hi + lo + K] (when K ≥ −lo, which the caller has checked). Without a g there,
/// no move offered for `a` could be taken: in a step where no move lowers the overflow (K = 0),
/// most groups are passed over so, where each cost four candidates' arithmetic.
fn any_may_do(a: u64, sizes: &[u64], (lo, hi): (u64, u64), best: Option<&i128>) -> bool {
    let Some(&k) = best else {
        return true;
    };
    let (a, lo, hi) = (i128::from(a), i128::from(lo), i128::from(hi));
    let (least_d, most_d) = ((-k).max(0), hi + lo + k);
    let Ok(most_g) = u64::try_from(a - least_d) else {
        return false;
    };
    // Compared as u64 (a few vector comparisons), not i128.
    let least_g = u64::try_from((a - most_d).max(0)).unwrap_or(u64::MAX);
    sizes.iter().any(|&g| least_g <= g && g <= most_g)
}

/// The tabu entry of an item that has not moved: no bin it may not enter.
const NOT_TABU: (usize, u64) = (usize::MAX, 0);

/// One attempt to pack everything into `bins.len() − 1` bins.
pub(crate) struct Rebalancer<'a> {
    problem: &'a Problem<'a>,
    bins: Vec<Vec<usize>>,
    load: Vec<u64>,
    /// The bin each item last left, and the step before which it may not go back.
    left: Vec<(usize, u64)>,
    step: u64,
    rng: SplitMix,
}

/// A candidate move: group `a` of bin `p` goes to bin `q`, group `g` of `q` comes back.
#[derive(Clone, Copy)]
struct Move {
    p: usize,
    q: usize,
    a: Group,
    g: Group,
}

impl<'a> Rebalancer<'a> {
    /// Takes apart the least-filled bin of `bins` (ties: the last) and puts each of its items, largest
    /// first, where it overflows least. `None` when the item limit leaves no bin for an item.
    pub(crate) fn new(
        problem: &'a Problem<'a>,
        mut bins: Vec<Vec<usize>>,
        seed: u64,
    ) -> Option<Self> {
        let sizes = problem.sizes;
        let load_of = |b: &Vec<usize>| b.iter().map(|&i| sizes[i]).sum::<u64>();
        let victim = (0..bins.len()).rev().min_by_key(|&b| load_of(&bins[b]))?;
        let mut loose = bins.swap_remove(victim);
        let mut load: Vec<u64> = bins.iter().map(load_of).collect();
        loose.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
        for i in loose {
            let b = (0..bins.len())
                .filter(|&b| bins[b].len() < problem.max_items)
                .min_by_key(|&b| load[b])?;
            bins[b].push(i);
            load[b] += sizes[i];
        }
        Some(Rebalancer {
            problem,
            bins,
            load,
            left: vec![NOT_TABU; sizes.len()],
            step: 0,
            rng: SplitMix::new(seed),
        })
    }

    fn overflow(&self, b: usize) -> u64 {
        self.load[b].saturating_sub(self.problem.capacity)
    }

    /// Searches until no bin overflows (then returns the bins) or `work` runs out. A move changes
    /// two bins, so only their groups and overflow are refreshed after it: rescanning every bin
    /// for each move made a step cost in proportion to the bins, on a million asks half a second
    /// per thousand steps.
    pub(crate) fn run(mut self, work: &mut Work) -> Option<Vec<Vec<usize>>> {
        let mut table = GroupTable::default();
        for b in 0..self.bins.len() {
            self.refresh(b, &mut table, false);
        }
        // Overflowing bins, in increasing order.
        let mut over: Vec<usize> = (0..self.bins.len())
            .filter(|&b| self.overflow(b) > 0)
            .collect();
        loop {
            if over.is_empty() {
                return Some(self.bins);
            }
            if !work.spend(1) {
                return None;
            }
            let m = self.best_move(&over, &table, work)?;
            for &i in m.a.members() {
                self.shift(i, m.p, m.q);
            }
            for &i in m.g.members() {
                self.shift(i, m.q, m.p);
            }
            for b in [m.p, m.q] {
                self.refresh(b, &mut table, true);
                match (over.binary_search(&b), self.overflow(b) > 0) {
                    (Err(at), true) => over.insert(at, b),
                    (Ok(at), false) => {
                        over.remove(at);
                    }
                    _ => {}
                }
            }
            self.step += 1;
        }
    }

    /// Stores bin `b`'s groups, and the empty group, by size. Before the first move (`moved`
    /// false) no item has moved, and the tabu list is not read: read by item, it was a cache miss
    /// for nearly every item at a million asks.
    fn refresh(&self, b: usize, table: &mut GroupTable, moved: bool) {
        let mut fresh = std::mem::take(&mut table.fresh);
        groups(&self.bins[b], self.problem.sizes, &mut fresh);
        fresh.push(Group::EMPTY);
        fresh.sort_by_key(|g| g.size);
        table.store(b, &fresh, |g| {
            moved && g.members().iter().any(|&i| self.left[i] != NOT_TABU)
        });
        table.fresh = fresh;
    }

    /// Whether group `g` may move into `bin` now: none of its members left `bin` within its tabu
    /// tenure.
    fn may_enter(&self, g: &Group, bin: usize) -> bool {
        g.members().iter().all(|&i| {
            let (from, until) = self.left[i];
            from != bin || until <= self.step
        })
    }

    fn shift(&mut self, i: usize, from: usize, to: usize) {
        let size = self.problem.sizes[i];
        self.bins[from].retain(|&x| x != i);
        self.load[from] -= size;
        self.bins[to].push(i);
        self.load[to] += size;
        let tenure = 1 + self.rng.below(1 + self.bins.len().min(10) as u64);
        self.left[i] = (from, self.step + tenure);
    }

    /// The move that lowers the total overflow most (ties at random), from an overfilled bin.
    fn best_move(
        &mut self,
        over: &[usize],
        groups_of: &GroupTable,
        work: &mut Work,
    ) -> Option<Move> {
        let cap = self.problem.capacity;
        // Keyed by the change in the total overflow.
        let mut best = Lowest::new();
        for &p in over {
            let excess = self.load[p] - cap;
            // Every other bin costs p's group count, whether its groups are read or passed over.
            let others = (self.bins.len() as u64).saturating_sub(1);
            work.spend(others.saturating_mul(groups_of.of(p).len() as u64));
            for q in 0..self.bins.len() {
                // No move between p and q lowers the total overflow by more than min(excess,
                // room): where the best so far beats that, no move with q would be taken (nor
                // draw a random number), and q's groups need not be read. While the overflow is
                // large, most bins are passed over so.
                let room = cap.saturating_sub(self.load[q]);
                if q != p && best.would_take(&-i128::from(excess.min(room))) {
                    self.offer_moves((p, excess), (q, room), groups_of, &mut best);
                }
            }
        }
        best.into_best()
    }

    /// Offers `best` the moves between overfilled bin `p` (over capacity by `excess`) and bin `q`
    /// (`room` below it) that could be the best.
    fn offer_moves(
        &mut self,
        (p, excess): (usize, u64),
        (q, room): (usize, u64),
        groups_of: &GroupTable,
        best: &mut Lowest<i128, Move>,
    ) {
        let (cap, max) = (self.problem.capacity, self.problem.max_items);
        // Without an item limit, the bins' item counts need not be read.
        let limited = max != usize::MAX;
        let (lp, lq) = (i128::from(self.load[p]), i128::from(self.load[q]));
        let c = i128::from(cap);
        let before = (lp - c).max(0) + (lq - c).max(0);
        // The ideal size difference d = a − g lowers p's overflow without raising q's:
        // anything in [min(excess, room), max(excess, room)] does; look around both ends.
        let (lo, hi) = (excess.min(room), excess.max(room));
        let (sizes_q, shapes_q) = (groups_of.sizes_of(q), groups_of.shapes_of(q));
        for (a, a_shape) in groups_of.of(p).iter().zip(groups_of.shapes_of(p)) {
            if a.len == 0
                || (a_shape.moved && !self.may_enter(a, q))
                || !any_may_do(a.size, sizes_q, (lo, hi), best.key())
            {
                continue;
            }
            // g in [a − hi, a − lo] is ideal; the nearest on either side are next best.
            // Counted rather than binary-searched (a bin has a handful of groups): the same
            // positions, as the sizes are in order, without a branch per probe.
            let (below_hi, below_lo) = (a.size.saturating_sub(hi), a.size.saturating_sub(lo));
            let first = sizes_q.iter().filter(|&&g| g < below_hi).count();
            let candidates = [
                first.wrapping_sub(1),
                first,
                first + 1,
                sizes_q
                    .iter()
                    .filter(|&&g| g <= below_lo)
                    .count()
                    .wrapping_sub(1),
            ];
            for &k in &candidates {
                let Some(&g_size) = sizes_q.get(k) else {
                    continue;
                };
                if g_size > a.size {
                    continue;
                }
                let d = i128::from(a.size) - i128::from(g_size);
                let after = (lp - d - c).max(0) + (lq + d - c).max(0);
                // A move the best so far beats is never taken: not worth checking.
                if !best.would_take(&(after - before)) {
                    continue;
                }
                let shape = shapes_q[k];
                let g_len = usize::from(shape.len);
                if (g_size == a.size && g_len == a.len)
                    || (limited
                        && (self.bins[q].len() + a.len - g_len > max
                            || self.bins[p].len() + g_len - a.len > max))
                    || (shape.moved && !self.may_enter(&groups_of.of(q)[k], p))
                {
                    continue;
                }
                best.offer(after - before, &mut self.rng, || Move {
                    p,
                    q,
                    a: *a,
                    g: groups_of.of(q)[k],
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Where `any_may_do` says no, every swap of `a` for a group no larger changes the
        /// overflow by more than the best: computed as `offer_moves` computes it.
        #[test]
        fn any_may_do_misses_no_move_the_best_allows(
            capacity in 1u64..100,
            excess in 1u64..30,
            q_load in 0u64..200,
            a in 0u64..200,
            // Sizes near `a`, where the window's ends are.
            below_a in proptest::collection::vec(-5i64..60, 0..8),
            best in -30i128..30,
        ) {
            let sizes: Vec<u64> = below_a.iter().map(|&d| a.saturating_add_signed(-d)).collect();
            let room = capacity.saturating_sub(q_load);
            let (lo, hi) = (excess.min(room), excess.max(room));
            prop_assume!(best >= -i128::from(lo));
            let (lp, lq, c) = (i128::from(capacity + excess), i128::from(q_load), i128::from(capacity));
            let before = (lp - c).max(0) + (lq - c).max(0);
            let change = |g: u64| {
                let d = i128::from(a) - i128::from(g);
                (lp - d - c).max(0) + (lq + d - c).max(0) - before
            };
            let allowed = sizes.iter().any(|&g| g <= a && change(g) <= best);
            prop_assert!(!allowed || any_may_do(a, &sizes, (lo, hi), Some(&best)));
            prop_assert!(any_may_do(a, &sizes, (lo, hi), None));
        }
    }
}
