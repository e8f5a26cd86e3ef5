//! A first-fit tree: a segment tree over GPUs that finds the leftmost GPU satisfying a test in O(log n).

/// A complete binary tree over `len` leaves; each inner node holds `combine` of its children, chosen
/// so that "some leaf below may pass" can be read off a node (the maximum free capacity, or the
/// union of the profiles that still fit).
#[derive(Clone, Debug)]
pub(crate) struct FirstFitTree<T> {
    leaves: usize,
    nodes: Vec<T>,
    combine: fn(T, T) -> T,
}

impl<T: Copy> FirstFitTree<T> {
    /// A tree of `len` leaves, all `empty` (a value that passes no test).
    pub(crate) fn new(len: usize, empty: T, combine: fn(T, T) -> T) -> Self {
        let leaves = len.max(1).next_power_of_two();
        FirstFitTree {
            leaves,
            nodes: vec![empty; 2 * leaves],
            combine,
        }
    }

    /// Sets leaf `i` and refreshes its ancestors.
    pub(crate) fn set(&mut self, i: usize, value: T) {
        let mut n = self.leaves + i;
        self.nodes[n] = value;
        while n > 1 {
            n /= 2;
            self.nodes[n] = (self.combine)(self.nodes[2 * n], self.nodes[2 * n + 1]);
        }
    }

    /// The leftmost leaf whose value passes `test`. `test` must be monotone over `combine`:
    /// a node passes whenever one of its children does, and only then.
    pub(crate) fn first(&self, test: impl Fn(T) -> bool) -> Option<usize> {
        if !test(self.nodes[1]) {
            return None;
        }
        let mut n = 1;
        while n < self.leaves {
            n = if test(self.nodes[2 * n]) {
                2 * n
            } else {
                2 * n + 1
            };
        }
        Some(n - self.leaves)
    }

    /// The leftmost leaf passing `fits`, searching only below nodes that pass `maybe` (which
    /// must pass whenever some leaf below passes `fits`). For values whose combination only
    /// bounds its children — the largest free compute and the largest free memory of GPUs that
    /// may differ — a passing node can hide failing leaves, so the search backtracks.
    pub(crate) fn first_leaf(
        &self,
        maybe: impl Fn(T) -> bool,
        fits: impl Fn(T) -> bool,
    ) -> Option<usize> {
        // Depth-first, left before right; the stack holds at most one pending right child per
        // level (a tree over at most 2^63 leaves has fewer than 64 levels).
        let mut stack = [0usize; 64];
        let (mut top, mut n) = (0usize, 1usize);
        loop {
            if maybe(self.nodes[n]) {
                if n >= self.leaves {
                    if fits(self.nodes[n]) {
                        return Some(n - self.leaves);
                    }
                } else {
                    stack[top] = 2 * n + 1;
                    top += 1;
                    n *= 2;
                    continue;
                }
            }
            if top == 0 {
                return None;
            }
            top -= 1;
            n = stack[top];
        }
    }

    /// The value at the root: the combination of every leaf.
    pub(crate) fn root(&self) -> T {
        self.nodes[1]
    }

    /// Leaf `i`'s value.
    #[cfg(test)]
    pub(crate) fn leaf(&self, i: usize) -> T {
        self.nodes[self.leaves + i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_leftmost_fit() {
        let mut t = FirstFitTree::new(5, 0u64, u64::max);
        for (i, v) in [3, 9, 4, 9, 1].into_iter().enumerate() {
            t.set(i, v);
        }
        assert_eq!(t.first(|v| v >= 4), Some(1));
        assert_eq!(t.first(|v| v >= 10), None);
        t.set(1, 0);
        assert_eq!(t.first(|v| v >= 5), Some(3));
        assert_eq!(t.first(|v| v >= 1), Some(0));
    }

    #[test]
    fn backtracks_past_bounds_no_leaf_meets() {
        fn both(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
            (a.0.max(b.0), a.1.max(b.1))
        }
        let mut t = FirstFitTree::new(4, (0, 0), both);
        for (i, v) in [(9, 1), (1, 9), (5, 5), (9, 9)].into_iter().enumerate() {
            t.set(i, v);
        }
        let test = |need: (u64, u64)| move |v: (u64, u64)| v.0 >= need.0 && v.1 >= need.1;
        // The left half's bound (9, 9) passes, but neither of its GPUs has room in both.
        assert_eq!(t.first_leaf(test((5, 5)), test((5, 5))), Some(2));
        assert_eq!(t.first_leaf(test((6, 6)), test((6, 6))), Some(3));
        assert_eq!(t.first_leaf(test((10, 1)), test((10, 1))), None);
        // Against a brute-force scan, for every need.
        for a in 0..11 {
            for b in 0..11 {
                let scan = (0..4).find(|&i| test((a, b))(t.leaf(i)));
                assert_eq!(t.first_leaf(test((a, b)), test((a, b))), scan, "{a} {b}");
            }
        }
    }

    proptest::proptest! {
        /// Against a scan of the leaves, on trees of up to 1,024 leaves, after any updates.
        #[test]
        fn finds_what_a_scan_finds(
            len in 1usize..700,
            sets in proptest::collection::vec((0usize..700, 0u64..20, 0u64..20), 0..300),
            needs in proptest::collection::vec((0u64..21, 0u64..21), 1..20),
        ) {
            let mut max = FirstFitTree::new(len, 0u64, u64::max);
            let mut pairs = FirstFitTree::new(len, (0, 0), |a: (u64, u64), b: (u64, u64)| {
                (a.0.max(b.0), a.1.max(b.1))
            });
            let mut leaves = vec![(0u64, 0u64); len];
            for (i, a, b) in sets {
                let i = i % len;
                leaves[i] = (a, b);
                max.set(i, a);
                pairs.set(i, (a, b));
            }
            proptest::prop_assert_eq!(max.root(), leaves.iter().map(|l| l.0).max().unwrap_or(0));
            for (a, b) in needs {
                let scan = leaves.iter().position(|l| l.0 >= a);
                proptest::prop_assert_eq!(max.first(|v| v >= a), scan);
                let fits = |v: (u64, u64)| v.0 >= a && v.1 >= b;
                let scan = leaves.iter().position(|&l| fits(l));
                proptest::prop_assert_eq!(pairs.first_leaf(fits, fits), scan);
            }
        }
    }
}
