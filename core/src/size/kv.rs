//! The KV cache: what attention keeps per token of every sequence in flight.
//!
//! - Grouped-query (and multi-head) attention keeps a key and a value per layer, KV head and
//!   head dimension: `2 × layers × kv_heads × head_dim` numbers per token.
//! - DeepSeek's multi-head latent attention keeps one compressed latent (`kv_lora_rank`) and one
//!   RoPE key (`qk_rope_head_dim`) per layer, shared by all heads: `layers × (kv_lora_rank +
//!   qk_rope_head_dim)` numbers per token (DeepSeek-V2, arXiv:2405.04434, §2.1.4 and Table 1:
//!   "(d_c + d_h^R) l"), as vLLM and SGLang store it.
//!
//! The bytes are `numbers per token × bits / 8 × context × concurrency`, rounded up.

use super::config::ModelConfig;
use super::dtype::{bytes_of, Dtype};
use super::text::{grouped, plural};

/// Numbers the cache keeps per token (one sequence).
pub fn numbers_per_token(c: &ModelConfig) -> u128 {
    match c.mla {
        Some(m) => u128::from(c.layers) * u128::from(m.kv_lora_rank + m.qk_rope_head_dim),
        None => 2 * u128::from(c.layers) * u128::from(c.kv_heads) * u128::from(c.head_dim),
    }
}

/// The cache's bytes for `tokens` tokens in all (context × concurrency), in `dtype`.
pub fn bytes(c: &ModelConfig, dtype: Dtype, tokens: u128) -> u128 {
    bytes_of(numbers_per_token(c) * tokens, dtype)
}

/// How the cache is counted: `2 (keys and values) × 32 layers × 8 KV heads × 128 × …`; `dtype`
/// is the dtype with why (`2 bytes (bf16, …)`).
pub fn why(c: &ModelConfig, dtype: &str, context: u64, concurrency: u64) -> String {
    let tokens = format!(
        "{} × {}",
        plural(context, "token", "tokens"),
        plural(concurrency, "sequence", "sequences")
    );
    match c.mla {
        Some(m) => format!(
            "{} × ({} latent + {} RoPE key) × {dtype} × {tokens} (MLA's compressed cache)",
            plural(c.layers, "layer", "layers"),
            m.kv_lora_rank,
            m.qk_rope_head_dim
        ),
        None => format!(
            "2 (keys and values) × {} × {} × {} dims × {dtype} × {tokens}",
            plural(c.layers, "layer", "layers"),
            plural(c.kv_heads, "KV head", "KV heads"),
            grouped(c.head_dim)
        ),
    }
}
