//! `gpu-share fit` end to end, on real `nvidia-smi mig -lgi` output in tests/fixtures/nvidia-smi.

use crate::common::{gpu_share, json, no_ledger, stdout};
use predicates::str::contains;

const LGI_933: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/nvidia-smi/mig-lgi__dra-driver-nvidia-gpu-933.txt"
);

#[test]
fn fit_says_what_can_be_created_and_what_is_stranded() {
    let text = stdout(gpu_share(no_ledger()).args([
        "fit",
        "--current",
        LGI_933,
        "--gpu-model",
        "A100-SXM4-80GB",
    ]));
    assert!(text.contains("GPU 3 (A100-SXM4-80GB)"), "{text}");
    assert!(
        text.contains("1g.10gb@0 (GI 7), 1g.10gb@1 (GI 8), 1g.10gb@5 (GI 12)"),
        "{text}"
    );
    assert!(
        text.contains("memory slices 2, 3, 4, 6, 7; 4 compute slices"),
        "{text}"
    );
    assert!(text.contains("2g.20gb at 2"), "{text}");
    assert!(!text.contains("3g.40gb at"), "{text}");
}

#[test]
fn fit_places_asks_without_moving_anything_and_exits_3_for_the_rest() {
    let mut cmd = gpu_share(no_ledger());
    cmd.args([
        "fit",
        "--current",
        LGI_933,
        "--gpu-model",
        "a100-80gb",
        "--ask",
        "big:3g.40gb",
        "--ask",
        "small:0.25",
        "--json",
    ]);
    let out = cmd.assert().code(3).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["placed"][0]["ask"], "small");
    assert_eq!(v["placed"][0]["profile"], "2g.20gb");
    assert_eq!(v["placed"][0]["start"], 2);
    assert_eq!(v["unplaced"][0]["name"], "big");
    assert_eq!(
        v["gpus"][0]["stranded_for_asks"],
        serde_json::json!([4, 6, 7])
    );
    assert_eq!(
        v["gpus"][0]["stranded_memory_slices"],
        serde_json::json!([])
    );
}

#[test]
fn fit_errors_name_the_flag() {
    // -lgi names no model, and 1g.10gb on these placements fits boards with different profiles.
    gpu_share(no_ledger())
        .args(["fit", "--current", LGI_933])
        .assert()
        .code(1)
        .stderr(contains("give --gpu-model"));
    gpu_share(no_ledger())
        .args(["fit", "--current", LGI_933, "--gpu-model", "t4"])
        .assert()
        .code(1)
        .stderr(contains("--gpu-model"));
    gpu_share(no_ledger())
        .args([
            "fit",
            "--current",
            LGI_933,
            "--gpu-model",
            "a100-80gb",
            "--ask",
            "a:zero",
        ])
        .assert()
        .code(1)
        .stderr(contains("--ask #1"));
    gpu_share(no_ledger()).args(["fit"]).assert().code(2);
    let v = json(gpu_share(no_ledger()).args([
        "fit",
        "--current",
        LGI_933,
        "--gpu-model",
        "a100-80gb",
        "--json",
    ]));
    assert_eq!(v["gpus"][0]["index"], 3);
}

/// gpu-share#55 item 6: `nvidia-smi -L` shows no MIG mode, and a MIG-enabled GPU with no instances
/// lists no MIG line (MIG User Guide, "MIG Device Names": one line per MIG device), so `fit` says it
/// assumed "disabled" and which output would tell; `detect` marks the mode as not shown.
#[test]
fn fit_and_detect_word_an_unseen_mig_mode_as_an_assumption() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.txt");
    std::fs::write(
        &list,
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5c2c1c33-1e9a-4b1b-8b2e-5a3a1f0f0c11)\n",
    )
    .unwrap();
    let text = stdout(
        gpu_share(no_ledger())
            .arg("fit")
            .arg("--current")
            .arg(&list),
    );
    assert!(
        text.contains("note: GPU 0: the input does not show its MIG mode and lists no MIG devices on it, so it is taken as MIG disabled"),
        "{text}"
    );
    assert!(!text.contains("MIG is not enabled"), "{text}");
    let detect = stdout(
        gpu_share(no_ledger())
            .arg("detect")
            .arg("--from")
            .arg(&list),
    );
    assert!(detect.contains("not shown (taken as off)"), "{detect}");
    assert!(
        detect.contains("MIG off (capable; mode not shown, taken as disabled)"),
        "{detect}"
    );
}
