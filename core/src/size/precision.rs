//! Which dtype each part is stored in, and why: the weight matrices (given, else the config's
//! `quantization_config`, else its `torch_dtype`), the rest of the weights (the dtype the model
//! computes in), and the KV cache (given, else the dtype the model computes in — vLLM's
//! `--kv-cache-dtype auto` "will use model data type", whatever the weights' quantization).

use super::config::ModelConfig;
use super::dtype::Dtype;
use super::quantization::{default_scales, Scales};
use crate::error::{Error, ErrorKind, Result};

/// The dtypes a sizing uses, each with where it came from in the user's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Precision {
    /// The layers' weight matrices.
    pub weights: Dtype,
    pub weights_from: String,
    /// What the model computes in: the embeddings, norms and biases of quantized weights.
    pub compute: Dtype,
    pub compute_from: String,
    pub kv: Dtype,
    pub kv_from: String,
    /// The scales stored beside quantized weight matrices, where they are per group or block.
    pub scales: Option<Scales>,
}

/// Settles the dtypes of `c` with those the user gave.
///
/// # Errors
/// `Syntax` naming `dtype` when neither it nor the config settles the weights' dtype (a
/// quantization method gpu-share does not read, no `torch_dtype`), naming `kv_dtype` when the
/// dtype quantized weights compute in is unknown.
pub fn settle(c: &ModelConfig, dtype: Option<Dtype>, kv_dtype: Option<Dtype>) -> Result<Precision> {
    let torch = c
        .torch_dtype
        .map(|d| (d, "the config's torch_dtype".to_string()));
    let (weights, weights_from) = match (dtype, &c.quantization) {
        (Some(d), _) => (d, "given".to_string()),
        (None, Some(q)) => match q.dtype {
            Some(d) => (d, format!("the config's quantization_config: {}", q.method)),
            None => {
                return Err(Error::new(
                    ErrorKind::Syntax,
                    format!(
                        "the config is quantized with {:?}, whose storage gpu-share does not read: give the weights' dtype",
                        q.method
                    ),
                )
                .in_field("dtype"))
            }
        },
        (None, None) => torch.clone().ok_or_else(|| {
            Error::new(
                ErrorKind::Syntax,
                "the config names no torch_dtype: give the weights' dtype",
            )
            .in_field("dtype")
        })?,
    };
    let (compute, compute_from) = if weights.is_compute() {
        (weights, format!("as the weights, {weights_from}"))
    } else if let Some(t) = torch {
        t
    } else {
        match kv_dtype.filter(|d| d.is_compute()) {
            Some(d) => (d, "the KV cache's, given".to_string()),
            None => {
                return Err(Error::new(
                    ErrorKind::Syntax,
                    format!(
                        "the config names no torch_dtype, the dtype a model with {} weights computes in (and keeps its embeddings, norms and KV cache in): give the KV cache's dtype (bf16, fp16 or fp32)",
                        weights.name()
                    ),
                )
                .in_field("kv_dtype"))
            }
        }
    };
    let (kv, kv_from) = match kv_dtype {
        Some(d) => (d, "given".to_string()),
        None if weights.is_compute() => (compute, "as the weights".to_string()),
        None => (
            compute,
            format!(
                "{compute_from}: what the model computes in, where vLLM keeps the cache by default (--kv-cache-dtype auto) whatever the weights' quantization"
            ),
        ),
    };
    let scales = if weights.is_compute() {
        None
    } else {
        match &c.quantization {
            Some(q) if q.dtype == Some(weights) => q.scales,
            _ => default_scales(weights),
        }
    };
    Ok(Precision {
        weights,
        weights_from,
        compute,
        compute_from,
        kv,
        kv_from,
        scales,
    })
}
