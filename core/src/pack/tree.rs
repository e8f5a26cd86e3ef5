//! A first-fit tree: a search tree over GPUs that finds the leftmost GPU satisfying a test in
//! O(log n), eight children to a node.

use std::marker::PhantomData;

/// Children per inner node. Eight `u64`s are one 64-byte cache line, so a step down the tree reads
/// one line where a binary tree reads three levels' worth: at a million GPUs the binary tree's
/// lower levels missed the cache on nearly every step (BENCHMARKS.md, growth).
const ARITY: usize = 8;

/// How an inner node combines its children's values, chosen so that "some leaf below may pass"
/// can be read off a node (the maximum free capacity, or the union of the profiles that still
/// fit). A type rather than a function pointer, so that the combination is inlined.
pub(crate) trait Combine<T> {
    fn combine(a: T, b: T) -> T;
}

/// The larger of two values: the most free capacity below a node.
#[derive(Clone, Debug)]
pub(crate) struct Max;

impl<T: Ord> Combine<T> for Max {
    fn combine(a: T, b: T) -> T {
        a.max(b)
    }
}

/// A complete eight-ary tree over `len` leaves, stored level by level; each inner node holds
/// `C::combine` of its children.
#[derive(Clone, Debug)]
pub(crate) struct FirstFitTree<T, C> {
    /// `levels[0]` are the leaves; each level holds one node per `ARITY` nodes of the level below
    /// (whose length is a multiple of `ARITY`, padded with a value that passes no test); the last
    /// level is the root alone.
    levels: Vec<Vec<T>>,
    combine: PhantomData<C>,
}

impl<T: Copy + PartialEq, C: Combine<T>> FirstFitTree<T, C> {
    /// A tree of `len` leaves, all `empty` (a value that passes no test).
    pub(crate) fn new(len: usize, empty: T) -> Self {
        let mut levels = Vec::new();
        let mut width = len.max(1);
        while width > 1 {
            let parents = width.div_ceil(ARITY);
            levels.push(vec![empty; parents * ARITY]);
            width = parents;
        }
        levels.push(vec![empty]);
        FirstFitTree {
            levels,
            combine: PhantomData,
        }
    }

    /// Sets leaf `i` and refreshes its ancestors, stopping at the first that does not change:
    /// the ones above it combine the same values as before.
    pub(crate) fn set(&mut self, i: usize, value: T) {
        self.levels[0][i] = value;
        let mut child = i;
        for level in 1..self.levels.len() {
            let parent = child / ARITY;
            let start = parent * ARITY;
            let below = &self.levels[level - 1][start..start + ARITY];
            let combined = below[1..].iter().fold(below[0], |a, &b| C::combine(a, b));
            let node = &mut self.levels[level][parent];
            if *node == combined {
                break;
            }
            *node = combined;
            child = parent;
        }
    }

    /// The leftmost leaf whose value passes `test`. `test` must be monotone over `combine`:
    /// a node passes whenever one of its children does, and only then.
    pub(crate) fn first(&self, test: impl Fn(T) -> bool) -> Option<usize> {
        if !test(self.root()) {
            return None;
        }
        let mut node = 0;
        for level in self.levels[..self.levels.len() - 1].iter().rev() {
            let start = node * ARITY;
            node = start + level[start..start + ARITY].iter().position(|&v| test(v))?;
        }
        Some(node)
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
        let root = self.levels.len() - 1;
        if !maybe(self.root()) {
            return None;
        }
        if root == 0 {
            return fits(self.root()).then_some(0);
        }
        // Depth-first, left before right: per level, the next child to try and the end of its
        // siblings (a tree over at most 2^64 leaves has fewer than 23 levels of eight).
        let (mut next, mut end) = ([0usize; 24], [0usize; 24]);
        let mut level = root - 1;
        end[level] = ARITY;
        loop {
            if next[level] == end[level] {
                level += 1;
                if level == root {
                    return None;
                }
                continue;
            }
            let node = next[level];
            next[level] += 1;
            let value = self.levels[level][node];
            if !maybe(value) {
                continue;
            }
            if level == 0 {
                if fits(value) {
                    return Some(node);
                }
                continue;
            }
            level -= 1;
            next[level] = node * ARITY;
            end[level] = node * ARITY + ARITY;
        }
    }

    /// The value at the root: the combination of every leaf.
    pub(crate) fn root(&self) -> T {
        self.levels[self.levels.len() - 1][0]
    }

    /// Leaf `i`'s value.
    pub(crate) fn leaf(&self, i: usize) -> T {
        self.levels[0][i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each of two values' larger: a bound that a passing node's leaves may not meet.
    struct Both;

    impl Combine<(u64, u64)> for Both {
        fn combine(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
            (a.0.max(b.0), a.1.max(b.1))
        }
    }

    #[test]
    fn finds_the_leftmost_fit() {
        let mut t = FirstFitTree::<u64, Max>::new(5, 0);
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
        let mut t = FirstFitTree::<_, Both>::new(4, (0, 0));
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
            let mut max = FirstFitTree::<u64, Max>::new(len, 0);
            let mut pairs = FirstFitTree::<_, Both>::new(len, (0, 0));
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
