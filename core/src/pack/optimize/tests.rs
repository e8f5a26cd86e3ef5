//! The optimizer never does worse than FFD, never overfills, is deterministic, and finds small optima.

use super::*;
use crate::pack::bins_used;
use proptest::prelude::*;

fn check_feasible(sizes: &[u64], capacity: u64, max_items: usize, r: &Optimized) {
    assert_eq!(r.bin_of.len(), sizes.len());
    let mut load = vec![0u64; r.bins];
    let mut count = vec![0usize; r.bins];
    let mut sized = vec![0usize; r.bins];
    for (i, &b) in r.bin_of.iter().enumerate() {
        assert!(b < r.bins, "item {i} in bin {b} of {}", r.bins);
        load[b] += sizes[i];
        count[b] += 1;
        sized[b] += usize::from(sizes[i] > 0);
    }
    for b in 0..r.bins {
        assert!(count[b] > 0, "bin {b} is empty");
        assert!(count[b] <= max_items, "bin {b} holds {} items", count[b]);
        // An oversized item has a bin of its own, which zero-sized items may share (as in FFD).
        assert!(load[b] <= capacity || sized[b] == 1, "bin {b} overfilled");
    }
    assert!(r.bins as u64 >= r.lower_bound);
    assert_eq!(r.proven_optimal, r.bins as u64 == r.lower_bound);
}

use crate::pack::brute_force::{
    optimum as brute_force, optimum_with_limit as brute_force_with_limit,
};

#[test]
fn beats_ffd_where_ffd_is_known_to_lose() {
    // Sum 40 in bins of 10: FFD's {7,3}, {6,4}, {5,4,1}, {2,2,2,2,2} is already optimal.
    let sizes = [7, 6, 5, 4, 4, 3, 2, 2, 2, 2, 2, 1];
    let r = optimize_sizes(&sizes, 10, Budget::work(100_000));
    check_feasible(&sizes, 10, usize::MAX, &r);
    assert_eq!(r.bins, 4);
    // {6,4,2}, {5,4,3}, {5,4,3} fill three bins of 12 exactly; FFD opens with {6,5} and needs four.
    let sizes = [6, 5, 5, 4, 4, 4, 3, 3, 2];
    assert_eq!(bins_used(&first_fit_decreasing(&sizes, 12)), 4);
    let r = optimize_sizes(&sizes, 12, Budget::work(100_000));
    check_feasible(&sizes, 12, usize::MAX, &r);
    assert_eq!(r.bins, 3);
    assert!(r.proven_optimal);
}

#[test]
fn bin_completion_proves_what_the_bounds_cannot() {
    // Total 193: two bins would need one filled to at least 97, and no subset sums to 97..=100.
    let sizes = [40, 25, 39, 22, 44, 23];
    assert_eq!(lower_bound(&sizes, 100), 2);
    let r = optimize_sizes(&sizes, 100, Budget::work(100_000));
    check_feasible(&sizes, 100, usize::MAX, &r);
    assert_eq!((r.bins, r.lower_bound), (3, 3));
    assert!(r.proven_optimal);
    // Without budget for the search the bound stays where the formulas put it.
    let r = optimize_sizes(&sizes, 100, Budget::work(0));
    assert_eq!((r.bins, r.lower_bound, r.proven_optimal), (3, 2, false));
}

#[test]
fn empty_and_oversized_inputs() {
    let r = optimize_sizes(&[], 10, Budget::default());
    assert_eq!((r.bins, r.lower_bound, r.proven_optimal), (0, 0, true));
    let sizes = [15, 5, 5, 12];
    let r = optimize_sizes(&sizes, 10, Budget::work(10_000));
    check_feasible(&sizes, 10, usize::MAX, &r);
    assert_eq!(r.bins, 3);
}

#[test]
fn respects_an_item_limit_per_bin() {
    let sizes = vec![1u64; 10];
    let problem = Problem {
        sizes: &sizes,
        capacity: 100,
        max_items: 3,
    };
    let start: Vec<usize> = (0..10).map(|i| i / 2).collect();
    let r = improve(&problem, &start, Budget::work(100_000));
    check_feasible(&sizes, 100, 3, &r);
    assert_eq!(r.bins, 4);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn never_worse_than_ffd_and_always_feasible(
        sizes in prop::collection::vec(0u64..=120, 0..80),
        work in 0u64..20_000,
    ) {
        let r = optimize_sizes(&sizes, 100, Budget::work(work));
        check_feasible(&sizes, 100, usize::MAX, &r);
        prop_assert!(r.bins <= bins_used(&first_fit_decreasing(&sizes, 100)));
        prop_assert!(r.work <= work);
        prop_assert_eq!(&r, &optimize_sizes(&sizes, 100, Budget::work(work)), "deterministic");
    }

    #[test]
    fn reaches_the_optimum_on_small_cases(sizes in prop::collection::vec(1u64..=100, 1..12)) {
        let r = optimize_sizes(&sizes, 100, Budget::work(200_000));
        check_feasible(&sizes, 100, usize::MAX, &r);
        prop_assert_eq!(r.bins, brute_force(&sizes, 100));
        // Bin completion settles small cases either way, so the bound meets the optimum.
        prop_assert!(r.proven_optimal, "bound {} optimum {}", r.lower_bound, r.bins);
    }

    #[test]
    fn proves_the_optimum_under_an_item_limit(
        sizes in prop::collection::vec(1u64..=100, 1..11),
        max_items in 1usize..5,
    ) {
        let problem = Problem { sizes: &sizes, capacity: 100, max_items };
        let start: Vec<usize> = (0..sizes.len()).collect();
        let r = improve(&problem, &start, Budget::work(200_000));
        check_feasible(&sizes, 100, max_items, &r);
        let optimum = brute_force_with_limit(&sizes, 100, max_items);
        prop_assert_eq!(r.bins, optimum);
        prop_assert!(r.proven_optimal, "bound {} optimum {}", r.lower_bound, optimum);
    }
}

#[test]
fn zero_sized_items_never_cost_a_bin() {
    // FFD lets the zero-sized items share the oversized item's bin; the optimizer must too.
    let sizes = [101u64, 0, 0, 60, 50];
    let r = optimize_sizes(&sizes, 100, Budget::work(0));
    assert_eq!(r.bins, bins_used(&first_fit_decreasing(&sizes, 100)));
    check_feasible(&sizes, 100, usize::MAX, &r);
    assert_eq!(optimize_sizes(&[0, 0], 100, Budget::work(1000)).bins, 1);
}

#[test]
fn groups_items_by_bin_in_order_of_first_use() {
    // Bins 7, 2, 7, 0 among the chosen items; item 1 (bin 9) is not among them.
    let bin_of = [7, 9, 2, 7, 0];
    assert_eq!(
        group(&[0, 2, 3, 4], &bin_of),
        vec![vec![0, 3], vec![2], vec![4]]
    );
    assert_eq!(group(&[], &bin_of), Vec::<Vec<usize>>::new());
}
