//! `api::repartition` on real and generated `nvidia-smi mig -lgi` output: the fewest moves, steps
//! that replay validly from the current state to the reported end state, and no instance in use lost.

use gpu_share_core::api::{
    repartition, DetectInput, FreeInstance, InstanceStatus, RepartitionOptions, RepartitionRequest,
    RepartitionResponse, Step,
};
use gpu_share_core::internals::find_model;
use gpu_share_core::internals::validate_mig::validate_placements;
use proptest::prelude::*;
use std::collections::BTreeMap;

use crate::common::{asks, fixture};

fn request(text: &str, model: &str, specs: &[&str], free: &[(u64, u32)]) -> RepartitionRequest {
    RepartitionRequest {
        current: vec![DetectInput {
            label: "lgi".into(),
            text: text.into(),
        }],
        asks: asks(specs),
        options: RepartitionOptions {
            gpu_model: Some(model.into()),
            free: free
                .iter()
                .map(|&(gpu, gpu_instance_id)| FreeInstance {
                    node: None,
                    gpu,
                    gpu_instance_id,
                })
                .collect(),
        },
    }
}

/// `nvidia-smi mig -lgi` as nvidia-smi prints it, for instances `(gpu, profile, id, start, size)`.
fn lgi(rows: &[(u64, &str, u32, u8, u8)]) -> String {
    let mut out = String::from(
        "+---------------------------------------------------------+\n\
         | GPU instances:                                          |\n\
         | GPU   Name               Profile  Instance   Placement  |\n\
         |                            ID       ID       Start:Size |\n\
         |=========================================================|\n",
    );
    for (gpu, profile, id, start, size) in rows {
        out.push_str(&format!(
            "| {gpu:>3}  MIG {profile:<16} {:>3}      {id:>3}          {start}:{size}     |\n\
             +---------------------------------------------------------+\n",
            19
        ));
    }
    out
}

/// Replays the steps from the current layouts: each create must be valid at its moment, the end
/// must be the reported end state, and every instance in use must exist at the end.
fn replay(
    current: &[(u64, &str, u32, u8, u8)],
    model: &str,
    r: &RepartitionResponse,
    free: &[(u64, u32)],
) {
    let model = find_model(model).unwrap();
    let mut state: BTreeMap<u64, BTreeMap<u8, String>> = BTreeMap::new();
    for g in &r.gpus {
        state.entry(g.index).or_default();
    }
    for &(gpu, profile, _, start, _) in current {
        state
            .entry(gpu)
            .or_default()
            .insert(start, profile.to_string());
    }
    for step in &r.steps {
        match step {
            Step::Destroy {
                gpu,
                start,
                profile,
                ..
            } => {
                assert_eq!(
                    state.get_mut(gpu).unwrap().remove(start).as_deref(),
                    Some(profile.as_str())
                );
            }
            Step::Create {
                gpu,
                profile,
                start,
                ..
            } => {
                let here = state.get_mut(gpu).unwrap();
                let mut layout: Vec<(&str, u8)> =
                    here.iter().map(|(s, p)| (p.as_str(), *s)).collect();
                layout.push((profile, *start));
                let v = validate_placements(model, &layout).unwrap();
                assert!(
                    v.valid,
                    "create {profile} at {start} on GPU {gpu}: {:?}",
                    v.reason
                );
                here.insert(*start, profile.clone());
            }
        }
    }
    for g in &r.gpus {
        let end: Vec<(u8, &str)> = g
            .instances
            .iter()
            .map(|i| (i.start, i.profile.as_str()))
            .collect();
        let replayed: Vec<(u8, &str)> = state[&g.index]
            .iter()
            .map(|(s, p)| (*s, p.as_str()))
            .collect();
        assert_eq!(end, replayed, "GPU {}", g.index);
    }
    // Every instance in use survives: kept in place, or moved (one re-created per instance moved).
    let mut moved = 0;
    for &(gpu, profile, id, start, _) in current {
        if free.contains(&(gpu, id)) {
            continue;
        }
        let g = r.gpus.iter().find(|g| g.index == gpu).unwrap();
        let kept = g.instances.iter().any(|i| {
            i.start == start
                && i.profile == profile
                && i.status == InstanceStatus::Kept
                && i.ask.is_none()
        });
        if !kept {
            moved += 1;
            let elsewhere = r.gpus.iter().flat_map(|g| &g.instances).any(|i| {
                i.status == InstanceStatus::Moved
                    && i.moved_from
                        .as_ref()
                        .is_some_and(|m| m.gpu == gpu && m.start == start)
            });
            assert!(elsewhere, "GPU {gpu}'s {profile} at {start} is lost");
        }
    }
    assert_eq!(moved, r.moved);
}

#[test]
fn one_move_makes_room_for_a_3g() {
    // kubernetes-sigs/dra-driver-nvidia-gpu#933: 1g.10gb at 0, 1 and 5 block every 3g.40gb placement.
    let text = fixture("nvidia-smi/mig-lgi__dra-driver-nvidia-gpu-933.txt");
    let r = repartition(&request(&text, "A100-SXM4-80GB", &["big:3g.40gb"], &[])).unwrap();
    assert_eq!((r.moved, r.gpus_touched), (1, 1));
    assert!(r.unplaced.is_empty());
    let g = &r.gpus[0];
    let big = g
        .instances
        .iter()
        .find(|i| i.ask.as_deref() == Some("big"))
        .unwrap();
    assert_eq!(
        (big.profile.as_str(), big.start, big.status),
        ("3g.40gb", 4, InstanceStatus::New)
    );
    let moved = g
        .instances
        .iter()
        .find(|i| i.status == InstanceStatus::Moved)
        .unwrap();
    assert_eq!(moved.moved_from.as_ref().unwrap().gpu_instance_id, Some(12));
    assert!(
        matches!(
            r.steps[0],
            Step::Destroy {
                gpu_instance_id: Some(12),
                ..
            }
        ),
        "{:?}",
        r.steps
    );
    assert!(
        r.commands[0].starts_with("nvidia-smi mig -dci -i 3 -gi 12"),
        "{:?}",
        r.commands
    );
    assert!(r.drain[0].contains("GPU instance 12"), "{:?}", r.drain);
    assert!(
        r.mig_parted.contains("\"3g.40gb\": 1") || r.mig_parted.contains("3g.40gb: 1"),
        "{}",
        r.mig_parted
    );
    // The mig-parted config reads back: GPU 3 with three 1g.10gb and a 3g.40gb.
    let doc: serde_norway::Value = serde_norway::from_str(&r.mig_parted).unwrap();
    let entry = &doc["mig-configs"]["gpu-share-repartition"][0];
    assert_eq!(entry["devices"][0].as_u64(), Some(3));
    assert_eq!(entry["mig-devices"]["1g.10gb"].as_u64(), Some(3));
    assert_eq!(entry["mig-devices"]["3g.40gb"].as_u64(), Some(1));
    let current = [
        (3, "1g.10gb", 7, 0, 1),
        (3, "1g.10gb", 8, 1, 1),
        (3, "1g.10gb", 12, 5, 1),
    ];
    replay(&current, "A100-SXM4-80GB", &r, &[]);
    // Freeing instance 12 instead: nothing in use moves.
    let r = repartition(&request(
        &text,
        "A100-SXM4-80GB",
        &["big:3g.40gb"],
        &[(3, 12)],
    ))
    .unwrap();
    assert_eq!(r.moved, 0);
    assert!(r.drain.is_empty());
    replay(&current, "A100-SXM4-80GB", &r, &[(3, 12)]);
}

#[test]
fn what_cannot_fit_is_unplaced_and_nothing_is_destroyed() {
    // DCGM#138's GPUs are full: a 4g.40gb fits nowhere, even moving everything.
    let text = fixture("nvidia-smi/mig-lgi__dcgm-138.txt");
    let r = repartition(&request(&text, "H100-80GB-HBM3", &["x:4g.40gb"], &[])).unwrap();
    assert_eq!(r.unplaced, ["x"]);
    assert!(r.steps.is_empty() && r.commands.is_empty());
    assert_eq!((r.moved, r.gpus_touched), (0, 0));
}

/// gpu-share#55 item 5: four 1g.5gb at slices 0, 2, 4 and 6 of an A100-40GB. A 3g.20gb starts only
/// at 0 or 4, a 2g.10gb at 0, 2 or 4 and a 1g.5gb at 0–6 (the MIG User Guide's -lgipp,
/// docs/hardware-facts.md §1.2). `big` alone fits with 2 moves (3g.20gb at 4, the 1g.5gb at 4 and 6
/// moved to 1 and 3), `m` with 1 (2g.10gb at 4, the 1g.5gb there moved); both cannot fit, as
/// 3 + 2 + 4 compute slices are more than the 7 the GPU has. The plan takes `m` and must say that
/// `big` lost to it, not that it fits nowhere.
#[test]
fn an_ask_left_out_for_another_says_so() {
    let text = lgi(&[
        (0, "1g.5gb", 7, 0, 1),
        (0, "1g.5gb", 8, 2, 1),
        (0, "1g.5gb", 9, 4, 1),
        (0, "1g.5gb", 10, 6, 1),
    ]);
    let asks = ["big:3g.20gb", "m:2g.10gb"];
    let r = repartition(&request(&text, "A100-SXM4-40GB", &asks, &[])).unwrap();
    assert_eq!(r.unplaced, ["big"]);
    assert_eq!(r.moved, 1);
    assert_eq!(r.unplaced_reasons.len(), 1);
    assert_eq!(r.unplaced_reasons[0].name, "big");
    assert!(
        r.unplaced_reasons[0]
            .reason
            .starts_with("fits alone with 2 moves, but not together with m, which needs 1 move"),
        "{:?}",
        r.unplaced_reasons
    );
    // Alone, it is placed with those 2 moves.
    let alone = repartition(&request(&text, "A100-SXM4-40GB", &["big:3g.20gb"], &[])).unwrap();
    assert!(alone.unplaced.is_empty());
    assert_eq!(alone.moved, 2);
    // What fits nowhere still says so; what no profile serves says that.
    let full = fixture("nvidia-smi/mig-lgi__dcgm-138.txt");
    let r = repartition(&request(
        &full,
        "H100-80GB-HBM3",
        &["x:4g.40gb", "y:9g.1gb"],
        &[],
    ))
    .unwrap();
    let reasons: Vec<(&str, &str)> = r
        .unplaced_reasons
        .iter()
        .map(|u| (u.name.as_str(), u.reason.as_str()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("x", "fits nowhere, even moving instances"),
            ("y", "no MIG profile of H100-80GB-HBM3 holds it")
        ]
    );
}

#[test]
fn bad_requests_are_errors_naming_the_input() {
    let text = fixture("nvidia-smi/mig-lgi__dra-driver-nvidia-gpu-933.txt");
    let e = repartition(&request(
        &text,
        "A100-SXM4-80GB",
        &["a:1g.10gb"],
        &[(3, 99)],
    ))
    .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("options.free[0]"));
    let e = repartition(&request("", "A100-SXM4-80GB", &[], &[])).unwrap_err();
    assert!(e.field.is_some());
}

const PROFILES: [(&str, u8, &[u8]); 3] = [
    ("1g.10gb", 1, &[0, 1, 2, 3, 4, 5, 6]),
    ("2g.20gb", 2, &[0, 2, 4]),
    ("3g.40gb", 4, &[0, 4]),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random live states of two A100-80GB, some instances freed, random asks: the steps replay.
    #[test]
    fn the_steps_replay_and_nothing_in_use_is_lost(
        picks in prop::collection::vec((0u64..2, 0usize..3, 0usize..7, any::<bool>()), 0..8),
        asks in prop::collection::vec(0usize..3, 0..4),
    ) {
        let model = find_model("A100-SXM4-80GB").unwrap();
        let mut rows: Vec<(u64, &str, u32, u8, u8)> = Vec::new();
        let mut free = Vec::new();
        for (k, &(gpu, p, s, freed)) in picks.iter().enumerate() {
            let (name, size, starts) = PROFILES[p];
            let start = starts[s % starts.len()];
            let mut layout: Vec<(&str, u8)> = rows.iter().filter(|r| r.0 == gpu).map(|r| (r.1, r.3)).collect();
            layout.push((name, start));
            if validate_placements(model, &layout).unwrap().valid {
                let id = 100 + k as u32;
                rows.push((gpu, name, id, start, size));
                if freed {
                    free.push((gpu, id));
                }
            }
        }
        // Both GPUs appear in the input, even when one holds nothing: give each a 1g.10gb at 6 if empty.
        for gpu in 0..2u64 {
            if !rows.iter().any(|r| r.0 == gpu) {
                rows.push((gpu, "1g.10gb", 90 + gpu as u32, 6, 1));
            }
        }
        let specs: Vec<String> = asks.iter().enumerate().map(|(i, &p)| format!("a{i}:{}", PROFILES[p].0)).collect();
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        let r = repartition(&request(&lgi(&rows), "A100-SXM4-80GB", &specs, &free)).unwrap();
        replay(&rows, "A100-SXM4-80GB", &r, &free);
        prop_assert_eq!(r.unplaced.len() + r.gpus.iter().flat_map(|g| &g.instances).filter(|i| i.ask.is_some()).count(), specs.len());
    }
}
