//! `gpu-share repartition` end to end, on real `nvidia-smi mig -lgi` output in tests/fixtures/nvidia-smi.

use crate::common::{gpu_share, json, no_ledger};
use predicates::str::contains;

const LGI_933: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/nvidia-smi/mig-lgi__dra-driver-nvidia-gpu-933.txt"
);
const LGI_DCGM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/nvidia-smi/mig-lgi__dcgm-138.txt"
);

fn repartition(extra: &[&str]) -> assert_cmd::Command {
    let mut cmd = gpu_share(no_ledger());
    cmd.args([
        "repartition",
        "--current",
        LGI_933,
        "--gpu-model",
        "a100-80gb",
    ])
    .args(extra);
    cmd
}

#[test]
fn one_move_makes_room_and_the_commands_destroy_it_by_id() {
    repartition(&["--ask", "big:3g.40gb"])
        .assert()
        .success()
        .stdout(contains("1 instance moved, 1 GPU touched (A100-SXM4-80GB)"))
        .stdout(contains("nvidia-smi mig -dci -i 3 -gi 12"))
        .stdout(contains("nvidia-smi mig -dgi -i 3 -gi 12"))
        .stdout(contains("3g.40gb@4 new for big"));
    let v = json(&mut repartition(&["--ask", "big:3g.40gb", "--json"]));
    assert_eq!(v["moved"], 1);
    assert_eq!(v["steps"][0]["op"], "destroy");
    assert_eq!(v["steps"][0]["gpu_instance_id"], 12);
    assert_eq!(v["steps"][1]["op"], "create");
    assert!(v["mig_parted"].as_str().unwrap().contains("mig-devices"));
    // Instance 12 may go: nothing in use moves.
    let v = json(&mut repartition(&[
        "--ask",
        "big:3g.40gb",
        "--free",
        "3:12",
        "--json",
    ]));
    assert_eq!(v["moved"], 0);
}

#[test]
fn asks_that_fit_nowhere_exit_3_and_nothing_is_destroyed() {
    let mut cmd = gpu_share(no_ledger());
    cmd.args([
        "repartition",
        "--current",
        LGI_DCGM,
        "--gpu-model",
        "h100",
        "--ask",
        "x:4g.40gb",
        "--json",
    ]);
    let out = cmd.assert().code(3).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["unplaced"], serde_json::json!(["x"]));
    assert_eq!(v["steps"], serde_json::json!([]));
}

#[test]
fn bad_free_values_name_the_flag() {
    repartition(&["--ask", "a:1g.10gb", "--free", "three"])
        .assert()
        .code(1)
        .stderr(contains("--free #1"));
    repartition(&["--ask", "a:1g.10gb", "--free", "3:99"])
        .assert()
        .code(1)
        .stderr(contains("no GPU instance 99"));
    gpu_share(no_ledger())
        .args(["repartition", "--current", LGI_933])
        .assert()
        .code(2);
}
