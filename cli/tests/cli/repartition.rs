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

/// gpu-share#55 item 5: four 1g.5gb at slices 0, 2, 4, 6 of an A100-40GB; `big:3g.20gb` fits alone
/// with 2 moves and `m:2g.10gb` with 1, but not both (3 + 2 + 4 compute slices of 7; placements
/// from the MIG User Guide's -lgipp, docs/hardware-facts.md §1.2). The text says why big is out.
#[test]
fn an_ask_left_out_for_another_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let lgi = dir.path().join("lgi.txt");
    let mut text = String::from(
        "+-------------------------------------------------------+\n\
         | GPU instances:                                        |\n\
         | GPU   Name             Profile  Instance   Placement  |\n\
         |                          ID       ID       Start:Size |\n\
         |=======================================================|\n",
    );
    for (id, start) in [(7, 0), (8, 2), (9, 4), (10, 6)] {
        text.push_str(&format!(
            "|   0  MIG 1g.5gb          19       {id:>2}          {start}:1     |\n\
             +-------------------------------------------------------+\n"
        ));
    }
    std::fs::write(&lgi, text).unwrap();
    let mut cmd = gpu_share(no_ledger());
    cmd.args(["repartition", "--current"]).arg(&lgi).args([
        "--gpu-model",
        "A100-SXM4-40GB",
        "--ask",
        "big:3g.20gb",
        "--ask",
        "m:2g.10gb",
    ]);
    cmd.assert().code(3).stdout(contains(
        "big: unplaced — fits alone with 2 moves, but not together with m, which needs 1 move",
    ));
    let mut cmd = gpu_share(no_ledger());
    cmd.args(["repartition", "--current"]).arg(&lgi).args([
        "--gpu-model",
        "A100-SXM4-40GB",
        "--ask",
        "big:3g.20gb",
        "--ask",
        "m:2g.10gb",
        "--json",
    ]);
    let out = cmd.assert().code(3).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["unplaced"], serde_json::json!(["big"]));
    assert_eq!(v["unplaced_reasons"][0]["name"], "big");
}
