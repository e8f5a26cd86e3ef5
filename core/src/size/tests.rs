//! The arithmetic against published parameter counts and KV-cache sizes, and the overhead rules
//! against their sources; errors and hostile input in `errors`.

use super::published::*;
use super::*;
use crate::error::ErrorKind;
use proptest::prelude::*;

mod errors;

fn config(text: &str) -> ModelConfig {
    read_config(text).unwrap()
}

fn count(text: &str) -> u128 {
    parameters::count(&config(text)).total()
}

fn sized(text: &str, options: SizeOptions) -> Sizing {
    size(&config(text), &options).unwrap()
}

/// A config with `key` set to `value` (JSON), or removed when `value` is `None`.
fn edit(text: &str, key: &str, value: Option<&str>) -> String {
    let mut map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).unwrap();
    match value {
        Some(v) => map.insert(key.to_string(), serde_json::from_str(v).unwrap()),
        None => map.remove(key),
    };
    serde_json::to_string(&map).unwrap()
}

#[test]
fn counts_match_the_published_exact_totals() {
    // Each total as its source gives it: the safetensors total of the Hugging Face repository,
    // or the publisher's table (see each fixture's doc in published.rs).
    for (name, text, published) in [
        ("Llama-2-7b-hf", LLAMA_2_7B, 6_738_415_616u128),
        ("Meta-Llama-3-8B", LLAMA_3_8B, 8_030_261_248),
        ("Llama-3.2-1B", LLAMA_3_2_1B, 1_235_814_400),
        ("Llama-3.x-70B", LLAMA_3_70B, 70_553_706_496),
        ("Mistral-7B-v0.1", MISTRAL_7B, 7_241_732_096),
        ("Mixtral-8x7B-v0.1", MIXTRAL_8X7B, 46_702_792_704),
        ("Qwen2-7B", QWEN2_7B, 7_615_616_512),
        ("Qwen3-8B", QWEN3_8B, 8_190_735_360),
        ("gemma-2b", GEMMA_2B, 2_506_172_416),
        ("gemma-7b", GEMMA_7B, 8_537_680_896),
        ("gemma-2-9b", GEMMA2_9B, 917_504_000 + 8_324_201_984),
        ("Phi-3-mini-4k-instruct", PHI3_MINI_4K, 3_821_079_552),
        ("pythia-160m", PYTHIA_160M, 162_322_944),
        ("pythia-6.9b", PYTHIA_6_9B, 6_857_302_016),
    ] {
        assert_eq!(count(text), published, "{name}");
    }
}

#[test]
fn counts_without_embeddings_match_the_publishers_tables() {
    let without = |text: &str| {
        let p = parameters::count(&config(text));
        p.total() - p.of(PartClass::Embedding)
    };
    // The Gemma report, Table 2, and the Gemma 2 report (arXiv:2408.00118), Table 2.
    assert_eq!(without(GEMMA_2B), 1_981_884_416);
    assert_eq!(without(GEMMA_7B), 7_751_248_896);
    assert_eq!(without(GEMMA2_9B), 8_324_201_984);
    // The Pythia paper (arXiv:2304.01373), Table 1, and EleutherAI/pythia's README.
    assert_eq!(without(PYTHIA_160M), 85_056_000);
    assert_eq!(without(PYTHIA_6_9B), 6_444_163_072);
}

#[test]
fn a_qwen2_moe_layer_matches_a_published_torchinfo_count() {
    // A public walk-through of Qwen1.5-MoE prints torchinfo for the architecture shrunk to a
    // vocabulary of 1519, 4 experts and 3 layers: 3,110,912 per embedding, 86,003,712 per layer,
    // 2,048 for the final norm, "Total params: 264,235,008".
    let small = edit(
        &edit(
            &edit(QWEN1_5_MOE_GPTQ, "vocab_size", Some("1519")),
            "num_experts",
            Some("4"),
        ),
        "num_hidden_layers",
        Some("3"),
    );
    let small = edit(&small, "quantization_config", None);
    assert_eq!(count(&small), 264_235_008);
}

/// `n` rounded to `digits` significant decimal places of a billion: `rounded(15.7e9, 1) == 157`.
fn billions(n: u128, decimals: u32) -> u128 {
    let unit = 1_000_000_000 / 10u128.pow(decimals);
    (n + unit / 2) / unit
}

#[test]
fn mixtures_of_experts_count_every_expert_as_published() {
    // Qwen1.5-MoE-A2.7B's model card: "14.3B parameters in total".
    let qwen_moe = count(QWEN1_5_MOE_GPTQ);
    assert_eq!(billions(qwen_moe, 1), 143);
    assert_eq!(qwen_moe, 14_315_784_192);
    // Qwen3-30B-A3B's model card: 30.5B in total, 29.9B without embeddings.
    let p = parameters::count(&config(QWEN3_30B_A3B));
    assert_eq!(billions(p.total(), 1), 305);
    assert_eq!(billions(p.total() - p.of(PartClass::Embedding), 1), 299);
    // DeepSeek-V2-Lite: 15.7B; DeepSeek-V2: 236B (the DeepSeek-V2 paper).
    let lite = count(DEEPSEEK_V2_LITE);
    assert_eq!(billions(lite, 1), 157);
    assert_eq!(lite, 15_706_484_224);
    assert_eq!(billions(count(DEEPSEEK_V2), 0), 236);
    // DeepSeek-V3 (R1's config): 671B in the main model, the MTP layer not counted.
    let v3 = count(DEEPSEEK_V3);
    assert_eq!(billions(v3, 0), 671);
    assert_eq!(v3, 671_026_419_200);
    assert_eq!(config(DEEPSEEK_V3).mtp_layers, 1);
}

#[test]
fn every_expert_is_counted_not_just_the_active_ones() {
    let p = parameters::count(&config(MIXTRAL_8X7B));
    let experts = p.parts.iter().find(|x| x.name == "experts").unwrap();
    assert_eq!(experts.parameters, 32 * 8 * 3 * 4096 * 14336);
    assert!(
        experts.detail.contains("2 per token, but all in memory"),
        "{}",
        experts.detail
    );
    let routers = p.parts.iter().find(|x| x.name == "routers").unwrap();
    assert_eq!(routers.parameters, 32 * 4096 * 8);
}

#[test]
fn tied_embeddings_are_counted_once() {
    let untied = edit(LLAMA_3_2_1B, "tie_word_embeddings", Some("false"));
    assert_eq!(count(&untied) - count(LLAMA_3_2_1B), 128_256 * 2048);
    // Gemma ties by default; saying so changes nothing.
    assert_eq!(
        count(&edit(GEMMA_2B, "tie_word_embeddings", Some("true"))),
        count(GEMMA_2B)
    );
}

#[test]
fn kv_caches_match_the_published_rules() {
    // Llama 2 7B in fp16: 2 × 32 layers × 32 heads × 128 × 2 bytes = 512 KiB per token.
    let llama2 = sized(LLAMA_2_7B, SizeOptions::default());
    assert_eq!(llama2.context, 4096);
    assert_eq!(llama2.kv_cache_bytes, 512 * 1024 * 4096);
    // Llama 3 8B: 8 KV heads, 128 KiB per token in bf16.
    let llama3 = sized(
        LLAMA_3_8B,
        SizeOptions {
            context: Some(1000),
            concurrency: Some(3),
            ..Default::default()
        },
    );
    assert_eq!(llama3.kv_cache_bytes, 131_072 * 1000 * 3);
    assert!(
        llama3
            .kv_cache_why
            .starts_with("2 (keys and values) × 32 layers × 8 KV heads × 128 dims × 2 bytes (bf16"),
        "{}",
        llama3.kv_cache_why
    );
    // DeepSeek-V2's MLA: (d_c + d_h^R) × l = (512 + 64) × 60 numbers per token, what GQA with
    // 2.25 groups of 128 would keep (the DeepSeek-V2 paper, §2.1.4).
    let v2 = config(DEEPSEEK_V2);
    assert_eq!(kv::numbers_per_token(&v2), 34_560);
    assert_eq!(kv::numbers_per_token(&v2) * 4, 2 * 9 * 128 * 60);
    // DeepSeek-V3: 61 × 576 × 2 bytes = 70,272 bytes per token in bf16.
    let v3 = sized(
        DEEPSEEK_V3,
        SizeOptions {
            context: Some(1),
            ..Default::default()
        },
    );
    assert_eq!(v3.kv_cache_bytes, 70_272);
    assert!(
        v3.kv_cache_why.contains("(512 latent + 64 RoPE key)"),
        "{}",
        v3.kv_cache_why
    );
}

#[test]
fn weights_take_the_configs_dtype_and_stay_exact_in_half_bytes() {
    let llama = sized(LLAMA_3_8B, SizeOptions::default());
    assert_eq!(llama.precision.weights, Dtype::Bf16);
    assert_eq!(llama.weights_bytes, 2 * 8_030_261_248);
    assert!(
        llama.weights_why.contains("the config's torch_dtype"),
        "{}",
        llama.weights_why
    );
    let fp32 = sized(
        LLAMA_3_8B,
        SizeOptions {
            dtype: Some(Dtype::Fp32),
            ..Default::default()
        },
    );
    assert_eq!(fp32.weights_bytes, 4 * 8_030_261_248);
    assert_eq!(
        fp32.precision.kv,
        Dtype::Fp32,
        "the KV cache follows float weights"
    );
    // Quantized: the matrices in int4, embeddings, norms and biases in the dtype computed in.
    let int4 = sized(
        LLAMA_3_8B,
        SizeOptions {
            dtype: Some(Dtype::Int4),
            ..Default::default()
        },
    );
    let p = &int4.parameters;
    let matrices = p.of(PartClass::Matrix);
    assert_eq!(matrices, 6_979_321_856);
    assert_eq!(
        u128::from(int4.weights_bytes),
        matrices / 2 + 2 * (p.total() - matrices)
    );
    assert_eq!(
        int4.precision.kv,
        Dtype::Bf16,
        "int4 weights leave the KV cache in bf16"
    );
    assert!(
        int4.weights_why.contains("unquantized"),
        "{}",
        int4.weights_why
    );
    let fp8 = sized(
        LLAMA_3_8B,
        SizeOptions {
            dtype: Some(Dtype::Fp8),
            kv_dtype: Some(Dtype::Fp8),
            ..Default::default()
        },
    );
    assert_eq!(fp8.kv_cache_bytes * 2, llama.kv_cache_bytes);
    let odd = sized(
        LLAMA_3_8B,
        SizeOptions {
            kv_dtype: Some(Dtype::Int4),
            context: Some(1),
            ..Default::default()
        },
    );
    assert_eq!(odd.kv_cache_bytes, 32_768);
}

#[test]
fn quantized_configs_are_read_as_their_quantizer_stores_them() {
    // GPTQ int4 in groups of 128, computing in float16.
    let qwen = sized(
        QWEN1_5_MOE_GPTQ,
        SizeOptions {
            context: Some(1),
            ..Default::default()
        },
    );
    assert_eq!(qwen.precision.weights, Dtype::Int4);
    assert_eq!(qwen.precision.compute, Dtype::Fp16);
    assert_eq!(qwen.precision.kv, Dtype::Fp16);
    let matrices = qwen.parameters.of(PartClass::Matrix);
    let scales = qwen
        .overheads
        .iter()
        .find(|o| o.name == "quantization scales")
        .unwrap();
    assert_eq!(u128::from(scales.bytes), (matrices / 128 * 20).div_ceil(8));
    // DeepSeek's fp8 checkpoints: fp8 matrices, one float32 scale per 128×128 block, bf16 cache.
    let v3 = sized(
        DEEPSEEK_V3,
        SizeOptions {
            context: Some(1),
            ..Default::default()
        },
    );
    assert_eq!(v3.precision.weights, Dtype::Fp8);
    assert_eq!(v3.precision.kv, Dtype::Bf16);
    let p = &v3.parameters;
    let matrices = p.of(PartClass::Matrix);
    assert_eq!(
        u128::from(v3.weights_bytes),
        matrices + 2 * (p.total() - matrices)
    );
    let scales = v3
        .overheads
        .iter()
        .find(|o| o.name == "quantization scales")
        .unwrap();
    assert_eq!(u128::from(scales.bytes), matrices.div_ceil(16_384) * 4);
    // A method whose storage is not read is refused without a dtype, used with one.
    let other = edit(
        LLAMA_3_8B,
        "quantization_config",
        Some(r#"{"quant_method": "compressed-tensors"}"#),
    );
    let e = size(&config(&other), &SizeOptions::default()).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("dtype"));
    assert!(e.message.contains("compressed-tensors"), "{e}");
    let given = sized(
        &other,
        SizeOptions {
            dtype: Some(Dtype::Bf16),
            ..Default::default()
        },
    );
    assert!(given
        .notes
        .iter()
        .any(|n| n.contains("quantization_config (compressed-tensors) is not used")));
}

#[test]
fn the_overheads_follow_their_sources() {
    // Hugging Face's model memory estimator: "add up to an additional 20%" of the weights.
    let s = sized(LLAMA_2_7B, SizeOptions::default());
    let activations = &s.overheads[0];
    assert_eq!(activations.name, "activations");
    assert_eq!(activations.bytes, (s.weights_bytes * 20).div_ceil(100));
    assert!(
        activations.why.contains("additional 20%"),
        "{}",
        activations.why
    );
    assert_eq!(s.overheads.len(), 1, "no other overhead for float weights");
    assert_eq!(
        s.total_bytes,
        s.weights_bytes + s.kv_cache_bytes + activations.bytes
    );
    // The CUDA context is the planner's to add, per process: said, not counted.
    assert!(s
        .notes
        .iter()
        .any(|n| n.contains("CUDA context") && n.contains("planner adds")));
}

#[test]
fn defaults_are_said() {
    let s = sized(MISTRAL_7B, SizeOptions::default());
    assert_eq!((s.context, s.concurrency), (32_768, 1));
    assert!(s
        .notes
        .iter()
        .any(|n| n.starts_with("context: 32,768 tokens, the model's max_position_embeddings")));
    assert!(s
        .notes
        .iter()
        .any(|n| n.contains("attention window: 4,096 tokens")));
    let gemma2 = sized(GEMMA2_9B, SizeOptions::default());
    assert!(gemma2
        .notes
        .iter()
        .any(|n| n.contains("torch_dtype is float32")));
    assert_eq!(gemma2.weights_bytes, 4 * 9_241_705_984);
    let v3 = sized(
        DEEPSEEK_V3,
        SizeOptions {
            context: Some(4096),
            ..Default::default()
        },
    );
    assert!(v3
        .notes
        .iter()
        .any(|n| n.contains("multi-token-prediction")));
    assert!(v3.notes.iter().any(|n| n.starts_with("MLA:")));
    assert!(
        v3.notes[1].starts_with("parameters: 671,026,419,200 — embeddings"),
        "{}",
        v3.notes[1]
    );
}
