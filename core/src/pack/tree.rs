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
}
