//! The reader gives back exactly what the packer made, and refuses results edited into states the
//! packer never makes, naming the field.

use crate::ask::FractionalAsk;
use crate::caps::nodes::NodeSpec;
use crate::caps::ClusterGpuCaps;
use crate::error::ErrorKind;
use crate::pack::bin_pack;
use crate::pack::PackResult;
use serde_json::{json, Value};

fn pack(specs: &[&str], caps: ClusterGpuCaps) -> PackResult {
    let asks: Vec<FractionalAsk> = specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect();
    bin_pack(&asks, &caps).unwrap()
}

fn mig(model: &str, count: Option<u64>) -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mig: true,
        gpu_model: Some(model.into()),
        gpu_count: count,
        ..Default::default()
    }
}

fn timeslice() -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    }
}

/// The seed MIG pack: y 2g.10gb@0, z 2g.10gb@2, x 3g.20gb@4 on one A100-40GB.
fn seed_mig() -> PackResult {
    pack(
        &["x:3g.20gb", "y:2g.10gb", "z:2g.10gb"],
        mig("A100-SXM4-40GB", Some(1)),
    )
}

fn results() -> Vec<PackResult> {
    let nodes = ClusterGpuCaps {
        supports_mig: true,
        supports_timeslicing: true,
        nodes: Some(vec![
            NodeSpec {
                name: "gpu-a".into(),
                gpus: 4,
            },
            NodeSpec {
                name: "gpu-b".into(),
                gpus: 2,
            },
        ]),
        ..Default::default()
    };
    let mps = ClusterGpuCaps {
        supports_mps: true,
        gpu_model: Some("H100-SXM5-80GB".into()),
        ..Default::default()
    };
    vec![
        seed_mig(),
        pack(
            &["a:0.5", "b:0.3", "c:0.4"],
            timeslice().with_gpu_count(Some(2)),
        ),
        pack(
            &["a:1/3", "b:1/3", "c:1/3", "d:0.9"],
            timeslice().with_gpu_count(Some(1)),
        ),
        pack(&["p:0.3", "q:0.3", "big:1.5"], mps),
        pack(&["t:2", "s:0.1"], ClusterGpuCaps::default()),
        pack(&["m:2g.12gb", "n:1g.6gb", "o:4g.24gb"], mig("A30", None)),
        pack(
            &["m:3g.40gb", "n:1g.10gb", "big:3"],
            mig("A100-SXM4-80GB", Some(2)),
        ),
        pack(&["w:0.5", "x:3g.20gb", "big:2", "v:0.25", "huge:5"], nodes),
    ]
}

#[test]
fn every_result_reads_back_as_it_was() {
    for r in results() {
        let value = serde_json::to_value(&r).unwrap();
        assert_eq!(PackResult::from_json(&value).as_ref(), Ok(&r), "{value}");
        let text = serde_json::to_string(&value).unwrap();
        assert_eq!(PackResult::from_json_str(&text), Ok(r));
    }
}

#[test]
fn the_keys_of_a_response_around_the_result_are_ignored() {
    let r = seed_mig();
    let mut value = serde_json::to_value(&r).unwrap();
    value["optimize"] = json!({"proven_optimal": true, "lower_bound": 1, "gap": 0, "ffd_gpus": 1});
    value["caps_from"] = json!({"anything": ["at", "all"]});
    assert_eq!(PackResult::from_json(&value), Ok(r));
}

/// The error reading `r`'s JSON after `edit`: its kind and field.
fn refused(r: &PackResult, edit: impl FnOnce(&mut Value)) -> (ErrorKind, String) {
    let mut value = serde_json::to_value(r).unwrap();
    edit(&mut value);
    let e = PackResult::from_json(&value).unwrap_err();
    (e.kind, e.field.unwrap_or_default())
}

#[test]
fn mig_layouts_keep_their_rules() {
    let r = seed_mig();
    let overlap = refused(&r, |v| {
        v["gpus"][0]["instances"] = json!([
            {"ask": "x", "profile": "3g.20gb", "start": 0, "memory_slices": 4, "compute_slices": 3},
            {"ask": "y", "profile": "2g.10gb", "start": 2, "memory_slices": 2, "compute_slices": 2},
        ]);
    });
    assert_eq!(overlap, (ErrorKind::OutOfRange, "gpus[0].instances".into()));
    let bad_start = refused(&r, |v| v["gpus"][0]["instances"][2]["start"] = json!(5));
    assert_eq!(
        bad_start,
        (ErrorKind::OutOfRange, "gpus[0].instances".into())
    );
    let unordered = refused(&r, |v| v["gpus"][0]["instances"][1]["start"] = json!(0));
    assert_eq!(unordered.1, "gpus[0].instances");
    let slices = refused(&r, |v| {
        v["gpus"][0]["instances"][0]["memory_slices"] = json!(1)
    });
    assert_eq!(
        slices,
        (
            ErrorKind::OutOfRange,
            "gpus[0].instances[0].memory_slices".into()
        )
    );
    let profile = refused(&r, |v| {
        v["gpus"][0]["instances"][0]["profile"] = json!("9g.99gb")
    });
    assert_eq!(
        profile,
        (
            ErrorKind::UnknownProfile,
            "gpus[0].instances[0].profile".into()
        )
    );
    let model = refused(&r, |v| v["gpu_model"] = json!("Voodoo-5"));
    assert_eq!(model, (ErrorKind::UnknownModel, "gpu_model".into()));
    let no_model = refused(&r, |v| v["gpu_model"] = Value::Null);
    assert_eq!(no_model.1, "gpus[0].instances");
    let other_model = refused(&r, |v| v["gpu_model"] = json!("A30"));
    assert_eq!(other_model.1, "gpus[0].instances[0].profile");
}

#[test]
fn shares_stay_within_one_gpu() {
    let r = pack(
        &["a:0.5", "b:0.3", "c:0.4"],
        timeslice().with_gpu_count(Some(2)),
    );
    let over = refused(&r, |v| v["gpus"][0]["slots"][1]["share"] = json!(0.6));
    assert_eq!(
        over,
        (ErrorKind::OutOfRange, "gpus[0].slots[1].share".into())
    );
    let zero = refused(&r, |v| v["gpus"][0]["slots"][1]["share"] = json!(0));
    assert_eq!(
        zero,
        (ErrorKind::OutOfRange, "gpus[0].slots[1].share".into())
    );
    let text = refused(&r, |v| v["gpus"][0]["slots"][1]["share"] = json!("lots"));
    assert_eq!(text.1, "gpus[0].slots[1].share");
    let used = refused(&r, |v| v["gpus"][0]["used_fraction"] = json!(0.5));
    assert_eq!(
        used,
        (ErrorKind::OutOfRange, "gpus[0].used_fraction".into())
    );
    let asks = refused(&r, |v| v["gpus"][0]["asks"] = json!(["c", "a"]));
    assert_eq!(asks, (ErrorKind::OutOfRange, "gpus[0].asks".into()));
    // A share that is not the choice's allocation.
    let mut r2 = r.clone();
    r2.choices[2].allocated_fraction = crate::units::Share::parse("0.3").unwrap();
    let alloc = refused(&r2, |_| {});
    assert_eq!(alloc.1, "gpus[0].slots[1].share");
}

#[test]
fn every_ask_is_placed_as_its_choice_says() {
    let r = pack(&["t:2", "s:0.1"], ClusterGpuCaps::default());
    let count = refused(&r, |v| v["gpus_used"] = json!(2));
    assert_eq!(count, (ErrorKind::OutOfRange, "gpus_used".into()));
    let moved = refused(&r, |v| {
        v["gpus"][1] = v["gpus"][2].clone();
        v["gpus"][1]["index"] = json!(1);
    });
    assert_eq!(moved.1, "choices[0]");
    let index = refused(&r, |v| v["gpus"][1]["index"] = json!(7));
    assert_eq!(index.1, "gpus[1].index");
    let unknown = refused(&r, |v| {
        v["gpus"][2]["slots"][0]["ask"] = json!("nobody");
        v["gpus"][2]["asks"] = json!(["nobody"]);
    });
    assert_eq!(unknown.1, "gpus[2].slots[0]");
    let both = refused(&r, |v| {
        v["unplaced"] = json!(["s"]);
        v["unplaced_reasons"] = json!([{"name": "s", "mechanism": "whole", "reason": "why"}]);
    });
    assert_eq!(both.1, "unplaced_reasons[0]");
    let names = refused(&r, |v| v["unplaced"] = json!(["s"]));
    assert_eq!(names.1, "unplaced");
    let limit = refused(&r, |v| v["gpu_count"] = json!(2));
    assert_eq!(limit.1, "gpus");
    let utilisation = refused(&r, |v| v["utilisation"] = json!(0.01));
    assert_eq!(utilisation.1, "utilisation");
}

#[test]
fn shapes_names_and_keys_are_checked() {
    let r = seed_mig();
    assert_eq!(refused(&r, |v| *v = json!([1, 2])).0, ErrorKind::Syntax);
    assert_eq!(
        refused(&r, |v| v["gpus"][0]["bogus"] = json!(1)),
        (ErrorKind::Syntax, "gpus[0].bogus".into())
    );
    assert_eq!(
        refused(&r, |v| v["extra"] = json!(1)),
        (ErrorKind::Syntax, "extra".into())
    );
    assert_eq!(
        refused(&r, |v| v["gpus"][0]["mechanism"] = json!("magic")),
        (ErrorKind::Syntax, "gpus[0].mechanism".into())
    );
    let missing = refused(&r, |v| {
        v.as_object_mut().unwrap().remove("choices");
    });
    assert_eq!(missing, (ErrorKind::Syntax, "choices".into()));
    let control = refused(&r, |v| {
        v["gpus"][0]["instances"][0]["ask"] = json!("y\u{7}")
    });
    assert_eq!(
        control,
        (ErrorKind::Syntax, "gpus[0].instances[0].ask".into())
    );
    let spaced = refused(&r, |v| v["gpus"][0]["instances"][0]["ask"] = json!(" y"));
    assert_eq!(spaced.1, "gpus[0].instances[0].ask");
    let duplicate = refused(&r, |v| v["choices"][1]["name"] = json!("x"));
    assert_eq!(duplicate.0, ErrorKind::DuplicateName);
    let negative = refused(&r, |v| v["lower_bound"] = json!(-1));
    assert_eq!(negative, (ErrorKind::Syntax, "lower_bound".into()));
    assert_eq!(
        PackResult::from_json_str("{not json").unwrap_err().kind,
        ErrorKind::Syntax
    );
}

#[test]
fn nodes_hold_the_gpus_that_name_them() {
    let r = results().pop().unwrap();
    assert!(!r.nodes.is_empty());
    let renamed = refused(&r, |v| v["gpus"][0]["node"] = json!("elsewhere"));
    assert_eq!(renamed.1, "gpus[0].node");
    let full = refused(&r, |v| v["nodes"][0]["capacity"] = json!(1));
    assert_eq!(full.1, "nodes[0]");
    let twice = refused(&r, |v| {
        let first = v["nodes"][0]["gpus"][0].clone();
        v["nodes"][0]["gpus"].as_array_mut().unwrap().push(first);
        v["nodes"][0]["capacity"] = json!(100);
    });
    assert_eq!(twice.1, "nodes[0].gpus[4]");
    let role = refused(&r, |v| v["nodes"][0]["role"] = json!("wizard"));
    assert_eq!(role, (ErrorKind::Syntax, "nodes[0].role".into()));
    let gone = refused(&r, |v| {
        v.as_object_mut().unwrap().remove("nodes");
    });
    assert_eq!(gone.1, "gpus[0].node");
}

#[test]
fn memory_edited_past_what_a_gpu_offers_is_refused_even_past_u64() {
    // Found by `no_panic`: two slots of u64::MAX MiB once overflowed the sum instead.
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        gpu_model: Some("H100-SXM5-80GB".into()),
        ..Default::default()
    };
    let r = pack(&["a:0.3:10GiB", "b:0.3:10GiB"], caps);
    let huge = refused(&r, |v| {
        for slot in 0..2 {
            v["gpus"][0]["slots"][slot]["memory_mib"] = json!(u64::MAX);
        }
    });
    assert_eq!(huge, (ErrorKind::OutOfRange, "gpus[0].slots".into()));
}
