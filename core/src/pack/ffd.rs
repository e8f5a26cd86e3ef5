//! First-fit-decreasing over plain integer sizes in O(n log n), for shares and for benchmarks.

use super::size_order::{Buckets, Low};
use super::tree::{FirstFitTree, Max};

/// Item indices by size, largest first; equal sizes keep their input order.
pub fn decreasing_order(sizes: &[u64]) -> Vec<usize> {
    let Some(mut buckets) = Buckets::new(sizes, Low::Index) else {
        return sorted_pairs(sizes).into_iter().map(|(_, i)| i).collect();
    };
    let mut order = Vec::with_capacity(sizes.len());
    buckets.sort_each(|bucket| order.extend(bucket.items().map(|(_, i)| i)));
    order
}

/// `items` (indices into `sizes`) largest first, equal sizes in the order of `items`: the stable
/// sort by `Reverse(sizes[i])`, done on the sizes copied out in order (sorting the indices by a
/// look-up at random was a visible part of a million-ask pack or optimizer run).
pub fn largest_first(items: &[usize], sizes: &[u64]) -> Vec<usize> {
    let copied: Vec<u64> = items.iter().map(|&i| sizes[i]).collect();
    decreasing_order(&copied)
        .into_iter()
        .map(|k| items[k])
        .collect()
}

/// `(size, index)` pairs, largest first, equal sizes in input order.
fn sorted_pairs(sizes: &[u64]) -> Vec<(u64, usize)> {
    let mut pairs: Vec<(u64, usize)> = sizes.iter().copied().zip(0..).collect();
    // Indices are distinct, so an unstable sort on (size descending, index) is deterministic.
    pairs.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    pairs
}

/// Bin index per item (input order). Items larger than `capacity` get a bin of their own.
pub fn first_fit_decreasing(sizes: &[u64], capacity: u64) -> Vec<usize> {
    match u32::try_from(capacity) {
        Ok(capacity) => place_all::<u32>(sizes, capacity),
        Err(_) => place_all::<u64>(sizes, capacity),
    }
}

/// First fit of every item, largest first, with free capacities held as `F` (which holds
/// `capacity`; a tree of `u32`s is half the memory of `u64`s), a bucket of sizes at a time
/// ([`Buckets`]): each bucket's bins are written over its keys at the items' ranks, and read back
/// in input order at the end.
fn place_all<F>(sizes: &[u64], capacity: F) -> Vec<usize>
where
    F: Copy + Ord + Into<u64> + TryFrom<u64> + std::ops::Sub<Output = F> + Default,
{
    let mut fit = FirstFit::new(sizes.len(), capacity);
    let Some(mut buckets) = Buckets::new(sizes, Low::Rank) else {
        let mut bin_of = vec![0; sizes.len()];
        for (size, i) in sorted_pairs(sizes) {
            bin_of[i] = fit.place(size);
        }
        return bin_of;
    };
    let mut placed: Vec<(usize, u32)> = Vec::new();
    buckets.sort_each(|bucket| {
        placed.clear();
        // A bin is below the number of items, which fits in 32 bits where there are buckets.
        for (size, rank) in bucket.items() {
            placed.push((rank, fit.place(size) as u32));
        }
        let slots = bucket.slots();
        for &(rank, bin) in &placed {
            slots[rank] = bin;
        }
    });
    buckets.in_input_order(sizes)
}

/// Bins opened one after another, each item into the first with room (a tree of the bins' free
/// capacities finds it in O(log n)).
struct FirstFit<F> {
    tree: FirstFitTree<F, Max>,
    opened: usize,
    capacity: F,
}

impl<F> FirstFit<F>
where
    F: Copy + Ord + Into<u64> + TryFrom<u64> + std::ops::Sub<Output = F> + Default,
{
    fn new(items: usize, capacity: F) -> Self {
        FirstFit {
            tree: FirstFitTree::new(items, F::default()),
            opened: 0,
            capacity,
        }
    }

    /// The bin `size` goes into; a size above the capacity fills a new bin.
    fn place(&mut self, size: u64) -> usize {
        // At most `capacity`, so the conversion holds.
        let size = F::try_from(size.min(self.capacity.into())).unwrap_or(self.capacity);
        // A new bin is set to what is left of it at once: one walk up the tree, not two.
        let (bin, free) = match self.tree.first(|f| f >= size) {
            Some(b) if b < self.opened => (b, self.tree.leaf(b)),
            _ => {
                self.opened += 1;
                (self.opened - 1, self.capacity)
            }
        };
        self.tree.set(bin, free - size);
        bin
    }
}

/// How many bins an assignment uses.
pub fn bins_used(bin_of: &[usize]) -> usize {
    bin_of.iter().max().map_or(0, |&b| b + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::reference::reference_ffd;
    use proptest::prelude::*;

    const LOW: u64 = u32::MAX as u64;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn tree_ffd_agrees_with_the_reference(sizes in prop::collection::vec(1u64..=100, 0..200)) {
            prop_assert_eq!(first_fit_decreasing(&sizes, 100), reference_ffd(&sizes, 100));
        }

        /// Both ways of sorting (sizes as `u32` packed with their index, or as pairs) give the
        /// stable decreasing order, and both widths of the tree the reference's bins.
        #[test]
        fn every_width_agrees_with_the_reference(
            sizes in prop::collection::vec(prop_oneof![0u64..=60, Just(LOW), LOW - 40..=LOW + 40], 0..120),
            capacity in prop_oneof![Just(100u64), Just(LOW), Just(LOW + 30), Just(u64::MAX)],
        ) {
            let mut stable: Vec<usize> = (0..sizes.len()).collect();
            stable.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
            prop_assert_eq!(decreasing_order(&sizes), stable);
            let every_other: Vec<usize> = (0..sizes.len()).rev().step_by(2).collect();
            let mut stable_subset = every_other.clone();
            stable_subset.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
            prop_assert_eq!(largest_first(&every_other, &sizes), stable_subset);
            prop_assert_eq!(first_fit_decreasing(&sizes, capacity), reference_ffd(&sizes, capacity));
        }
    }

    /// Thousands of shares, as the speed bench packs: crowded buckets sorted by radix passes.
    #[test]
    fn many_shares_agree_with_the_reference() {
        let mut x = 7u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        let uniform: Vec<u64> = (0..4000).map(|_| 1 + next() % 1_000_000).collect();
        // Most near a quarter of a GPU, a few anywhere.
        let crowded: Vec<u64> = (0..4000)
            .map(|_| match next() % 10 {
                0 => 1 + next() % 1_000_000,
                _ => 250_000 + next() % 3000,
            })
            .collect();
        for sizes in [uniform, crowded] {
            assert_eq!(
                first_fit_decreasing(&sizes, 1_000_000),
                reference_ffd(&sizes, 1_000_000)
            );
        }
    }

    #[test]
    fn zero_sized_items_fit_in_a_full_bin() {
        // A full bin has 0 free, which still passes `f >= 0`: only an unopened leaf may not win.
        assert_eq!(first_fit_decreasing(&[10, 0], 10), vec![0, 0]);
    }
}
