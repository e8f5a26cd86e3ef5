//! The ledger from the command line: record, release and accounting, recording the same hours
//! twice, each board's power, open uses (the ledger under stress is in `ledger_durability.rs`).

use crate::common::{gpu_share, json, stdout, NOW};
use predicates::str::contains;

#[test]
fn record_release_and_accounting() {
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("sub").join("ledger.jsonl");
    gpu_share(&l)
        .args([
            "plan",
            "JPCP",
            "--fraction",
            "0.25",
            "--timeslice",
            "--record",
        ])
        .assert()
        .success()
        .stdout(contains("open until `gpu-share release JPCP`"));
    gpu_share(&l)
        .args([
            "plan",
            "batch",
            "--fraction",
            "0.25",
            "--record",
            "--hours",
            "2",
        ])
        .assert()
        .success();
    // Two hours later the open allocation is released.
    gpu_share(&l)
        .env("GPU_SHARE_NOW", "1007200")
        .args(["release", "JPCP"])
        .assert()
        .success();
    gpu_share(&l)
        .args(["release", "JPCP"])
        .assert()
        .code(1)
        .stderr(contains("no open allocation"));
    let v = json(gpu_share(&l).env("GPU_SHARE_NOW", "1010000").args([
        "accounting",
        "--json",
        "--cost-per-gpu-hour",
        "3",
    ]));
    let totals = &v["summary"]["totals"];
    assert_eq!(totals["records"], 2);
    assert_eq!(totals["running"], 0);
    // JPCP: 0.25 × 2 h = 0.5 GPU-h; batch: fallback, 0.25 asked, 1.0 allocated for 2 h.
    assert_eq!(totals["requested_gpu_hours"], 1.0);
    assert_eq!(totals["allocated_gpu_hours"], 2.5);
    assert_eq!(totals["wasted_gpu_hours"], 1.5);
    assert_eq!(totals["cost"], 7.5);
    let csv = stdout(gpu_share(&l).args(["accounting", "--csv"]));
    assert!(
        csv.starts_with("group,key,records,running,requested_gpu_hours"),
        "{csv}"
    );
    assert!(
        csv.contains("\ntotal,total,2,0,1.0000,2.5000,1.5000,"),
        "{csv}"
    );
    let text = stdout(gpu_share(&l).args(["accounting"]));
    assert!(text.contains("JPCP") && text.contains("batch"), "{text}");
}

/// The same plan recorded twice for the same hours is one use in the ledger: the second `--record`
/// is refused in the core's words (exit 5) and writes nothing; `--record-again` records it anyway.
#[test]
fn recording_the_same_plan_twice_refuses_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("ledger.jsonl");
    let pack = ["pack", "--ask", "a:0.5", "--ask", "b:0.25", "--timeslice"];
    let record = ["--record", "--hours", "2"];
    gpu_share(&l).args(pack).args(record).assert().success();
    let once = std::fs::read_to_string(&l).unwrap();
    assert_eq!(once.lines().count(), 2, "{once}");
    // A minute later (other starts, the same hours) the same plan is a recording made twice.
    gpu_share(&l)
        .env("GPU_SHARE_NOW", (NOW + 60).to_string())
        .args(pack)
        .args(record)
        .assert()
        .code(5)
        .stderr(contains(
            "already recorded at 1970-01-12 13:46 UTC: a, b (2 of 2 uses) have a use in the \
             ledger for these hours; recording again counts them twice; give --record-again",
        ));
    assert_eq!(
        std::fs::read_to_string(&l).unwrap(),
        once,
        "nothing written"
    );
    // `plan --record` is held to the same rule.
    gpu_share(&l)
        .args(["plan", "a", "--fraction", "0.5", "--timeslice"])
        .args(record)
        .assert()
        .code(5);
    // Asked for on purpose, it is recorded again.
    gpu_share(&l)
        .args(pack)
        .args(["--record-again", "--hours", "2"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&l).unwrap().lines().count(), 4);
}

/// Energy is each board's own: half a GPU for two hours on an A100-PCIE-40GB is 0.25 kWh at its
/// 250 W (real nvidia-smi tables in the CEEMS exporter's docs, mahendrapaipuri/ceems: `31W / 250W`),
/// not the SXM4 board's 400 W; a record without a model counts none and `accounting` says so.
#[test]
fn accounting_uses_each_boards_power_and_names_what_it_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("l");
    for (name, model) in [
        ("pcie", "NVIDIA A100-PCIE-40GB"),
        ("sxm", "NVIDIA A100-SXM4-40GB"),
    ] {
        gpu_share(&l)
            .args([
                "plan",
                name,
                "--fraction",
                "0.5",
                "--timeslice",
                "--gpu-model",
                model,
            ])
            .args(["--record", "--hours", "2"])
            .assert()
            .success();
    }
    gpu_share(&l)
        .args([
            "plan",
            "bare",
            "--fraction",
            "0.5",
            "--timeslice",
            "--record",
            "--hours",
            "2",
        ])
        .assert()
        .success();
    let v = json(gpu_share(&l).args(["accounting", "--json"]));
    let rows = v["summary"]["by_workload"].as_array().unwrap();
    let kwh = |key: &str| {
        rows.iter().find(|r| r["key"] == key).unwrap()["energy_kwh"]
            .as_f64()
            .unwrap()
    };
    assert!((kwh("pcie") - 0.25).abs() < 1e-9, "{v}");
    assert!((kwh("sxm") - 0.4).abs() < 1e-9, "{v}");
    assert_eq!(kwh("bare"), 0.0);
    let note = "no GPU model recorded: energy and carbon of 1 record left out (give the board power in watts)";
    assert_eq!(v["summary"]["notes"], serde_json::json!([note]));
    let text = stdout(gpu_share(&l).args(["accounting"]));
    assert!(text.contains(&format!("⚠ {note}")), "{text}");
    // With --watts every record has a power, and nothing is left out.
    let v = json(gpu_share(&l).args(["accounting", "--json", "--watts", "300"]));
    assert_eq!(v["summary"]["notes"], serde_json::json!([]));
    assert!((v["summary"]["totals"]["energy_kwh"].as_f64().unwrap() - 0.9).abs() < 1e-9);
}

#[test]
fn open_allocations_count_up_to_now_and_show_as_running() {
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("l");
    gpu_share(&l)
        .args([
            "plan",
            "svc",
            "--fraction",
            "0.5",
            "--timeslice",
            "--record",
        ])
        .assert()
        .success();
    let v = json(
        gpu_share(&l)
            .env("GPU_SHARE_NOW", "1003600")
            .args(["accounting", "--json"]),
    );
    assert_eq!(v["summary"]["totals"]["running"], 1);
    assert_eq!(v["summary"]["totals"]["allocated_gpu_hours"], 0.5);
    assert_eq!(v["records"][0]["status"], "running");
}
