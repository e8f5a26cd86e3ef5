//! First-fit-decreasing over plain integer sizes in O(n log n), for shares and for benchmarks.

use super::tree::FirstFitTree;

/// Item indices by size, largest first; equal sizes keep their input order.
pub fn decreasing_order(sizes: &[u64]) -> Vec<usize> {
    by_size_decreasing(sizes)
        .into_iter()
        .map(|(_, i)| i)
        .collect()
}

/// `(size, index)` of every item, largest first, equal sizes in input order. Sorting the pairs
/// themselves keeps the sort and the packing loop reading memory in order: sorting indices by
/// `sizes[i]` looked sizes up at random, and at a million asks those cache misses were half of
/// first-fit-decreasing's time (BENCHMARKS.md, growth).
fn by_size_decreasing(sizes: &[u64]) -> Vec<(u64, usize)> {
    let mut keyed: Vec<(u64, usize)> = sizes.iter().copied().zip(0..).collect();
    // Indices are distinct, so an unstable sort on (size descending, index) is deterministic.
    keyed.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    keyed
}

/// Bin index per item (input order). Items larger than `capacity` get a bin of their own.
pub fn first_fit_decreasing(sizes: &[u64], capacity: u64) -> Vec<usize> {
    let mut tree = FirstFitTree::new(sizes.len(), 0u64, u64::max);
    let mut free: Vec<u64> = Vec::new();
    let mut bin_of = vec![usize::MAX; sizes.len()];
    for (size, i) in by_size_decreasing(sizes) {
        let size = size.min(capacity);
        let bin = match tree.first(|f| f >= size) {
            Some(b) if b < free.len() => b,
            _ => {
                free.push(capacity);
                free.len() - 1
            }
        };
        free[bin] -= size;
        tree.set(bin, free[bin]);
        bin_of[i] = bin;
    }
    bin_of
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
    }

    #[test]
    fn zero_sized_items_fit_in_a_full_bin() {
        // A full bin has 0 free, which still passes `f >= 0`: only an unopened leaf may not win.
        assert_eq!(first_fit_decreasing(&[10, 0], 10), vec![0, 0]);
    }
}
