//! `gpu-share replay` end to end, on the synthetic trace in tests/fixtures/replay.

use crate::common::{gpu_share, json, no_ledger, stdout};
use predicates::str::contains;

fn fixture(name: &str) -> String {
    format!(
        "{}/../tests/fixtures/replay/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn replay() -> assert_cmd::Command {
    let mut cmd = gpu_share(no_ledger());
    cmd.args([
        "replay",
        "--nodes",
        &fixture("nodes.csv"),
        "--pods",
        &fixture("pods.csv"),
    ]);
    cmd
}

#[test]
fn replay_prints_each_policy_and_the_bound() {
    let text = stdout(replay().args(["--seed", "1"]));
    assert!(
        text.starts_with("73 GPUs on 16 nodes, 80 pods, filled to 130% of capacity; seed 1\n"),
        "{text}"
    );
    for policy in [
        "random",
        "dot-product",
        "gpu-clustering",
        "gpu-packing",
        "best-fit",
        "fgd",
        "gpu-share",
    ] {
        assert!(
            text.contains(&format!("\n  {policy} ")),
            "{policy} in {text}"
        );
    }
    assert!(text.contains("at best: between "), "{text}");
}

#[test]
fn replay_json_has_every_runs_curve_and_the_same_seed_the_same_run() {
    let args = [
        "--policy",
        "fgd,gpu-share",
        "--seed",
        "5,6",
        "--tune",
        "120%",
        "--json",
    ];
    let v = json(replay().args(args));
    assert_eq!(v, json(replay().args(args)));
    assert_eq!(v["total_gpus"], 73);
    assert_eq!(v["tune"], 1.2);
    let fgd = &v["policies"][0];
    assert_eq!(fgd["policy"], "fgd");
    assert_eq!(fgd["runs"].as_array().unwrap().len(), 2);
    let run = &fgd["runs"][1];
    assert_eq!(run["seed"], 6);
    assert_eq!(run["allocation"].as_array().unwrap().len(), 121);
    assert_eq!(fgd["mean_allocation"].as_array().unwrap().len(), 121);
    let failed = &run["failed"];
    let total = ["no_gpu", "share", "whole"]
        .iter()
        .map(|k| failed[*k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(
        run["placed_pods"].as_u64().unwrap() + total,
        run["arrived_pods"].as_u64().unwrap()
    );
    assert!(v["bound"]["offline"].as_f64().unwrap() <= v["bound"]["upper"].as_f64().unwrap());
}

#[test]
fn replay_svg_writes_the_chart() {
    let svg = stdout(replay().args(["--policy", "best-fit,fgd", "--svg", "-"]));
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("data-policy=\"fgd\"") && svg.contains("data-policy=\"best-fit\""));
    replay()
        .args(["--svg", "-", "--json"])
        .assert()
        .code(2)
        .stderr(contains("give --svg a file name"));
}

#[test]
fn bad_lists_and_flags_are_input_errors_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let pods = dir.path().join("pods.csv");
    std::fs::write(
        &pods,
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1024,0,300\n",
    )
    .unwrap();
    gpu_share(no_ledger())
        .args([
            "replay",
            "--nodes",
            &fixture("nodes.csv"),
            "--pods",
            pods.to_str().unwrap(),
        ])
        .assert()
        .code(1)
        .stderr(contains(
            "line 2, field \"pods.gpu_milli\": gpu_milli 300 with num_gpu 0",
        ))
        .stderr(contains(pods.to_str().unwrap()));
    replay()
        .args(["--policy", "tetris"])
        .assert()
        .code(1)
        .stderr(contains("field \"--policy\": no policy \"tetris\""));
    replay()
        .args(["--policy", "fgd,FGD"])
        .assert()
        .code(1)
        .stderr(contains("field \"--policy #2\": fgd is given twice"));
    replay()
        .args(["--tune", "0"])
        .assert()
        .code(1)
        .stderr(contains("field \"--tune\""));
    replay().args(["--seed", "x"]).assert().code(2);
    gpu_share(no_ledger())
        .args(["replay", "--pods", &fixture("pods.csv")])
        .assert()
        .code(2);
}
