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
//! two items fit together) is closed without branching.
//!
//! The search is exhaustive: when it ends without a packing, none into `k` bins exists, and the
//! optimizer raises its lower bound to `k + 1` ([`Outcome::Impossible`]). Every pruning rule here
//! must keep that true; the property test checks it against brute force.

use super::search::Problem;
use super::{Work, MAX_DEPTH};

/// At most this many items per bin on average turns on most-constrained-first.
const FEW_PER_BIN: u64 = 4;
/// How many of the largest sizes are candidates to open a bin.
const CANDIDATES: usize = 64;
/// Completions are counted up to this many (more makes no difference to the choice).
const COUNT_CAP: u32 = 3;

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
        let outcome = work.slice(limit, |w| search(problem, items, k, opening, w));
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
    work: &mut Work,
) -> Outcome {
    let sizes = problem.sizes;
    let total: u64 = items.iter().map(|&i| sizes[i]).sum();
    let Some(room) = k.checked_mul(problem.capacity) else {
        return Outcome::Unknown;
    };
    let Some(waste) = room.checked_sub(total) else {
        return Outcome::Impossible;
    };
    let mut order = items.to_vec();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
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
    /// Calls of `solve`, `fill` and `count_completions` under way (see [`MAX_DEPTH`]).
    depth: usize,
    work: &'w mut Work,
}

impl Completion<'_, '_> {
    fn size(&self, position: usize) -> u64 {
        self.problem.sizes[self.order[position]]
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

    /// Among the largest live items (one per size), the one with the fewest completions (counted up
    /// to [`COUNT_CAP`]); ties go to the larger. `Some(None)` when one has none: no packing is left.
    /// `None` when the budget ran out.
    fn most_constrained(&mut self, waste_left: u64) -> Option<Option<usize>> {
        let mut best: Option<(u32, usize)> = None;
        let mut p = self.next[self.end()];
        let mut sizes_seen = 0;
        let mut last_size = None;
        while p != self.end() && sizes_seen < CANDIDATES {
            let size = self.size(p);
            if last_size != Some(size) {
                last_size = Some(size);
                sizes_seen += 1;
                self.take(p);
                let mut found = 0;
                let counted = self.count_completions(
                    0,
                    self.problem.capacity - size,
                    waste_left,
                    1,
                    &mut found,
                );
                self.restore(p);
                counted?;
                if found == 0 {
                    return Some(None);
                }
                if best.is_none_or(|(n, _)| found < n) {
                    best = Some((found, p));
                }
            }
            p = self.next[p];
        }
        Some(best.map(|(_, p)| p))
    }

    /// Counts (up to [`COUNT_CAP`]) the ways to fill `room` from live items at positions from
    /// `from` on, wasting at most `waste_left`, with `len` items already in the bin.
    fn count_completions(
        &mut self,
        from: usize,
        room: u64,
        waste_left: u64,
        len: usize,
        found: &mut u32,
    ) -> Option<()> {
        if room <= waste_left {
            *found += 1;
        }
        let smallest = self.prev[self.end()];
        if *found >= COUNT_CAP
            || len >= self.problem.max_items
            || smallest == self.end()
            || self.size(smallest) > room
        {
            return Some(());
        }
        let smallest = self.size(smallest);
        let mut last_tried = None;
        let mut p = self.first_at_most(from, room);
        while let Some(here) =
            self.next_candidate(p, room, smallest, waste_left, &mut last_tried)?
        {
            let size = self.size(here);
            self.deeper(|s| {
                s.count_completions(here + 1, room - size, waste_left, len + 1, found)
            })?;
            if *found >= COUNT_CAP {
                return Some(());
            }
            p = here + 1;
        }
        Some(())
    }

    /// The next position from `p` on worth trying in a bin with `room` left: live, and not the
    /// size just tried. `Some(None)` when there is none; `None` when the budget ran out.
    fn next_candidate(
        &mut self,
        mut p: usize,
        room: u64,
        smallest: u64,
        waste_left: u64,
        last_tried: &mut Option<u64>,
    ) -> Option<Option<usize>> {
        while p < self.end() {
            if !self.work.spend(1) {
                return None;
            }
            if self.used[p] {
                p += 1;
                continue;
            }
            let size = self.size(p);
            // Too big to leave room for any other item, too small to close the bin within the
            // waste budget — and so is every item down to `room − smallest`: jump past them.
            // (An item fits here, so `smallest ≤ room`.)
            if room - size < smallest && room - size > waste_left {
                p = self.first_at_most(p + 1, room - smallest);
                continue;
            }
            // Equal sizes are interchangeable: one of them per level is enough.
            if *last_tried == Some(size) {
                p += 1;
                continue;
            }
            *last_tried = Some(size);
            return Some(Some(p));
        }
        Some(None)
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

    /// Closes the open bin (filled to `fill`) and packs the rest into the other bins.
    fn close(&mut self, fill: u64, bins_left: u64, waste_left: u64, bin: &[usize]) -> Option<bool> {
        let waste = self.problem.capacity - fill;
        if waste > waste_left {
            return Some(false);
        }
        self.bins.push(bin.to_vec());
        self.left_total -= fill;
        let found = self.solve(bins_left - 1, waste_left - waste);
        if found != Some(true) {
            self.bins.pop();
            self.left_total += fill;
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::brute_force::optimum_with_limit;
    use proptest::prelude::*;

    impl Outcome {
        fn packed(self) -> Option<Vec<Vec<usize>>> {
            match self {
                Outcome::Packed(bins) => Some(bins),
                _ => None,
            }
        }
    }

    fn run(sizes: &[u64], capacity: u64, k: u64) -> Option<Vec<Vec<usize>>> {
        let problem = Problem {
            sizes,
            capacity,
            max_items: usize::MAX,
        };
        let items: Vec<usize> = (0..sizes.len()).collect();
        complete(&problem, &items, k, &mut Work { left: 1_000_000 }).packed()
    }

    #[test]
    fn finds_a_perfect_packing_and_proves_none_smaller() {
        let sizes = [50, 40, 40, 35, 20, 15];
        let bins = run(&sizes, 100, 2).unwrap();
        assert_eq!(bins.len(), 2);
        for b in &bins {
            assert_eq!(b.iter().map(|&i| sizes[i]).sum::<u64>(), 100);
        }
        assert!(run(&sizes, 100, 1).is_none());
    }

    #[test]
    fn an_item_no_bin_can_complete_ends_the_search_at_once() {
        // 3 bins of 100 must all be full (no waste). The largest item, 63, has a partner (37);
        // the 60 has none, which most-constrained-first sees before opening any bin.
        let sizes = [63, 60, 58, 48, 37, 34];
        let problem = Problem {
            sizes: &sizes,
            capacity: 100,
            max_items: usize::MAX,
        };
        let mut work = Work { left: 1_000 };
        let outcome = complete(&problem, &[0, 1, 2, 3, 4, 5], 3, &mut work);
        assert!(matches!(outcome, Outcome::Impossible), "{outcome:?}");
        assert!(1_000 - work.left < 20, "spent {}", 1_000 - work.left);
    }

    #[test]
    fn opens_bins_with_the_most_constrained_item_yet_packs_everything() {
        // The 30 has one partner (70); the largest item (80) has several (20, 20). Either way the
        // packing found is complete and every bin is exactly full.
        let sizes = [80, 70, 50, 50, 30, 20, 20, 80];
        let bins = run(&sizes, 100, 4).unwrap();
        assert_eq!(bins.len(), 4);
        let mut all: Vec<usize> = bins.iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..sizes.len()).collect::<Vec<_>>());
        for b in &bins {
            assert_eq!(b.iter().map(|&i| sizes[i]).sum::<u64>(), 100);
        }
    }

    /// Exact pairs `(i, C − i)`: each bin closes by dominance without branching, one level of
    /// recursion (and a close) per bin, so `pairs` bins need a search `pairs` deep.
    fn pairs(bins: u64) -> Vec<u64> {
        (0..bins).flat_map(|i| [1_000 + i, 9_000 - i]).collect()
    }

    #[test]
    fn stops_short_of_overflowing_the_stack() {
        // Run where the stack is large enough for the unoptimised test build either way: the
        // check is that the search stops itself at `MAX_DEPTH`, not that the stack holds.
        let deep = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(|| {
                let shallow = pairs(MAX_DEPTH as u64 - 10);
                let deep = pairs(MAX_DEPTH as u64 + 10);
                let outcome = |sizes: &[u64]| {
                    let problem = Problem {
                        sizes,
                        capacity: 10_000,
                        max_items: usize::MAX,
                    };
                    let items: Vec<usize> = (0..sizes.len()).collect();
                    let k = sizes.len() as u64 / 2;
                    let mut work = Work { left: u64::MAX };
                    match complete(&problem, &items, k, &mut work) {
                        Outcome::Packed(bins) => format!("packed into {}", bins.len()),
                        other => format!("{other:?}"),
                    }
                };
                (outcome(&shallow), outcome(&deep))
            })
            .unwrap()
            .join()
            .unwrap();
        // Past the limit: not a packing, and not a proof that none exists.
        let packed = format!("packed into {}", MAX_DEPTH - 10);
        assert_eq!(deep, (packed, "Unknown".to_string()));
    }

    #[test]
    fn backtracks_past_a_greedy_first_fill() {
        // The first bin's fullest fill (60+40) strands 30+30+30+30+20+20+20 (180 → 2 bins is fine),
        // so test one that needs backtracking: 3 bins of 100 from triplets only.
        let sizes = [45, 35, 20, 45, 30, 25, 40, 35, 25];
        let bins = run(&sizes, 100, 3).unwrap();
        assert_eq!(bins.len(), 3);
        let mut all: Vec<usize> = bins.iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..sizes.len()).collect::<Vec<_>>());
    }

    #[test]
    fn an_exact_pair_is_not_forced_under_an_item_limit() {
        // {60,10,10,10,10} and {40,15,15,15,15} fill two bins of at most five items. Forcing the
        // exact pair {60,40} would leave eight items for the last bin: a false "impossible".
        let sizes = [60, 40, 15, 15, 15, 15, 10, 10, 10, 10];
        let problem = Problem {
            sizes: &sizes,
            capacity: 100,
            max_items: 5,
        };
        let items: Vec<usize> = (0..sizes.len()).collect();
        let outcome = complete(&problem, &items, 2, &mut Work { left: 100_000 });
        let bins = outcome.packed().expect("a packing into two bins exists");
        assert!(bins.iter().all(|b| b.len() <= 5));
        // Without the limit the pair is forced, and the packing is found all the same.
        assert_eq!(run(&sizes, 100, 2).map(|b| b.len()), Some(2));
    }

    #[test]
    fn says_unknown_when_the_budget_runs_out() {
        let sizes: Vec<u64> = (0..40).map(|i| 30 + (i * 7) % 41).collect();
        let problem = Problem {
            sizes: &sizes,
            capacity: 100,
            max_items: usize::MAX,
        };
        let items: Vec<usize> = (0..sizes.len()).collect();
        let outcome = complete(&problem, &items, 1, &mut Work { left: 0 });
        assert!(
            matches!(outcome, Outcome::Impossible),
            "1 bin: by size alone"
        );
        let k = crate::pack::bounds::l2(&sizes, 100);
        let outcome = complete(&problem, &items, k, &mut Work { left: 5 });
        assert!(matches!(outcome, Outcome::Unknown), "{outcome:?}");
    }

    /// A perfect packing of 72 items into 20 bins of 10^6 (2–6 items per bin, cut at random;
    /// `cargo xtask bench`'s generated "perfect" family): most-constrained-first spends its budget
    /// counting completions and does not finish, largest-first finds the packing with the rest.
    #[test]
    fn largest_first_gets_the_rest_of_the_budget_where_most_constrained_first_stalls() {
        let sizes = [
            358291, 843399, 586432, 478612, 96830, 27723, 66089, 5527, 150302, 349542, 406693,
            92744, 452774, 325265, 397816, 307861, 433685, 148340, 156601, 2711, 13193, 547226,
            171658, 12566, 219010, 950902, 389345, 337243, 422361, 136030, 113248, 46047, 110527,
            398964, 638123, 35447, 167724, 466154, 535065, 213163, 58128, 377691, 159093, 386719,
            87096, 8785, 239365, 39554, 51737, 100618, 260161, 251150, 748850, 399300, 11562,
            272724, 333848, 207725, 549916, 117008, 775574, 598730, 987434, 115393, 3051, 180054,
            16183, 521388, 161905, 11263, 233514, 123248,
        ];
        let problem = Problem {
            sizes: &sizes,
            capacity: 1_000_000,
            max_items: usize::MAX,
        };
        let items: Vec<usize> = (0..sizes.len()).collect();
        let budget = || Work { left: 9_000_000 };
        let alone = search(
            &problem,
            &items,
            20,
            Opening::MostConstrained,
            &mut budget(),
        );
        assert!(matches!(alone, Outcome::Unknown));
        let bins = complete(&problem, &items, 20, &mut budget())
            .packed()
            .unwrap();
        assert_eq!(bins.len(), 20);
        for b in &bins {
            assert_eq!(b.iter().map(|&i| sizes[i]).sum::<u64>(), 1_000_000);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The bound the optimizer raises rests on this: "impossible" only where no packing into
        /// `k` bins exists (exhaustive search, with and without an item limit, either opening). Sizes come in
        /// tens half of the time, so exact pairs (the dominance rule's forced case) are common.
        #[test]
        fn impossible_and_packed_agree_with_exhaustive_search(
            sizes in prop_oneof![
                prop::collection::vec(1u64..=100, 1..12),
                prop::collection::vec((1u64..=10).prop_map(|t| t * 10), 1..12),
            ],
            max_items in prop_oneof![Just(usize::MAX), 1usize..5],
            extra in 0u64..3,
            opening in prop_oneof![Just(Opening::Largest), Just(Opening::MostConstrained)],
        ) {
            let problem = Problem { sizes: &sizes, capacity: 100, max_items };
            let items: Vec<usize> = (0..sizes.len()).collect();
            let optimum = optimum_with_limit(&sizes, 100, max_items) as u64;
            let k = (optimum + extra).saturating_sub(1);
            // Each way of opening bins on its own: `complete` falls back from one to the other.
            match search(&problem, &items, k, opening, &mut Work { left: 10_000_000 }) {
                Outcome::Packed(bins) => {
                    prop_assert!(k >= optimum);
                    prop_assert!(bins.len() as u64 <= k);
                    let mut all: Vec<usize> = bins.iter().flatten().copied().collect();
                    all.sort_unstable();
                    prop_assert_eq!(all, items.clone());
                    for b in &bins {
                        prop_assert!(b.len() <= max_items);
                        prop_assert!(b.iter().map(|&i| sizes[i]).sum::<u64>() <= 100);
                    }
                }
                Outcome::Impossible => prop_assert!(k < optimum, "k {} optimum {}", k, optimum),
                Outcome::Unknown => prop_assert!(false, "budget ran out on {} items", sizes.len()),
            }
        }
    }
}
