//! Hostile input to the exports: ask names that would inject YAML keys or change types round-trip as the
//! same strings and add nothing, and arbitrary asks and caps never make an export panic.

use crate::common::{caps, documents, run};
use gpu_share_core::internals::export::{export, ExportFormat, ExportOptions, MigStrategy};
use gpu_share_core::internals::{
    bin_pack, find_model, validate_mig, AskSize, ClusterGpuCaps, FractionalAsk, Memory, Share,
};
use std::collections::BTreeSet;

#[test]
fn hostile_names_round_trip_and_add_no_keys() {
    let names = [
        "evil: true - x",
        "{a: 1}",
        "yes",
        "- x",
        "#c",
        "a\"b",
        "🙂 é",
        "null",
    ];
    let asks: Vec<FractionalAsk> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let share = Share::parse(if i % 2 == 0 { "0.25" } else { "0.5" }).unwrap();
            FractionalAsk::fraction(n, share).unwrap()
        })
        .chain([FractionalAsk::mig("mig: {x: 1}", "3g.20gb").unwrap()])
        .collect();
    for (c, model) in [
        (caps(false, true, false, "a100-40gb"), "mps"),
        (caps(false, false, true, "a100-40gb"), "timeslice"),
        (caps(true, false, false, "a100-40gb"), "mig"),
    ] {
        let result = bin_pack(&asks, &c).unwrap();
        for kserve in [false, true] {
            let format = if kserve {
                ExportFormat::KServe
            } else {
                ExportFormat::Kubernetes
            };
            let text = run(&result, format);
            let docs = documents(&text);
            assert_eq!(docs.len(), asks.len(), "{model}\n{text}");
            for (doc, ask) in docs.iter().zip(&asks) {
                let keys: Vec<&str> = doc
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect();
                assert_eq!(keys, ["apiVersion", "kind", "metadata", "spec"], "{text}");
                let meta: BTreeSet<&str> = doc["metadata"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect();
                let expected: BTreeSet<&str> = if kserve {
                    BTreeSet::from(["name", "annotations"])
                } else {
                    BTreeSet::from(["name", "labels", "annotations"])
                };
                assert_eq!(meta, expected);
                assert_eq!(doc["metadata"]["annotations"]["gpu-share/ask"], ask.name());
            }
        }
        // Elsewhere names appear only in comments.
        for format in [
            ExportFormat::DevicePlugin,
            ExportFormat::MigParted,
            ExportFormat::MigCommands,
            ExportFormat::Slurm,
        ] {
            let text = run(&result, format);
            for line in text.lines() {
                if line.contains("evil") || line.contains("{a: 1}") || line.contains("🙂") {
                    assert!(line.trim_start().starts_with('#'), "{format}: {line}");
                }
            }
            if matches!(format, ExportFormat::DevicePlugin | ExportFormat::MigParted) {
                for doc in documents(&text) {
                    let keys: BTreeSet<&str> = doc
                        .as_object()
                        .unwrap()
                        .keys()
                        .map(String::as_str)
                        .collect();
                    assert!(
                        keys.is_subset(&BTreeSet::from([
                            "version",
                            "flags",
                            "sharing",
                            "mig-configs"
                        ])),
                        "{keys:?}"
                    );
                }
            }
        }
    }
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn ask() -> impl Strategy<Value = FractionalAsk> {
        let size = prop_oneof![
            (1u64..2_000_000).prop_map(|u| AskSize::Fraction(Share::from_units(u * 7207))),
            prop::sample::select(vec![
                "1g.5gb",
                "2g.10gb",
                "3g.20gb",
                "4g.20gb",
                "7g.40gb",
                "1g.5gb+me",
                "1g.10gb"
            ])
            .prop_map(|p| AskSize::MigProfile(p.to_string())),
            (1u64..40_960).prop_map(|mib| AskSize::Memory(Memory::from_mib(mib).unwrap())),
            (1u64..1_000_000, 1u64..40_960).prop_map(|(u, mib)| AskSize::FractionAndMemory(
                Share::from_units(u * 7207),
                Memory::from_mib(mib).unwrap()
            )),
        ];
        // Any printable name (an ask cannot hold another: its constructors refuse control
        // characters, which would break lines in every format).
        ("\\PC{1,40}", size).prop_filter_map("a valid ask", |(name, size)| match size {
            AskSize::Fraction(f) => FractionalAsk::fraction(&name, f).ok(),
            AskSize::MigProfile(p) => FractionalAsk::mig(&name, &p).ok(),
            AskSize::Memory(m) => FractionalAsk::memory_only(&name, m).ok(),
            AskSize::FractionAndMemory(f, m) => {
                FractionalAsk::fraction_and_memory(&name, f, m).ok()
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn export_returns_ok_or_err(
            asks in prop::collection::vec(ask(), 0..12),
            mig in any::<bool>(),
            mps in any::<bool>(),
            ts in any::<bool>(),
            gpus in prop::option::of(1u64..4),
            namespace in prop::option::of(any::<String>()),
            image in any::<String>(),
            config in any::<String>(),
            single in any::<bool>(),
            other_model in prop::option::of(prop::sample::select(vec!["h100", "a30", "t4", "a100-80gb", "no such GPU"])),
        ) {
            let caps = ClusterGpuCaps { gpu_count: gpus, ..caps(mig, mps, ts, "a100-40gb") };
            let Ok(mut result) = bin_pack(&asks, &caps) else { return Ok(()) };
            // A caller can still relabel the result's model: its MIG layouts are then checked
            // against a board they were not made for.
            if let Some(model) = other_model {
                result.gpu_model = Some(model.to_string());
            }
            let options = ExportOptions {
                mig_strategy: if single { MigStrategy::Single } else { MigStrategy::Mixed },
                namespace,
                image,
                config_name: config,
                slurm_version: None,
                dra: Default::default(),
            };
            for format in ExportFormat::ALL {
                let _ = export(&result, format, &options);
                let _ = export(&result, format, &ExportOptions::default());
            }
        }

        #[test]
        fn validate_mig_returns_ok_or_err(names in prop::collection::vec(
            prop_oneof![
                prop::sample::select(vec!["1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"]).prop_map(String::from),
                any::<String>(),
            ],
            0..12,
        )) {
            let model = find_model("a100-40gb").unwrap();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            if let Ok(v) = validate_mig(model, &refs) {
                prop_assert_eq!(v.valid, v.reason.is_none());
                let mut used = 0u16;
                for p in &v.placements {
                    let mask = ((1u32 << p.memory_slices) - 1) << p.start;
                    prop_assert_eq!(used & mask as u16, 0);
                    used |= mask as u16;
                }
            }
        }
    }
}
