//! First-fit-decreasing over plain integer sizes in O(n log n), for shares and for benchmarks.

use super::tree::{FirstFitTree, Max};

/// Item indices by size, largest first; equal sizes keep their input order.
pub fn decreasing_order(sizes: &[u64]) -> Vec<usize> {
    by_size_decreasing(sizes).map(|(_, i)| i).collect()
}

/// `items` (indices into `sizes`) largest first, equal sizes in the order of `items`: the stable
/// sort by `Reverse(sizes[i])`, done on the sizes copied out in order (sorting the indices by a
/// look-up at random was a visible part of a million-ask pack or optimizer run).
pub fn largest_first(items: &[usize], sizes: &[u64]) -> Vec<usize> {
    let copied: Vec<u64> = items.iter().map(|&i| sizes[i]).collect();
    by_size_decreasing(&copied).map(|(_, k)| items[k]).collect()
}

/// `(size, index)` of every item, largest first, equal sizes in input order.
fn by_size_decreasing(sizes: &[u64]) -> impl Iterator<Item = (u64, usize)> {
    let (keys, pairs) = match packed_keys(sizes) {
        Some(keys) => (keys, Vec::new()),
        None => (Vec::new(), sorted_pairs(sizes)),
    };
    keys.into_iter().map(unpack).chain(pairs)
}

/// Where sizes and indices fit in 32 bits, each item as one `u64` — the size's complement above
/// the index — sorted, so largest first and equal sizes in input order. The sort orders the keys
/// themselves, so that the sort and the packing loop read memory in order (sorting indices by
/// `sizes[i]` looked sizes up at random), and a key is half a `(size, index)` pair: it sorts
/// twice as fast and halves the memory the loop streams through (BENCHMARKS.md, growth).
fn packed_keys(sizes: &[u64]) -> Option<Vec<u64>> {
    if u32::try_from(sizes.len()).is_err() || sizes.iter().any(|&s| s > LOW) {
        return None;
    }
    let mut keys: Vec<u64> = (0u64..)
        .zip(sizes)
        .map(|(i, &s)| (LOW - s) << 32 | i)
        .collect();
    sort_by_high_half(&mut keys);
    Some(keys)
}

fn unpack(key: u64) -> (u64, usize) {
    (LOW - (key >> 32), (key & LOW) as usize)
}

/// `(size, index)` pairs, largest first, equal sizes in input order.
fn sorted_pairs(sizes: &[u64]) -> Vec<(u64, usize)> {
    let mut pairs: Vec<(u64, usize)> = sizes.iter().copied().zip(0..).collect();
    // Indices are distinct, so an unstable sort on (size descending, index) is deterministic.
    pairs.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    pairs
}

/// The low 32 bits.
const LOW: u64 = u32::MAX as u64;

/// Sorts `keys` by their high 32 bits, stably: a least-significant-digit radix sort, a byte a
/// pass, skipping a byte every key shares (sizes up to 10⁶ leave the top byte alone). The keys come
/// in index order, so the stable order by size is the order of the whole keys. On the speed
/// bench's sizes it took 56–61% of `sort_unstable`'s time at 100,000 and 1,000,000 keys, where
/// that sort was over a quarter of first-fit-decreasing's.
fn sort_by_high_half(keys: &mut Vec<u64>) {
    let digit = |k: u64, pass: usize| (k >> (32 + 8 * pass)) as usize & 0xff;
    let mut counts = [[0usize; 256]; 4];
    for &k in keys.iter() {
        for (pass, count) in counts.iter_mut().enumerate() {
            count[digit(k, pass)] += 1;
        }
    }
    let mut buffer = vec![0u64; keys.len()];
    for (pass, count) in counts.iter().enumerate() {
        if count.contains(&keys.len()) {
            continue;
        }
        let mut next = [0usize; 256];
        let mut start = 0;
        for (n, c) in next.iter_mut().zip(count) {
            *n = start;
            start += c;
        }
        for &k in keys.iter() {
            let d = digit(k, pass);
            buffer[next[d]] = k;
            next[d] += 1;
        }
        std::mem::swap(keys, &mut buffer);
    }
}

/// Bin index per item (input order). Items larger than `capacity` get a bin of their own.
pub fn first_fit_decreasing(sizes: &[u64], capacity: u64) -> Vec<usize> {
    match u32::try_from(capacity) {
        Ok(capacity) => place_all::<u32>(sizes, capacity),
        Err(_) => place_all::<u64>(sizes, capacity),
    }
}

/// First fit of every item, largest first, with free capacities held as `F` (which holds
/// `capacity`). Two things keep a million asks in the processor's cache: a tree of `u32`s is half
/// the memory of `u64`s, and each bin is written over its item's sorted key, in order, and only
/// then scattered to the items' places — writing each item's bin at its input position, at
/// random, inside the loop cost a third of the time at a million asks (BENCHMARKS.md, growth).
/// (The keys' buffer holding the bins, rather than a copy of the order and a list of bins beside
/// it, is a third of the memory a million asks touched.)
fn place_all<F>(sizes: &[u64], capacity: F) -> Vec<usize>
where
    F: Copy + Ord + Into<u64> + TryFrom<u64> + std::ops::Sub<Output = F> + Default,
{
    let mut fit = FirstFit::new(sizes.len(), capacity);
    let mut bin_of = vec![usize::MAX; sizes.len()];
    match packed_keys(sizes) {
        Some(mut keys) => {
            for key in keys.iter_mut() {
                let (size, i) = unpack(*key);
                // A bin index is below the number of items, so it fits in the key's high half.
                *key = (fit.place(size) as u64) << 32 | i as u64;
            }
            for key in keys {
                bin_of[(key & LOW) as usize] = (key >> 32) as usize;
            }
        }
        None => {
            for (size, i) in sorted_pairs(sizes) {
                bin_of[i] = fit.place(size);
            }
        }
    }
    bin_of
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

    #[test]
    fn zero_sized_items_fit_in_a_full_bin() {
        // A full bin has 0 free, which still passes `f >= 0`: only an unopened leaf may not win.
        assert_eq!(first_fit_decreasing(&[10, 0], 10), vec![0, 0]);
    }
}
