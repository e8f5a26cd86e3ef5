//! Bin completion (after Korf 2002): a search for a packing into exactly `k` bins, bin by bin.
//!
//! `k` bins of capacity C leave `k·C − Σ sizes` of room unused in all; that is the *waste budget*.
//! Each bin takes the largest item left and is completed with a subset of the rest (fuller bins
//! first) whose unused room still fits in the budget; a dead end undoes the last bin and tries the
//! next subset. With `k` at the lower bound, success is a proven optimum. On instances built as
//! perfect packings (Falkenauer T) the budget is zero, so every bin must be filled exactly, which
//! prunes the search to almost nothing. Where bins hold few items (at most four on average), a bin
//! opens with the item that has the fewest completions instead of the largest, as exact-cover
//! search does: an item nothing can complete ends a branch at once, and a forced bin costs no
//! choice; if that search has not ended within two thirds of the budget, the largest-first one
//! gets the rest (see [`complete`]). A bin whose partner is forced by Martello–Toth dominance (one item fills it exactly, or no
//! two items fit together) is closed without branching. A bin opened with no waste left must be
//! filled exactly, and "fuller first" orders nothing: it is completed with one more item, then two,
//! and so on ([`Completion::fill_exactly`]). At a capacity of 10^6 the items of several bins can
//! sum to a bin by chance, and such sums need more items than the bins the instance was made of.
//!
//! With the linear relaxation's integer prices ([`Prices`], from `relax`) it also rules out bins
//! whose items are worth too little at those prices: the same budget argument as the waste, in
//! prices instead of sizes.
//!
//! The search is exhaustive: when it ends without a packing, none into `k` bins exists, and the
//! optimizer raises its lower bound to `k + 1` ([`Outcome::Impossible`]). Every pruning rule here
//! must keep that true; the property tests check it against brute force.

use super::search::Problem;
use super::{Work, MAX_DEPTH};

/// At most this many items per bin on average turns on most-constrained-first.
const FEW_PER_BIN: u64 = 4;
/// How many of the largest sizes are candidates to open a bin.
const CANDIDATES: usize = 64;
/// Completions are counted up to this many (more makes no difference to the choice).
const COUNT_CAP: u32 = 3;

/// Integer prices that no bin's items exceed in total (from the linear relaxation's duals), with
/// which the search rules out bins an optimal packing cannot hold.
///
/// Any packing into `k` bins leaves `k·most − Σ value` of "price room" unused in all, however its
/// bins are made, and no bin leaves less than nothing: so a bin whose items are worth `most − δ`
/// leaves `δ` less for the others, and one that leaves more than is left cannot be in such a
/// packing. With the sizes as prices this is the waste budget; with the relaxation's optimal prices
/// the room left is (k − the relaxation's value)·`most`, tiny where the relaxation's round-up is
/// the optimum, and only bins the relaxation itself would use come through. Like the waste budget
/// it never rules out a packing into `k` bins, so the search stays exact.
pub(crate) struct Prices {
    /// Each item's price, by item index.
    pub(crate) value: Vec<u64>,
    /// The most the items of any one bin are worth.
    pub(crate) most: u64,
    /// `best[r]`: the most items of total size at most `r·unit` are worth.
    pub(crate) best: Vec<u64>,
    /// Every item's size is a multiple of this.
    pub(crate) unit: u64,
}

impl Prices {
    /// The most items fitting `room` can add.
    fn best_within(&self, room: u64) -> u64 {
        let r = (room / self.unit).min(self.best.len() as u64 - 1);
        self.best[r as usize]
    }
}

/// What a bin completion search found out.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A packing into at most `k` bins.
    Packed(Vec<Vec<usize>>),
    /// The search ran to the end: no packing into `k` bins exists, so `k + 1` is a lower bound.
    Impossible,
    /// The budget ran out first.
    Unknown,
}

/// How a bin is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opening {
    /// With the largest item left.
    Largest,
    /// With the item that has the fewest completions.
    MostConstrained,
}

/// Searches for a packing of `items` (each within capacity) into at most `k` bins. Where bins hold
/// few items, most-constrained-first gets two thirds of the budget and largest-first what is left:
/// each solves instances the other cannot in a second (most-constrained-first triplets, where a
/// wrong early bin dead-ends deep down; largest-first perfect packings of about four items per bin,
/// where counting every candidate's completions at every step costs more than it saves). On the
/// bench's generated tuning set, two thirds kept 9 of the 10 triplet instances of 200 bins that
/// most-constrained-first alone solves (a half kept 1) and solved 8 of 10 perfect packings of 20
/// bins at 10^6 (it alone: 2).
pub(crate) fn complete(problem: &Problem, items: &[usize], k: u64, work: &mut Work) -> Outcome {
    complete_priced(problem, items, k, None, work)
}

/// [`complete`], ruling out bins by `prices` as well (see [`Prices`]).
pub(crate) fn complete_priced(
    problem: &Problem,
    items: &[usize],
    k: u64,
    prices: Option<&Prices>,
    work: &mut Work,
) -> Outcome {
    let openings: &[Opening] = if (items.len() as u64) <= FEW_PER_BIN * k {
        &[Opening::MostConstrained, Opening::Largest]
    } else {
        &[Opening::Largest]
    };
    for (i, &opening) in openings.iter().enumerate() {
        let limit = if i + 1 < openings.len() {
            work.left / 3 * 2
        } else {
            work.left
        };
        let outcome = work.slice(limit, |w| search(problem, items, k, opening, prices, w));
        if !matches!(outcome, Outcome::Unknown) {
            return outcome;
        }
    }
    Outcome::Unknown
}

/// Bin completion with one way of opening bins.
fn search(
    problem: &Problem,
    items: &[usize],
    k: u64,
    opening: Opening,
    prices: Option<&Prices>,
    work: &mut Work,
) -> Outcome {
    let sizes = problem.sizes;
    let total: u64 = items.iter().map(|&i| sizes[i]).sum();
    let worth: u128 = prices.map_or(0, |p| items.iter().map(|&i| u128::from(p.value[i])).sum());
    let price_room = prices.map_or(Some(0), |p| {
        (u128::from(k) * u128::from(p.most))
            .checked_sub(worth)
            .map(|r| u64::try_from(r).unwrap_or(u64::MAX))
    });
    let Some(price_room) = price_room else {
        return Outcome::Impossible; // the relaxation's bound
    };
    let Some(room) = k.checked_mul(problem.capacity) else {
        return Outcome::Unknown;
    };
    let Some(waste) = room.checked_sub(total) else {
        return Outcome::Impossible;
    };
    let order = crate::pack::largest_first(items, sizes);
    let n = order.len();
    let mut search = Completion {
        problem,
        most_constrained_first: opening == Opening::MostConstrained,
        // A doubly linked list of the positions not yet in a bin (n is the head and the end), so
        // the search steps over packed items in O(1) and undoes a removal in O(1).
        next: (1..=n).chain([0]).collect(),
        prev: std::iter::once(n).chain(0..n).collect(),
        used: vec![false; n],
        order,
        bins: Vec::new(),
        left_total: total,
        prices,
        price_room,
        depth: 0,
        work,
    };
    match search.solve(k, waste) {
        Some(true) => {
            let bins = std::mem::take(&mut search.bins);
            Outcome::Packed(
                bins.into_iter()
                    .map(|b| b.into_iter().map(|p| search.order[p]).collect())
                    .collect(),
            )
        }
        Some(false) => Outcome::Impossible,
        None => Outcome::Unknown,
    }
}

struct Completion<'a, 'w> {
    problem: &'a Problem<'a>,
    /// Open each bin with the most constrained item, not the largest.
    most_constrained_first: bool,
    /// Item indices, largest first; the search works on positions in this list.
    order: Vec<usize>,
    next: Vec<usize>,
    prev: Vec<usize>,
    /// The same set as the list, by position, for scans that jump by binary search.
    used: Vec<bool>,
    /// The bins so far, as positions in `order`.
    bins: Vec<Vec<usize>>,
    /// Total size of the items not yet in a bin.
    left_total: u64,
    prices: Option<&'a Prices>,
    /// The price room the bins still to close may leave (see [`Prices`]).
    price_room: u64,
    /// Calls of `solve`, `fill` and `count_completions` under way (see [`MAX_DEPTH`]).
    depth: usize,
    work: &'w mut Work,
}

impl Completion<'_, '_> {
    fn size(&self, position: usize) -> u64 {
        self.problem.sizes[self.order[position]]
    }

    /// What the items at `positions` are worth (0 without prices).
    fn worth(&self, positions: &[usize]) -> u64 {
        self.prices.map_or(0, |p| {
            positions.iter().map(|&q| p.value[self.order[q]]).sum()
        })
    }

    /// Whether a bin worth `worth` so far, with `room` left, can still close within the price
    /// room: even the most that fits the room would leave too much.
    fn priced_out(&self, worth: u64, room: u64) -> bool {
        self.prices
            .is_some_and(|p| p.most.saturating_sub(worth + p.best_within(room)) > self.price_room)
    }

    fn end(&self) -> usize {
        self.order.len()
    }

    /// The first position at or after `from` whose item is at most `limit` (live or not).
    fn first_at_most(&self, from: usize, limit: u64) -> usize {
        let sizes = self.problem.sizes;
        let from = from.min(self.end());
        from + self.order[from..].partition_point(|&i| sizes[i] > limit)
    }

    fn take(&mut self, p: usize) {
        self.used[p] = true;
        let (before, after) = (self.prev[p], self.next[p]);
        self.next[before] = after;
        self.prev[after] = before;
    }

    /// Puts `p` back; removals must be undone in reverse order.
    fn restore(&mut self, p: usize) {
        self.used[p] = false;
        let (before, after) = (self.prev[p], self.next[p]);
        self.next[before] = p;
        self.prev[after] = p;
    }

    /// Runs `f` one level deeper; `None` (as when the budget runs out) past [`MAX_DEPTH`]: the
    /// search recurses once per bin and once per item of the open bin, and an unfinished search
    /// proves nothing, so stopping costs answers, never a wrong one.
    fn deeper<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    /// Packs what is left into `bins_left` bins wasting at most `waste_left`; `None` when the
    /// budget ran out.
    fn solve(&mut self, bins_left: u64, waste_left: u64) -> Option<bool> {
        self.deeper(|s| s.solve_here(bins_left, waste_left))
    }

    fn solve_here(&mut self, bins_left: u64, waste_left: u64) -> Option<bool> {
        let first = self.next[self.end()];
        if first == self.end() {
            return Some(true);
        }
        if !self.work.spend(1) {
            return None;
        }
        if bins_left == 0 || self.left_total > bins_left * self.problem.capacity {
            return Some(false);
        }
        // Open the bin with the largest item, or, where bins hold few items, with the item that
        // has the fewest ways to fill a bin: a dead end shows at once, a forced bin costs no
        // branching (the most-constrained-first rule of exact-cover search).
        let (open, from) = if self.most_constrained_first {
            match self.most_constrained(waste_left)? {
                Some(p) if p == first => (first, first + 1),
                Some(p) => (p, 0),
                None => return Some(false),
            }
        } else {
            (first, first + 1)
        };
        self.take(open);
        let mut bin = vec![open];
        let fill = self.size(open);
        let found = match self.dominant_partner(from, self.problem.capacity - fill) {
            // Every other way to fill this bin is dominated: no branching.
            Some(Some(p)) => {
                self.take(p);
                bin.push(p);
                let found = self.close(fill + self.size(p), bins_left, waste_left, &bin);
                self.restore(p);
                found
            }
            Some(None) => self.close(fill, bins_left, waste_left, &bin),
            None if waste_left == 0 => self.fill_exactly(from, fill, bins_left, &mut bin),
            None => self.fill(from, fill, bins_left, waste_left, &mut bin),
        };
        self.restore(open);
        found
    }

    /// The one partner a just-opened bin with `room` left needs (Martello–Toth dominance), if the
    /// choice is forced: `Some(Some(p))` for the largest live item `p` that fits when it fills the
    /// room exactly or when no two live items fit together (any other completion then weighs at
    /// most `p`, and swapping it with `p` keeps every bin within capacity); `Some(None)` when
    /// nothing fits. `None` when the bin must be searched. With an item limit an exact fill is not
    /// used: the swap could put more items in `p`'s old bin than the limit allows.
    fn dominant_partner(&self, from: usize, room: u64) -> Option<Option<usize>> {
        if self.problem.max_items < 2 {
            return None;
        }
        let mut p = self.first_at_most(from, room);
        while p < self.end() && self.used[p] {
            p += 1;
        }
        if p == self.end() {
            return Some(None);
        }
        let smallest = self.prev[self.end()];
        let second = self.prev[smallest];
        let no_two_fit = second == self.end() || self.size(smallest) + self.size(second) > room;
        let exact = self.size(p) == room && self.problem.max_items == usize::MAX;
        (no_two_fit || exact).then_some(Some(p))
    }

    /// Extends the open bin (filled to `fill`) with live items at positions from `from` on,
    /// fuller completions first, then tries closing it as it is.
    fn fill(
        &mut self,
        from: usize,
        fill: u64,
        bins_left: u64,
        waste_left: u64,
        bin: &mut Vec<usize>,
    ) -> Option<bool> {
        let capacity = self.problem.capacity;
        // Nothing left fits the room and closing would waste too much: a dead end, seen in O(1)
        // (the smallest live item is the last in the list).
        let smallest = self.prev[self.end()];
        let room = capacity - fill;
        if room > waste_left && (smallest == self.end() || self.size(smallest) > room) {
            return Some(false);
        }
        if self.priced_out(self.worth(bin), room) {
            return Some(false);
        }
        if bin.len() < self.problem.max_items && smallest != self.end() {
            let smallest = self.size(smallest);
            let mut last_tried = None;
            // Items larger than the room cannot come in: start at the first one that fits.
            let mut p = self.first_at_most(from, room);
            while let Some(here) =
                self.next_candidate(p, room, smallest, waste_left, &mut last_tried)?
            {
                let size = self.size(here);
                self.take(here);
                bin.push(here);
                let found =
                    self.deeper(|s| s.fill(here + 1, fill + size, bins_left, waste_left, bin));
                bin.pop();
                self.restore(here);
                if found != Some(false) {
                    return found;
                }
                p = here + 1;
            }
        }
        self.close(fill, bins_left, waste_left, bin)
    }

    /// Fills the open bin (filled to `fill`) exactly, with live items at positions from `from` on:
    /// completions of one more item first, then of two, and so on. With no waste left every
    /// completion fills the bin, so "fuller first" orders nothing; fewer items first tries the
    /// completions least likely to be chance sums first.
    fn fill_exactly(
        &mut self,
        from: usize,
        fill: u64,
        bins_left: u64,
        bin: &mut Vec<usize>,
    ) -> Option<bool> {
        let room = self.problem.capacity - fill;
        if room == 0 {
            return self.close(fill, bins_left, 0, bin);
        }
        let most = self.problem.max_items.saturating_sub(bin.len());
        // The `count` lightest live items, a running total: once they overfill the room (or run
        // out), so do any `count` items, and any more.
        let (mut lightest, mut light) = (self.end(), 0u64);
        for count in 1..=most {
            lightest = self.prev[lightest];
            if lightest == self.end() {
                break;
            }
            light = light.saturating_add(self.size(lightest));
            if light > room {
                break;
            }
            if self.exactly(from, room, count, bins_left, bin)? {
                return Some(true);
            }
        }
        Some(false)
    }

    /// Completes the open bin with exactly `count` live items from `from` on summing to `room`.
    fn exactly(
        &mut self,
        from: usize,
        room: u64,
        count: usize,
        bins_left: u64,
        bin: &mut Vec<usize>,
    ) -> Option<bool> {
        // The other `count − 1` items weigh at least the lightest `count − 1` live ones.
        let Some(others) = self.lightest(count - 1) else {
            return Some(false);
        };
        let Some(limit) = room.checked_sub(others) else {
            return Some(false);
        };
        let mut last_tried = None;
        let mut from = self.first_at_most(from, limit);
        while let Some(p) = self.next_live(from)? {
            from = p + 1;
            let size = self.size(p);
            // Sizes only fall from here: when `p` and the `count − 1` live items after it fall
            // short of `room`, every later choice does too.
            if size.saturating_add(self.heaviest_after(p, count - 1)) < room {
                break;
            }
            if last_tried == Some(size) {
                continue;
            }
            last_tried = Some(size);
            self.take(p);
            bin.push(p);
            let found = if count == 1 {
                self.close(self.problem.capacity, bins_left, 0, bin)
            } else {
                self.deeper(|s| s.exactly(p + 1, room - size, count - 1, bins_left, bin))
            };
            bin.pop();
            self.restore(p);
            if found != Some(false) {
                return found;
            }
        }
        Some(false)
    }

    /// The total size of the `k` smallest live items; `None` when fewer are left.
    fn lightest(&self, k: usize) -> Option<u64> {
        let (total, found) = self.walk(self.end(), k, &self.prev);
        (found == k).then_some(total)
    }

    /// The total size of the (up to) `k` live items after live position `p`: the most that many
    /// later items can add.
    fn heaviest_after(&self, p: usize, k: usize) -> u64 {
        self.walk(p, k, &self.next).0
    }

    /// The total size of up to `k` live items met stepping from `p` along `links` (`next` or
    /// `prev`), and how many there were before the list's end.
    fn walk(&self, mut p: usize, k: usize, links: &[usize]) -> (u64, usize) {
        let mut total = 0u64;
        for found in 0..k {
            p = links[p];
            if p == self.end() {
                return (total, found);
            }
            total = total.saturating_add(self.size(p));
        }
        (total, k)
    }

    /// Closes the open bin (filled to `fill`) and packs the rest into the other bins.
    fn close(&mut self, fill: u64, bins_left: u64, waste_left: u64, bin: &[usize]) -> Option<bool> {
        let waste = self.problem.capacity - fill;
        if waste > waste_left {
            return Some(false);
        }
        let price_waste = self
            .prices
            .map_or(0, |p| p.most.saturating_sub(self.worth(bin)));
        if price_waste > self.price_room {
            return Some(false);
        }
        self.price_room -= price_waste;
        self.bins.push(bin.to_vec());
        self.left_total -= fill;
        let found = self.solve(bins_left - 1, waste_left - waste);
        self.price_room += price_waste;
        if found != Some(true) {
            self.bins.pop();
            self.left_total += fill;
        }
        found
    }
}

mod opening;
#[cfg(test)]
mod tests;
