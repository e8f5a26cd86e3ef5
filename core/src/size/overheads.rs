//! Memory beyond the weights and the KV cache, each with its rule and source. Only rules with a
//! published source are here:
//!
//! - **Activations**: 20% of the weights. Hugging Face's model memory estimator (the
//!   `hf-accelerate/model-memory-usage` Space, after `accelerate estimate-memory`): "When
//!   performing inference, expect to add up to an additional 20% to this as found by EleutherAI"
//!   (blog.eleuther.ai/transformer-math). An upper allowance for the forward pass's activations
//!   and buffers, not a measurement.
//! - **Quantization scales**: the scales (and zero points) stored beside quantized weight
//!   matrices, where they are per group or block (`quantization.rs`).
//!
//! Not here: the CUDA context each process holds (the planner adds it once per process, from the
//! cluster's caps), and what an engine takes beyond this (CUDA graphs, communication buffers,
//! allocator slack; vLLM pre-allocates its whole `--gpu-memory-utilization` share and fills what
//! is left with KV cache) — no published rule sizes those.

use super::parameters::{ParameterCount, PartClass};
use super::precision::Precision;
use super::text::grouped;

/// One allowance beyond the weights and the KV cache.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Overhead {
    pub name: String,
    pub bytes: u64,
    /// Its rule and source, in the user's words.
    pub why: String,
}

/// The activations allowance: a fifth of the weights, rounded up.
pub const ACTIVATIONS_PERCENT: u128 = 20;

/// The overheads of weights of `weights_bytes` (no rule here depends on the context); the caller
/// checks their sum against the limits.
pub fn overheads(p: &ParameterCount, precision: &Precision, weights_bytes: u64) -> Vec<Overhead> {
    let bytes = |b: u128| u64::try_from(b).unwrap_or(u64::MAX);
    let mut out = vec![Overhead {
        name: "activations".to_string(),
        bytes: bytes((u128::from(weights_bytes) * ACTIVATIONS_PERCENT).div_ceil(100)),
        why: "20% of the weights for the forward pass's activations and buffers: Hugging Face's model memory estimator says \"when performing inference, expect to add up to an additional 20%\", as found by EleutherAI (blog.eleuther.ai/transformer-math)".to_string(),
    }];
    if let Some(s) = precision.scales {
        let matrices = p.of(PartClass::Matrix);
        let groups = matrices.div_ceil(u128::from(s.weights_per_scale));
        out.push(Overhead {
            name: "quantization scales".to_string(),
            bytes: bytes((groups * u128::from(s.bits_per_scale)).div_ceil(8)),
            why: format!(
                "{} groups of {} weights × {} bits each ({})",
                grouped(groups),
                s.weights_per_scale,
                s.bits_per_scale,
                s.source
            ),
        });
    }
    out
}
