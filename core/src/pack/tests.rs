//! Packing: the seed's examples, MIG geometry, limits, and properties over random inputs.

use super::*;
use crate::plan::{Choice, Mechanism};
use crate::units::Share;
use proptest::prelude::*;

fn asks(specs: &[&str]) -> Vec<FractionalAsk> {
    specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect()
}

fn timeslice() -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    }
}

fn mig() -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mig: true,
        ..Default::default()
    }
}

#[test]
fn seed_pack_example() {
    let r = bin_pack(
        &asks(&["a:0.5", "b:0.3", "c:0.4"]),
        &timeslice().with_gpu_count(Some(2)),
    )
    .unwrap();
    assert_eq!(r.gpus_used, 2);
    assert_eq!(r.lower_bound, 2);
    assert!(r.unplaced.is_empty());
    assert_eq!(r.gpus[0].asks().collect::<Vec<_>>(), ["a", "c"]);
    assert_eq!(r.gpus[1].asks().collect::<Vec<_>>(), ["b"]);
    assert!(r.gpus.iter().all(|g| g.mechanism() == Mechanism::Timeslice));
}

#[test]
fn exact_sums_fill_one_gpu() {
    let r = bin_pack(&asks(&["a:0.55", "b:0.34", "c:0.11"]), &timeslice()).unwrap();
    assert_eq!(r.gpus_used, 1);
    assert_eq!(r.gpus[0].used_fraction(), Share::ONE);
    let thirds = bin_pack(&asks(&["a:1/3", "b:1/3", "c:1/3"]), &timeslice()).unwrap();
    assert_eq!(thirds.gpus_used, 1);
}

#[test]
fn unplaced_asks_are_reported_not_dropped() {
    let r = bin_pack(
        &asks(&["a:0.6", "b:0.6", "c:0.6"]),
        &timeslice().with_gpu_count(Some(2)),
    )
    .unwrap();
    assert_eq!(r.gpus_used, 2);
    assert_eq!(r.lower_bound, 3);
    assert_eq!(r.unplaced.len(), 1);
    assert_eq!(r.unplaced[0].name, "c");
    assert!(
        r.unplaced[0].reason.contains("0 of 2 GPUs free"),
        "{}",
        r.unplaced[0].reason
    );
    let whole = bin_pack(
        &asks(&["big:3", "s:0.5"]),
        &timeslice().with_gpu_count(Some(2)),
    )
    .unwrap();
    assert_eq!(whole.unplaced[0].name, "big");
    assert!(whole.unplaced[0].reason.contains("needs 3 whole GPUs"));
    assert_eq!(whole.gpus_used, 1);
}

#[test]
fn mig_layout_that_fits_only_in_one_order() {
    let r = bin_pack(
        &asks(&["x:3g.20gb", "y:2g.10gb", "z:2g.10gb"]),
        &mig().with_gpu_count(Some(1)),
    )
    .unwrap();
    assert_eq!(r.gpus_used, 1, "{:?}", r.unplaced);
    let three = r.gpus[0]
        .instances()
        .iter()
        .find(|i| i.profile == "3g.20gb")
        .unwrap();
    assert_eq!(three.start, 4);
    let starts: Vec<u8> = r.gpus[0].instances().iter().map(|i| i.start).collect();
    assert_eq!(starts, [0, 2, 4]);
}

#[test]
fn mig_geometry_can_forbid_what_the_slice_sum_allows() {
    // 3 + 3 + 1 = 7 compute slices, but the two 3g.20gb take all eight memory slices.
    let r = bin_pack(&asks(&["a:3g.20gb", "b:3g.20gb", "c:1g.5gb"]), &mig()).unwrap();
    assert_eq!(r.gpus_used, 2);
    assert_eq!(r.lower_bound, 2);
}

#[test]
fn never_mixes_mechanisms_on_a_gpu() {
    let caps = ClusterGpuCaps {
        supports_mig: true,
        supports_timeslicing: true,
        mig_profiles: Some(vec!["1g.5gb".into()]),
        ..Default::default()
    };
    let r = bin_pack(&asks(&["m:0.1", "t:0.5", "w:1"]), &caps).unwrap();
    assert_eq!(r.gpus_used, 3);
    let mechs: Vec<Mechanism> = r.gpus.iter().map(|g| g.mechanism()).collect();
    assert_eq!(
        mechs,
        [Mechanism::Whole, Mechanism::Timeslice, Mechanism::Mig]
    );
}

#[test]
fn mps_caps_clients_per_gpu() {
    let caps = ClusterGpuCaps {
        supports_mps: true,
        ..Default::default()
    };
    let many: Vec<FractionalAsk> = (0..50)
        .map(|i| FractionalAsk::fraction(&format!("c{i}"), Share::parse("0.01").unwrap()).unwrap())
        .collect();
    let r = bin_pack(&many, &caps).unwrap();
    assert_eq!(r.gpus_used, 2);
    assert_eq!(r.gpus[0].ask_count(), 48);
    assert_eq!(r.lower_bound, 2);
}

#[test]
fn rejects_duplicate_names_and_bad_counts() {
    let err = bin_pack(&asks(&["a:0.5", "a:0.2"]), &timeslice()).unwrap_err();
    assert_eq!(err.kind, crate::error::ErrorKind::DuplicateName);
    assert!(bin_pack(&asks(&["a:0.5"]), &timeslice().with_gpu_count(Some(0))).is_err());
    assert!(bin_pack(&asks(&["a:9g.9gb"]), &mig()).is_err());
}

proptest! {
    /// The duplicate found (and so the error's words) is the one a plain sort of the names
    /// finds: the first repeated name in byte order, at its first two asks. Names share long
    /// prefixes around the 16 bytes the check compares as a number first.
    #[test]
    fn a_duplicate_is_found_as_a_sort_of_the_names_finds_it(
        picks in prop::collection::vec((0usize..4, 0usize..6), 0..40),
    ) {
        let stems = ["", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq-"];
        let names: Vec<String> = picks
            .iter()
            .map(|&(stem, tail)| format!("{}{}", stems[stem], "xy".repeat(tail)))
            .filter(|n| !n.is_empty())
            .collect();
        let asks: Vec<FractionalAsk> = names
            .iter()
            .map(|n| FractionalAsk::fraction(n, Share::from_units(1)).unwrap())
            .collect();
        let mut sorted: Vec<(&str, usize)> = names.iter().map(String::as_str).zip(0..).collect();
        sorted.sort_unstable();
        let expected = sorted
            .windows(2)
            .find(|p| p[0].0 == p[1].0)
            .map(|p| (p[0].1 + 1, p[1].1 + 1, p[0].0));
        let found = check_unique_names(&asks).err().map(|e| e.message);
        let expected = expected.map(|(a, b, name)| {
            format!("asks {a} and {b} are both named {name:?}; names must be unique")
        });
        prop_assert_eq!(found, expected);
    }
}

#[test]
fn absurd_sizes_are_refused_or_unplaced_not_planned() {
    assert!(FractionalAsk::parse_spec("huge:100001").is_err());
    let big: Vec<FractionalAsk> = (0..11)
        .map(|i| FractionalAsk::parse_spec(&format!("b{i}:100000")).unwrap())
        .collect();
    let r = bin_pack(&big, &timeslice()).unwrap();
    assert_eq!(r.gpus_used, 1_000_000);
    assert_eq!(r.unplaced.len(), 1);
    assert!(
        r.unplaced[0].reason.contains("limit of 1000000"),
        "{}",
        r.unplaced[0].reason
    );
}

#[test]
fn empty_input_is_an_empty_plan() {
    let r = bin_pack(&[], &timeslice().with_gpu_count(Some(4))).unwrap();
    assert_eq!((r.gpus_used, r.lower_bound), (0, 0));
}

fn arb_ask() -> impl Strategy<Value = (u8, u64)> {
    // (kind, size): kind 0 = fraction in 1/1000ths (up to 2.5 GPUs), 1 = an A100 profile index.
    prop_oneof![(Just(0u8), 1u64..2500), (Just(1u8), 0u64..7)]
}

/// What `PackResult::utilisation` stands for, each ask's choice found by a scan.
fn utilisation_by_lookup(r: &PackResult) -> Share {
    if r.gpus_used == 0 {
        return Share::ZERO;
    }
    let total: u128 = r
        .gpus
        .iter()
        .map(|g| {
            let requested: u128 = g
                .asks()
                .filter_map(|a| r.choices.iter().find(|c| c.name == a))
                .map(|c| u128::from(c.requested_fraction.units()) / u128::from(c.gpus.max(1)))
                .sum();
            requested.min(u128::from(g.used_fraction().units()))
        })
        .sum();
    Share::from_units((total / u128::from(r.gpus_used)) as u64)
}

fn build(raw: &[(u8, u64)]) -> Vec<FractionalAsk> {
    let a100 = crate::catalog::find_model("a100-40gb").unwrap();
    raw.iter()
        .enumerate()
        .map(|(i, &(kind, v))| match kind {
            0 => FractionalAsk::fraction(&format!("f{i}"), Share::ratio(v, 1000).unwrap()).unwrap(),
            _ => FractionalAsk::mig(&format!("m{i}"), a100.profiles[v as usize].name).unwrap(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn packing_invariants(
        raw in prop::collection::vec(arb_ask(), 0..60),
        limit in prop::option::of(1u64..40),
        flags in 0u8..8,
    ) {
        let caps = ClusterGpuCaps {
            supports_mig: flags & 1 != 0,
            supports_mps: flags & 2 != 0,
            supports_timeslicing: flags & 4 != 0,
            gpu_model: Some("a100-40gb".into()),
            ..Default::default()
        };
        let asks = build(&raw);
        let r = bin_pack(&asks, &caps.clone().with_gpu_count(limit)).unwrap();
        // Every ask is placed or reported, exactly once.
        let mut seen: Vec<&str> = r.unplaced.iter().map(|u| u.name.as_str()).collect();
        for g in &r.gpus {
            for a in g.asks() {
                let whole = r.choices.iter().find(|c| c.name == a).unwrap();
                if whole.gpus > 1 && seen.last() == Some(&a) { continue; }
                seen.push(a);
            }
        }
        seen.sort_unstable();
        let mut names: Vec<&str> = asks.iter().map(|a| a.name()).collect();
        names.sort_unstable();
        prop_assert_eq!(seen, names);
        prop_assert!(limit.is_none_or(|n| r.gpus_used <= n));
        prop_assert!(r.utilisation <= Share::ONE);
        prop_assert_eq!(r.utilisation, utilisation_by_lookup(&r));
        if r.unplaced.is_empty() {
            prop_assert!(r.gpus_used >= r.lower_bound);
        }
        for g in &r.gpus {
            prop_assert!(g.used_fraction() <= Share::ONE);
            for a in g.asks() {
                let c = r.choices.iter().find(|c| c.name == a).unwrap();
                prop_assert_eq!(c.mechanism, g.mechanism(), "one mechanism per GPU");
            }
            let slots: Share = g.slots().iter().map(|s| s.share).sum();
            prop_assert!(slots <= Share::ONE, "GPU {} overfilled", g.index);
            let mut used = 0u16;
            for inst in g.instances() {
                let a100 = crate::catalog::find_model("a100-40gb").unwrap();
                let p = a100.profile(inst.profile).unwrap();
                prop_assert!(p.valid_start(inst.start));
                prop_assert_eq!(used & p.mask_at(inst.start), 0, "instances overlap");
                used |= p.mask_at(inst.start);
            }
            if g.mechanism() == Mechanism::Mig {
                prop_assert_eq!(g.instances().len(), g.ask_count());
            }
        }
    }

    #[test]
    fn shared_packing_matches_the_reference_ffd(sizes in prop::collection::vec(1u64..1000, 0..120)) {
        let asks: Vec<FractionalAsk> = sizes.iter().enumerate()
            .map(|(i, &s)| FractionalAsk::fraction(&format!("a{i}"), Share::ratio(s, 1000).unwrap()).unwrap())
            .collect();
        let r = bin_pack(&asks, &timeslice()).unwrap();
        let units: Vec<u64> = asks.iter().map(|a| a.requested_fraction().unwrap().units()).collect();
        let reference = reference_ffd(&units, Share::ONE.units());
        prop_assert_eq!(r.gpus_used as usize, bins_used(&reference));
        for g in &r.gpus {
            for a in g.asks() {
                let i: usize = a[1..].parse().unwrap();
                prop_assert_eq!(reference[i], g.index as usize);
            }
        }
    }
}

/// Issue #13, rule 2: one mechanism runs per GPU, so the mechanism each ask prefers alone can leave
/// asks unplaced that another offered mechanism places. Four asks of 0.5 on two GPUs with MIG and
/// MPS: MIG gives each a 4g.20gb (one per A100-40GB, two unplaced); MPS places all four.
#[test]
fn a_weaker_mechanism_places_what_the_preferred_one_cannot() {
    let caps = ClusterGpuCaps {
        supports_mig: true,
        supports_mps: true,
        ..Default::default()
    };
    let four = asks(&["a:0.5", "b:0.5", "c:0.5", "d:0.5"]);
    let r = bin_pack(&four, &caps.clone().with_gpu_count(Some(2))).unwrap();
    assert!(r.unplaced.is_empty(), "{:?}", r.unplaced);
    assert_eq!(r.gpus_used, 2);
    assert!(r.choices.iter().all(|c| c.mechanism == Mechanism::Mps));
    let note = r
        .notes
        .iter()
        .find(|n| n.starts_with("moved to a weaker mechanism"))
        .unwrap();
    assert!(note.contains("a (mig → mps)"), "{note}");
    assert!(r.choices[0].notes[0].contains("mig would leave asks unplaced"));
    // Without a limit MIG places them all on four GPUs: nothing moves.
    let free = bin_pack(&four, &caps).unwrap();
    assert!(free.choices.iter().all(|c| c.mechanism == Mechanism::Mig));
    // Where MIG fits within the limit, MIG stays (the stronger isolation).
    let fits = bin_pack(&four, &caps.clone().with_gpu_count(Some(4))).unwrap();
    assert!(fits.choices.iter().all(|c| c.mechanism == Mechanism::Mig));
    assert!(fits.unplaced.is_empty());
}

/// Only as many asks move as needed: with room for one MIG GPU beside an MPS GPU, the mix stays.
#[test]
fn only_what_must_move_moves() {
    let caps = ClusterGpuCaps {
        supports_mig: true,
        supports_mps: true,
        ..Default::default()
    };
    // x (3g.20gb) and y, z (2g.10gb) fill one A100 under MIG; p and q of 0.5 need a second GPU.
    let r = bin_pack(
        &asks(&["x:0.4", "y:0.25", "z:0.25", "p:0.5", "q:0.5"]),
        &caps.clone().with_gpu_count(Some(2)),
    )
    .unwrap();
    assert!(r.unplaced.is_empty(), "{:?}", r.unplaced);
    let mig: Vec<&str> = r
        .choices
        .iter()
        .filter(|c| c.mechanism == Mechanism::Mig)
        .map(|c| c.name.as_str())
        .collect();
    assert!(!mig.is_empty(), "some asks keep MIG: {:?}", r.choices);
}

/// Asks of `sizes` twentieths of a GPU on a cluster with time-slicing and, as chosen, MIG and
/// MPS, limited to `limit` GPUs.
fn mechanism_case(
    sizes: &[u64],
    limit: u64,
    mig: bool,
    mps: bool,
) -> (Vec<FractionalAsk>, ClusterGpuCaps) {
    let caps = ClusterGpuCaps {
        supports_mig: mig,
        supports_mps: mps,
        supports_timeslicing: true,
        gpu_count: Some(limit),
        ..Default::default()
    };
    let specs: Vec<String> = sizes
        .iter()
        .enumerate()
        .map(|(i, s)| format!("a{i}:{}", *s as f64 / 20.0))
        .collect();
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    (asks(&specs), caps)
}

proptest::proptest! {
    /// Moving asks never places fewer than the preferred mechanisms alone, keeps the GPU limit,
    /// and gives every ask a mechanism the cluster offers for it.
    #[test]
    fn moving_asks_never_loses_one(
        sizes in proptest::collection::vec(1u64..=20, 1..8),
        limit in 1u64..4,
        mig in proptest::bool::ANY,
        mps in proptest::bool::ANY,
    ) {
        let (list, caps) = mechanism_case(&sizes, limit, mig, mps);
        let resolved = caps.resolve(&[]).unwrap();
        let preferred = super::fallback::run(
            list.iter().map(|a| crate::plan::select_resolved(a, &resolved)).collect(),
            &resolved,
        );
        let r = bin_pack(&list, &caps).unwrap();
        proptest::prop_assert!(r.unplaced.len() <= preferred.unplaced.len());
        proptest::prop_assert!(r.gpus_used <= limit);
        for (a, c) in list.iter().zip(&r.choices) {
            let offered = crate::plan::alternatives(a, &resolved);
            let ok = offered.iter().any(|o| o.mechanism == c.mechanism)
                || c.mechanism == crate::plan::select_resolved(a, &resolved).mechanism;
            proptest::prop_assert!(ok, "{} got {}", c.name, c.mechanism);
        }
    }

    /// Against every assignment of offered mechanisms (each packed first-fit-decreasing): when
    /// one places every ask within the GPU limit, the search places every ask too.
    #[test]
    fn moving_asks_places_all_when_any_assignment_does(
        sizes in proptest::collection::vec(1u64..=20, 1..6),
        limit in 1u64..4,
        mig in proptest::bool::ANY,
        mps in proptest::bool::ANY,
    ) {
        let (list, caps) = mechanism_case(&sizes, limit, mig, mps);
        let resolved = caps.resolve(&[]).unwrap();
        let options: Vec<Vec<Choice>> = list
            .iter()
            .map(|a| {
                let alt = crate::plan::alternatives(a, &resolved);
                if alt.is_empty() { vec![crate::plan::select_resolved(a, &resolved)] } else { alt }
            })
            .collect();
        let mut best = 0;
        let mut pick = vec![0usize; list.len()];
        loop {
            let choices = options.iter().zip(&pick).map(|(o, &p)| o[p].clone()).collect();
            let r = super::fallback::run(choices, &resolved);
            best = best.max(r.choices.len() - r.unplaced.len());
            // The next assignment, as a mixed-radix counter.
            let mut k = 0;
            while k < pick.len() {
                pick[k] += 1;
                if pick[k] < options[k].len() { break; }
                pick[k] = 0;
                k += 1;
            }
            if k == pick.len() { break; }
        }
        let r = bin_pack(&list, &caps).unwrap();
        if best == list.len() {
            proptest::prop_assert!(r.unplaced.is_empty(), "{:?}: {:?}", sizes, r.unplaced);
        }
    }
}

proptest! {
    /// The packing order is the stable sort it stands for: whole asks first, larger first, ties
    /// in input order (fractions up to 2.5 GPUs, so some are whole, with many equal sizes).
    #[test]
    fn placing_order_is_the_stable_largest_first_sort(
        raw in prop::collection::vec((Just(0u8), prop_oneof![1u64..2500, Just(250), Just(1000)]), 0..80),
        flags in 0u8..8,
    ) {
        let caps = ClusterGpuCaps {
            supports_mig: flags & 1 != 0,
            supports_mps: flags & 2 != 0,
            supports_timeslicing: flags & 4 != 0,
            ..Default::default()
        };
        let resolved = caps.resolve(&[]).unwrap();
        let choices: Vec<Choice> = build(&raw)
            .iter()
            .map(|a| crate::plan::select_resolved(a, &resolved))
            .collect();
        let mut stable: Vec<usize> = (0..choices.len()).collect();
        stable.sort_by_key(|&i| {
            let whole = choices[i].mechanism == Mechanism::Whole;
            (!whole, std::cmp::Reverse(choices[i].allocated_fraction))
        });
        prop_assert_eq!(super::items::order(&super::items::items(&choices, None)), stable);
    }
}
