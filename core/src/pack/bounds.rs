//! Lower bounds on the GPUs a packing needs: L1 (total size), Martello–Toth L2 and dual feasible
//! functions for shares, slice and count bounds for MIG.

use super::items::Item;
use super::MPS_CLIENTS_PER_GPU;
use crate::catalog::{GpuModel, MigProfile, ProfileClass};
use crate::plan::Mechanism;
use crate::units::Share;

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

/// The best of L2 applied after each Fekete–Schepers dual feasible function u⁽ᵏ⁾, k = 1..=`k_max`.
///
/// With sizes as fractions x of the capacity, u⁽ᵏ⁾(x) is x where (k+1)·x is a whole number and
/// ⌊(k+1)·x⌋ / k elsewhere. Items that fit one bin still fit it after the mapping, so any bound on
/// the mapped sizes bounds the original ones; where many items are a little above C/(k+1) (at most
/// k fit a bin) the mapping rounds them up to 1/k and the bound sees it. Sizes are scaled by k so
/// everything stays in integers; a k whose scaled capacity overflows is skipped. Sizes above
/// `capacity` count as one bin each.
pub fn dff_l2(sizes: &[u64], capacity: u64, k_max: u64) -> u64 {
    let c = u128::from(capacity.max(1));
    let mut best = l2(sizes, capacity);
    let mut mapped = Vec::with_capacity(sizes.len());
    for k in 1..=k_max {
        let Some(scaled) = capacity.max(1).checked_mul(k) else {
            break;
        };
        mapped.clear();
        mapped.extend(sizes.iter().map(|&x| {
            let x = u128::from(x).min(c);
            let times = (u128::from(k) + 1) * x;
            let v = if times % c == 0 {
                x * u128::from(k)
            } else {
                times / c * c
            };
            // v ≤ k·C: u⁽ᵏ⁾ never exceeds 1.
            v as u64
        }));
        best = best.max(l2(&mapped, scaled));
    }
    best
}

/// The bound for the asks of one shared mechanism (MPS or time-slicing): the larger of L2 of
/// their shares and L2 of the memory they hold (each dimension alone must fit), and for MPS the
/// client limit per GPU.
pub(super) fn shared_bound(items: &[Item], mechanism: Mechanism, model: Option<&GpuModel>) -> u64 {
    let of = || items.iter().filter(|c| c.mechanism == mechanism);
    let sizes: Vec<u64> = of().map(|c| c.size).collect();
    let by_size = l2(&sizes, Share::ONE.units());
    let by_memory = match model.map(|m| m.usable_memory().mib) {
        Some(budget) if budget > 0 => {
            let held: Vec<u64> = of().filter_map(|c| c.held_mib).collect();
            l2(&held, budget)
        }
        _ => 0,
    };
    let bound = by_size.max(by_memory);
    match mechanism {
        Mechanism::Mps => bound.max((sizes.len() as u64).div_ceil(MPS_CLIENTS_PER_GPU.into())),
        _ => bound,
    }
}

/// A bound per mechanism (GPUs are never shared across mechanisms), summed. `model` is the MIG
/// model the items' profiles index; `memory_model` budgets shared GPUs' memory.
pub(super) fn lower_bound(
    items: &[Item],
    model: Option<&GpuModel>,
    memory_model: Option<&GpuModel>,
) -> u64 {
    let whole: u64 = items
        .iter()
        .filter(|c| c.mechanism == Mechanism::Whole)
        .map(|c| c.gpus)
        .sum();
    let timeslice = shared_bound(items, Mechanism::Timeslice, memory_model);
    let mps = shared_bound(items, Mechanism::Mps, memory_model);
    let mig = model.map_or(0, |m| mig_bound(items, m));
    whole + timeslice + mps + mig
}

/// MIG GPUs needed for the items' profiles: by compute slices, by memory slices, by each
/// profile's most instances per GPU, and by media extensions (one per GPU).
fn mig_bound(items: &[Item], model: &GpuModel) -> u64 {
    let Some(g) = model.mig else {
        return 0;
    };
    let mut counts = vec![0u64; model.profiles.len()];
    for item in items.iter().filter(|c| c.mechanism == Mechanism::Mig) {
        if let Some(n) = item.profile.and_then(|p| counts.get_mut(usize::from(p))) {
            *n += 1;
        }
    }
    let asked = || model.profiles.iter().zip(counts.iter().copied());
    let sum = |f: fn(&MigProfile) -> u8| -> u64 { asked().map(|(p, n)| u64::from(f(p)) * n).sum() };
    let media: u64 = asked()
        .filter(|(p, _)| {
            matches!(
                p.class,
                ProfileClass::MediaExtensions | ProfileClass::AllMediaEngines
            )
        })
        .map(|(_, n)| n)
        .sum();
    let per_profile = asked()
        .map(|(p, n)| n.div_ceil(p.max_count.into()))
        .max()
        .unwrap_or(0);
    sum(|p| p.compute_slices)
        .div_ceil(g.compute_slices.into())
        .max(sum(|p| p.memory_slices).div_ceil(g.memory_slices.into()))
        .max(per_profile)
        .max(media)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn dff_sees_what_l2_misses() {
        // Five items of 0.35: two per bin, so three bins; L2 (total 1.75) says two. u⁽²⁾ maps each
        // to 1/2 (3·0.35 = 1.05 rounds down to 1, over k = 2), and five halves need three bins.
        assert_eq!(l2(&[35; 5], 100), 2);
        assert_eq!(dff_l2(&[35; 5], 100, 1), 2);
        assert_eq!(dff_l2(&[35; 5], 100, 2), 3);
        // Exact thirds stay thirds: three fill a bin.
        assert_eq!(dff_l2(&[100; 6], 300, 40), 2);
        assert_eq!(dff_l2(&[], 100, 40), 0);
        assert_eq!(dff_l2(&[150, 20], 100, 40), 2, "an oversized item is a bin");
        assert_eq!(dff_l2(&[u64::MAX; 3], u64::MAX, 40), 3, "no overflow");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn dff_is_never_above_the_optimum_nor_below_l2(
            sizes in prop_oneof![
                prop::collection::vec(1u64..=100, 0..11),
                prop::collection::vec(15u64..=40, 0..11),
            ],
        ) {
            let bound = dff_l2(&sizes, 100, 40);
            prop_assert!(bound >= l2(&sizes, 100));
            prop_assert!(bound <= brute_force(&sizes, 100), "{} for {:?}", bound, sizes);
        }
    }

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
