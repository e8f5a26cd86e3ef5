//! The npm package's data types, generated from the Rust types with ts-rs, and checked against what
//! the core serialises.
//!
//! `TS_RS_EXPORT_DIR=target/npm cargo test -p gpu-share-core --features ts --test core ts_export::`
//! writes `target/npm/data.d.ts` (`cargo xtask npm` does exactly that: this module alone, by its
//! name); without the variable the file goes to a scratch directory, so the tests only check. Keys
//! are camelCase, as the package returns them (`wasm/src/case.rs` converts the core's snake_case
//! keys); enum values keep their serde names.

use gpu_share_core::api::{
    self, CapsFrom, Cluster, DetectInput, DetectResponse, FitRequest, FitResponse, Imported,
    PackRequest, PackResponse, PlanRequest, PlanResponse, Recording, RepartitionRequest,
    RepartitionResponse, SummaryRequest,
};
use gpu_share_core::internals::account::{self, SharedGpu, SummaryRow, Usage};
use gpu_share_core::internals::catalog::{self, MigGeometry};
use gpu_share_core::internals::discover::{
    DiscoveredComputeInstance, DiscoveredGpu, DiscoveredMigDevice, DiscoveredNode, Inventory,
};
use gpu_share_core::internals::pack::GpuLayout;
use gpu_share_core::internals::parse::AskEntry;
use gpu_share_core::internals::{
    Choice, ClusterGpuCaps, ErrorKind, FractionalAsk, GpuModel, LedgerEntry, Mechanism, MigProfile,
    MigValidation, Rates, Scenario, Summary,
};
use serde::Serialize;
use serde_json::Value;
use std::any::TypeId;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use ts_rs::{Config, TypeVisitor, TS};

use crate::common::{asks, caps, fixture};

/// The file the package's `index.d.ts` imports.
mod decls;
use decls::*;

/// The requests' declarations against what their readers read.
mod requests;

#[test]
fn writes_the_declarations() {
    let cfg = config();
    let text = declarations(&cfg);
    let dir = if std::env::var_os("TS_RS_EXPORT_DIR").is_some() {
        cfg.out_dir().to_path_buf()
    } else {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ts_export")
    };
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(FILE), &text).unwrap();
    for name in [
        "PackResponse",
        "PackResult",
        "Choice",
        "Mechanism",
        "DetectResponse",
        "FitResponse",
        "Inventory",
        "Summary",
        "LedgerEntry",
        "ErrorKind",
    ] {
        assert!(
            text.contains(&format!("export type {name} = ")),
            "{name} is declared"
        );
    }
    assert!(!text.contains("bigint"), "no 64-bit integer is a BigInt");
    let decls = collect(&cfg);
    for (name, (inline, _)) in &decls {
        for member in split_top(inline, '|') {
            for (key, _) in keys_of(&member, &decls).unwrap_or_default() {
                assert!(!key.contains('_'), "{name}.{key} is not camelCase");
            }
        }
    }
}

// ---- The declarations against what the core serialises ----

/// `config_name` → `configName`, as `wasm/src/case.rs` converts keys.
fn camel(key: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in key.chars() {
        match (c, upper) {
            ('_', _) => upper = true,
            (c, true) => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            (c, false) => out.push(c),
        }
    }
    out
}

/// Splits `text` at `sep` where it is not nested in brackets, strings or comments.
fn split_top(text: &str, sep: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0i32;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                // A comment: dropped.
                let mut last = ' ';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
                continue;
            }
            '"' => {
                let part = parts.last_mut().unwrap();
                part.push(c);
                for d in chars.by_ref() {
                    part.push(d);
                    if d == '"' {
                        break;
                    }
                }
                continue;
            }
            '{' | '<' | '(' | '[' => depth += 1,
            '}' | '>' | ')' | ']' => depth -= 1,
            _ if c == sep && depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().unwrap().push(c);
    }
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The keys an object type declares: `(key, required)`; `None` when `ty` is not an object type.
fn keys_of(ty: &str, decls: &BTreeMap<String, (String, String)>) -> Option<Vec<(String, bool)>> {
    let mut keys = Vec::new();
    for part in split_top(ty, '&') {
        if let Some(body) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            for field in split_top(body, ',') {
                let (key, _) = field.split_once(':')?;
                let key = key.trim().trim_matches('"');
                if key.starts_with('[') {
                    return None; // a map: its keys are data
                }
                match key.strip_suffix('?') {
                    Some(k) => keys.push((k.to_string(), false)),
                    None => keys.push((key.to_string(), true)),
                }
            }
        } else if let Some((inline, _)) = decls.get(&part) {
            keys.extend(keys_of(inline, decls)?);
        } else {
            return None;
        }
    }
    Some(keys)
}

/// Checks the keys `value` serialises to (camelCase, as npm sees them) against `T`'s declaration:
/// every key it writes is declared, and it writes every key declared as required. A union passes
/// when one of its members fits.
fn check<T: TS + Serialize + 'static>(value: &T) {
    let cfg = config();
    let decls = collect(&cfg);
    let name = T::ident(&cfg);
    let Value::Object(map) = serde_json::to_value(value).unwrap() else {
        panic!("{name} does not serialise to an object");
    };
    let written: Vec<String> = map.keys().map(|k| camel(k)).collect();
    let members = split_top(&T::inline(&cfg), '|');
    let mut why = Vec::new();
    for member in &members {
        let declared = keys_of(member, &decls)
            .unwrap_or_else(|| panic!("{name}: cannot read the keys of {member}"));
        let extra: Vec<&String> = written
            .iter()
            .filter(|k| !declared.iter().any(|(d, _)| d == *k))
            .collect();
        let missing: Vec<&String> = declared
            .iter()
            .filter(|(d, required)| *required && !written.contains(d))
            .map(|(d, _)| d)
            .collect();
        if extra.is_empty() && missing.is_empty() {
            return;
        }
        why.push(format!(
            "{member}: written but not declared {extra:?}, declared but not written {missing:?}"
        ));
    }
    panic!("{name} writes {written:?}, which its declaration does not describe:\n{why:#?}");
}

/// A node from GPU Feature Discovery's labels for the mixed MIG strategy.
const KUBECTL_NODE: &str = r#"{"apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "mixed-node", "labels": {
    "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "2",
    "nvidia.com/gpu.memory": "40960", "nvidia.com/gpu.replicas": "1",
    "nvidia.com/gpu.sharing-strategy": "none", "nvidia.com/mig.capable": "true",
    "nvidia.com/mig.strategy": "mixed", "nvidia.com/mig.config": "all-3g.20gb",
    "nvidia.com/mig-3g.20gb.count": "2"}},
  "status": {"allocatable": {"nvidia.com/gpu": "1", "nvidia.com/mig-3g.20gb": "2"}}}"#;

#[test]
fn plans_and_packings_match_their_declarations() {
    let every_mechanism = caps(true, true, true, "A100-SXM4-40GB");
    let mps = caps(false, true, false, "A100-SXM4-40GB");
    let plan = api::plan(&PlanRequest {
        ask: FractionalAsk::parse_spec("a:0.3").unwrap(),
        cluster: Cluster::Given(mps.clone()),
    })
    .unwrap();
    check(&plan);
    check(&plan.choice);
    check(&plan.choice.mps.unwrap());

    let mut request = PackRequest::new(
        asks(&["m:3g.20gb", "f:0.25", "w:2", "t:0.5"]),
        every_mechanism.clone(),
    );
    request.options = api::PackOptions {
        optimize: true,
        time_limit_ms: Some(20),
        ..Default::default()
    };
    let packed = api::pack(&request).unwrap();
    assert!(packed.optimize.is_some());
    check(&packed);
    check(&packed.result);
    check(&packed.optimize.unwrap());
    let mig: &GpuLayout = packed
        .result
        .gpus
        .iter()
        .find(|g| !g.instances().is_empty())
        .unwrap();
    check(mig);
    check(&mig.instances()[0]);
    let shared = api::pack(&PackRequest::new(asks(&["s:0.25", "u:0.5"]), mps)).unwrap();
    let shared = &shared.result.gpus[0];
    assert_eq!(shared.mechanism(), Mechanism::Mps);
    check(shared);
    check(&shared.slots()[0]);
    // Memory on shared GPUs: the GPU's memory totals, each slot's and each choice's memory.
    let with_memory = api::pack(&PackRequest::new(
        asks(&["m:0.25:12GiB", "n:4GiB"]),
        caps(false, true, false, "L40S"),
    ))
    .unwrap();
    let gpu = &with_memory.result.gpus[0];
    assert!(gpu.memory().is_some());
    check(gpu);
    check(&gpu.slots()[0]);
    for c in &with_memory.result.choices {
        assert!(c.memory_mib.is_some());
        check(c);
    }
    let whole = packed
        .result
        .gpus
        .iter()
        .find(|g| g.mechanism() == Mechanism::Whole)
        .unwrap();
    check(whole);
    for c in &packed.result.choices {
        check(c);
    }

    let limited = api::pack(&PackRequest::new(
        asks(&["a:0.75", "b:0.75"]),
        ClusterGpuCaps {
            gpu_count: Some(1),
            supports_timeslicing: true,
            ..Default::default()
        },
    ))
    .unwrap();
    check(&limited);
    check(&limited.result.unplaced[0]);

    let detected = api::pack(&PackRequest {
        asks: PackRequest::new(asks(&["a:0.5"]), every_mechanism).asks,
        cluster: Cluster::Detected {
            detected: api::Detected {
                inputs: vec![DetectInput {
                    label: "qx-a100.xml".into(),
                    text: fixture("nvidia-smi/qx-a100.xml"),
                }],
                turn_on_mig: false,
            },
        },
        ..PackRequest::default()
    })
    .unwrap();
    let from: &CapsFrom = detected.caps_from.as_ref().unwrap();
    check(&detected);
    check(from);
    check(&from.caps);
}

#[test]
fn columns_match_their_declaration() {
    use gpu_share_core::api::{AskColumns, PackColumnsRequest};
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        gpu_count: Some(1),
        ..Default::default()
    };
    let asks = AskColumns::new(None, Some(&[0.75, 0.5]), None).unwrap();
    let request = PackColumnsRequest {
        asks,
        gpu_count: None,
        cluster: Cluster::Given(caps),
        options: api::PackOptions {
            optimize: true,
            time_limit_ms: Some(20),
            ..Default::default()
        },
    };
    let packed = api::pack_columns(&request).unwrap();
    check(&packed.summary);
    check(&packed.summary.unplaced[0]);
    check(&packed.summary.warnings[0]);
}

#[test]
fn discovery_matches_its_declarations() {
    let response = api::detect(&api::DetectRequest {
        inputs: vec![
            DetectInput {
                label: "mig".into(),
                text: fixture("nvidia-smi/linux-x86_64__nvidia-h100-mig__590.48.01.txt"),
            },
            DetectInput {
                label: "node".into(),
                text: KUBECTL_NODE.into(),
            },
        ],
    })
    .unwrap();
    check(&response);
    let inventory: &Inventory = &response.inventory;
    check(inventory);
    let gpu: &DiscoveredGpu = inventory.gpus.iter().find(|g| g.mig_enabled).unwrap();
    check(gpu);
    let device: &DiscoveredMigDevice = &gpu.mig_devices[0];
    check(device);
    let instance: &DiscoveredComputeInstance = &device.compute_instances[0];
    check(instance);
    let node: &DiscoveredNode = &inventory.nodes[0];
    assert!(!node.mig_device_counts.is_empty());
    check(node);
}

#[test]
fn the_catalogue_and_mig_checks_match_their_declarations() {
    for model in catalog::models() {
        check(model);
        if let Some(geometry) = model.mig {
            let g: MigGeometry = geometry;
            check(&g);
        }
        for profile in model.profiles {
            let p: &MigProfile = profile;
            check(p);
            check(&p.certainty);
        }
        check(&model.certainty);
    }
    let valid = api::validate_mig(&api::ValidateMigRequest {
        model: "A100-SXM4-40GB".into(),
        profiles: vec!["3g.20gb".into(), "2g.10gb".into()],
    })
    .unwrap();
    assert!(valid.valid);
    check(&valid);
    check(&valid.placements[0]);
    let invalid = api::validate_mig(&api::ValidateMigRequest {
        model: "A100-SXM4-40GB".into(),
        profiles: vec!["7g.40gb".into(), "1g.5gb".into()],
    })
    .unwrap();
    assert!(!invalid.valid);
    check(&invalid);
}

#[test]
fn the_ledger_matches_its_declarations() {
    let caps = caps(true, false, false, "A100-SXM4-40GB");
    let request = PackRequest::new(asks(&["a:3g.20gb", "b:2g.10gb", "c:2g.10gb"]), caps);
    let packed = api::pack(&request).unwrap();
    let mut entries =
        api::record_pack(&request, &packed, Recording::new(7200, Some(3600)).unwrap());
    let choice: &Choice = &packed.result.choices[0];
    entries.push(
        api::record_plan(&api::RecordPlanRequest::at(
            choice,
            Recording::new(3600, None).unwrap(),
        ))
        .unwrap(),
    );
    entries.push(api::release(&api::ReleaseRequest::new(&entries, "a", 7200)).unwrap());
    for e in &entries {
        check(e);
        if let LedgerEntry::Usage(record) = e {
            check(record);
            if let Some(gpu) = &record.gpu {
                check(gpu);
            }
        }
    }
    let rates = Rates::new(&account::RatesInput {
        cost_per_gpu_hour: Some(2.5),
        ..Default::default()
    })
    .unwrap();
    check(&rates);
    check(&Rates::default());
    let response = api::summarise(&SummaryRequest::new(&entries, 9000, rates)).unwrap();
    let summary: &Summary = &response.summary;
    check(summary);
    let row: &SummaryRow = &summary.totals;
    check(row);
    let gpu: &SharedGpu = &summary.shared_gpus[0];
    check(gpu);
    for usage in &response.records {
        check(usage);
    }
    let text: String = entries
        .iter()
        .map(|e| account::format_entry(e) + "\n")
        .collect();
    let imported = api::import(&api::ImportRequest::new(&entries[..1], &text, 9000)).unwrap();
    check(&imported);
    let twice = api::already_recorded(&api::LedgerChangeRequest {
        entries: entries.as_slice().into(),
        change: entries[..1].into(),
        now: 9000,
    })
    .unwrap();
    assert!(!twice.is_empty(), "a use recorded again is found");
    for t in &twice {
        check(t);
    }
}

#[test]
fn asks_and_scenarios_match_their_declarations() {
    for ask in asks(&["a:0.5", "b:1g.5gb", "c:3"]) {
        check(&ask);
    }
    for entry in
        gpu_share_core::internals::parse::parse_asks("name,size,hours\na,0.5,2\nb,1g.5gb,\n")
            .unwrap()
    {
        check(&entry);
        check(&entry.ask);
    }
    let scenario =
        Scenario::from_query("ask=a:0.5&ask=x:3g.20gb&gpus=2&timeslice&optimize").unwrap();
    check(&scenario);
    check(&scenario.caps);
}

#[test]
fn fit_matches_its_declaration() {
    let request = FitRequest {
        current: vec![DetectInput {
            label: "lgi".into(),
            text: fixture("nvidia-smi/mig-lgi__dra-driver-nvidia-gpu-933.txt"),
        }],
        asks: asks(&["big:3g.40gb", "small:2g.20gb"]),
        options: api::LiveOptions {
            gpu_model: Some("A100-SXM4-80GB".into()),
        },
    };
    let r = api::fit(&request).unwrap();
    assert!(!r.placed.is_empty() && !r.unplaced.is_empty());
    check(&r);
    check(&r.gpus[0]);
    check(&r.gpus[0].instances[0]);
    check(&r.gpus[0].creatable[0]);
    check(&r.placed[0]);
    check(&r.unplaced[0]);
}

#[test]
fn the_dra_simulation_matches_its_declaration() {
    let mut request = api::SimulateDraRequest {
        slices: vec![DetectInput {
            label: String::new(),
            text: fixture("resourceslices/h100-pcie-dynamic-mig.json"),
        }],
        pack: PackRequest::new(asks(&["a:1g.10gb", "b:1g.10gb"]), Cluster::default()),
        options: api::SimulationOptions::default(),
    };
    request.options.dra.mig = api::MigManagement::Dynamic;
    let r = api::simulate_dra(&request).unwrap();
    check(&r);
    let spread = &r.simulations[1];
    check(spread);
    check(&spread.per_ask);
    check(&spread.per_ask.claims[0]);
    check(&spread.per_ask.claims[0].devices[0]);
    check(&spread.per_ask.gpus[0]);
}

#[test]
fn repartition_matches_its_declaration() {
    let request = RepartitionRequest {
        current: vec![DetectInput {
            label: "lgi".into(),
            text: fixture("nvidia-smi/mig-lgi__dra-driver-nvidia-gpu-933.txt"),
        }],
        asks: asks(&["big:3g.40gb"]),
        options: api::RepartitionOptions {
            gpu_model: Some("A100-SXM4-80GB".into()),
            free: Vec::new(),
        },
    };
    let r = api::repartition(&request).unwrap();
    check(&r);
    check(&r.gpus[0]);
    for i in &r.gpus[0].instances {
        check(i);
    }
    for s in &r.steps {
        check(s);
    }
}

#[test]
fn size_matches_its_declaration() {
    use gpu_share_core::api::{FitTarget, SizeRequest};
    let config = r#"{"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 2048,
        "intermediate_size": 5632, "moe_intermediate_size": 1408, "num_attention_heads": 16,
        "num_experts": 60, "num_experts_per_tok": 4, "num_hidden_layers": 24,
        "num_key_value_heads": 16, "shared_expert_intermediate_size": 5632,
        "max_position_embeddings": 8192, "torch_dtype": "bfloat16", "vocab_size": 151936}"#;
    let mut request = SizeRequest {
        config_json: config.into(),
        options: api::SizingOptions {
            dtype: Some(gpu_share_core::internals::size::Dtype::Int4),
            ..Default::default()
        },
    };
    let plain = api::size(&request).unwrap();
    assert!(plain.fit.is_none() && plain.overheads.len() == 2);
    check(&plain);
    check(&plain.overheads[1]);
    check(&plain.parameter_parts[0]);
    request.options.fit = Some(FitTarget::Profile {
        gpu_model: "A100-SXM4-80GB".into(),
        profile: "3g.40gb".into(),
    });
    let fitted = api::size(&request).unwrap();
    check(&fitted);
    check(fitted.fit.as_ref().unwrap());
}

#[test]
fn replay_matches_its_declaration() {
    use gpu_share_core::api::ReplayRequest;
    let replay = api::replay(&ReplayRequest {
        nodes_csv: fixture("replay/nodes.csv"),
        pods_csv: fixture("replay/pods.csv"),
        options: api::ReplaySettings {
            policies: vec![gpu_share_core::internals::replay::Policy::Fgd],
            seeds: vec![1, 2],
            tune: None,
        },
    })
    .unwrap();
    check(&replay);
    check(&replay.policies[0]);
    check(&replay.policies[0].runs[0]);
    check(&replay.policies[0].runs[0].failed);
    check(&replay.bound);
}
