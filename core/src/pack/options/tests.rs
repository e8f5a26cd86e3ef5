//! `bin_pack_with`: the packer's invariants hold after optimizing, and it never uses more GPUs.

use super::*;
use crate::pack::optimize::Budget;
use crate::pack::{bin_pack, Tenants};
use proptest::prelude::*;

fn fraction_asks(thousandths: &[u64]) -> Vec<FractionalAsk> {
    thousandths
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            FractionalAsk::fraction(&format!("a{i}"), Share::ratio(s, 1000).unwrap()).unwrap()
        })
        .collect()
}

fn caps(mps: bool) -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mps: mps,
        supports_timeslicing: !mps,
        ..Default::default()
    }
}

fn optimize() -> PackOptions {
    PackOptions {
        optimize: Some(Budget::work(200_000)),
    }
}

#[test]
fn saves_a_gpu_ffd_wastes() {
    // {0.5,0.333,0.167}, {0.417,0.333,0.25}, {0.417,0.333,0.25} fill three GPUs; FFD needs four.
    let asks = fraction_asks(&[500, 417, 417, 333, 333, 333, 250, 250, 167]);
    let plain = bin_pack(&asks, &caps(false)).unwrap();
    let r = bin_pack_with(&asks, &caps(false), &optimize()).unwrap();
    assert!(r.result.gpus_used <= plain.gpus_used);
    assert_eq!(r.ffd_gpus, plain.gpus_used);
    assert_eq!(r.result.gpus_used, 3, "{:?}", r.result.gpus);
    assert!(r.proven_optimal);
    assert_eq!(r.gap(), 0);
}

#[test]
fn proves_optimal_where_l2_falls_short() {
    // Five asks of 0.35 need three GPUs (two per GPU), but L2 (total 1.75) says two; the
    // optimizer's bound says three, so FFD's three is proven optimal and the result says so.
    for mps in [false, true] {
        let asks = fraction_asks(&[350; 5]);
        let plain = bin_pack(&asks, &caps(mps)).unwrap();
        assert_eq!((plain.gpus_used, plain.lower_bound), (3, 2));
        let r = bin_pack_with(&asks, &caps(mps), &optimize()).unwrap();
        assert_eq!((r.result.gpus_used, r.lower_bound), (3, 3));
        assert_eq!(r.result.lower_bound, 3);
        assert!(r.proven_optimal);
        // With no budget nothing is proved: the bound stays at L2.
        let none = PackOptions {
            optimize: Some(Budget::work(0)),
        };
        let r = bin_pack_with(&asks, &caps(mps), &none).unwrap();
        assert_eq!((r.lower_bound, r.proven_optimal), (2, false));
    }
}

#[test]
fn without_the_option_it_is_plain_ffd() {
    let asks = fraction_asks(&[600, 500, 500, 400, 400, 400, 300, 300, 200]);
    let plain = bin_pack(&asks, &caps(true).clone().with_gpu_count(Some(5))).unwrap();
    let r = bin_pack_with(
        &asks,
        &caps(true).clone().with_gpu_count(Some(5)),
        &PackOptions::default(),
    )
    .unwrap();
    assert_eq!(r.result, plain);
}

#[test]
fn freed_gpus_take_asks_ffd_left_out() {
    // The same perfect packing under a limit of 3 GPUs: FFD leaves an ask out; optimize may not.
    let asks = fraction_asks(&[500, 417, 417, 333, 333, 333, 250, 250, 167]);
    let ffd = bin_pack(&asks, &caps(false).clone().with_gpu_count(Some(3))).unwrap();
    assert!(!ffd.unplaced.is_empty());
    let r = bin_pack_with(
        &asks,
        &caps(false).clone().with_gpu_count(Some(3)),
        &optimize(),
    )
    .unwrap();
    assert!(r.result.gpus_used <= 3);
    assert!(r.result.unplaced.len() <= ffd.unplaced.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn invariants_hold_and_never_more_gpus(
        sizes in prop::collection::vec(1u64..1500, 0..60),
        limit in prop::option::of(1u64..30),
        mps in any::<bool>(),
    ) {
        let asks = fraction_asks(&sizes);
        let plain = bin_pack(&asks, &caps(mps).clone().with_gpu_count(limit)).unwrap();
        let r = bin_pack_with(&asks, &caps(mps).clone().with_gpu_count(limit), &optimize()).unwrap();
        let p = &r.result;
        prop_assert!(p.gpus_used <= plain.gpus_used.max(limit.unwrap_or(0)));
        if limit.is_none() {
            prop_assert!(p.gpus_used <= plain.gpus_used);
        }
        prop_assert!(p.unplaced.len() <= plain.unplaced.len());
        prop_assert!(limit.is_none_or(|n| p.gpus_used <= n));
        prop_assert_eq!(p.gpus_used as usize, p.gpus.len());
        if p.unplaced.is_empty() {
            prop_assert!(p.gpus_used >= p.lower_bound);
        }
        let mut seen: Vec<&str> = p.unplaced.iter().map(|u| u.name.as_str()).collect();
        for (index, g) in p.gpus.iter().enumerate() {
            prop_assert_eq!(g.index as usize, index);
            let total: Share = match g.tenants() {
                Tenants::Whole(_) => Share::ONE,
                _ => g.slots().iter().map(|s| s.share).sum(),
            };
            prop_assert!(total <= Share::ONE, "GPU {} overfilled", index);
            prop_assert_eq!(total, g.used_fraction());
            if g.mechanism() == Mechanism::Mps {
                prop_assert!(g.slots().len() <= MPS_CLIENTS_PER_GPU as usize);
            }
            for a in g.asks() {
                let c = p.choices.iter().find(|c| c.name == a).unwrap();
                prop_assert_eq!(c.mechanism, g.mechanism(), "one mechanism per GPU");
                if c.gpus > 1 && seen.last() == Some(&a) { continue; }
                seen.push(a);
            }
        }
        seen.sort_unstable();
        let mut names: Vec<&str> = asks.iter().map(|a| a.name()).collect();
        names.sort_unstable();
        prop_assert_eq!(seen, names);
    }
}

fn mig_asks(profiles: &[&str]) -> Vec<FractionalAsk> {
    profiles
        .iter()
        .enumerate()
        .map(|(i, p)| FractionalAsk::mig(&format!("m{i}"), p).unwrap())
        .collect()
}

fn mig_caps() -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mig: true,
        gpu_model: Some("a100-40gb".into()),
        ..Default::default()
    }
}

/// Every MIG GPU's instances at valid, non-overlapping placements, and the set placeable.
fn check_mig_layouts(p: &crate::pack::PackResult) {
    let a100 = crate::catalog::find_model("a100-40gb").unwrap();
    for g in p.gpus.iter().filter(|g| g.mechanism() == Mechanism::Mig) {
        let mut used = 0u16;
        for i in g.instances() {
            let prof = a100.profile(i.profile).unwrap();
            assert!(prof.valid_start(i.start), "{} at {}", i.profile, i.start);
            assert_eq!(used & prof.mask_at(i.start), 0, "GPU {} overlaps", g.index);
            used |= prof.mask_at(i.start);
        }
        assert_eq!(g.instances().len(), g.ask_count());
        let compute: u8 = g.instances().iter().map(|i| i.compute_slices).sum();
        assert!(compute <= 7);
    }
}

#[test]
fn empties_a_mig_gpu_by_swapping_instances() {
    // FFD: 4g+3g, 4g+3g, 4g+1g.10gb+1g.10gb, 4g+3×1g.5gb, then a lone 1g.5gb. Swapping a 1g.10gb for
    // a 1g.5gb lets each of the last two GPUs hold 4g + 1g.10gb + 2×1g.5gb: 4 GPUs.
    let asks = mig_asks(&[
        "4g.20gb", "4g.20gb", "4g.20gb", "4g.20gb", "3g.20gb", "3g.20gb", "1g.10gb", "1g.10gb",
        "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb",
    ]);
    let plain = bin_pack(&asks, &mig_caps()).unwrap();
    assert_eq!(plain.gpus_used, 5);
    let r = bin_pack_with(&asks, &mig_caps(), &optimize()).unwrap();
    assert_eq!(r.result.gpus_used, 4);
    assert!(r.proven_optimal);
    check_mig_layouts(&r.result);
    let placed: usize = r.result.gpus.iter().map(|g| g.instances().len()).sum();
    assert_eq!(placed, asks.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn mig_optimize_keeps_placements_valid_and_never_adds_gpus(
        picks in prop::collection::vec(0usize..5, 0..24),
    ) {
        let names = ["1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb"];
        let profiles: Vec<&str> = picks.iter().map(|&i| names[i]).collect();
        let asks = mig_asks(&profiles);
        let plain = bin_pack(&asks, &mig_caps()).unwrap();
        let r = bin_pack_with(&asks, &mig_caps(), &optimize()).unwrap();
        prop_assert!(r.result.gpus_used <= plain.gpus_used);
        prop_assert!(r.result.gpus_used >= r.lower_bound);
        check_mig_layouts(&r.result);
        let mut placed: Vec<&str> = r.result.gpus.iter().flat_map(|g| g.asks()).collect();
        placed.sort_unstable();
        let mut all: Vec<&str> = asks.iter().map(|a| a.name()).collect();
        all.sort_unstable();
        prop_assert_eq!(placed, all);
    }
}
