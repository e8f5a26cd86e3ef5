//! The batch vLLM profiles with: `--max-num-batched-tokens` and `--max-num-seqs`, given or
//! defaulted as vLLM 0.19's `EngineArgs.get_batch_defaults` (`vllm/engine/arg_utils.py`) does.
//!
//! Defaults for the OpenAI-compatible server (`vllm serve`): on a device of at least 70 GiB whose
//! name does not contain "a100", 8192 tokens and 1024 sequences; else 2048 tokens and 256
//! sequences. Then the tokens are at most `max_num_seqs × max_model_len` and the sequences at
//! most the tokens. The device memory read there is NVML's for the device index
//! (`platforms/cuda.py` `get_device_total_memory`): on a MIG instance, the parent GPU's.

use crate::error::{Error, ErrorKind, Result};

/// 70 GiB: the device memory from which vLLM takes its large batch defaults.
pub const LARGE_DEVICE_BYTES: u64 = 70 << 30;

/// The profiled batch: `max_num_batched_tokens` and `max_num_seqs`, and the requests of the
/// profile run (`min(max_num_seqs, max_num_batched_tokens)`, `gpu_model_runner.py`
/// `_dummy_run`), each with the tokens they share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    pub tokens: u64,
    pub seqs: u64,
    /// Whether the tokens or sequences were vLLM's defaults (so the args need not name them).
    pub tokens_default: bool,
    pub seqs_default: bool,
}

impl Batch {
    /// Requests in the profile run: one sampled row each.
    pub fn requests(&self) -> u64 {
        self.seqs.min(self.tokens)
    }
}

/// The batch for these flags on a device of `nvml_bytes` named `device_name`.
///
/// # Errors
/// A token or sequence count of 0 (field `max_num_batched_tokens`, `max_num_seqs`).
pub fn batch(
    tokens: Option<u64>,
    seqs: Option<u64>,
    max_model_len: u64,
    nvml_bytes: u64,
    device_name: &str,
) -> Result<Batch> {
    for (value, field) in [(tokens, "max_num_batched_tokens"), (seqs, "max_num_seqs")] {
        if value == Some(0) || value.is_some_and(|v| v > 1 << 24) {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("must be from 1 to {}", 1u64 << 24),
            )
            .in_field(field));
        }
    }
    let large = nvml_bytes >= LARGE_DEVICE_BYTES && !device_name.to_lowercase().contains("a100");
    let (default_tokens, default_seqs) = if large { (8192, 1024) } else { (2048, 256) };
    let seqs_value = seqs.unwrap_or(default_seqs);
    let mut tokens_value = tokens.unwrap_or(default_tokens);
    if tokens.is_none() {
        tokens_value = tokens_value.min(seqs_value.saturating_mul(max_model_len));
    }
    Ok(Batch {
        tokens: tokens_value,
        seqs: if seqs.is_none() {
            seqs_value.min(tokens_value)
        } else {
            seqs_value
        },
        tokens_default: tokens.is_none(),
        seqs_default: seqs.is_none(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_h100_takes_the_large_server_defaults() {
        let b = batch(None, None, 8192, 80 << 30, "NVIDIA H100 80GB HBM3").unwrap();
        assert_eq!((b.tokens, b.seqs, b.requests()), (8192, 1024, 1024));
        let a100 = batch(None, None, 8192, 80 << 30, "NVIDIA A100-SXM4-80GB").unwrap();
        assert_eq!((a100.tokens, a100.seqs), (2048, 256));
        let small = batch(None, None, 8192, 48 << 30, "NVIDIA L40S").unwrap();
        assert_eq!((small.tokens, small.seqs), (2048, 256));
        let given = batch(Some(4096), Some(64), 8192, 80 << 30, "H100").unwrap();
        assert_eq!((given.tokens, given.seqs, given.requests()), (4096, 64, 64));
        assert!(batch(Some(0), None, 8192, 80 << 30, "H100").is_err());
    }
}
