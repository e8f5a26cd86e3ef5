//! The plain quadratic first-fit-decreasing, kept as the yardstick the tree packer must agree with.

/// Bin index per item (input order), scanning every open bin for each item: O(n · bins).
pub fn reference_ffd(sizes: &[u64], capacity: u64) -> Vec<usize> {
    let mut free: Vec<u64> = Vec::new();
    let mut bin_of = vec![usize::MAX; sizes.len()];
    // The plain stable sort, not the packer's own order: the yardstick shares no code with it.
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    crate::sort::sort_by_key(&mut order, |&i| std::cmp::Reverse(sizes[i]));
    for i in order {
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
