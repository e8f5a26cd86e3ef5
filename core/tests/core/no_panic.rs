//! Every entry point that reads text or takes asks and caps returns `Ok` or `Err` on arbitrary input — never panics.

use gpu_share_core::internals::account::{parse_ledger, resolve, summarize, Rates};
use gpu_share_core::internals::parse::parse_asks;
use gpu_share_core::internals::units::MAX_GPUS;
use gpu_share_core::internals::{
    bin_pack, select_mechanism, ClusterGpuCaps, FractionalAsk, Scenario, Share,
};
use proptest::prelude::*;

use crate::common::{fixture, repo_file};

/// Text that is often almost valid: fragments of the grammars glued together, plus anything at all.
fn grammar_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        ":",
        "0.5",
        "1/3",
        "25%",
        "3g.20gb",
        "1g.5gb+me",
        ",",
        "\n",
        "\"",
        "{",
        "}",
        "[",
        "]",
        "\"name\"",
        "\"fraction\"",
        "-",
        ".",
        "%",
        "/",
        "0",
        "9999999",
        "1e9",
        "&",
        "=",
        "ask",
        "gpus",
        "mig-capable",
        "%ZZ",
        "\u{0}",
        "é",
        "🙂",
        "\"v\":1",
        "\"kind\":\"usage\"",
        "\"release\"",
        "NaN",
        " ",
        "#",
    ]);
    prop_oneof![
        prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat()),
        any::<String>()
    ]
}

/// Fragments of the discovery formats (nvidia-smi XML, CSV, `-L`, the table, `-lgip`, `-lgi`, `-lci`, kubectl
/// JSON, banners).
fn discovery_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "<?xml version=\"1.0\" ?>\n",
        "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">",
        "<nvidia_smi_log>",
        "</nvidia_smi_log>",
        "<gpu id=\"0\">",
        "</gpu>",
        "<product_name>NVIDIA A100-SXM4-40GB</product_name>",
        "<fb_memory_usage><total>40960 MiB</total></fb_memory_usage>",
        "<mig_mode><current_mig>Enabled</current_mig></mig_mode>",
        "<mig_devices><mig_device><index>0</index><fb_memory_usage><total>9984 MiB</total></fb_memory_usage></mig_device></mig_devices>",
        "&amp;",
        "&x;",
        "index, name, memory.total [MiB], mig.mode.current\n",
        "0, NVIDIA H100 80GB HBM3, 81559 MiB, Enabled\n",
        "[N/A]",
        "GPU 0: Tesla T4 (UUID: GPU-1)\n",
        "  MIG 3g.40gb     Device  0: (UUID: MIG-1)\n",
        "| NVIDIA-SMI 590.48.01 |\n",
        "|=====|\n",
        "|   0  NVIDIA H100 80GB HBM3  On | 00000000:00:09.0 Off | On |\n",
        "| N/A 42C P0 98W /  700W |  59MiB /  81559MiB | N/A Default |\n",
        "|  |  | Enabled |\n",
        "| MIG devices: |\n",
        "|  0    2   0   0  |  26MiB / 40448MiB | 60 0 | 3 0 3 0 3 |\n",
        "+-----+\n",
        "| GPU instance profiles: |\n",
        "|   0  MIG 1g.5gb  19  7/7  4.75  No  14  0  0  |\n",
        "GPU  0 Profile ID 19 Placements: {0,1,2}:1\n",
        "| GPU instances: |\n",
        "|   3  MIG 1g.10gb           19        7          0:1     |\n",
        "|   0  MIG 3g.71gb            9        2          4:4     |\n",
        "| Compute instances: |\n",
        "|   0      2       MIG 1c.3g.71gb       0         0          0:1     |\n",
        "|   0      2       MIG 2c.3g.71gb       1         1          1:2     |\n",
        "  MIG 1c.3g.71gb  Device  0: (UUID: MIG-0)\n",
        "No GPU instances found: Not Found\n",
        "# $ nvidia-smi mig -lgi\n",
        "# $ nvidia-smi mig -lci\n",
        "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\",\"labels\":{",
        "\"nvidia.com/gpu.count\":\"99999999999\"",
        "\"nvidia.com/gpu.product\":\"A100-SXM4-40GB-MIG-1g.5gb\"",
        "\"nvidia.com/mig-3g.20gb.count\":\"3\"",
        "}}}",
        "####\n",
        "# $ nvidia-smi\n",
        "# $ nvidia-smi -L\n",
        "# $ nvidia-smi -q -x\n",
        "\n",
        ",",
        " ",
        "|",
        "\u{0}",
        "é",
    ]);
    prop_oneof![
        prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat()),
        mutated_fixture(),
        any::<String>()
    ]
}

/// The smaller real captures, sections of the larger ones, the `-lgi`/`-lci`/`-L` fuzz seed (in their
/// documented format) and the two real `-lgi` outputs quoted in public issues, read once.
fn fixtures() -> &'static [String] {
    static FIXTURES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    FIXTURES.get_or_init(|| {
        let read = |f: &str| fixture(&format!("nvidia-smi/{f}"));
        let mig = read("linux-x86_64__nvidia-h100-mig__590.48.01.txt");
        // The capture from its -L section up to (not including) its -q text: -L, topo, the table, banners.
        let from = mig.find("# capabilities :: list (-L)").unwrap();
        let to = mig.find("# idle :: query (-q)").unwrap();
        vec![
            read("qx-a100.xml"),
            read("qx-t4.xml"),
            mig[from..to].to_string(),
            repo_file("fuzz/corpus-seeds/discover/mig-instances"),
            read("mig-lgi__dra-driver-nvidia-gpu-933.txt"),
            read("mig-lgi__dcgm-138.txt"),
        ]
    })
}

/// A real capture with a few bytes deleted, replaced or inserted, or cut short.
fn mutated_fixture() -> impl Strategy<Value = String> {
    (
        0..6usize,
        prop::collection::vec((any::<prop::sample::Index>(), 0..4u8, any::<u8>()), 1..6),
    )
        .prop_map(|(which, edits)| {
            let mut bytes = fixtures()[which].clone().into_bytes();
            for (at, op, byte) in edits {
                if bytes.is_empty() {
                    break;
                }
                let i = at.index(bytes.len());
                match op {
                    0 => {
                        bytes.drain(i..(i + 40).min(bytes.len()));
                    }
                    1 => bytes[i] = byte,
                    2 => bytes.insert(i, byte),
                    _ => bytes.truncate(i),
                }
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
}

fn caps() -> impl Strategy<Value = ClusterGpuCaps> {
    let models = prop::option::of(prop::sample::select(vec![
        "a100-40gb",
        "h200",
        "a30",
        "t4",
        "rtx-pro-6000",
        "Voodoo",
        "",
    ]));
    let profiles = prop::option::of(prop::collection::vec(
        prop::sample::select(vec![
            "1g.5gb",
            "2g.10gb",
            "3g.20gb",
            "1g.6gb",
            "3g.71gb",
            "9g.9gb",
            "2g.48gb-me",
        ]),
        0..4,
    ));
    (
        any::<[bool; 3]>(),
        models,
        profiles,
        prop::option::of(0u64..5),
        prop::option::of(prop::collection::vec(
            (prop::sample::select(vec!["a", "b", "c", ""]), 0u64..4),
            0..4,
        )),
        // Drivers with a listing, without one, and text that is no version.
        prop::option::of(prop::sample::select(vec![
            "580.126.09",
            "590.48.01",
            "1",
            "x.1",
            "",
        ])),
    )
        .prop_map(
            |(f, model, profiles, count, nodes, driver)| ClusterGpuCaps {
                supports_mig: f[0],
                supports_mps: f[1],
                supports_timeslicing: f[2],
                gpu_model: model.map(String::from),
                mig_profiles: profiles.map(|p| p.into_iter().map(String::from).collect()),
                gpu_count: count,
                // Nodes as any caller may give them: empty names, repeats, no GPUs included.
                nodes: nodes.map(|list| {
                    list.into_iter()
                        .map(|(name, gpus)| gpu_share_core::internals::nodes::NodeSpec {
                            name: name.into(),
                            gpus,
                        })
                        .collect()
                }),
                context_overhead_mib: None,
                driver: driver.map(String::from),
            },
        )
}

fn ask() -> impl Strategy<Value = Option<FractionalAsk>> {
    let name = prop_oneof![
        Just("a".to_string()),
        Just("a".to_string()),
        "[a-c]{1,2}",
        any::<String>()
    ];
    let size = prop_oneof![
        (1u64..3 * Share::ONE.units()).prop_map(|u| Ok(Share::from_units(u))),
        // Beyond what one ask may take: rejected, never planned.
        (100_001 * Share::ONE.units()..u64::MAX).prop_map(|u| Ok(Share::from_units(u))),
        prop::sample::select(vec![
            "1g.5gb",
            "1g.5gb+me",
            "3g.20gb",
            "4g.20gb",
            "7g.40gb",
            "2g.12gb",
            "1g.24gb+me.all",
            "8g.99gb"
        ])
        .prop_map(|p| Err(p.to_string())),
    ];
    // Memory from a MiB to more than any GPU offers (refused with an error, never planned).
    let memory = prop::option::of(1u64..200_000);
    (name, size, memory).prop_map(|(name, size, memory)| {
        let memory = memory.and_then(|mib| gpu_share_core::internals::Memory::from_mib(mib).ok());
        match (size, memory) {
            (Ok(share), None) => FractionalAsk::fraction(&name, share).ok(),
            (Ok(share), Some(m)) if share < Share::ONE => {
                FractionalAsk::fraction_and_memory(&name, share, m).ok()
            }
            (Ok(_), Some(m)) => FractionalAsk::memory_only(&name, m).ok(),
            (Err(profile), _) => FractionalAsk::mig(&name, &profile).ok(),
        }
    })
}

/// JSON values to put into a pack result: the edges of each kind.
fn json_leaf() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::json;
    prop_oneof![
        prop::sample::select(vec![
            json!(null),
            json!(0),
            json!(1),
            json!(-1),
            json!(0.5),
            json!(1.5),
            json!(255),
            json!(256),
            json!(u64::MAX),
            json!(1e300),
            json!(""),
            json!("mig"),
            json!("whole"),
            json!("3g.20gb"),
            json!("A30"),
            json!([]),
            json!({}),
            json!(true),
        ]),
        any::<String>().prop_map(serde_json::Value::String),
    ]
}

/// The JSON pointer of every value in `v` (objects and arrays included).
fn paths(v: &serde_json::Value, at: &mut String, out: &mut Vec<String>) {
    out.push(at.clone());
    let len = at.len();
    match v {
        serde_json::Value::Object(map) => {
            for (k, item) in map {
                at.push('/');
                at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                paths(item, at, out);
                at.truncate(len);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push_str(&format!("/{i}"));
                paths(item, at, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// Cases per property: 3,000 by default, `PROPTEST_CASES` when set (`cargo xtask test` runs
/// 100,000 — see docs/development.md).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(3000);
    ProptestConfig::with_cases(cases)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn text_readers_never_panic(text in grammar_text()) {
        let _ = Share::parse(&text);
        let _ = FractionalAsk::parse_spec(&text);
        let _ = parse_asks(&text);
        let _ = Scenario::from_query(&text);
        if let Ok(entries) = parse_ledger(&text) {
            if let Ok(usages) = resolve(&entries, i64::MAX) {
                let _ = summarize(&usages, &Rates::default());
            }
        }
        let _ = gpu_share_core::internals::parse::parse_hours(&text);
        let _ = gpu_share_core::internals::discover::detect(&text);
        let _ = gpu_share_core::internals::replay::Trace::read(&text, &text);
        let header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n";
        let _ = gpu_share_core::internals::replay::Trace::read("sn,cpu_milli,memory_mib,gpu,model\nn,1,1,1,A\n", &format!("{header}{text}"));
        let _ = gpu_share_core::internals::replay::workload::Tune::parse(&text);
        let _ = gpu_share_core::internals::replay::Policy::parse(&text);
    }

    #[test]
    fn discovery_never_panics(text in discovery_text()) {
        if let Ok(inventory) = gpu_share_core::internals::discover::detect(&text) {
            let _ = inventory.caps().resolve(&[]);
        }
        let _ = gpu_share_core::internals::discover::detect_all(&[&text, &text]);
    }

    #[test]
    fn floats_never_panic(f in any::<f64>()) {
        let _ = Share::from_f64(f);
    }

    #[test]
    fn shares_write_back_exactly(units in 1..=MAX_GPUS * Share::ONE.units()) {
        let share = Share::from_units(units);
        prop_assert_eq!(Share::parse(&share.to_exact_text()), Ok(share));
    }

    #[test]
    fn planning_and_packing_never_panic(asks in prop::collection::vec(ask(), 0..30), caps in caps()) {
        let asks: Vec<FractionalAsk> = asks.into_iter().flatten().collect();
        for a in &asks {
            let _ = select_mechanism(a, &caps);
        }
        if let Ok(r) = bin_pack(&asks, &caps) {
            prop_assert!(r.unplaced.len() <= asks.len());
        }
    }

    #[test]
    fn columns_never_panic(
        values in prop::collection::vec((
            prop_oneof![6 => (1u32..3000).prop_map(|t| f64::from(t) / 1000.0), 1 => Just(0.0), 1 => any::<f64>()],
            prop_oneof![6 => Just(0.0), 1 => any::<f64>(), 2 => (1u64..1 << 36).prop_map(|b| b as f64)],
        ), 0..30),
        extra in prop::option::weighted(0.1, any::<f64>()),
        names in prop::option::of(prop::collection::vec(".{0,3}", 30)),
        caps in caps(),
    ) {
        use gpu_share_core::api::{pack_columns, AskColumns, Cluster, PackColumnsRequest, PackOptions};
        // Mostly sizes an ask can take, sometimes anything; a column one longer sometimes.
        let mut fractions: Vec<f64> = values.iter().map(|&(f, _)| f).collect();
        let memory: Vec<f64> = values.iter().map(|&(_, m)| m).collect();
        fractions.extend(extra);
        let names = names.map(|mut n| { n.truncate(values.len()); n });
        if let Ok(asks) = AskColumns::new(names, Some(&fractions), Some(&memory)) {
            let n = asks.len();
            let options = PackOptions { optimize: true, time_limit_ms: Some(5), ..Default::default() };
            let request = PackColumnsRequest { asks, gpu_count: None, cluster: Cluster::Given(caps), options };
            if let Ok(c) = pack_columns(&request) {
                prop_assert_eq!(c.asks.gpu.len(), n);
                prop_assert_eq!(c.gpus.ask_start.len() as u64, c.summary.gpus_used + 1);
            }
        }
    }

    #[test]
    fn pack_results_read_back_and_edited_ones_never_panic(
        asks in prop::collection::vec(ask(), 0..20),
        caps in caps(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), json_leaf()), 0..4),
    ) {
        // Each name once, so that most cases pack (duplicate names are an error).
        let mut seen = std::collections::BTreeSet::new();
        let asks: Vec<FractionalAsk> =
            asks.into_iter().flatten().filter(|a| seen.insert(a.name().to_string())).collect();
        if let Ok(r) = bin_pack(&asks, &caps) {
            let mut value = serde_json::to_value(&r).unwrap();
            let read = gpu_share_core::internals::PackResult::from_json(&value);
            prop_assert_eq!(read.as_ref(), Ok(&r));
            for (at, leaf) in edits {
                let mut leaves = Vec::new();
                paths(&value, &mut String::new(), &mut leaves);
                if let Some(path) = leaves.get(at.index(leaves.len().max(1))) {
                    if let Some(slot) = value.pointer_mut(path) {
                        *slot = leaf;
                    }
                }
                let _ = gpu_share_core::internals::PackResult::from_json(&value);
            }
        }
    }

    #[test]
    fn fit_and_repartition_never_panic(
        text in prop_oneof![mutated_fixture(), discovery_text()],
        asks in prop::collection::vec(ask(), 0..4),
        free in prop::collection::vec((0u64..4, 0u32..20), 0..3),
        model in prop::option::of(prop::sample::select(vec!["a100-80gb", "h100", "a30", "t4", "nonsense"])),
    ) {
        use gpu_share_core::api::{fit, repartition, DetectInput, FitRequest, FreeInstance, LiveOptions, RepartitionOptions, RepartitionRequest};
        let asks: Vec<FractionalAsk> = asks.into_iter().flatten().collect();
        let inputs = vec![DetectInput { label: "text".into(), text }];
        let gpu_model = model.map(String::from);
        let options = LiveOptions { gpu_model: gpu_model.clone() };
        let _ = fit(&FitRequest { current: inputs.clone(), asks: asks.clone(), options });
        let free = free
            .into_iter()
            .map(|(gpu, gpu_instance_id)| FreeInstance { node: None, gpu, gpu_instance_id })
            .collect();
        let options = RepartitionOptions { gpu_model, free };
        if let Ok(r) = repartition(&RepartitionRequest { current: inputs, asks: asks.clone(), options }) {
            prop_assert!(r.unplaced.len() <= asks.len());
        }
    }
}
