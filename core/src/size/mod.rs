//! The GPU memory a model needs, from its Hugging Face `config.json`: its parameters counted from
//! the architecture's shapes, the weights in their dtype, the KV cache for a context and a
//! number of sequences, and the overheads that have a published rule, each explained; and
//! backwards, the longest context or the most sequences that fit a memory budget.
//!
//! Integer arithmetic throughout (half-bytes of int4 included), in `u128` inside; an
//! architecture it does not know is an error naming it, never a guess. The use case, with its
//! budgets from the GPU catalogue, is [`crate::api::size`].
//!
//! ```
//! use gpu_share_core::internals::size::{read_config, size, SizeOptions};
//!
//! let config = read_config(r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
//!     "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
//!     "num_key_value_heads": 32, "vocab_size": 32000, "torch_dtype": "float16",
//!     "max_position_embeddings": 4096}"#)?;
//! let sized = size(&config, &SizeOptions::default())?;
//! assert_eq!(sized.parameters.total(), 6_738_415_616); // Llama-2-7B
//! assert_eq!(sized.weights_bytes, 2 * 6_738_415_616);
//! assert_eq!(sized.kv_cache_bytes, 2 * 32 * 32 * 128 * 2 * 4096);
//! # Ok::<(), gpu_share_core::internals::Error>(())
//! ```

mod architectures;
mod config;
mod dtype;
pub mod engine;
mod explain;
mod fields;
mod fit;
mod kv;
mod overheads;
mod parameters;
mod precision;
mod quantization;
mod text;
mod weights;

#[cfg(test)]
mod published;
#[cfg(test)]
mod tests;

pub use architectures::Architecture;
pub use config::{from_map, read_config, Mla, ModelConfig, Moe, MAX_CONFIG_BYTES};
pub use dtype::Dtype;
pub use engine::{
    plan_engine, share_device, smallest_utilization, Engine, EngineRequest, EngineTarget, PerGpu,
    PlannedEngine, SharedDevice, TenantAsk, Utilization,
};
pub use fit::{max_concurrency, max_context};
pub use overheads::{Overhead, ACTIVATIONS_PERCENT};
pub use parameters::{ParameterCount, Part, PartClass};
pub use precision::Precision;
pub use quantization::{Quantization, Scales, DEFAULT_GROUP_SIZE};
pub(crate) use text::plural;
pub use text::{bytes_text, grouped};

use crate::error::{Error, ErrorKind, Result};
use crate::memory::MAX_MEMORY;

/// The longest context sized: 2^30 tokens, beyond any model's.
pub const MAX_CONTEXT: u64 = 1 << 30;
/// The most sequences sized at once.
pub const MAX_CONCURRENCY: u64 = 1 << 20;

/// What to size for; each `None` takes its default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SizeOptions {
    /// The weights' dtype; default: the config's `quantization_config`, else its `torch_dtype`.
    pub dtype: Option<Dtype>,
    /// The KV cache's dtype; default: the dtype the model computes in.
    pub kv_dtype: Option<Dtype>,
    /// Tokens per sequence; default: the model's `max_position_embeddings` (vLLM's default
    /// `--max-model-len`).
    pub context: Option<u64>,
    /// Sequences at once; default 1.
    pub concurrency: Option<u64>,
}

/// The memory a model needs, part by part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sizing {
    pub architecture: Architecture,
    pub parameters: ParameterCount,
    pub precision: Precision,
    pub context: u64,
    pub concurrency: u64,
    pub weights_bytes: u64,
    /// How the weights are counted, in the user's words.
    pub weights_why: String,
    pub kv_cache_bytes: u64,
    pub kv_cache_why: String,
    pub overheads: Vec<Overhead>,
    /// Weights, KV cache and overheads: at most [`MAX_MEMORY`].
    pub total_bytes: u64,
    /// What the parts' reasons do not say: the architecture, the parameters part by part, the
    /// defaults taken, what is not counted.
    pub notes: Vec<String>,
}

/// What does not depend on the context: the parameters, the dtypes, the weights and overheads.
pub(crate) struct Fixed {
    pub parameters: ParameterCount,
    pub precision: Precision,
    pub weights_bytes: u64,
    pub weights_why: String,
    pub overheads: Vec<Overhead>,
    /// Weights and overheads.
    pub bytes: u128,
}

/// Counts the parameters, settles the dtypes and sizes the weights and overheads.
pub(crate) fn fixed(c: &ModelConfig, options: &SizeOptions) -> Result<Fixed> {
    let parameters = parameters::count(c);
    let precision = precision::settle(c, options.dtype, options.kv_dtype)?;
    let (weights, weights_why) = weights::bytes(&parameters, &precision);
    let weights_bytes = u64::try_from(weights)
        .ok()
        .filter(|b| *b <= MAX_MEMORY)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::OutOfRange,
                format!(
                    "{} parameters in {} need more than the 64 TiB gpu-share sizes",
                    grouped(parameters.total()),
                    precision.weights.name()
                ),
            )
        })?;
    let overheads = overheads::overheads(&parameters, &precision, weights_bytes);
    let bytes = weights + overheads.iter().map(|o| u128::from(o.bytes)).sum::<u128>();
    Ok(Fixed {
        parameters,
        precision,
        weights_bytes,
        weights_why,
        overheads,
        bytes,
    })
}

/// The context sized: given (checked), else the model's `max_position_embeddings`.
pub(crate) fn context(c: &ModelConfig, given: Option<u64>) -> Result<u64> {
    if let Some(n) = given {
        return within(n, MAX_CONTEXT, "context");
    }
    match c.max_position_embeddings {
        Some(n) if n <= MAX_CONTEXT => Ok(n),
        Some(n) => Err(Error::new(
            ErrorKind::OutOfRange,
            format!("the model's max_position_embeddings ({}) is more than the {} tokens gpu-share sizes: give a context", grouped(n), grouped(MAX_CONTEXT)),
        )
        .in_field("context")),
        None => Err(Error::new(
            ErrorKind::Syntax,
            "the config names no max_position_embeddings: give a context (tokens per sequence)",
        )
        .in_field("context")),
    }
}

/// The sequences sized: given (checked), else 1.
pub(crate) fn concurrency(given: Option<u64>) -> Result<u64> {
    given.map_or(Ok(1), |n| within(n, MAX_CONCURRENCY, "concurrency"))
}

fn within(n: u64, max: u64, field: &str) -> Result<u64> {
    if (1..=max).contains(&n) {
        Ok(n)
    } else {
        Err(Error::new(
            ErrorKind::OutOfRange,
            format!("must be from 1 to {}, got {n}", grouped(max)),
        )
        .in_field(field))
    }
}

/// Sizes `c` for `options`.
///
/// # Errors
/// A dtype neither given nor settled by the config (field `dtype` or `kv_dtype`), a context or
/// concurrency out of range or with no default (field `context`, `concurrency`), and a total
/// above [`MAX_MEMORY`] (64 TiB).
pub fn size(c: &ModelConfig, options: &SizeOptions) -> Result<Sizing> {
    let fixed = fixed(c, options)?;
    let context = context(c, options.context)?;
    let concurrency = concurrency(options.concurrency)?;
    let kv = kv::bytes(
        c,
        fixed.precision.kv,
        u128::from(context) * u128::from(concurrency),
    );
    let total = fixed.bytes + kv;
    if total > u128::from(MAX_MEMORY) {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            format!(
                "{} tokens × {} sequences need more than the 64 TiB gpu-share sizes: give a shorter context or fewer sequences",
                grouped(context),
                grouped(concurrency)
            ),
        )
        .in_field("context"));
    }
    let p = &fixed.precision;
    let kv_dtype = format!("{} ({}, {})", p.kv.bytes_text(), p.kv.name(), p.kv_from);
    Ok(Sizing {
        architecture: c.architecture,
        notes: explain::notes(c, &fixed, options, context, concurrency),
        kv_cache_why: kv::why(c, &kv_dtype, context, concurrency),
        parameters: fixed.parameters,
        precision: fixed.precision,
        context,
        concurrency,
        weights_bytes: fixed.weights_bytes,
        weights_why: fixed.weights_why,
        // Both at most the total, itself at most MAX_MEMORY.
        kv_cache_bytes: kv as u64,
        overheads: fixed.overheads,
        total_bytes: total as u64,
    })
}
