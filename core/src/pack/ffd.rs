//! First-fit-decreasing over plain integer sizes in O(n log n), for shares and for benchmarks.

use super::tree::{FirstFitTree, Max};

/// Item indices by size, largest first; equal sizes keep their input order.
pub fn decreasing_order(sizes: &[u64]) -> Vec<usize> {
    by_size_decreasing(sizes).map(|(_, i)| i).collect()
}

/// `(size, index)` of every item, largest first, equal sizes in input order. The sort orders
/// the pairs themselves, so that the sort and the packing loop read memory in order (sorting
/// indices by `sizes[i]` looked sizes up at random). Where sizes and indices fit in 32 bits,
/// each pair is one `u64` — the size's complement above the index — which sorts twice as fast as
/// pairs and halves the memory the loop streams through (BENCHMARKS.md, growth).
fn by_size_decreasing(sizes: &[u64]) -> impl Iterator<Item = (u64, usize)> {
    let narrow = u32::try_from(sizes.len()).is_ok() && sizes.iter().all(|&s| s <= LOW);
    let (mut keys, mut pairs) = (Vec::new(), Vec::new());
    if narrow {
        keys = (0u64..)
            .zip(sizes)
            .map(|(i, &s)| (LOW - s) << 32 | i)
            .collect();
        sort_by_high_half(&mut keys);
    } else {
        pairs = sizes.iter().copied().zip(0..).collect();
        // Indices are distinct, so an unstable sort on (size descending, index) is deterministic.
        pairs.sort_unstable_by(|a: &(u64, usize), b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    }
    let unpack = |k: u64| (LOW - (k >> 32), (k & LOW) as usize);
    keys.into_iter().map(unpack).chain(pairs)
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
    let order: Vec<(u64, usize)> = by_size_decreasing(sizes).collect();
    let placed = match u32::try_from(capacity) {
        Ok(capacity) => placements::<u32>(&order, capacity),
        Err(_) => placements::<u64>(&order, capacity),
    };
    let mut bin_of = vec![usize::MAX; sizes.len()];
    for (&(_, i), bin) in order.iter().zip(placed) {
        bin_of[i] = bin;
    }
    bin_of
}

/// The bin of each item of `order`, in that order, first fit, with free capacities held as `F`
/// (which holds `capacity`). Two things keep a million asks in the processor's cache: a tree of
/// `u32`s is half the memory of `u64`s, and bins are written in the order they are found and
/// only then scattered to the items' places — writing each item's bin at its input position,
/// at random, inside the loop cost a third of the time at a million asks (BENCHMARKS.md,
/// growth).
fn placements<F>(order: &[(u64, usize)], capacity: F) -> Vec<usize>
where
    F: Copy + Ord + Into<u64> + TryFrom<u64> + std::ops::Sub<Output = F> + Default,
{
    let mut tree = FirstFitTree::<F, Max>::new(order.len(), F::default());
    let mut opened = 0usize;
    let mut placed = Vec::with_capacity(order.len());
    for &(size, _) in order {
        // At most `capacity`, so the conversion holds.
        let size = F::try_from(size.min(capacity.into())).unwrap_or(capacity);
        let bin = match tree.first(|f| f >= size) {
            Some(b) if b < opened => b,
            _ => {
                opened += 1;
                tree.set(opened - 1, capacity);
                opened - 1
            }
        };
        tree.set(bin, tree.leaf(bin) - size);
        placed.push(bin);
    }
    placed
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
            prop_assert_eq!(first_fit_decreasing(&sizes, capacity), reference_ffd(&sizes, capacity));
        }
    }

    #[test]
    fn zero_sized_items_fit_in_a_full_bin() {
        // A full bin has 0 free, which still passes `f >= 0`: only an unopened leaf may not win.
        assert_eq!(first_fit_decreasing(&[10, 0], 10), vec![0, 0]);
    }
}
