//! Lower bounds on the GPUs a packing needs: L1 (total size) and Martello–Toth L2 for shares,
//! slice and count bounds for MIG.

/// ⌈Σ sizes / capacity⌉.
pub fn l1(sizes: &[u64], capacity: u64) -> u64 {
    let total: u128 = sizes.iter().map(|&s| u128::from(s)).sum();
    total.div_ceil(u128::from(capacity.max(1))) as u64
}

/// The Martello–Toth bound L2 (≥ L1), in O(n log n). Sizes above `capacity` count as one bin each.
///
/// For every threshold α ≤ C/2 (α = 0 and each distinct size), items larger than C − α each need
/// a bin of their own, items in (C/2, C − α] each need a bin too, and items in [α, C/2] can only
/// use the room the second group leaves, then fill bins of their own.
pub fn l2(sizes: &[u64], capacity: u64) -> u64 {
    if sizes.is_empty() {
        return 0;
    }
    let c = u128::from(capacity.max(1));
    let mut s: Vec<u128> = sizes.iter().map(|&x| u128::from(x).min(c)).collect();
    s.sort_unstable();
    let mut prefix = Vec::with_capacity(s.len() + 1);
    prefix.push(0u128);
    for &x in &s {
        prefix.push(prefix.last().copied().unwrap_or(0) + x);
    }
    // Index of the first item > v, and of the first item ≥ v.
    let above = |v: u128| s.partition_point(|&x| x <= v);
    let at_least = |v: u128| s.partition_point(|&x| x < v);
    let half = c / 2;
    let mut best = l1(sizes, capacity);
    let mut alphas: Vec<u128> = vec![0];
    alphas.extend(s.iter().copied().filter(|&x| x <= half));
    alphas.dedup();
    for alpha in alphas {
        let j1_start = above(c - alpha);
        let j2_start = above(half);
        let j3_start = at_least(alpha);
        let n = s.len();
        let j1 = (n - j1_start) as u128;
        let j2 = j1_start.saturating_sub(j2_start) as u128;
        let sum_j2 = prefix[j1_start] - prefix[j2_start.min(j1_start)];
        let sum_j3 = prefix[j2_start] - prefix[j3_start.min(j2_start)];
        let room = j2 * c - sum_j2;
        let extra = sum_j3.saturating_sub(room).div_ceil(c);
        best = best.max((j1 + j2 + extra) as u64);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l2_beats_l1_on_big_items() {
        // Three items of 0.6: L1 = 2, but no two share a bin.
        assert_eq!(l1(&[6, 6, 6], 10), 2);
        assert_eq!(l2(&[6, 6, 6], 10), 3);
        assert_eq!(l2(&[5, 5, 5, 5], 10), 2);
        assert_eq!(l2(&[], 10), 0);
        assert_eq!(l2(&[7, 4, 4], 10), 2);
    }

    #[test]
    fn l2_is_never_above_a_brute_force_optimum() {
        let cases: &[&[u64]] = &[
            &[3, 3, 3, 3, 3, 3, 4, 4, 4],
            &[9, 1, 8, 2, 7, 3],
            &[6, 5, 5, 4, 3, 3, 2],
        ];
        for sizes in cases {
            let opt = brute_force(sizes, 10);
            assert!(l2(sizes, 10) <= opt, "{sizes:?}");
        }
    }

    fn brute_force(sizes: &[u64], c: u64) -> u64 {
        crate::pack::brute_force::optimum(sizes, c) as u64
    }
}
