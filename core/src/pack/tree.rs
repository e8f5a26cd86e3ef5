//! A first-fit tree: a search tree over GPUs that finds the leftmost GPU satisfying a test in
//! O(log n), a cache line of children to a node.

use std::marker::PhantomData;

/// The most children an inner node has: sixteen `u32`s, one 64-byte cache line.
const MAX_ARITY: usize = 16;

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

/// `C::combine` of a node's children (a power of two of them, at most [`MAX_ARITY`]) as a
/// balanced tree: four steps deep for sixteen where a fold is fifteen, each step waiting on the
/// one before. (With a fold of eight, refreshing the ancestors was a third of first-fit-decreasing's
/// time at a million asks; balanced, the whole took a fifth less, at 100,000 asks too.)
fn combine_children<T: Copy, C: Combine<T>>(children: &[T]) -> T {
    let mut values = [children[0]; MAX_ARITY];
    values[..children.len()].copy_from_slice(children);
    let mut width = children.len();
    while width > 1 {
        width /= 2;
        for i in 0..width {
            values[i] = C::combine(values[2 * i], values[2 * i + 1]);
        }
    }
    values[0]
}

/// The first of a node's children passing `test`: every child tested, without a branch, into a
/// bit mask whose lowest set bit is the answer (the compiler makes a few vector comparisons of
/// it, where stopping at the first that passes was a branch on each child).
fn first_passing<T: Copy>(children: &[T], test: impl Fn(T) -> bool) -> Option<usize> {
    let passing = children
        .iter()
        .enumerate()
        .fold(0u32, |mask, (i, &v)| mask | u32::from(test(v)) << i);
    (passing != 0).then(|| passing.trailing_zeros() as usize)
}

/// A complete tree over `len` leaves, stored level by level, [`Self::ARITY`] children to a node;
/// each inner node holds `C::combine` of its children.
#[derive(Clone, Debug)]
pub(crate) struct FirstFitTree<T, C> {
    /// `levels[0]` are the leaves; each level holds one node per `ARITY` nodes of the level below
    /// (whose length is a multiple of `ARITY`, padded with a value that passes no test); the last
    /// level is the root alone.
    levels: Vec<Vec<T>>,
    combine: PhantomData<C>,
}

impl<T: Copy + PartialEq, C: Combine<T>> FirstFitTree<T, C> {
    /// Children per inner node: sixteen for values of up to four bytes, which fill a 64-byte
    /// cache line, else eight (eight `u64`s fill one). A step down the tree reads one line where a binary tree reads
    /// three or four levels' worth: at a million GPUs the binary tree's lower levels missed the
    /// cache on nearly every step; and with sixteen `u32`s, 100,000 and 1,000,000 leaves are both
    /// five levels deep (with eight, six and seven: BENCHMARKS.md, growth).
    const ARITY: usize = if std::mem::size_of::<T>() <= 4 {
        MAX_ARITY
    } else {
        8
    };

    /// A tree of `len` leaves, all `empty` (a value that passes no test).
    pub(crate) fn new(len: usize, empty: T) -> Self {
        let mut levels = Vec::new();
        let mut width = len.max(1);
        while width > 1 {
            let parents = width.div_ceil(Self::ARITY);
            levels.push(vec![empty; parents * Self::ARITY]);
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
            let parent = child / Self::ARITY;
            let start = parent * Self::ARITY;
            let combined =
                combine_children::<T, C>(&self.levels[level - 1][start..start + Self::ARITY]);
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
            let start = node * Self::ARITY;
            node = start + first_passing(&level[start..start + Self::ARITY], &test)?;
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
        end[level] = Self::ARITY;
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
            next[level] = node * Self::ARITY;
            end[level] = node * Self::ARITY + Self::ARITY;
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
        /// Against a scan of the leaves, on trees of up to 700 leaves (three levels of sixteen,
        /// four of eight), after any updates.
        #[test]
        fn finds_what_a_scan_finds(
            len in 1usize..700,
            sets in proptest::collection::vec((0usize..700, 0u64..20, 0u64..20), 0..300),
            needs in proptest::collection::vec((0u64..21, 0u64..21), 1..20),
        ) {
            let mut max = FirstFitTree::<u64, Max>::new(len, 0);
            // Sixteen children to a node where eight `u64`s fill a cache line.
            let mut max32 = FirstFitTree::<u32, Max>::new(len, 0);
            let mut pairs = FirstFitTree::<_, Both>::new(len, (0, 0));
            let mut leaves = vec![(0u64, 0u64); len];
            for (i, a, b) in sets {
                let i = i % len;
                leaves[i] = (a, b);
                max.set(i, a);
                max32.set(i, a as u32);
                pairs.set(i, (a, b));
            }
            proptest::prop_assert_eq!(max.root(), leaves.iter().map(|l| l.0).max().unwrap_or(0));
            proptest::prop_assert_eq!(u64::from(max32.root()), max.root());
            for (a, b) in needs {
                let scan = leaves.iter().position(|l| l.0 >= a);
                proptest::prop_assert_eq!(max.first(|v| v >= a), scan);
                proptest::prop_assert_eq!(max32.first(|v| u64::from(v) >= a), scan);
                let fits = |v: (u64, u64)| v.0 >= a && v.1 >= b;
                let scan = leaves.iter().position(|&l| fits(l));
                proptest::prop_assert_eq!(pairs.first_leaf(fits, fits), scan);
            }
        }
    }
}
