//! The plain quadratic first-fit-decreasing, kept as the yardstick the tree packer must agree with.

use super::ffd::decreasing_order;

/// Bin index per item (input order), scanning every open bin for each item: O(n · bins).
pub fn reference_ffd(sizes: &[u64], capacity: u64) -> Vec<usize> {
    let mut free: Vec<u64> = Vec::new();
    let mut bin_of = vec![usize::MAX; sizes.len()];
    for i in decreasing_order(sizes) {
        let size = sizes[i].min(capacity);
        let bin = match free.iter().position(|&f| f >= size) {
            Some(b) => b,
            None => {
                free.push(capacity);
                free.len() - 1
            }
        };
        free[bin] -= size;
        bin_of[i] = bin;
    }
    bin_of
}
