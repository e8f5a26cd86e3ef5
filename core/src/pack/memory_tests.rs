//! Memory as the second dimension: the reports of issue #14 as regressions, and properties over
//! random asks (no shared GPU ever holds more memory than it offers; every ask placed or reported).

use super::optimize::Budget;
use super::*;
use crate::memory::{Memory, GIB, MIB};
use crate::pack::options::{bin_pack_with, PackOptions};
use proptest::prelude::*;

fn asks(specs: &[&str]) -> Vec<FractionalAsk> {
    specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect()
}

fn caps(model: &str, f: impl FnOnce(&mut ClusterGpuCaps)) -> ClusterGpuCaps {
    let mut c = ClusterGpuCaps {
        gpu_model: Some(model.into()),
        ..Default::default()
    };
    f(&mut c);
    c
}

/// volcano-sh/volcano#3616: three 12 GiB pods bound to one 24 GB GPU. On an A10 (23028 MiB, less
/// the reserve and a CUDA context each) one fits; two are unplaced for memory.
#[test]
fn three_12gib_asks_on_one_a10_place_one() {
    let c = caps("A10", |c| {
        c.supports_timeslicing = true;
        c.gpu_count = Some(1);
    });
    let r = bin_pack(&asks(&["a:12GiB", "b:12GiB", "c:12GiB"]), &c).unwrap();
    assert_eq!(r.gpus_used, 1);
    assert_eq!(r.unplaced.len(), 2);
    for u in &r.unplaced {
        assert!(u.reason.starts_with("memory: 12 GiB asked"), "{}", u.reason);
        assert!(u.reason.contains("left on GPU 0"), "{}", u.reason);
    }
    let m = r.gpus[0].memory().unwrap();
    assert_eq!(m.used_mib, 12 * 1024 + 500);
    assert_eq!(m.budget_mib, 23028 - 609);
    assert_eq!(
        r.lower_bound, 3,
        "each GPU holds one: memory alone needs three"
    );
}

/// NVIDIA-AI-Blueprints/rag#51: 22,649,242,112 bytes do not fit a 20 GB-class instance.
#[test]
fn twenty_two_gigabytes_on_h100_need_a_40gb_class_profile() {
    let c = caps("H100-80GB-HBM3", |c| c.supports_mig = true);
    let ask = FractionalAsk::parse_spec("rag:22649242112B").unwrap();
    let choice = crate::plan::select_mechanism(&ask, &c).unwrap();
    assert_eq!(choice.mig_profile.as_deref(), Some("3g.40gb"));
    assert_eq!(choice.memory_mib, Some(21601));
    assert_eq!(choice.held_memory_mib, Some(21601 + 500));
    assert_eq!(choice.allocated_memory_mib, Some(40448));
}

/// A100-40GB 2g.10gb offers 9.62 GiB (9850 MiB), not 10 GB: the smallest real `nvidia-smi mig
/// -lgip` listing, the NVIDIA MIG User Guide's example, where a later driver lists 9.75 GiB (a
/// public blog post, driver 580.126.09); docs/hardware-facts.md §1.6.
#[test]
fn mig_profiles_hold_their_usable_memory_not_their_name() {
    let plan = |spec: &str, context: Option<u64>| {
        let c = caps("A100-SXM4-40GB", |c| {
            c.supports_mig = true;
            c.mig_profiles = Some(vec!["2g.10gb".into(), "3g.20gb".into()]);
            c.context_overhead_mib = context;
        });
        let ask = FractionalAsk::parse_spec(spec).unwrap();
        crate::plan::select_mechanism(&ask, &c).unwrap()
    };
    assert_eq!(
        plan("m:9850MiB", Some(0)).mig_profile.as_deref(),
        Some("2g.10gb")
    );
    assert_eq!(
        plan("m:9851MiB", Some(0)).mig_profile.as_deref(),
        Some("3g.20gb")
    );
    assert_eq!(
        plan("m:10GB", Some(0)).mig_profile.as_deref(),
        Some("2g.10gb")
    );
    // With the default CUDA context (500 MiB) 9.5 GiB no longer fits 2g.10gb.
    assert_eq!(
        plan("m:9.5GiB", None).mig_profile.as_deref(),
        Some("3g.20gb")
    );
    // Compute still counts when a fraction is given: 0.4 needs 3 of 7 compute slices.
    assert_eq!(
        plan("m:0.4:1GiB", None).mig_profile.as_deref(),
        Some("3g.20gb")
    );
}

#[test]
fn memory_beyond_a_whole_gpu_is_an_error_naming_the_gpu_it_needs() {
    // kai-scheduler/KAI-Scheduler#2212: a T4 keeps about 450 MiB for itself (448 in a capture).
    let c = caps("T4", |c| c.supports_timeslicing = true);
    let e = bin_pack(&asks(&["ok:1GiB", "big:15GiB"]), &c).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("asks[1].memory"));
    assert!(
        e.message.contains("more than one T4 offers"),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("smallest GPU in the catalogue"),
        "{}",
        e.message
    );
    let huge = bin_pack(&asks(&["x:5TiB"]), &c).unwrap_err();
    assert!(
        huge.message.contains("no GPU in the catalogue holds it"),
        "{}",
        huge.message
    );
}

#[test]
fn memory_asks_need_the_gpu_model() {
    let c = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let e = bin_pack(&asks(&["a:0.5", "m:1GiB"]), &c).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("asks[1].memory"));
    assert_eq!(
        e.hint,
        Some(crate::error::Hint::Give {
            input: crate::error::Input::GpuModel
        })
    );
}

#[test]
fn mps_pins_the_memory_asked() {
    let c = caps("L40S", |c| c.supports_mps = true);
    let ask = FractionalAsk::parse_spec("m:0.25:10GiB").unwrap();
    let choice = crate::plan::select_mechanism(&ask, &c).unwrap();
    let mps = choice.mps.unwrap();
    assert_eq!(mps.active_thread_percentage, 25);
    assert_eq!(mps.pinned_memory_mib, Some(10240));
    assert_eq!(choice.allocated_memory_mib, Some(10240));
}

#[test]
fn asks_without_memory_are_packed_as_before() {
    let c = caps("L40S", |c| c.supports_timeslicing = true);
    let r = bin_pack(&asks(&["a:0.5", "b:0.5"]), &c).unwrap();
    assert_eq!(r.gpus_used, 1);
    assert!(r.gpus[0].memory().is_none());
    assert!(r.choices.iter().all(|c| c.memory_mib.is_none()));
}

fn memory_ask() -> impl Strategy<Value = (u64, u64)> {
    // A share in thousandths (0 = memory only) and memory in MiB.
    (0u64..900, 1u64..30_000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// No shared GPU ever holds more memory than it offers, FFD or optimized; each ask is placed
    /// once or reported unplaced.
    #[test]
    fn never_oversubscribes_memory(
        specs in prop::collection::vec(memory_ask(), 1..40),
        mps in any::<bool>(),
        limit in prop::option::of(1u64..8),
        optimize in any::<bool>(),
    ) {
        let list: Vec<FractionalAsk> = specs
            .iter()
            .enumerate()
            .map(|(i, &(thousandths, mib))| {
                let m = Memory::from_bytes(mib * MIB).unwrap();
                let name = format!("a{i}");
                if thousandths == 0 {
                    FractionalAsk::memory_only(&name, m).unwrap()
                } else {
                    let f = crate::units::Share::ratio(thousandths, 1000).unwrap();
                    FractionalAsk::fraction_and_memory(&name, f, m).unwrap()
                }
            })
            .collect();
        let c = caps("L40S", |c| {
            c.supports_mps = mps;
            c.supports_timeslicing = !mps;
            c.gpu_count = limit;
        });
        let options = PackOptions {
            optimize: optimize.then(|| Budget::work(50_000)),
        };
        let r = bin_pack_with(&list, &c, &options).unwrap().result;
        let budget = 46068 - 609;
        let mut seen = std::collections::BTreeMap::new();
        for g in &r.gpus {
            let held: u64 = g.slots().iter().filter_map(|s| s.memory_mib).sum();
            prop_assert!(held <= budget, "GPU {} holds {held} MiB", g.index);
            prop_assert_eq!(g.memory().map(|m| m.used_mib), Some(held));
            for a in g.asks() {
                *seen.entry(a.to_string()).or_insert(0) += 1;
            }
        }
        for u in &r.unplaced {
            *seen.entry(u.name.clone()).or_insert(0) += 1;
        }
        prop_assert_eq!(seen.len(), list.len());
        prop_assert!(seen.values().all(|&n| n == 1));
        prop_assert!(r.gpus_used >= r.lower_bound || !r.unplaced.is_empty());
        // The result reads back through the checking reader.
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_value(&r).unwrap();
            prop_assert!(PackResult::from_json(&json).is_ok(), "{:?}", PackResult::from_json(&json));
        }
        let _ = GIB;
    }
}
