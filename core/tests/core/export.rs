//! Exports of realistic packings, read back with a real YAML parser: resource names and counts,
//! device-plugin fields and types, mig-parted per its schema with every layout re-validated.
//! (Hostile names and arbitrary plans: `export_hostile.rs`.)

use gpu_share_core::internals::export::{export, ExportFormat, ExportOptions, MigStrategy};
use gpu_share_core::internals::pack::{bin_pack_with, PackOptions};
use gpu_share_core::internals::validate_mig::validate_mig_parted;
use gpu_share_core::internals::{
    bin_pack, find_model, validate_mig, FractionalAsk, Mechanism, PackResult, Share,
};
use serde_json::Value;
use std::collections::BTreeSet;

use crate::common::{asks, caps, documents, run, unwrapped};

struct Scenario {
    name: &'static str,
    asks: Vec<FractionalAsk>,
    result: PackResult,
}

fn scenarios() -> Vec<Scenario> {
    let mig = asks(&[
        "x:3g.20gb",
        "y:2g.10gb",
        "z:2g.10gb",
        "q:0.25",
        "s:0.1",
        "t:0.1",
        "big:1.5",
    ]);
    let mps = asks(&["a:0.5", "b:0.3", "c:0.2", "d:0.25", "e:1/3"]);
    let ts = asks(&["a:0.5", "b:0.3", "c:0.4", "d:1/3", "e:0.125"]);
    let whole = asks(&["w:1", "v:2", "u:0.5"]);
    let optimized = asks(&["o1:0.6", "o2:0.4", "o3:0.3", "o4:0.7", "o5:0.5", "o6:0.5"]);
    // MPS asks of at most half a GPU, which the device plugin's equal shares can serve.
    let unplaced = asks(&["p:0.5", "r:0.5", "s:0.5", "huge:3"]);
    let mut out = vec![
        Scenario {
            name: "mig",
            result: bin_pack(&mig, &caps(true, false, false, "a100-40gb")).unwrap(),
            asks: mig,
        },
        Scenario {
            name: "mps",
            result: bin_pack(&mps, &caps(false, true, false, "h100")).unwrap(),
            asks: mps,
        },
        Scenario {
            name: "timeslice",
            result: bin_pack(&ts, &caps(false, false, true, "l4")).unwrap(),
            asks: ts,
        },
        Scenario {
            name: "whole",
            result: bin_pack(&whole, &caps(false, false, false, "t4")).unwrap(),
            asks: whole,
        },
        Scenario {
            name: "optimized",
            result: bin_pack_with(
                &optimized,
                &caps(false, false, true, "l40s"),
                &PackOptions {
                    optimize: Some(
                        gpu_share_core::internals::pack::optimize::Budget::from_millis(20),
                    ),
                },
            )
            .unwrap()
            .result,
            asks: optimized,
        },
        Scenario {
            name: "unplaced",
            result: bin_pack(
                &unplaced,
                &(caps(false, true, false, "a30"))
                    .clone()
                    .with_gpu_count(Some(1)),
            )
            .unwrap(),
            asks: unplaced,
        },
    ];
    out.push(mps_and_timeslice());
    out
}

/// A plan with both MPS and time-sliced GPUs (two clusters' packings side by side).
fn mps_and_timeslice() -> Scenario {
    let m = asks(&["m1:0.5", "m2:0.25"]);
    let t = asks(&["t1:0.5", "t2:0.5", "t3:0.2"]);
    let mut result = bin_pack(&m, &caps(false, true, false, "h100")).unwrap();
    let other = bin_pack(&t, &caps(false, false, true, "h100")).unwrap();
    for mut g in other.gpus {
        g.index += result.gpus.len() as u64;
        result.gpus.push(g);
    }
    result.gpus_used = result.gpus.len() as u64;
    result.choices.extend(other.choices);
    let mut all = m;
    all.extend(t);
    Scenario {
        name: "mps+timeslice",
        asks: all,
        result,
    }
}

fn resource_of(doc: &Value, kserve: bool) -> (&Value, &Value) {
    let pod = if kserve {
        &doc["spec"]["predictor"]
    } else {
        &doc["spec"]["template"]["spec"]
    };
    (&pod["containers"][0], &pod["nodeSelector"])
}

fn check_workloads(s: &Scenario, strategy: MigStrategy, kserve: bool) {
    let options = ExportOptions {
        mig_strategy: strategy,
        namespace: Some("team-a".into()),
        ..Default::default()
    };
    let format = if kserve {
        ExportFormat::KServe
    } else {
        ExportFormat::Kubernetes
    };
    let text = match export(&s.result, format, &options) {
        Ok(t) => t,
        // The single strategy cannot express two profiles on one GPU: an error, checked elsewhere.
        Err(e) if strategy == MigStrategy::Single => {
            assert_eq!(e.field.as_deref(), Some("mig_strategy"));
            return;
        }
        Err(e) => panic!("{}: {e}", s.name),
    };
    let docs = documents(&text);
    let unplaced: BTreeSet<&str> = s.result.unplaced.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(
        docs.len(),
        s.asks.len() - unplaced.len(),
        "{}\n{text}",
        s.name
    );
    for u in &unplaced {
        assert!(text.lines().next().unwrap().contains("unplaced"), "{text}");
        assert!(text.contains(&format!("\"{u}\" (")), "{text}");
    }
    let mut names = BTreeSet::new();
    let placed: Vec<&FractionalAsk> = s
        .asks
        .iter()
        .filter(|a| !unplaced.contains(a.name()))
        .collect();
    for (doc, ask) in docs.iter().zip(placed) {
        let choice = s
            .result
            .choices
            .iter()
            .find(|c| c.name == ask.name())
            .unwrap();
        let name = doc["metadata"]["name"].as_str().unwrap();
        assert!(
            gpu_share_core::internals::export::is_dns_label(name),
            "{name}"
        );
        assert!(names.insert(name.to_string()), "duplicate {name}");
        assert_eq!(doc["metadata"]["namespace"], "team-a");
        assert_eq!(doc["metadata"]["annotations"]["gpu-share/ask"], ask.name());
        if kserve {
            assert_eq!(doc["apiVersion"], "serving.kserve.io/v1beta1");
            assert_eq!(doc["kind"], "InferenceService");
            assert_eq!(doc["spec"]["predictor"]["maxReplicas"], 1);
        } else {
            assert_eq!(doc["apiVersion"], "apps/v1");
            assert_eq!(doc["kind"], "Deployment");
            assert_eq!(doc["spec"]["replicas"], 1);
            assert_eq!(
                doc["spec"]["selector"]["matchLabels"],
                doc["spec"]["template"]["metadata"]["labels"]
            );
            assert_eq!(
                doc["metadata"]["labels"],
                doc["spec"]["selector"]["matchLabels"]
            );
        }
        let (container, selector) = resource_of(doc, kserve);
        assert!(container["name"].is_string());
        assert_eq!(container["image"], ExportOptions::default().image.as_str());
        let limits = container["resources"]["limits"].as_object().unwrap();
        assert_eq!(limits.len(), 1, "{limits:?}");
        let (resource, count) = limits.iter().next().unwrap();
        assert!(count.is_string(), "quantities are strings: {count}");
        match choice.mechanism {
            Mechanism::Mig => {
                let profile = choice.mig_profile.as_deref().unwrap();
                match strategy {
                    MigStrategy::Mixed => {
                        assert_eq!(
                            resource,
                            &format!("nvidia.com/mig-{}", profile.replace('+', "."))
                        );
                        assert_eq!(selector["nvidia.com/mig.strategy"], "mixed");
                    }
                    MigStrategy::Single => {
                        assert_eq!(resource, "nvidia.com/gpu");
                        assert_eq!(selector["nvidia.com/mig.strategy"], "single");
                    }
                }
                assert_eq!(count, "1");
            }
            Mechanism::Whole => {
                assert_eq!(resource, "nvidia.com/gpu");
                assert_eq!(count.as_str().unwrap(), choice.gpus.to_string());
                assert_eq!(selector["nvidia.com/gpu.sharing-strategy"], "none");
            }
            Mechanism::Mps | Mechanism::Timeslice => {
                assert_eq!(resource, "nvidia.com/gpu.shared");
                assert_eq!(count, "1");
                let strategy = if choice.mechanism == Mechanism::Mps {
                    "mps"
                } else {
                    "time-slicing"
                };
                assert_eq!(selector["nvidia.com/gpu.sharing-strategy"], strategy);
            }
        }
        if choice.mechanism == Mechanism::Mps {
            match container["env"].as_array() {
                Some(env) => {
                    assert_eq!(env[0]["name"], "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
                    let percent: u32 = env[0]["value"].as_str().unwrap().parse().unwrap();
                    assert!(percent as f64 >= choice.requested_fraction.to_f64() * 100.0 - 1e-9);
                }
                // Above one half, no replica count gives the client its share: said in a comment.
                None => assert!(choice.requested_fraction > Share::parse("0.5").unwrap()),
            }
        }
    }
}

fn check_device_plugin(s: &Scenario) {
    let text = run(&s.result, ExportFormat::DevicePlugin);
    let docs = documents(&text);
    assert!(!docs.is_empty(), "{text}");
    let mut kinds = BTreeSet::new();
    for doc in &docs {
        let top: BTreeSet<&str> = doc
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert!(
            top.is_subset(&BTreeSet::from(["version", "flags", "sharing"])),
            "{top:?}"
        );
        assert_eq!(doc["version"], "v1");
        let strategy = doc["flags"]["migStrategy"].as_str().unwrap();
        assert!(["none", "single", "mixed"].contains(&strategy));
        if let Some(sharing) = doc.get("sharing") {
            let map = sharing.as_object().unwrap();
            assert_eq!(map.len(), 1, "time-slicing and MPS never in one config");
            let (kind, spec) = map.iter().next().unwrap();
            assert!(kind == "timeSlicing" || kind == "mps");
            kinds.insert(kind.clone());
            assert_eq!(spec["renameByDefault"], Value::Bool(true));
            assert_eq!(spec["failRequestsGreaterThanOne"], Value::Bool(true));
            let r = &spec["resources"][0];
            assert_eq!(r["name"], "nvidia.com/gpu");
            assert!(r["replicas"].as_u64().unwrap() >= 2, "{r}");
            let busiest = s
                .result
                .gpus
                .iter()
                .filter(|g| {
                    g.mechanism()
                        == if kind == "mps" {
                            Mechanism::Mps
                        } else {
                            Mechanism::Timeslice
                        }
                })
                .map(|g| g.ask_count() as u64)
                .max()
                .unwrap();
            if kind == "timeSlicing" {
                assert_eq!(r["replicas"].as_u64().unwrap(), busiest.max(2));
            }
        }
    }
    let has = |m: Mechanism| s.result.gpus.iter().any(|g| g.mechanism() == m);
    assert_eq!(kinds.contains("mps"), has(Mechanism::Mps));
    assert_eq!(kinds.contains("timeSlicing"), has(Mechanism::Timeslice));
    if has(Mechanism::Mps) && has(Mechanism::Timeslice) {
        assert!(unwrapped(&text).contains("need different nodes"), "{text}");
        assert!(
            text.contains("config gpu-share-time-slicing") && text.contains("config gpu-share-mps")
        );
    }
}

fn check_mig_parted(s: &Scenario) {
    let text = run(&s.result, ExportFormat::MigParted);
    let docs = documents(&text);
    assert_eq!(docs.len(), 1);
    let doc = &docs[0];
    let entries = doc["mig-configs"]["gpu-share"].as_array().unwrap();
    let mut mig_devices = BTreeSet::new();
    let mut all_devices = BTreeSet::new();
    for e in entries {
        assert!(e["mig-enabled"].is_boolean());
        let devices: Vec<u64> = match &e["devices"] {
            Value::Array(list) => list.iter().map(|v| v.as_u64().unwrap()).collect(),
            Value::String(all) => {
                assert_eq!(all, "all");
                Vec::new()
            }
            other => panic!("{other}"),
        };
        all_devices.extend(devices.iter().copied());
        if e["mig-enabled"] == Value::Bool(true) {
            mig_devices.extend(devices.iter().copied());
            // Each layout, re-validated from the names and counts alone.
            let model = find_model(s.result.gpu_model.as_deref().unwrap()).unwrap();
            let profiles: Vec<String> = e["mig-devices"]
                .as_object()
                .unwrap()
                .iter()
                .flat_map(|(p, n)| std::iter::repeat_n(p.clone(), n.as_u64().unwrap() as usize))
                .collect();
            let names: Vec<&str> = profiles.iter().map(String::as_str).collect();
            assert!(validate_mig(model, &names).unwrap().valid, "{names:?}");
        }
    }
    let expected: BTreeSet<u64> = s
        .result
        .gpus
        .iter()
        .filter(|g| g.mechanism() == Mechanism::Mig)
        .map(|g| g.index)
        .collect();
    assert_eq!(mig_devices, expected);
    let every: BTreeSet<u64> = s.result.gpus.iter().map(|g| g.index).collect();
    assert_eq!(all_devices, every);
    if let Some(model) = s.result.gpu_model.as_deref().and_then(find_model) {
        if model.is_mig_capable() {
            let checked = validate_mig_parted(doc, model).unwrap();
            assert!(checked.iter().all(|(_, _, v)| v.valid));
            assert_eq!(
                checked.len(),
                entries.iter().filter(|e| e["mig-enabled"] == true).count()
            );
        }
    }
}

fn check_mig_commands(s: &Scenario) {
    let text = run(&s.result, ExportFormat::MigCommands);
    assert!(text.starts_with("#!/bin/sh\n"));
    let mut gpus = BTreeSet::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        if line == "set -e" {
            continue;
        }
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(&words[..3], ["nvidia-smi", "mig", "-i"], "{line}");
        assert_eq!(&words[4..], ["-cgi", words[5], "-C"], "{line}");
        gpus.insert(words[3].parse::<u64>().unwrap());
        let model = find_model(s.result.gpu_model.as_deref().unwrap()).unwrap();
        let profiles: Vec<&str> = words[5].split(',').collect();
        assert!(validate_mig(model, &profiles).unwrap().valid, "{line}");
    }
    let expected: BTreeSet<u64> = s
        .result
        .gpus
        .iter()
        .filter(|g| g.mechanism() == Mechanism::Mig)
        .map(|g| g.index)
        .collect();
    assert_eq!(gpus, expected, "{text}");
}

fn check_slurm(s: &Scenario) {
    let text = run(&s.result, ExportFormat::Slurm);
    let types = text
        .lines()
        .find_map(|l| l.strip_prefix("GresTypes="))
        .unwrap();
    let has = |m: Mechanism| s.result.gpus.iter().any(|g| g.mechanism() == m);
    assert_eq!(types.contains("shard"), has(Mechanism::Timeslice), "{text}");
    assert_eq!(types.contains("mps"), has(Mechanism::Mps), "{text}");
    assert!(text.lines().any(|l| l == "AutoDetect=nvml"));
    let options = text.lines().filter(|l| l.contains(": --gres=")).count();
    assert_eq!(options, s.asks.len() - s.result.unplaced.len(), "{text}");
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        assert!(
            line.starts_with("AutoDetect=")
                || line.starts_with("GresTypes=")
                || line.starts_with("NodeName=<"),
            "{line}"
        );
    }
    if has(Mechanism::Mps) {
        let gpus = s
            .result
            .gpus
            .iter()
            .filter(|g| g.mechanism() == Mechanism::Mps)
            .count();
        assert!(text.contains(&format!(",mps:{}\n", 100 * gpus)), "{text}");
    }
}

#[test]
fn every_format_of_every_scenario_reads_back() {
    for s in scenarios() {
        for strategy in [MigStrategy::Mixed, MigStrategy::Single] {
            check_workloads(&s, strategy, false);
            check_workloads(&s, strategy, true);
        }
        check_device_plugin(&s);
        check_mig_parted(&s);
        check_mig_commands(&s);
        check_slurm(&s);
    }
}

#[test]
fn single_strategy_works_for_uniform_gpus() {
    let a = asks(&[
        "a:1g.10gb",
        "b:1g.10gb",
        "c:1g.10gb",
        "d:1g.10gb",
        "e:3g.40gb",
        "f:3g.40gb",
    ]);
    let s = Scenario {
        name: "uniform",
        result: bin_pack(&a, &caps(true, false, false, "h100")).unwrap(),
        asks: a,
    };
    let options = ExportOptions {
        mig_strategy: MigStrategy::Single,
        ..Default::default()
    };
    let text = export(&s.result, ExportFormat::Kubernetes, &options).unwrap();
    for doc in documents(&text) {
        let (container, selector) = resource_of(&doc, false);
        assert_eq!(container["resources"]["limits"]["nvidia.com/gpu"], "1");
        assert_eq!(selector["nvidia.com/mig.strategy"], "single");
        // The H100 80GB HBM3 is one board with one product name (its PCIe sibling is a model of
        // its own), so the product is a plain node selector: <product>-MIG-<profile>.
        let product = selector["nvidia.com/gpu.product"].as_str().unwrap();
        assert!(
            product.starts_with("NVIDIA-H100-80GB-HBM3-MIG-"),
            "{product}"
        );
    }
    check_workloads(&s, MigStrategy::Single, false);
}

#[test]
fn mps_replicas_never_give_a_client_less_than_its_ask() {
    // Three clients on one GPU, the largest at 0.5: equal replicas of 3 would give it 33%.
    let a = asks(&["big:0.5", "s1:0.25", "s2:0.25"]);
    let result = bin_pack(&a, &caps(false, true, false, "h100")).unwrap();
    assert_eq!(result.gpus_used, 1);
    let text = run(&result, ExportFormat::DevicePlugin);
    let docs = documents(&text);
    assert_eq!(docs[0]["sharing"]["mps"]["resources"][0]["replicas"], 2);
    assert!(
        unwrapped(&text).contains("need at least 2 GPUs, not the plan's 1"),
        "{text}"
    );
    // An ask above one half cannot be served by the plugin's MPS at all: an error naming the ask
    // in every format that relies on the plugin's config, never a config with a comment.
    let a = asks(&["huge:0.75"]);
    let result = bin_pack(&a, &caps(false, true, false, "h100")).unwrap();
    for format in [
        ExportFormat::DevicePlugin,
        ExportFormat::Kubernetes,
        ExportFormat::KServe,
    ] {
        let e = export(&result, format, &ExportOptions::default()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("asks[0]"), "{format}");
        assert!(
            e.message.contains("\"huge\" asks 0.75 of an MPS GPU"),
            "{}",
            e.message
        );
    }
}
