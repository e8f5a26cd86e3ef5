//! Stable sorts that share one copy of the standard library's sort. Each differently typed
//! `sort_by` or `sort_by_key` (every closure is a type of its own) compiles to a whole copy of the
//! sort, several KB of WebAssembly each: 87 copies were a seventh of the page's wasm. These sort
//! the positions `0..n` with the comparison behind a `dyn` — one copy for every caller — and then
//! move the items into that order, so the result is exactly the slice's own stable sort.
//!
//! For sorts that are not on a hot path: the packer's and the optimizer's sorts of long lists keep
//! the slice's own sort, where the indirect comparison would cost time.

use std::cmp::Ordering;

/// `items.sort_by(compare)`: stable, equal items keep their order.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let n = items.len();
    if n < 2 {
        return;
    }
    // Short lists (a GPU's instances) are sorted often: their positions stay on the stack.
    let mut stack = [0usize; ON_STACK];
    let mut heap = Vec::new();
    let order: &mut [usize] = if n <= ON_STACK {
        &mut stack[..n]
    } else {
        heap.resize(n, 0);
        &mut heap
    };
    stable_order(order, &mut |a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

/// Lists up to this long sort their positions without allocating.
const ON_STACK: usize = 32;

/// `items.sort_by_key(key)`: stable, by the key.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// `items.sort()`: stable, by the items' order.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Fills `order` with the positions `0..order.len()` in the stable order of `compare` (the one
/// copy of the standard sort).
fn stable_order(order: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    for (i, o) in order.iter_mut().enumerate() {
        *o = i;
    }
    order.sort_by(|&a, &b| compare(a, b));
}

/// Puts the item at `order[i]` at `i`, for every `i`, following each cycle of the permutation
/// once (`order` is a permutation of `0..items.len()`; it is used up as the marks of done places).
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            // `from` still holds its own item: the cycle has not reached it yet.
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A comparison that is not a key's: larger first.
    fn descending(a: &(u8, u16), b: &(u8, u16)) -> Ordering {
        b.0.cmp(&a.0)
    }

    proptest! {
        /// The same order as the slice's own stable sort, ties included (the second field tells
        /// equal keys apart).
        #[test]
        fn sorts_as_the_standard_stable_sort(items in proptest::collection::vec((0u8..6, any::<u16>()), 0..100)) {
            let mut ours = items.clone();
            let mut theirs = items.clone();
            sort_by_key(&mut ours, |&(k, _)| k);
            theirs.sort_by_key(|&(k, _)| k);
            prop_assert_eq!(&ours, &theirs);

            let (mut ours, mut theirs) = (items.clone(), items.clone());
            sort_by(&mut ours, descending);
            theirs.sort_by(descending);
            prop_assert_eq!(&ours, &theirs);

            let (mut ours, mut theirs) = (items.clone(), items);
            sort(&mut ours);
            theirs.sort();
            prop_assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn moves_items_that_are_not_copy() {
        let mut names = vec!["c".to_string(), "a".into(), "b".into(), "a".into()];
        sort(&mut names);
        assert_eq!(names, ["a", "a", "b", "c"]);
        let mut empty: Vec<String> = Vec::new();
        sort(&mut empty);
        assert!(empty.is_empty());
    }
}
