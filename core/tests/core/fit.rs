//! `api::fit` on real `nvidia-smi mig -lgi` output: what can still be created where, what is
//! stranded, and where new asks go without moving an instance.

use gpu_share_core::api::{fit, DetectInput, FitRequest, LiveOptions};
use gpu_share_core::internals::{ErrorKind, Hint, Input};

use crate::common::{asks, fixture};

/// Real `nvidia-smi mig -lgi` output (tests/fixtures/nvidia-smi/README.md has the sources) quoted in
/// kubernetes-sigs/dra-driver-nvidia-gpu#933: three 1g.10gb GPU instances on GPU 3 at 0:1, 1:1 and 5:1,
/// which leave five slices free and no room for a 3g.40gb.
fn dra_933() -> String {
    fixture("nvidia-smi/mig-lgi__dra-driver-nvidia-gpu-933.txt")
}

/// NVIDIA/DCGM#138: two GPUs, each full (1g.10gb at 2 and 3, 2g.20gb at 0, 3g.40gb at 4: all seven
/// compute slices).
fn dcgm_138() -> String {
    fixture("nvidia-smi/mig-lgi__dcgm-138.txt")
}

fn request(text: &str, model: Option<&str>, specs: &[&str]) -> FitRequest {
    FitRequest {
        current: vec![DetectInput {
            label: "lgi.txt".into(),
            text: text.into(),
        }],
        asks: asks(specs),
        options: LiveOptions {
            gpu_model: model.map(String::from),
        },
    }
}

#[test]
fn three_small_instances_leave_no_room_for_a_3g() {
    let r = fit(&request(
        &dra_933(),
        Some("A100-SXM4-80GB"),
        &["big:3g.40gb"],
    ))
    .unwrap();
    let g = &r.gpus[0];
    assert_eq!((g.index, g.model.as_str()), (3, "A100-SXM4-80GB"));
    let held: Vec<(&str, u8, Option<u32>)> = g
        .instances
        .iter()
        .map(|i| (i.profile.as_str(), i.start, i.gpu_instance_id))
        .collect();
    assert_eq!(
        held,
        [
            ("1g.10gb", 0, Some(7)),
            ("1g.10gb", 1, Some(8)),
            ("1g.10gb", 5, Some(12))
        ]
    );
    assert_eq!(g.free_memory_slices, [2, 3, 4, 6, 7]);
    assert_eq!(g.free_compute_slices, 4);
    assert!(
        !g.creatable.iter().any(|c| c.profile == "3g.40gb"),
        "{:?}",
        g.creatable
    );
    let two = g.creatable.iter().find(|c| c.profile == "2g.20gb").unwrap();
    assert_eq!(two.starts, [2], "2g.20gb starts only at 0, 2 or 4");
    // Every free slice still takes a 1g.10gb: nothing is stranded for all profiles, all five for the 3g.
    assert!(g.stranded_memory_slices.is_empty());
    assert_eq!(g.stranded_for_asks.as_deref(), Some(&[2, 3, 4, 6, 7][..]));
    assert!(r.placed.is_empty());
    assert_eq!(r.unplaced[0].name, "big");
    assert!(
        r.unplaced[0].reason.contains("3g.40gb"),
        "{}",
        r.unplaced[0].reason
    );
}

#[test]
fn a_new_ask_takes_a_start_that_leaves_room() {
    // A 1g.10gb may go at 2, 3, 4 or 6; at 2 or 3 it would take the only start a 2g.20gb has left.
    let r = fit(&request(&dra_933(), Some("A100-SXM4-80GB"), &["t:1g.10gb"])).unwrap();
    let t = &r.placed[0];
    assert_eq!((t.gpu, t.profile.as_str()), (3, "1g.10gb"));
    assert!([4, 6].contains(&t.start), "{t:?}");
    // Asked together, the larger goes first, at its only start, and the small one beside it.
    let r = fit(&request(
        &dra_933(),
        Some("A100-SXM4-80GB"),
        &["t:1g.10gb", "s:2g.20gb"],
    ))
    .unwrap();
    let at: Vec<(&str, u8)> = r.placed.iter().map(|p| (p.ask.as_str(), p.start)).collect();
    assert_eq!(at[1], ("s", 2));
    assert!([4, 6].contains(&at[0].1), "{at:?}");
    assert!(r.unplaced.is_empty());
    // A fraction becomes the least-waste profile covering it (0.25 of 7 compute slices: 2g.20gb).
    let r = fit(&request(&dra_933(), Some("A100-SXM4-80GB"), &["q:0.25"])).unwrap();
    assert_eq!(r.placed[0].profile, "2g.20gb");
}

#[test]
fn full_gpus_have_nothing_to_create() {
    let r = fit(&request(
        &dcgm_138(),
        Some("H100-80GB-HBM3"),
        &["x:1g.10gb"],
    ))
    .unwrap();
    assert_eq!(r.gpus.len(), 2);
    for g in &r.gpus {
        assert!(g.free_memory_slices.is_empty());
        assert_eq!(g.free_compute_slices, 0);
        assert!(g.creatable.is_empty());
    }
    assert_eq!(r.unplaced.len(), 1);
}

#[test]
fn the_model_is_asked_for_when_the_profiles_do_not_settle_it() {
    let e = fit(&request(&dra_933(), None, &[])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnknownModel);
    assert_eq!(
        e.hint,
        Some(Hint::Give {
            input: Input::GpuModel
        })
    );
    let e = fit(&request(&dra_933(), Some("T4"), &[])).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("options.gpu_model"));
    // A100-40GB has a 1g.10gb too, but it spans two slices and cannot start at 1 or 5: a layout
    // the given model cannot hold is an error, not a guess.
    let e = fit(&request(&dra_933(), Some("A100-SXM4-40GB"), &[])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfRange);
    assert!(e.message.contains("not a valid layout"), "{}", e.message);
    assert_eq!(
        e.hint,
        Some(Hint::Give {
            input: Input::GpuModel
        })
    );
}

#[test]
fn gpus_without_placements_or_mig_are_named_in_the_notes() {
    let xml = fixture("nvidia-smi/qx-a100.xml");
    let r = fit(&request(&xml, None, &["a:1g.5gb"])).unwrap();
    assert!(r.gpus.is_empty());
    // The capture's `<current_mig>Disabled</current_mig>` (NVIDIA/k8s-test-infra qx-a100.xml).
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("MIG is disabled, as the input shows")),
        "{:?}",
        r.notes
    );
    assert!(r.unplaced[0].reason.contains("no MIG-enabled GPU"));
}

/// gpu-share#55 item 6: `nvidia-smi -L` shows no MIG mode and lists MIG devices only where
/// instances exist (MIG User Guide, "MIG Device Names"), so a GPU it lists alone may be MIG-enabled
/// with nothing created: "not enabled" is an assumption, said as one, with the input that settles it.
#[test]
fn a_mig_mode_the_input_does_not_show_is_said_to_be_assumed() {
    let list = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5c2c1c33-1e9a-4b1b-8b2e-5a3a1f0f0c11)\n";
    let r = fit(&request(list, None, &[])).unwrap();
    assert!(r.gpus.is_empty());
    let note = r
        .notes
        .iter()
        .find(|n| n.starts_with("GPU 0:"))
        .unwrap_or_else(|| panic!("{:?}", r.notes));
    assert!(note.contains("does not show its MIG mode"), "{note}");
    assert!(note.contains("taken as MIG disabled"), "{note}");
    assert!(note.contains("nvidia-smi -q -x"), "{note}");
    assert!(!note.contains("MIG is not enabled"), "{note}");
    // A board without MIG says that instead.
    let t4 = fit(&request(&fixture("nvidia-smi/qx-t4.xml"), None, &[])).unwrap();
    assert!(
        t4.notes
            .iter()
            .any(|n| n == "GPU 0: T4 has no MIG, so nothing can be created on it"),
        "{:?}",
        t4.notes
    );
}

#[test]
fn bad_asks_are_errors() {
    let e = fit(&request(
        &dra_933(),
        Some("A100-SXM4-80GB"),
        &["a:1g.10gb", "a:1g.10gb"],
    ))
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DuplicateName);
}
