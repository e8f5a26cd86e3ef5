//! The exact optimum by exhaustive search, for tests of the bounds and the optimizer on small inputs.

/// The fewest bins of `capacity` that hold `sizes` (every size at most `capacity`).
pub(crate) fn optimum(sizes: &[u64], capacity: u64) -> usize {
    optimum_with_limit(sizes, capacity, usize::MAX)
}

/// The fewest bins of `capacity` holding at most `max_items` items each that hold `sizes`.
pub(crate) fn optimum_with_limit(sizes: &[u64], capacity: u64, max_items: usize) -> usize {
    struct Bins {
        load: Vec<u64>,
        count: Vec<usize>,
    }
    fn go(i: usize, sizes: &[u64], bins: &mut Bins, c: u64, max: usize, best: &mut usize) {
        if bins.load.len() >= *best {
            return;
        }
        if i == sizes.len() {
            *best = bins.load.len();
            return;
        }
        for b in 0..bins.load.len() {
            if bins.load[b] + sizes[i] <= c && bins.count[b] < max {
                bins.load[b] += sizes[i];
                bins.count[b] += 1;
                go(i + 1, sizes, bins, c, max, best);
                bins.load[b] -= sizes[i];
                bins.count[b] -= 1;
            }
        }
        bins.load.push(sizes[i]);
        bins.count.push(1);
        go(i + 1, sizes, bins, c, max, best);
        bins.load.pop();
        bins.count.pop();
    }
    // Largest first finds good packings early, so the bound prunes more.
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut best = sizes.len();
    let mut bins = Bins {
        load: Vec::new(),
        count: Vec::new(),
    };
    go(0, &sorted, &mut bins, capacity, max_items.max(1), &mut best);
    best
}
