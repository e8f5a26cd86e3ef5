//! Test fixtures: the config.json of published models, as their Hugging Face repositories give
//! them (keys the sizing never reads, such as token ids, are left out of a few), each with the
//! parameter count its publisher or its safetensors give. Each config sits as a JSON file in
//! `published/`; `tests.rs` checks the arithmetic on them.
//!
//! The engine model (`engine/tests.rs`, and the bench's `--only engine`) also reads the configs
//! of the models in the vLLM 0.19 start-ups, each written from its Hugging Face repository's
//! config.json (keys the sizing never reads left out of some): `codellama_7b.json`
//! (codellama/CodeLlama-7b-hf), `llama_3_1_8b.json` (meta-llama/Llama-3.1-8B-Instruct),
//! `llama_3_1_8b_w4a16.json` (RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16: its GPTQ
//! `quantization_config`, group 128 with `desc_act`), `qwen2_5_7b.json`
//! (Qwen/Qwen2.5-7B-Instruct), `qwen2_5_7b_fp8_dynamic.json` and `qwen2_5_7b_w8a8.json`
//! (RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic and -quantized.w8a8: compressed-tensors, 8-bit
//! weights per channel, `lm_head` ignored), `granite_3_1_8b.json`
//! (ibm-granite/granite-3.1-8b-instruct), `granite_vision_3_3_2b.json`
//! (ibm-granite/granite-vision-3.3-2b, LLaVA-NeXT with a SigLIP tower), `gemma3_4b.json`,
//! `gemma3_12b.json`, `gemma3_27b.json` (google/gemma-3-*-it: a `text_config` of few keys, the
//! rest `Gemma3TextConfig`'s defaults), `mistral_small_3_1.json` and
//! `mistral_small_3_1_w8a8.json` (mistralai/Mistral-Small-3.1-24B-Instruct-2503 and RedHatAI's
//! w8a8 of it, vision tower and projector ignored by the quantizer), `kimi_vl_a3b.json`
//! (moonshotai/Kimi-VL-A3B-Instruct: a DeepSeek-V3 text model, MoonViT). Gemma-2-9B-it,
//! Mixtral-8x7B-Instruct and DeepSeek-V2-Lite-Chat share the shapes of the base configs below.

/// meta-llama/Llama-2-7b-hf. Published: 6,738,415,616 parameters (the safetensors total).
pub const LLAMA_2_7B: &str = include_str!("published/llama_2_7b.json");

/// meta-llama/Meta-Llama-3-8B. Published: 8,030,261,248 (the safetensors total).
pub const LLAMA_3_8B: &str = include_str!("published/llama_3_8b.json");

/// meta-llama/Llama-3.2-1B: tied embeddings, `head_dim` given. Published: 1,235,814,400 (the
/// safetensors total, 1.24B).
pub const LLAMA_3_2_1B: &str = include_str!("published/llama_3_2_1b.json");

/// A Llama 3.x 70B Instruct config.json (transformers 4.47), as quoted in a public parameter
/// counter's tests. Published: 70,553,706,496 (the Llama-3.1-70B safetensors total, 70.6B).
pub const LLAMA_3_70B: &str = include_str!("published/llama_3_70b.json");

/// mistralai/Mistral-7B-v0.1. Published: 7,241,732,096 (the safetensors total).
pub const MISTRAL_7B: &str = include_str!("published/mistral_7b.json");

/// mistralai/Mixtral-8x7B-v0.1. Published: 46,702,792,704 (the safetensors total).
pub const MIXTRAL_8X7B: &str = include_str!("published/mixtral_8x7b.json");

/// Qwen/Qwen2-7B: q/k/v biases. Published: 7,615,616,512 (the safetensors total).
pub const QWEN2_7B: &str = include_str!("published/qwen2_7b.json");

/// Qwen/Qwen1.5-MoE-A2.7B-Chat-GPTQ-Int4 (its quantizer's module lists shortened): 60 experts
/// and a gated shared expert per layer, GPTQ int4 in groups of 128. Published: "14.3B parameters
/// in total" (the model card of Qwen1.5-MoE-A2.7B).
pub const QWEN1_5_MOE_GPTQ: &str = include_str!("published/qwen1_5_moe_gptq.json");

/// Qwen/Qwen3-8B: q/k norms, `head_dim` given. Published: 8,190,735,360 (the safetensors
/// total; the model card: 8.2B).
pub const QWEN3_8B: &str = include_str!("published/qwen3_8b.json");

/// Qwen/Qwen3-30B-A3B: 128 experts, 8 per token. Published: "30.5B in total", "29.9B"
/// without embeddings (the model card).
pub const QWEN3_30B_A3B: &str = include_str!("published/qwen3_30b_a3b.json");

/// google/gemma-2b: one KV head, `head_dim` 256, no `tie_word_embeddings` (Gemma ties by
/// default). Published: 2,506,172,416 (the safetensors total; the Gemma report, Table 2:
/// 1,981,884,416 non-embedding parameters).
pub const GEMMA_2B: &str = include_str!("published/gemma_2b.json");

/// google/gemma-7b: 16 heads of 256 on a hidden size of 3072. Published: 8,537,680,896 (the
/// safetensors total; the Gemma report, Table 2: 7,751,248,896 non-embedding parameters).
pub const GEMMA_7B: &str = include_str!("published/gemma_7b.json");

/// google/gemma-2-9b: four norms per layer, a sliding window, stored in float32. Published: the
/// Gemma 2 report (arXiv:2408.00118), Table 2: 917,504,000 embedding and 8,324,201,984
/// non-embedding parameters.
pub const GEMMA2_9B: &str = include_str!("published/gemma2_9b.json");

/// microsoft/Phi-3-mini-4k-instruct: fused qkv_proj and gate_up_proj. Published: 3,821,079,552
/// (the safetensors total).
pub const PHI3_MINI_4K: &str = include_str!("published/phi3_mini_4k.json");

/// EleutherAI/pythia-160m (GPT-NeoX: biases, LayerNorms, parallel residual). Published:
/// 162,322,944 parameters, 85,056,000 without embeddings (the Pythia README and paper, Table 1).
pub const PYTHIA_160M: &str = include_str!("published/pythia_160m.json");

/// EleutherAI/pythia-6.9b. Published: 6,857,302,016 parameters, 6,444,163,072 without
/// embeddings (the Pythia README and paper, Table 1).
pub const PYTHIA_6_9B: &str = include_str!("published/pythia_6_9b.json");

/// deepseek-ai/DeepSeek-V2-Lite: MLA without a query rank, 64 routed and 2 shared experts, the
/// first layer dense. Published: "15.7B total parameters" (the DeepSeek-V2 paper and model
/// card).
pub const DEEPSEEK_V2_LITE: &str = include_str!("published/deepseek_v2_lite.json");

/// deepseek-ai/DeepSeek-V2.5 (the DeepSeek-V2 architecture at full size), as quoted in a public
/// parameter counter's tests. Published: "236B total parameters" (the DeepSeek-V2 paper).
pub const DEEPSEEK_V2: &str = include_str!("published/deepseek_v2.json");

/// deepseek-ai/DeepSeek-R1 (the DeepSeek-V3 architecture; `auto_map` left out): fp8 weights in
/// 128×128 blocks, one multi-token-prediction layer beyond the 61. Published: 671B in the main
/// model, 685B with the 14B of the MTP module (DeepSeek-V3's README).
pub const DEEPSEEK_V3: &str = include_str!("published/deepseek_v3.json");
