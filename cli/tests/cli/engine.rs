//! `gpu-share size --engine vllm` end to end: forward (a utilisation), inverse (a concurrency), a
//! MIG instance as the device, and the exit code and message when the engine would not start.

use crate::common::{gpu_share, json, no_ledger, stdout};
use predicates::str::contains;

/// Llama-3.1-8B-Instruct's config.json, as published (core/src/size/published/).
fn llama() -> String {
    format!(
        "{}/../core/src/size/published/llama_3_1_8b.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn size(extra: &[&str]) -> Vec<String> {
    let mut argv: Vec<String> = ["size", "--config", &llama(), "--engine", "vllm"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    argv.extend(extra.iter().map(|s| s.to_string()));
    argv
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
