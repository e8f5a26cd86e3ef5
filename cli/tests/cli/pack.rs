//! `pack` beyond first-fit-decreasing: `--optimize` with its proven bound, asks moved to a weaker
//! mechanism rather than left unplaced, and tenants of one GPU recorded together and billed at most
//! the GPU (issue #13).

use crate::common::{gpu_share, json, no_ledger, stdout};

#[test]
fn optimize_proves_a_bound_above_l2_and_reports_it() {
    // Five asks of 0.35: two fit a GPU, so three GPUs; L2 says two. FFD's three is optimal, and
    // only the optimizer can say so.
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("l");
    let asks: Vec<String> = (0..5).map(|i| format!("a{i}:0.35")).collect();
    let mut args = vec!["pack", "--timeslice", "--json"];
    for a in &asks {
        args.extend(["--ask", a.as_str()]);
    }
    let plain = json(gpu_share(&l).args(&args));
    assert_eq!(
        (plain["gpus_used"].as_u64(), plain["lower_bound"].as_u64()),
        (Some(3), Some(2))
    );
    let v = json(gpu_share(&l).args(&args).arg("--optimize"));
    assert_eq!(
        (v["gpus_used"].as_u64(), v["lower_bound"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(v["optimize"]["proven_optimal"], true);
    assert_eq!(v["optimize"]["lower_bound"], 3);
    assert_eq!(v["optimize"]["gap"], 0);
}

#[test]
fn optimize_finds_fewer_gpus_than_ffd_and_says_whether_it_is_proven() {
    // FFD: 0.5+0.4, 0.4+0.3+0.2, 0.2 → 3 GPUs; 0.5+0.3+0.2 and 0.4+0.4+0.2 fill exactly 2.
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("l");
    let asks = [
        "--ask", "a:0.5", "--ask", "b:0.4", "--ask", "c:0.4", "--ask", "d:0.3", "--ask", "e:0.2",
        "--ask", "f:0.2",
    ];
    let plain = json(
        gpu_share(&l)
            .args(["pack", "--timeslice", "--json"])
            .args(asks),
    );
    assert_eq!(plain["gpus_used"], 3);
    assert!(plain.get("optimize").is_none());
    let v = json(
        gpu_share(&l)
            .args(["pack", "--timeslice", "--json", "--optimize"])
            .args(asks),
    );
    assert_eq!(v["gpus_used"], 2);
    assert_eq!(v["optimize"]["proven_optimal"], true);
    assert_eq!(v["optimize"]["ffd_gpus"], 3);
    let text = stdout(
        gpu_share(&l)
            .args(["pack", "--timeslice", "--optimize", "--time-limit-ms", "50"])
            .args(asks),
    );
    assert!(
        text.contains("optimize: 2 GPUs (first-fit-decreasing: 3); proven optimal"),
        "{text}"
    );
    gpu_share(&l)
        .args([
            "pack",
            "--timeslice",
            "--time-limit-ms",
            "5",
            "--ask",
            "a:0.5",
        ])
        .assert()
        .code(2);
}

/// Issue #13, rule 2: four asks of 0.5 on two GPUs with MIG and MPS — MIG alone would give each a
/// 4g.20gb (one per GPU) and leave two unplaced; the pack moves them to MPS, places all four
/// (exit 0, not 3) and says which moved and why. `--optimize` keeps that.
#[test]
fn pack_moves_asks_to_a_weaker_mechanism_rather_than_leave_them_unplaced() {
    let dir = tempfile::tempdir().unwrap();
    for extra in [&[][..], &["--optimize"][..]] {
        let out = stdout(
            gpu_share(&dir.path().join("l"))
                .args(["pack", "--gpus", "2", "--mig-capable", "--mps"])
                .args([
                    "--ask", "a:0.5", "--ask", "b:0.5", "--ask", "c:0.5", "--ask", "d:0.5",
                ])
                .args(extra),
        );
        assert!(out.starts_with("4 asks on 2 GPUs"), "{out}");
        assert!(out.contains("0 unplaced"), "{out}");
        assert!(
            out.contains("moved to a weaker mechanism so that more asks fit on 2 GPUs"),
            "{out}"
        );
        assert!(out.contains("a (mig → mps)"), "{out}");
    }
}

/// Issue #13, rule 8: 3g.20gb + 2g.10gb + 2g.10gb fill one A100-40GB (NVIDIA MIG User Guide: 7
/// compute and 8 memory slices; no further instance fits). Each alone denies max(compute, memory):
/// 0.5 + 2/7 + 2/7 = 1.07 GPU — recorded by `pack --record` as tenants of one GPU they bill exactly
/// one GPU-hour per hour, split by what each denies the others.
#[test]
fn pack_record_bills_a_full_gpu_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("ledger");
    let packed = json(gpu_share(&l).args([
        "pack",
        "--ask",
        "x:3g.20gb",
        "--ask",
        "y:2g.10gb",
        "--ask",
        "z:2g.10gb",
        "--gpus",
        "1",
        "--mig-capable",
        "--record",
        "--hours",
        "1",
        "--json",
    ]));
    assert_eq!(packed["recorded"]["records"], 3);
    let text = std::fs::read_to_string(&l).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(
        text.lines().all(|line| line.contains("\"gpu\":{\"plan\":")),
        "{text}"
    );
    let a = json(gpu_share(&l).args(["accounting", "--json"]));
    let totals = &a["summary"]["totals"];
    assert!(
        (totals["allocated_gpu_hours"].as_f64().unwrap() - 1.0).abs() < 1e-9,
        "{totals}"
    );
    assert_eq!(a["summary"]["shared_gpus"].as_array().unwrap().len(), 1);
    // The same asks planned one by one share no known GPU: each bills its own share (1.07).
    let l2 = dir.path().join("ledger2");
    for (name, profile) in [("x", "3g.20gb"), ("y", "2g.10gb"), ("z", "2g.10gb")] {
        gpu_share(&l2)
            .args([
                "plan",
                name,
                "--mig",
                profile,
                "--mig-capable",
                "--record",
                "--hours",
                "1",
            ])
            .assert()
            .success();
    }
    let a = json(gpu_share(&l2).args(["accounting", "--json"]));
    let allocated = a["summary"]["totals"]["allocated_gpu_hours"]
        .as_f64()
        .unwrap();
    assert!((allocated - 1.0714).abs() < 1e-3, "{allocated}");
    let text = stdout(gpu_share(&l).args(["accounting"]));
    assert!(
        text.contains("1 shared GPU billed at most once over"),
        "{text}"
    );
}

#[test]
fn pack_on_nodes_keeps_one_sharing_configuration_per_node() {
    // An MPS client and two whole GPUs on two nodes of two GPUs: MPS on one node, the whole
    // GPUs on the other; a 3-GPU ask fits no node and is unplaced (exit 3), saying why.
    let mut cmd = gpu_share(no_ledger());
    cmd.args([
        "pack", "--ask", "s:0.3", "--ask", "w:2", "--ask", "big:3", "--mps", "--nodes", "2x2",
        "--json",
    ]);
    let out = cmd.assert().code(3).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["unplaced"], serde_json::json!(["big"]));
    let mut roles: Vec<&str> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["role"].as_str().unwrap())
        .collect();
    roles.sort_unstable();
    assert_eq!(roles, ["exclusive", "mps"]);
    assert!(v["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["node"].is_string()));
    gpu_share(no_ledger())
        .args(["pack", "--ask", "s:0.3", "--nodes", "2x2", "--gpus", "3"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--nodes"));
    gpu_share(no_ledger())
        .args([
            "export",
            "device-plugin",
            "--ask",
            "s:0.3",
            "--ask",
            "w:1",
            "--mps",
            "--nodes",
            "gpu-a:1,gpu-b:1",
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "kubectl label node gpu-a nvidia.com/device-plugin.config=gpu-share-mps --overwrite",
        ));
}
