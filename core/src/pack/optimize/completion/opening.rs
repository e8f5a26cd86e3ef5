//! Which item opens the next bin where bins hold few items: the one with the fewest completions,
//! as exact-cover search chooses (see the module above), so an item nothing can complete ends a
//! branch at once and a forced bin costs no choice.

use super::{Completion, CANDIDATES, COUNT_CAP};

impl Completion<'_, '_> {
    /// Among the largest live items (one per size), the one with the fewest completions (counted up
    /// to [`COUNT_CAP`]); ties go to the larger. `Some(None)` when one has none: no packing is left.
    /// `None` when the budget ran out.
    pub(super) fn most_constrained(&mut self, waste_left: u64) -> Option<Option<usize>> {
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
                let worth = self.worth(&[p]);
                let counted = self.count_completions(
                    0,
                    self.problem.capacity - size,
                    waste_left,
                    (1, worth),
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
    /// `from` on, wasting at most `waste_left`, with `len` items worth `worth` already in the bin.
    pub(super) fn count_completions(
        &mut self,
        from: usize,
        room: u64,
        waste_left: u64,
        (len, worth): (usize, u64),
        found: &mut u32,
    ) -> Option<()> {
        if self.priced_out(worth, room) {
            return Some(());
        }
        if room <= waste_left && !self.priced_out(worth, 0) {
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
            let worth = worth + self.worth(&[here]);
            self.deeper(|s| {
                s.count_completions(here + 1, room - size, waste_left, (len + 1, worth), found)
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
    pub(super) fn next_candidate(
        &mut self,
        mut p: usize,
        room: u64,
        smallest: u64,
        waste_left: u64,
        last_tried: &mut Option<u64>,
    ) -> Option<Option<usize>> {
        while let Some(live) = self.next_live(p)? {
            p = live;
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

    /// The first live position from `p` on, a step of work for each position looked at.
    /// `Some(None)` when there is none; `None` when the budget ran out.
    pub(super) fn next_live(&mut self, mut p: usize) -> Option<Option<usize>> {
        while p < self.end() {
            if !self.work.spend(1) {
                return None;
            }
            if !self.used[p] {
                return Some(Some(p));
            }
            p += 1;
        }
        Some(None)
    }
}
