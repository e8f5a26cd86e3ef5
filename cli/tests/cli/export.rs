//! `gpu-share export` and `gpu-share validate-mig` end to end: every format, `-o FILE`, bad options,
//! unplaced asks, and MIG validation of profile lists and mig-parted files.

use crate::common::{gpu_share_in, stdout};
use predicates::prelude::*;
use predicates::str::contains;
use serde::Deserialize;
use serde_json::Value;

fn documents(text: &str) -> Vec<Value> {
    serde_norway::Deserializer::from_str(text)
        .map(|d| Value::deserialize(d).unwrap())
        .filter(|v| !v.is_null())
        .collect()
}

/// The seed MIG asks on one MIG-capable GPU (also drawn by `svg.rs`).
pub const MIG: [&str; 8] = [
    "--ask",
    "x:3g.20gb",
    "--ask",
    "y:2g.10gb",
    "--ask",
    "z:2g.10gb",
    "--mig-capable",
    "--gpus=1",
];

#[test]
fn kubernetes_deployments_for_mig_asks() {
    let dir = tempfile::tempdir().unwrap();
    let out = stdout(gpu_share_in(dir.path()).arg("export").arg("k8s").args(MIG));
    let docs = documents(&out);
    assert_eq!(docs.len(), 3);
    assert_eq!(docs[0]["kind"], "Deployment");
    assert_eq!(
        docs[0]["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
            ["nvidia.com/mig-3g.20gb"],
        "1"
    );
    // The same with the long name, and the single strategy.
    let long = stdout(
        gpu_share_in(dir.path())
            .arg("export")
            .arg("kubernetes")
            .args(MIG),
    );
    assert_eq!(long, out);
    let e = gpu_share_in(dir.path())
        .args(["export", "k8s", "--mig-strategy", "single"])
        .args(MIG)
        .assert()
        .code(1);
    e.stderr(contains("--mig-strategy").and(contains("single MIG strategy")));
}

#[test]
fn kserve_device_plugin_and_slurm() {
    let dir = tempfile::tempdir().unwrap();
    let ts = [
        "--ask",
        "a:0.5",
        "--ask",
        "b:0.3",
        "--ask",
        "c:0.4",
        "--timeslice",
        "--gpu-model",
        "l4",
    ];
    let kserve = stdout(
        gpu_share_in(dir.path())
            .args([
                "export",
                "kserve",
                "--namespace",
                "team-a",
                "--image",
                "ghcr.io/org/model:1",
            ])
            .args(ts),
    );
    let docs = documents(&kserve);
    assert_eq!(docs.len(), 3);
    assert_eq!(docs[0]["kind"], "InferenceService");
    assert_eq!(docs[0]["metadata"]["namespace"], "team-a");
    // KServe's node selection needs its RawDeployment mode (or Knative feature flags).
    assert_eq!(
        docs[0]["metadata"]["annotations"]["serving.kserve.io/deploymentMode"],
        "RawDeployment"
    );
    let container = &docs[0]["spec"]["predictor"]["containers"][0];
    assert_eq!(container["image"], "ghcr.io/org/model:1");
    assert_eq!(
        container["resources"]["limits"]["nvidia.com/gpu.shared"],
        "1"
    );

    let plugin = stdout(
        gpu_share_in(dir.path())
            .args(["export", "device-plugin", "--config-name", "lab"])
            .args(ts),
    );
    let docs = documents(&plugin);
    assert_eq!(docs.len(), 1);
    let spec = &docs[0]["sharing"]["timeSlicing"];
    assert_eq!(spec["resources"][0]["replicas"], 2);
    assert_eq!(spec["renameByDefault"], true);
    assert!(
        plugin.contains("config lab: time-sliced GPUs 0, 1"),
        "{plugin}"
    );
    assert!(plugin.contains("no memory limit (any pod can take all"));

    let slurm = stdout(gpu_share_in(dir.path()).args(["export", "slurm"]).args(ts));
    assert!(slurm.contains("GresTypes=gpu,shard\n"), "{slurm}");
    assert!(
        slurm.contains("NodeName=<time-sliced-nodes> Gres=gpu:2,shard:20\n"),
        "{slurm}"
    );
    assert!(slurm.contains("# \"a\": --gres=shard:5\n"), "{slurm}");
}

#[test]
fn mig_parted_and_commands() {
    let dir = tempfile::tempdir().unwrap();
    let parted = stdout(
        gpu_share_in(dir.path())
            .args(["export", "mig-parted"])
            .args(MIG),
    );
    let doc = &documents(&parted)[0];
    let entry = &doc["mig-configs"]["gpu-share"][0];
    assert_eq!(entry["devices"], serde_json::json!([0]));
    assert_eq!(entry["mig-enabled"], true);
    assert_eq!(
        entry["mig-devices"],
        serde_json::json!({"3g.20gb": 1, "2g.10gb": 2})
    );
    // Its own output validates.
    std::fs::write(dir.path().join("parted.yaml"), &parted).unwrap();
    gpu_share_in(dir.path())
        .args([
            "validate-mig",
            "--gpu-model",
            "a100",
            "--file",
            "parted.yaml",
        ])
        .assert()
        .success()
        .stdout(contains(
            "mig-configs.gpu-share[0]: valid: 3g.20gb, 2g.10gb, 2g.10gb on A100-SXM4-40GB",
        ));

    let commands = stdout(
        gpu_share_in(dir.path())
            .args(["export", "mig-commands"])
            .args(MIG),
    );
    assert!(commands.starts_with("#!/bin/sh\n"));
    assert!(
        commands.contains("\nnvidia-smi mig -i 0 -cgi 3g.20gb,2g.10gb,2g.10gb -C\n"),
        "{commands}"
    );
    assert!(commands
        .contains("# GPU 0 (A100-SXM4-40GB): expected 3g.20gb 4:4, 2g.10gb 0:2, 2g.10gb 2:2"));
    assert!(commands.contains("(unverified)"));
}

#[test]
fn output_file() {
    let dir = tempfile::tempdir().unwrap();
    gpu_share_in(dir.path())
        .args(["export", "mig-parted", "-o", "out.yaml"])
        .args(MIG)
        .assert()
        .success()
        .stdout("");
    let text = std::fs::read_to_string(dir.path().join("out.yaml")).unwrap();
    assert!(text.contains("version: v1\nmig-configs:\n"), "{text}");
    gpu_share_in(dir.path())
        .args(["export", "slurm", "--output", "no/such/dir/x"])
        .args(MIG)
        .assert()
        .code(1)
        .stderr(contains("cannot write output: no/such/dir/x"));
}

#[test]
fn bad_options_name_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, value) in [
        ("--namespace", "Bad_NS"),
        ("--image", "has space"),
        ("--image", ""),
        ("--config-name", "-x"),
    ] {
        gpu_share_in(dir.path())
            .args(["export", "k8s", &format!("{flag}={value}")])
            .args(MIG)
            .assert()
            .code(1)
            .stdout("")
            .stderr(contains(format!("field \"{flag}\"")));
    }
    gpu_share_in(dir.path())
        .args(["export", "helm"])
        .args(MIG)
        .assert()
        .code(2);
    gpu_share_in(dir.path())
        .args(["export", "k8s", "--json"])
        .args(MIG)
        .assert()
        .code(2)
        .stderr(contains("--json does not apply"));
    gpu_share_in(dir.path())
        .args(["export", "k8s"])
        .assert()
        .code(2)
        .stderr(contains("give at least one --ask"));
}

#[test]
fn unplaced_asks_are_left_out_with_a_warning_and_code_3() {
    let dir = tempfile::tempdir().unwrap();
    let assert = gpu_share_in(dir.path())
        .args([
            "export",
            "k8s",
            "--ask",
            "a:0.75",
            "--ask",
            "b:0.75",
            "--gpus",
            "1",
            "--timeslice",
        ])
        .assert()
        .code(3)
        .stderr(contains("warning: 1 ask unplaced and not exported: \"b\""));
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert_eq!(documents(&out).len(), 1);
    assert!(out.starts_with("# gpu-share export kubernetes: 1 ask on 1 GPU; 1 unplaced, not exported:\n#   \"b\" (timeslice): "), "{out}");
}

#[test]
fn validate_mig_profiles() {
    let dir = tempfile::tempdir().unwrap();
    gpu_share_in(dir.path())
        .args(["validate-mig", "--gpu-model", "a100", "3g.20gb,2g.10gb,2g.10gb"])
        .assert()
        .success()
        .stdout(
            "valid: 3g.20gb, 2g.10gb, 2g.10gb on A100-SXM4-40GB\n  \
             3g.20gb    memory slices 4-7 (placement 4:4)\n  \
             2g.10gb    memory slices 0-1 (placement 0:2)\n  \
             2g.10gb    memory slices 2-3 (placement 2:2)\n  \
             create: nvidia-smi mig -i 0 -cgi 3g.20gb,2g.10gb,2g.10gb -C\n  \
             order: largest first; works if the driver picks the placements above (its rule is not documented)\n",
        );
    gpu_share_in(dir.path())
        .args(["validate-mig", "--gpu-model", "a100", "1g.5gb+me,1g.5gb+me"])
        .assert()
        .code(1)
        .stdout("invalid: 1g.5gb+me, 1g.5gb+me on A100-SXM4-40GB\n  why: max 1 instance of 1g.5gb+me per GPU on A100-SXM4-40GB, got 2\n");
    let v: Value = serde_json::from_slice(
        &gpu_share_in(dir.path())
            .args([
                "validate-mig",
                "--gpu-model",
                "a100",
                "3g.20gb,3g.20gb,1g.5gb",
                "--json",
            ])
            .assert()
            .code(1)
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(v["valid"], false);
    assert!(v["reason"]
        .as_str()
        .unwrap()
        .contains("9 memory slices exceed the 8"));
    gpu_share_in(dir.path())
        .args(["validate-mig", "--gpu-model", "a100", "3g.20gb,3g.40gb"])
        .assert()
        .code(1)
        .stderr(contains("field \"PROFILE #2\"").and(contains("no MIG profile \"3g.40gb\"")));
    gpu_share_in(dir.path())
        .args(["validate-mig", "--gpu-model", "nope", "1g.5gb"])
        .assert()
        .code(1)
        .stderr(contains("--gpu-model"));
    gpu_share_in(dir.path())
        .args(["validate-mig", "--gpu-model", "a100"])
        .assert()
        .code(2);
}

#[test]
fn validate_mig_files() {
    let dir = tempfile::tempdir().unwrap();
    let good = "version: v1\nmig-configs:\n  all-balanced:\n    - device-filter: [\"0x20B010DE\", \"0x20B110DE\"]\n      devices: all\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 2\n        \"2g.10gb\": 1\n        \"3g.20gb\": 1\n  bad:\n    - devices: [0]\n      mig-enabled: true\n      mig-devices:\n        \"3g.20gb\": 2\n        \"1g.5gb\": 1\n";
    std::fs::write(dir.path().join("c.yaml"), good).unwrap();
    let out = gpu_share_in(dir.path())
        .args([
            "validate-mig",
            "--gpu-model",
            "A100-SXM4-40GB",
            "--file",
            "c.yaml",
        ])
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("mig-configs.all-balanced[0]: valid: "),
        "{text}"
    );
    assert!(text.contains("mig-configs.bad[0]: invalid: "), "{text}");
    let v: Value = serde_json::from_slice(
        &gpu_share_in(dir.path())
            .args([
                "validate-mig",
                "--gpu-model",
                "a100",
                "--file",
                "c.yaml",
                "--json",
            ])
            .assert()
            .code(1)
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(v[0]["entry"], "mig-configs.all-balanced[0]");
    assert_eq!(v[0]["valid"], true);
    assert_eq!(v[1]["valid"], false);

    let schema = "version: v1\nmig-configs:\n  all-balanced:\n    - devices: all\n      mig-enabled: true\n      mig-devices: [\"1g.5gb\"]\n";
    std::fs::write(dir.path().join("s.yaml"), schema).unwrap();
    gpu_share_in(dir.path())
        .args(["validate-mig", "--gpu-model", "a100", "--file", "s.yaml"])
        .assert()
        .code(1)
        .stderr(contains(
            "field \"mig-configs.all-balanced[0].mig-devices\"",
        ));
    std::fs::write(
        dir.path().join("y.yaml"),
        "version: v1\nmig-configs: [unclosed\n",
    )
    .unwrap();
    gpu_share_in(dir.path())
        .args(["validate-mig", "--gpu-model", "a100", "--file", "y.yaml"])
        .assert()
        .code(1)
        .stderr(contains("not valid YAML").and(contains("--file")));
    gpu_share_in(dir.path())
        .args([
            "validate-mig",
            "--gpu-model",
            "a100",
            "--file",
            "missing.yaml",
        ])
        .assert()
        .code(2)
        .stderr(contains("cannot read missing.yaml"));
}

/// gpu-share#55 item 1: by default the Slurm types are the names slurmd 23.02.6 and later takes
/// from NVML's MIG device names (SchedMD/slurm CHANGELOG, "Changes in Slurm 23.02.6": "Fix some mig
/// profile names in slurm not matching nvidia mig profiles"): `nvidia_h200_1g.18gb`, not the
/// rounded `1g.16gb`; `--slurm-version 23.02.5` writes what older slurmd detected (the memory of
/// NVIDIA/mig-parted#120's H200 listing, rounded), and a bad version names the flag.
#[test]
fn slurm_types_follow_the_slurmd_version() {
    let dir = tempfile::tempdir().unwrap();
    let asks = [
        "--ask",
        "a:1g.18gb",
        "--ask",
        "c:3g.71gb",
        "--gpus",
        "1",
        "--mig-capable",
        "--gpu-model",
        "h200",
    ];
    let now = stdout(
        gpu_share_in(dir.path())
            .args(["export", "slurm"])
            .args(asks),
    );
    assert!(
        now.contains(
            "NodeName=<mig-nodes> Gres=gpu:nvidia_h200_3g.71gb:1,gpu:nvidia_h200_1g.18gb:1\n"
        ),
        "{now}"
    );
    assert!(
        now.contains("# \"a\": --gres=gpu:nvidia_h200_1g.18gb:1\n"),
        "{now}"
    );
    assert!(now.contains("Types for slurmd 23.02.6 or later"), "{now}");
    let old = stdout(
        gpu_share_in(dir.path())
            .args(["export", "slurm", "--slurm-version", "23.02.5"])
            .args(asks),
    );
    assert!(
        old.contains("Gres=gpu:nvidia_h200_3g.70gb:1,gpu:nvidia_h200_1g.16gb:1\n"),
        "{old}"
    );
    assert!(old.contains("Types for slurmd 23.02.5"), "{old}");
    // The A100 80GB PCIe and H100 cases of the issue.
    for (model, ask, ty) in [
        (
            "a100-pcie-80gb",
            "x:3g.40gb",
            "nvidia_a100_80gb_pcie_3g.40gb",
        ),
        ("h100", "x:7g.80gb", "nvidia_h100_80gb_hbm3_7g.80gb"),
    ] {
        let text = stdout(gpu_share_in(dir.path()).args([
            "export",
            "slurm",
            "--ask",
            ask,
            "--gpus",
            "1",
            "--mig-capable",
            "--gpu-model",
            model,
        ]));
        assert!(text.contains(&format!("Gres=gpu:{ty}:1\n")), "{text}");
    }
    gpu_share_in(dir.path())
        .args(["export", "slurm", "--slurm-version", "23.x"])
        .args(asks)
        .assert()
        .code(1)
        .stderr(contains("field \"--slurm-version\""));
}

/// gpu-share#55 item 7: the device plugin gives every MPS client 100/replicas of the threads with
/// at least 2 replicas (NVIDIA/k8s-device-plugin `cmd/mps-control-daemon/mps/daemon.go`), so an ask
/// of 0.6 is refused by `export device-plugin` — and `pack` says so when it plans it.
#[test]
fn pack_says_at_plan_time_what_the_device_plugin_export_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let asks = ["--ask", "a:0.6", "--ask", "b:0.3", "--mps"];
    let pack = stdout(gpu_share_in(dir.path()).arg("pack").args(asks));
    assert!(
        pack.contains("at most 50% of the threads, less than this ask, so the device-plugin, k8s and kserve exports refuse it")
            && pack.contains("— applies to a\n"),
        "{pack}"
    );
    gpu_share_in(dir.path())
        .args(["export", "device-plugin"])
        .args(asks)
        .assert()
        .code(1)
        .stderr(contains("100/replicas"));
    // b alone is within the equal share: no such warning.
    let alone = stdout(gpu_share_in(dir.path()).args(["pack", "--ask", "b:0.3", "--mps"]));
    assert!(!alone.contains("device plugin"), "{alone}");
}
