//! `gpu-share size --engine vllm` end to end: forward (a utilisation), inverse (a concurrency), a
//! MIG instance as the device, and the exit code and message when the engine would not start; and
//! `pack --model … --engine vllm`: engines sharing a GPU or in MIG instances, in start order.

use crate::common::{gpu_share, json, no_ledger, stdout};
use predicates::str::contains;

/// A config.json as published (core/src/size/published/).
fn published(file: &str) -> String {
    format!(
        "{}/../core/src/size/published/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn llama() -> String {
    published("llama_3_1_8b.json")
}

/// `head`, then `extra`, as owned arguments.
fn argv(head: &[&str], extra: &[&str]) -> Vec<String> {
    head.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn size(extra: &[&str]) -> Vec<String> {
    argv(&["size", "--config", &llama(), "--engine", "vllm"], extra)
}

/// vLLM 0.19.0 logged 58.11 GiB of KV cache, 476,016 tokens for this model at 0.95, 8,192 tokens,
/// on an H100-80GB (llm-d-planner's accuracy study); the tolerance is issue #59's.
#[test]
fn forward_prints_the_engine_object() {
    let v = json(gpu_share(no_ledger()).args(size(&[
        "--gpu-model",
        "h100",
        "--context",
        "8192",
        "--gpu-memory-utilization",
        "0.95",
        "--engine-version",
        "0.19",
        "--json",
    ])));
    let e = &v["engine"];
    assert_eq!(e["name"], "vllm");
    assert_eq!(e["version"], "0.19.1");
    assert_eq!(e["gpu_memory_utilization"], 0.95);
    assert_eq!(e["tensor_parallel_size"], 1);
    assert_eq!(e["max_model_len"], 8192);
    let kv = e["per_gpu"]["kv_cache_bytes"].as_f64().unwrap() / f64::from(1u32 << 30);
    assert!((kv - 58.11).abs() <= 0.25, "{e}");
    for term in [
        "total_bytes",
        "requested_bytes",
        "weights_bytes",
        "activation_bytes",
    ] {
        assert!(e["per_gpu"][term].as_u64().unwrap() > 0, "{term}: {e}");
    }
    assert_eq!(e["starts"], true);
    assert_eq!(e["max_concurrency"], 58);
    let args: Vec<&str> = e["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        args,
        [
            "--gpu-memory-utilization",
            "0.95",
            "--max-model-len",
            "8192"
        ]
    );
    assert!(
        v["weights_bytes"].as_u64().is_some(),
        "size's own answer is still there"
    );
}

/// With --concurrency and no utilisation: the smallest utilisation (hundredths) that serves it.
#[test]
fn inverse_finds_the_smallest_utilisation() {
    let at = |extra: &[&str]| {
        let mut a = vec!["--gpu-model", "h100", "--context", "8192", "--json"];
        a.extend_from_slice(extra);
        json(gpu_share(no_ledger()).args(size(&a)))["engine"].clone()
    };
    let e = at(&["--concurrency", "20"]);
    assert_eq!(e["starts"], true);
    assert!(e["max_concurrency"].as_u64().unwrap() >= 20, "{e}");
    let u = e["gpu_memory_utilization"].as_f64().unwrap();
    let less = format!("{:.2}", u - 0.01);
    let below = at(&["--gpu-memory-utilization", &less]);
    assert!(below["max_concurrency"].as_u64().unwrap() < 20, "{below}");
}

/// Never a plan the engine would refuse: exit 6 and the reason on stderr.
#[test]
fn an_engine_that_would_not_start_exits_6() {
    gpu_share(no_ledger())
        .args(size(&[
            "--gpu-model",
            "h100",
            "--context",
            "131072",
            "--concurrency",
            "500",
        ]))
        .assert()
        .code(6)
        .stderr(contains(
            "vllm would not start as asked: No utilisation up to 1 serves 500 sequences",
        ));
    gpu_share(no_ledger())
        .args(size(&["--gpu-model", "h100", "--tp", "3", "--json"]))
        .assert()
        .code(6)
        .stdout(contains("\"starts\": false"))
        .stderr(contains("tensor parallel size of 3"));
}

#[test]
fn a_mig_instance_is_the_device() {
    let text = stdout(gpu_share(no_ledger()).args(size(&[
        "--gpu-model",
        "h100",
        "--fit",
        "3g.40gb",
        "--context",
        "8192",
    ])));
    assert!(
        text.contains("vllm 0.19.1 at --gpu-memory-utilization 0.9"),
        "{text}"
    );
    assert!(
        text.contains("flags: --gpu-memory-utilization 0.9 --max-model-len 8192"),
        "{text}"
    );
}

#[test]
fn bad_engine_input_names_its_flag() {
    gpu_share(no_ledger())
        .args(size(&["--gpu-model", "h100", "--engine-version", "0.6"]))
        .assert()
        .code(1)
        .stderr(contains("--engine-version"))
        .stderr(contains("known: vllm 0.19.0, 0.19.1"));
    gpu_share(no_ledger())
        .args(size(&["--fit", "40GiB"]))
        .assert()
        .code(1)
        .stderr(contains("give --gpu-model"));
    gpu_share(no_ledger())
        .args(size(&[
            "--gpu-model",
            "h100",
            "--gpu-memory-utilization",
            "1.5",
        ]))
        .assert()
        .code(2)
        .stderr(contains("at most 1"));
    gpu_share(no_ledger())
        .args(["size", "--config", &llama(), "--tp", "2"])
        .assert()
        .code(2)
        .stderr(contains("--engine"));
}

fn pack(extra: &[&str]) -> Vec<String> {
    let llama = format!("llama={}:context=8192:concurrency=8", llama());
    let qwen = format!(
        "qwen={}:context=8192:concurrency=8",
        published("qwen2_5_7b.json")
    );
    let head = [
        "pack", "--model", &llama, "--model", &qwen, "--engine", "vllm",
    ];
    argv(&head, extra)
}

/// Two engines time-sliced on one H100: each with its utilisation of the GPU and its flags, in
/// the order to start them; together within the GPU.
#[test]
fn pack_plans_engines_that_share_a_gpu() {
    let v =
        json(gpu_share(no_ledger()).args(pack(&["--gpu-model", "h100", "--timeslice", "--json"])));
    assert_eq!(v["gpus_used"], 1);
    let device = &v["engines"][0];
    assert_eq!(device["gpu"], 0);
    let engines = device["engines"].as_array().unwrap();
    let order: Vec<(&str, u64)> = engines
        .iter()
        .map(|e| {
            (
                e["ask"].as_str().unwrap(),
                e["start_order"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(order, [("llama", 1), ("qwen", 2)]);
    let held: u64 = engines
        .iter()
        .map(|e| e["footprint_bytes"].as_u64().unwrap())
        .sum();
    assert!(held <= device["total_bytes"].as_u64().unwrap());
    for e in engines {
        assert!(e["max_concurrency"].as_u64().unwrap() >= 8, "{e}");
        let u = e["gpu_memory_utilization"].as_f64().unwrap();
        assert_eq!(e["args"][1], format!("{u}"), "{e}");
    }
    let text = stdout(gpu_share(no_ledger()).args(pack(&["--gpu-model", "h100", "--timeslice"])));
    assert!(
        text.contains("engines on GPU 0 (85,017,493,504 bytes (79.18 GiB)):"),
        "{text}"
    );
    assert!(
        text.contains("  1. llama  --gpu-memory-utilization"),
        "{text}"
    );
}

/// On MIG each engine is planned on its instance.
#[test]
fn pack_plans_each_engine_in_its_mig_instance() {
    let v = json(gpu_share(no_ledger()).args(pack(&[
        "--gpu-model",
        "h100",
        "--mig-capable",
        "--json",
    ])));
    let devices = v["engines"].as_array().unwrap();
    assert_eq!(devices.len(), 2);
    for d in devices {
        assert!(d["instance"].as_str().unwrap().contains(" at "), "{d}");
        assert_eq!(d["engines"].as_array().unwrap().len(), 1);
    }
}

#[test]
fn pack_engine_errors_name_their_flag() {
    gpu_share(no_ledger())
        .args(pack(&["--timeslice"]))
        .assert()
        .code(1)
        .stderr(contains("give --gpu-model"));
    gpu_share(no_ledger())
        .args(pack(&["--gpu-model", "h100", "--timeslice", "--tp", "2"]))
        .assert()
        .code(1)
        .stderr(contains("--tp"));
    gpu_share(no_ledger())
        .args(["pack", "--ask", "a:0.5", "--engine", "vllm", "--timeslice"])
        .assert()
        .code(2)
        .stderr(contains("--model"));
    gpu_share(no_ledger())
        .args(["pack", "--model", "llama", "--timeslice"])
        .assert()
        .code(2)
        .stderr(contains("NAME=CONFIG"));
}

/// Engines that do not fit together: the packer leaves one unplaced (exit 3) with its reason.
#[test]
fn pack_reports_engines_that_do_not_fit_together() {
    let llama = format!("llama={}:context=8192:concurrency=40", llama());
    let qwen = format!(
        "qwen={}:context=32768:concurrency=20",
        published("qwen2_5_7b.json")
    );
    gpu_share(no_ledger())
        .args([
            "pack", "--model", &llama, "--model", &qwen, "--engine", "vllm",
        ])
        .args(["--gpu-model", "h100", "--timeslice", "--gpus", "1"])
        .assert()
        .code(3)
        .stdout(contains("qwen (timeslice): memory:"));
}

/// `export launch` writes a script bash runs: with stand-ins for vllm and curl, the engines start
/// in the plan's order, each with its flags, the next once the one before answers.
#[test]
fn the_launch_script_runs_the_engines_in_order() {
    // `pack`'s arguments after `export launch`.
    let pack_argv = pack(&["--gpu-model", "h100", "--timeslice"]);
    let script = stdout(
        gpu_share(no_ledger())
            .args(["export", "launch"])
            .args(&pack_argv[1..]),
    );
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = dir.path().join("started");
    let stub = |name: &str, body: &str| {
        let path = bin.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    // vllm: logs its start, then runs a while; curl: ready once the engine on its port started;
    // sleep: short, so the script's polling is quick.
    let log_path = log.display();
    stub(
        "vllm",
        &format!("echo \"$CUDA_VISIBLE_DEVICES $*\" >> {log_path}\nexec /bin/sleep 1"),
    );
    stub(
        "curl",
        &format!("p=${{2#http://127.0.0.1:}}\ngrep -q -- \"--port ${{p%%/*}} \" {log_path}"),
    );
    stub("sleep", "exec /bin/sleep 0.1");
    let run = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("MODEL_LLAMA", "meta-llama/Llama-3.1-8B-Instruct")
        .env("MODEL_QWEN", "Qwen/Qwen2.5-7B-Instruct")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let started = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = started.lines().collect();
    assert_eq!(lines.len(), 2, "{started}");
    assert!(
        lines[0].starts_with(
            "0 serve meta-llama/Llama-3.1-8B-Instruct --port 8000 --gpu-memory-utilization 0."
        ),
        "{started}"
    );
    assert!(
        lines[1].starts_with(
            "0 serve Qwen/Qwen2.5-7B-Instruct --port 8001 --gpu-memory-utilization 0."
        ),
        "{started}"
    );
    // Without the model's path the script stops before starting anything.
    let unset = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap();
    assert!(!unset.status.success());
    assert!(String::from_utf8_lossy(&unset.stderr).contains("set MODEL_LLAMA"));
}

/// A CSV ask list's `model` column names config files beside the list: the same plan as the
/// `--model` flags; a model row that cannot be read names its line.
#[test]
fn an_ask_list_names_models_by_their_config_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(llama(), dir.path().join("llama.json")).unwrap();
    let list = dir.path().join("asks.csv");
    std::fs::write(
        &list,
        format!(
            "name,size,model,context,concurrency\nnotebook,0.1\nllama,,llama.json,8192,8\nqwen,,{},8192,8\n",
            published("qwen2_5_7b.json")
        ),
    )
    .unwrap();
    let caps = ["--gpu-model", "h100", "--timeslice", "--json"];
    let listed = json(
        gpu_share(no_ledger())
            .args(["pack", "--engine", "vllm", "--asks-file"])
            .arg(&list)
            .args(caps),
    );
    let flagged = json(
        gpu_share(no_ledger())
            .args(pack(&["--ask", "notebook:0.1"]))
            .args(caps),
    );
    assert_eq!(listed["engines"], flagged["engines"]);
    assert_eq!(listed["gpus_used"], flagged["gpus_used"]);
    std::fs::write(&list, "name,model\nchat,missing.json\n").unwrap();
    gpu_share(no_ledger())
        .args(["pack", "--engine", "vllm", "--asks-file"])
        .arg(&list)
        .args(caps)
        .assert()
        .failure()
        .stderr(contains("the model of line 2 of"));
}
