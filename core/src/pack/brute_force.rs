//! The exact optimum by exhaustive search, for tests of the bounds and the optimizer on small inputs.

/// The fewest bins of `capacity` that hold `sizes` (every size at most `capacity`).
pub(crate) fn optimum(sizes: &[u64], capacity: u64) -> usize {
    fn go(i: usize, sizes: &[u64], bins: &mut Vec<u64>, c: u64, best: &mut usize) {
        if bins.len() >= *best {
            return;
        }
        if i == sizes.len() {
            *best = bins.len();
            return;
        }
        for b in 0..bins.len() {
            if bins[b] + sizes[i] <= c {
                bins[b] += sizes[i];
                go(i + 1, sizes, bins, c, best);
                bins[b] -= sizes[i];
            }
        }
        bins.push(sizes[i]);
        go(i + 1, sizes, bins, c, best);
        bins.pop();
    }
    // Largest first finds good packings early, so the bound prunes more.
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut best = sizes.len();
    go(0, &sorted, &mut Vec::new(), capacity, &mut best);
    best
}
