//! `gpu-share size` end to end, on the published config.json files in tests/fixtures/hf-config.

use crate::common::{gpu_share, json, no_ledger, stdout};
use predicates::str::contains;

fn fixture(name: &str) -> String {
    format!(
        "{}/../tests/fixtures/hf-config/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn size_prints_the_parts_with_why_then_the_total() {
    let text =
        stdout(gpu_share(no_ledger()).args(["size", "--config", &fixture("Meta-Llama-3-8B.json")]));
    assert!(
        text.starts_with("LlamaForCausalLM: 8,030,261,248 parameters\n"),
        "{text}"
    );
    assert!(
        text.contains("weights      16,060,522,496 bytes (14.96 GiB)  8,030,261,248 parameters × 2 bytes (bf16, the config's torch_dtype)"),
        "{text}"
    );
    assert!(text.contains("× 8,192 tokens × 1 sequence"), "{text}");
    assert!(text.contains("activations  3,212,104,500 bytes"), "{text}");
    assert!(
        text.contains("total        20,346,368,820 bytes (18.95 GiB)  an ask of llama:19404MiB"),
        "{text}"
    );
    assert!(
        text.contains("not counted: the CUDA context each process holds"),
        "{text}"
    );
}

#[test]
fn size_json_is_the_cores_response() {
    let v = json(gpu_share(no_ledger()).args([
        "size",
        "--config",
        &fixture("Mixtral-8x7B-v0.1.json"),
        "--context",
        "4096",
        "--concurrency",
        "2",
        "--json",
    ]));
    assert_eq!(v["architecture"], "MixtralForCausalLM");
    assert_eq!(v["parameters"], 46_702_792_704u64);
    assert_eq!(v["dtype"], "bf16");
    assert_eq!(v["kv_cache_bytes"], 131_072u64 * 4096 * 2);
    assert_eq!(v["overheads"][0]["name"], "activations");
    assert!(v["ask_memory"].as_str().unwrap().ends_with("MiB"));
    assert_eq!(v["ask_name"], "mixtral", "no _name_or_path: the model_type");
    assert!(v.get("fit").is_none());
}

#[test]
fn size_fits_a_mig_instance_a_gpu_and_a_budget() {
    let config = fixture("Meta-Llama-3-8B.json");
    let mig = json(gpu_share(no_ledger()).args([
        "size",
        "--config",
        &config,
        "--fit",
        "3g.40gb",
        "--gpu-model",
        "a100-80gb",
        "--json",
    ]));
    assert_eq!(mig["fit"]["budget_bytes"], (40192u64 - 500) << 20);
    assert_eq!(mig["fit"]["fits"], true);
    assert_eq!(mig["fit"]["max_context"], 8192);
    let whole = json(gpu_share(no_ledger()).args([
        "size",
        "--config",
        &config,
        "--gpu-model",
        "L40S",
        "--json",
    ]));
    assert!(whole["fit"]["budget_why"]
        .as_str()
        .unwrap()
        .starts_with("a whole L40S"));
    // 18 GiB does not hold 8,192 tokens beside the weights: said, with the longest that fits.
    let text = stdout(gpu_share(no_ledger()).args(["size", "--config", &config, "--fit", "18GiB"]));
    assert!(text.contains("does not fit: the total is"), "{text}");
    assert!(text.contains("longest context with 1 sequence: "), "{text}");
    // Quantized weights from the config: int4 with its scales, the cache in float16.
    let gptq = json(gpu_share(no_ledger()).args([
        "size",
        "--config",
        &fixture("Qwen1.5-MoE-A2.7B-Chat-GPTQ-Int4.json"),
        "--context",
        "8192",
        "--json",
    ]));
    assert_eq!(
        (gptq["dtype"].as_str(), gptq["kv_dtype"].as_str()),
        (Some("int4"), Some("fp16"))
    );
    assert_eq!(gptq["overheads"][1]["name"], "quantization scales");
}

#[test]
fn size_errors_name_the_flag_or_the_field_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = dir.path().join("falcon.json");
    std::fs::write(
        &unknown,
        r#"{"architectures": ["FalconForCausalLM"], "hidden_size": 4544}"#,
    )
    .unwrap();
    gpu_share(no_ledger())
        .args(["size", "--config"])
        .arg(&unknown)
        .assert()
        .code(1)
        .stderr(contains("field \"config.architectures\": gpu-share does not know the architecture \"FalconForCausalLM\""))
        .stderr(contains("LlamaForCausalLM"))
        .stderr(contains("falcon.json"));
    let gqa = std::fs::read_to_string(fixture("Meta-Llama-3-8B.json")).unwrap();
    let missing = dir.path().join("missing.json");
    std::fs::write(&missing, gqa.replace("\"num_key_value_heads\": 8,", "")).unwrap();
    gpu_share(no_ledger())
        .args(["size", "--config"])
        .arg(&missing)
        .assert()
        .code(1)
        .stderr(contains("field \"config.num_key_value_heads\": missing"));
    let config = fixture("gemma-2b.json");
    gpu_share(no_ledger())
        .args(["size", "--config", &config, "--dtype", "fp4"])
        .assert()
        .code(1)
        .stderr(contains("field \"--dtype\": unknown dtype \"fp4\""));
    gpu_share(no_ledger())
        .args(["size", "--config", &config, "--concurrency", "0"])
        .assert()
        .code(1)
        .stderr(contains("field \"--concurrency\""));
    gpu_share(no_ledger())
        .args([
            "size",
            "--config",
            &config,
            "--fit",
            "9g.99gb",
            "--gpu-model",
            "a100",
        ])
        .assert()
        .code(1)
        .stderr(contains("field \"--fit\""));
    gpu_share(no_ledger())
        .args(["size", "--config", &config, "--fit", "1GiB"])
        .assert()
        .code(1)
        .stderr(contains(
            "field \"--fit\": the weights and overheads alone need",
        ));
    gpu_share(no_ledger())
        .args(["size", "--config", &config, "--fit", "3g.40gb"])
        .assert()
        .code(1)
        .stderr(contains("give --gpu-model"));
    gpu_share(no_ledger())
        .args([
            "size",
            "--config",
            &config,
            "--fit",
            "1GiB",
            "--gpu-model",
            "a100",
        ])
        .assert()
        .code(2);
}

#[test]
fn size_plan_turns_the_model_into_a_memory_ask_on_the_cluster() {
    let v = json(gpu_share(no_ledger()).args([
        "size",
        "--config",
        &fixture("Meta-Llama-3-8B.json"),
        "--context",
        "8192",
        "--concurrency",
        "4",
        "--plan",
        "llama",
        "--gpu-model",
        "h100",
        "--mig-capable",
        "--json",
    ]));
    assert_eq!(v["ask_memory"], "22476MiB");
    assert_eq!(v["plan"]["name"], "llama");
    assert_eq!(v["plan"]["memory_mib"], 22476);
    // 22476 MiB and a CUDA context do not fit 20096 MiB (2g.20gb), so a 40 GB-class instance.
    assert_eq!(v["plan"]["mig_profile"], "3g.40gb");
    let text = stdout(gpu_share(no_ledger()).args([
        "size",
        "--config",
        &fixture("Meta-Llama-3-8B.json"),
        "--plan",
        "llama",
        "--gpu-model",
        "L40S",
        "--mps",
    ]));
    assert!(
        text.contains("plan:\nllama: mps (isolation: partial)"),
        "{text}"
    );
}

#[test]
fn cluster_flags_without_plan_are_refused() {
    gpu_share(no_ledger())
        .args(["size", "--config", &fixture("gemma-2b.json"), "--mps"])
        .assert()
        .code(2)
        .stderr(contains("--plan NAME"));
}
