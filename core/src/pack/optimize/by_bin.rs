//! Items gathered bin by bin: a packing's bins from each item's bin, and the items renumbered so
//! that each bin's sit side by side.
//!
//! Both exist for the cache. The searches read every bin's items' sizes again and again (to build
//! each bin's groups, to sum its load); with the items numbered as the caller numbered them, a
//! bin's items are scattered over the whole size array, and at a million asks nearly every read
//! missed the cache (8 MB of sizes): building the searches' tables took 0.29 s of the
//! optimizer's 1.9 s, 0.20 s renumbered (and the grouping 83 ms, 43 ms as a counting sort).
//! Measured on this project's 2-core build machine, `optimize_sizes` at 100 steps per ask.

/// The items of `bin_of` restricted to `items`, grouped by bin, bins renumbered in order of first
/// use, each bin's items in the order of `items`.
///
/// A counting sort: one pass counts each bin's items (and notes the order in which bins first
/// appear), one lays them out bin after bin in a single array, which is then cut into bins. A
/// `Vec` per bin pushed to in input order (as this was) wrote to a random bin's allocation for
/// every item: 24× slower at a million asks than at 100,000 (12× now).
pub(crate) fn group(items: &[usize], bin_of: &[usize]) -> Vec<Vec<usize>> {
    let top = items.iter().map(|&i| bin_of[i] + 1).max().unwrap_or(0);
    // Items per bin; then, in order of first use, where each bin's items start; then where the
    // next one goes.
    let mut next = vec![0usize; top];
    let mut first_use = Vec::new();
    for &i in items {
        let count = &mut next[bin_of[i]];
        if *count == 0 {
            first_use.push(bin_of[i]);
        }
        *count += 1;
    }
    let mut lengths = Vec::with_capacity(first_use.len());
    let mut start = 0;
    for &b in &first_use {
        let len = next[b];
        lengths.push(len);
        next[b] = start;
        start += len;
    }
    let mut laid_out = vec![0usize; items.len()];
    for &i in items {
        let at = &mut next[bin_of[i]];
        laid_out[*at] = i;
        *at += 1;
    }
    let mut rest = laid_out.as_slice();
    lengths
        .into_iter()
        .map(|len| {
            let (bin, after) = rest.split_at(len);
            rest = after;
            bin.to_vec()
        })
        .collect()
}

/// A packing's items numbered bin by bin: bin 0's items are `0..k`, bin 1's next, and so on.
pub(crate) struct Renumbered {
    /// `sizes[new]`: the size of the item numbered `new`.
    pub(crate) sizes: Vec<u64>,
    /// `original[new]`: the caller's number of the item numbered `new`.
    pub(crate) original: Vec<usize>,
}

impl Renumbered {
    /// Numbers the items of `bins` (each item in at most one bin) in the order they appear, and
    /// renames them in `bins` in place.
    pub(crate) fn new(sizes: &[u64], bins: &mut [Vec<usize>]) -> Self {
        let mut renumbered = Renumbered {
            sizes: Vec::new(),
            original: Vec::new(),
        };
        for bin in bins.iter_mut() {
            for item in bin.iter_mut() {
                renumbered.original.push(*item);
                renumbered.sizes.push(sizes[*item]);
                *item = renumbered.original.len() - 1;
            }
        }
        renumbered
    }

    /// Gives the items of `bins` their caller's numbers back.
    pub(crate) fn restore(&self, bins: &mut [Vec<usize>]) {
        for item in bins.iter_mut().flatten() {
            *item = self.original[*item];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn groups_items_by_bin_in_order_of_first_use() {
        // Bins 7, 2, 7, 0 among the chosen items; item 1 (bin 9) is not among them.
        let bin_of = [7, 9, 2, 7, 0];
        assert_eq!(
            group(&[0, 2, 3, 4], &bin_of),
            vec![vec![0, 3], vec![2], vec![4]]
        );
        assert_eq!(group(&[], &bin_of), Vec::<Vec<usize>>::new());
    }

    /// The obvious grouping: a `Vec` per bin, found by a linear search.
    fn grouped_plainly(items: &[usize], bin_of: &[usize]) -> Vec<Vec<usize>> {
        let mut seen: Vec<usize> = Vec::new();
        let mut bins: Vec<Vec<usize>> = Vec::new();
        for &i in items {
            match seen.iter().position(|&b| b == bin_of[i]) {
                Some(k) => bins[k].push(i),
                None => {
                    seen.push(bin_of[i]);
                    bins.push(vec![i]);
                }
            }
        }
        bins
    }

    proptest! {
        #[test]
        fn groups_as_the_obvious_grouping_does(
            bin_of in proptest::collection::vec(0usize..40, 0..200),
            keep in proptest::collection::vec(any::<bool>(), 200),
        ) {
            let items: Vec<usize> = (0..bin_of.len()).filter(|&i| keep[i]).collect();
            prop_assert_eq!(group(&items, &bin_of), grouped_plainly(&items, &bin_of));
        }

        #[test]
        fn renumbering_keeps_every_bin_and_size(
            bin_of in proptest::collection::vec(0usize..40, 0..200),
            sizes in proptest::collection::vec(0u64..1_000, 200),
        ) {
            let items: Vec<usize> = (0..bin_of.len()).collect();
            let bins = group(&items, &bin_of);
            let mut renamed = bins.clone();
            let renumbered = Renumbered::new(&sizes, &mut renamed);
            let flat: Vec<usize> = renamed.iter().flatten().copied().collect();
            prop_assert_eq!(flat, (0..items.len()).collect::<Vec<_>>());
            for (old, new) in bins.iter().flatten().zip(renamed.iter().flatten()) {
                prop_assert_eq!(renumbered.sizes[*new], sizes[*old]);
            }
            renumbered.restore(&mut renamed);
            prop_assert_eq!(renamed, bins);
        }
    }
}
