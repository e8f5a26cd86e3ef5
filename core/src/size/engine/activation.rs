//! The activation peak of vLLM's profile run: the rise of `torch.cuda.max_memory_allocated`
//! while `gpu_model_runner.py` `profile_run` runs one forward of `max_num_batched_tokens`
//! tokens in `min(max_num_seqs, tokens)` requests (`_dummy_run`), then the sampler on one row
//! per request (`_dummy_sampler_run`), on the last pipeline stage only.
//!
//! The peak is the larger of two moments, each modelled from the code's shapes, on top of what
//! lives through both:
//!
//! - **The fused-MoE workspace** (a mixture's stage only): the modular kernel takes its
//!   buffers from the worker's one `WorkspaceManager` (`v1/worker/workspace.py`, through
//!   `FusedMoEKernelModularImpl._allocate_buffers`), which keeps the largest ever asked for and
//!   never frees it — so it is still held when the sampler runs. Per token and routed expert,
//!   `max(I, H) + max(2I, H)` elements of the compute dtype (`TritonExperts.workspace_shapes`,
//!   the unquantized default on CUDA; `MarlinExperts`' are the same sizes), `I` the expert's
//!   width on this rank.
//! - **The sampler**: the logits `[requests, vocab]` in the compute dtype (`compute_logits`,
//!   all-gathered to every tensor-parallel rank, so not split), their float32 copy
//!   (`Sampler.forward`), and two more float32 `[requests, vocab]` buffers of top-k/top-p
//!   sampling (the dummy batch asks for both: FlashInfer's masked logits and probabilities, or
//!   the native path's probabilities and exponential noise `q`) — 14 bytes per logit in bf16,
//!   12 in fp32, where the copy is the tensor itself. Alive beside them: the forward's output
//!   `[tokens, hidden]` and two `[requests, hidden]` rows (the sampled rows and
//!   `torch.rand_like` of them).
//! - **The forward**: the widest layer's temporaries: a dense MLP's `gate_up` output
//!   `[tokens, 2 × intermediate / TP]` and the activation `[tokens, intermediate / TP]`; a
//!   mixture's `[tokens, hidden]` output and shared experts' MLP beside its workspace; beside
//!   them hidden-sized buffers (residual, normed input, outputs).
//!
//! A non-first pipeline stage also holds the `[tokens, hidden]` hidden states and residual it
//! receives (`make_empty_intermediate_tensors`). A multimodal model's first stage holds the
//! outputs of its encoder's dummy run through both moments: `profile_run` keeps them in
//! `encoder_cache` until the sampler has run, as many items as the encoder budget
//! (`max_num_batched_tokens` tokens by default, `compute_mm_encoder_budget`) holds, each
//! `[tokens per item, hidden]` in the compute dtype — taken here as the whole budget, which a
//! budget that is a whole number of items (Gemma 3's 256-token images) is exactly.
//!
//! Two numbers are measured, not read from the code, each on the tuning part of the vLLM 0.19
//! data only (Llama and Qwen start-ups; `bench/src/engine.rs`): the hidden-sized buffers live
//! at the forward's peak ([`FORWARD_HIDDEN_QUARTERS`]), and the sampler's half byte per logit
//! and fixed 36 MiB beyond the four buffers above ([`SAMPLER_EXTRA_HALF_BYTES`],
//! [`SAMPLER_EXTRA_BYTES`]; torch's sort or FlashInfer's row buffers, not identified).
//!
//! Not counted: the peak of a multimodal model's encoder run itself (profiled first, before
//! the text forward; not modelled), attention (skipped in the profile run: no attention metadata),
//! and CUDA graphs (captured after the KV cache, on top of the budget in 0.19).

use super::super::config::ModelConfig;
use super::super::dtype::Dtype;
use super::batch::Batch;

/// Hidden-sized `[tokens, hidden]` buffers alive at the forward's peak, in quarters (measured:
/// CodeLlama-7B's forward-bound peak of 0.77 GiB, and Llama-3.1-8B's middle pipeline stage).
pub const FORWARD_HIDDEN_QUARTERS: u64 = 17;
/// Beyond the four `[requests, vocab]` buffers: half a byte per logit, and 36 MiB (measured on
/// Llama-3.1-8B and Qwen2.5-7B, whose peaks are the sampler's).
pub const SAMPLER_EXTRA_HALF_BYTES: u64 = 1;
pub const SAMPLER_EXTRA_BYTES: u64 = 36 << 20;

/// The peak's parts, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Peak {
    /// The fused-MoE workspace, held through both moments.
    pub workspace: u64,
    /// A multimodal model's cached encoder outputs, held through both moments.
    pub encoder_outputs: u64,
    pub sampler: u64,
    pub forward: u64,
    /// The pipeline's received hidden states and residual.
    pub intermediate: u64,
}

impl Peak {
    pub fn bytes(&self) -> u64 {
        self.workspace + self.encoder_outputs + self.sampler.max(self.forward) + self.intermediate
    }
}

/// Where a rank's stage sits and what it holds.
#[derive(Clone, Copy, Debug)]
pub struct StageHolds {
    pub first: bool,
    pub last: bool,
    /// Any of the mixture's layers.
    pub moe: bool,
    /// The model has an encoder (its outputs are cached on the first stage).
    pub multimodal: bool,
}

/// The profile run's peak on a rank of `tp` of the stage `at`.
pub fn peak(c: &ModelConfig, dtype: Dtype, batch: &Batch, tp: u64, at: StageHolds) -> Peak {
    let StageHolds {
        first,
        last,
        moe,
        multimodal,
    } = at;
    let b = u64::from(dtype.bits() / 8);
    let tokens = batch.tokens;
    let hidden = tokens * c.hidden_size * b;
    let sampler = if last {
        sampler(c, dtype, batch) + hidden
    } else {
        0
    };
    let intermediate = if first { 0 } else { 2 * hidden };
    let moe = if moe { c.moe } else { None };
    Peak {
        workspace: moe.map_or(0, |m| {
            let i = m.expert_intermediate / tp;
            let h = c.hidden_size;
            tokens * m.experts_per_token * (i.max(h) + (2 * i).max(h)) * b
        }),
        encoder_outputs: if multimodal && first { hidden } else { 0 },
        sampler,
        forward: forward(c, b, tokens, tp, moe.is_some()),
        intermediate,
    }
}

/// The sampler's moment, beside the forward's output.
fn sampler(c: &ModelConfig, dtype: Dtype, batch: &Batch) -> u64 {
    let b = u64::from(dtype.bits() / 8);
    let rows = batch.requests();
    let logits = rows * c.vocab_size;
    let copy = if dtype == Dtype::Fp32 { 0 } else { 4 };
    let per_logit_halves = 2 * (b + copy + 4 + 4) + SAMPLER_EXTRA_HALF_BYTES;
    logits * per_logit_halves / 2 + SAMPLER_EXTRA_BYTES + 2 * rows * c.hidden_size * b
}

/// The forward's widest moment, beside the workspace.
fn forward(c: &ModelConfig, b: u64, tokens: u64, tp: u64, moe: bool) -> u64 {
    let hidden = tokens * c.hidden_size * b;
    let buffers = hidden * FORWARD_HIDDEN_QUARTERS / 4;
    let dense = if c.intermediate_size > 0 {
        let i = c.intermediate_size / tp;
        tokens * 3 * i * b
    } else {
        0
    };
    let moe = c.moe.filter(|_| moe).map_or(0, |m| {
        let shared = tokens * 3 * (m.shared_intermediate / tp) * b;
        hidden + shared
    });
    buffers + dense.max(moe)
}
