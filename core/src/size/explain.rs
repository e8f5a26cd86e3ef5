//! The notes of a sizing, in the user's words: what the model is, its parameters part by part,
//! the defaults taken and what they rest on, and what is not counted.

use super::architectures::Family;
use super::config::ModelConfig;
use super::dtype::Dtype;
use super::text::{grouped, plural};
use super::{Fixed, SizeOptions};

/// The notes for `c` sized at `context` tokens × `concurrency` sequences.
pub(crate) fn notes(
    c: &ModelConfig,
    fixed: &Fixed,
    options: &SizeOptions,
    context: u64,
    concurrency: u64,
) -> Vec<String> {
    let mut out = vec![describe(c), parameters(fixed)];
    out.extend(dtype_notes(c, options));
    if options.context.is_none() {
        out.push(format!(
            "context: {}, the model's max_position_embeddings — what vLLM serves when no --max-model-len is given, with room for one sequence that long (vllm-project/vllm#19407); give a context to size for fewer",
            plural(context, "token", "tokens")
        ));
    } else if let Some(max) = c.max_position_embeddings.filter(|m| context > *m) {
        out.push(format!(
            "context: {} is more than the model's max_position_embeddings ({})",
            plural(context, "token", "tokens"),
            grouped(max)
        ));
    }
    if options.concurrency.is_none() {
        out.push(format!(
            "concurrency: {} at a time; give a concurrency for more",
            plural(concurrency, "sequence", "sequences")
        ));
    }
    if let Some(w) = c.sliding_window.filter(|w| *w < context) {
        out.push(format!(
            "attention window: {} on some or all layers; the KV cache is counted over the whole context, an upper bound (an engine that keeps only the window needs less)",
            plural(w, "token", "tokens")
        ));
    }
    if let Some(m) = c.mla {
        out.push(format!(
            "MLA: each layer caches one latent of {} and one RoPE key of {} per token, shared by all {} heads, as vLLM and SGLang store it (DeepSeek-V2, arXiv:2405.04434, Table 1); Hugging Face transformers' own implementation caches every head's keys and values instead, {} numbers per layer and token",
            m.kv_lora_rank,
            m.qk_rope_head_dim,
            c.attention_heads,
            grouped(u128::from(c.attention_heads) * u128::from(m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim))
        ));
    }
    if c.mtp_layers > 0 {
        out.push(format!(
            "not counted: the multi-token-prediction module (num_nextn_predict_layers: {}), which is not among the {} layers and which engines load only for speculative decoding (DeepSeek-V3's README: \"685B, which includes 671B of the Main Model weights and 14B of the Multi-Token Prediction (MTP) Module weights\")",
            c.mtp_layers,
            grouped(c.layers)
        ));
    }
    out.push("not counted: the CUDA context each process holds, which the planner adds once per process; and what an inference engine takes beyond this (CUDA graphs, communication buffers, allocator slack, a KV pool pre-allocated to a share of the GPU such as vLLM's --gpu-memory-utilization), which an engine sizes (vLLM 0.19, as its code allocates) on a GPU or MIG instance".to_string());
    out
}

/// `LlamaForCausalLM: 32 layers, hidden size 4096, …`.
fn describe(c: &ModelConfig) -> String {
    let mut parts = vec![
        plural(c.layers, "layer", "layers"),
        format!("hidden size {}", c.hidden_size),
    ];
    match c.mla {
        Some(_) => parts.push(format!(
            "{} with multi-head latent attention (MLA)",
            plural(c.attention_heads, "attention head", "attention heads")
        )),
        None if c.kv_heads == c.attention_heads => parts.push(format!(
            "{} of {} dims, each with its own keys and values",
            plural(c.attention_heads, "attention head", "attention heads"),
            c.head_dim
        )),
        None => parts.push(format!(
            "{} of {} dims sharing {} (grouped-query attention)",
            plural(c.attention_heads, "attention head", "attention heads"),
            c.head_dim,
            plural(c.kv_heads, "key/value head", "key/value heads")
        )),
    }
    if let Some(m) = c.moe {
        parts.push(format!(
            "{} of {} MoE layers ({} per token{}), {} dense",
            plural(m.experts, "expert in each", "experts in each"),
            grouped(m.moe_layers),
            m.experts_per_token,
            if m.shared_intermediate > 0 {
                ", with shared experts"
            } else {
                ""
            },
            plural(c.layers - m.moe_layers, "layer", "layers")
        ));
    }
    if c.intermediate_size > 0 {
        parts.push(format!("MLP width {}", c.intermediate_size));
    }
    parts.push(format!("vocabulary {}", c.vocab_size));
    parts.push(
        if c.tie_word_embeddings {
            "output embeddings tied to the input ones"
        } else {
            "separate output embeddings"
        }
        .to_string(),
    );
    if c.architecture.family() == Family::Fused {
        parts.push("fused qkv and gate_up projections".into());
    }
    format!("{}: {}", c.architecture.class_name(), parts.join(", "))
}

/// `parameters: 8,030,261,248 — embeddings 525,336,576: 128256 tokens × 4096; attention …`.
fn parameters(fixed: &Fixed) -> String {
    let parts: Vec<String> = fixed
        .parameters
        .parts
        .iter()
        .map(|p| format!("{} {}: {}", p.name, grouped(p.parameters), p.detail))
        .collect();
    format!(
        "parameters: {} — {}",
        grouped(fixed.parameters.total()),
        parts.join("; ")
    )
}

/// What the dtypes taken by default rest on.
fn dtype_notes(c: &ModelConfig, options: &SizeOptions) -> Vec<String> {
    let mut out = Vec::new();
    match (options.dtype, &c.quantization) {
        (None, None) if c.torch_dtype == Some(Dtype::Fp32) => out.push(
            "the config's torch_dtype is float32: vLLM's default (--dtype auto) loads float32 models in fp16, half these weights; give the dtype fp16 to size that".to_string(),
        ),
        (Some(d), Some(q)) if q.dtype != Some(d) => out.push(format!(
            "the config's quantization_config ({}) is not used: the weights' dtype {} was given",
            q.method,
            d.name()
        )),
        _ => {}
    }
    out
}
