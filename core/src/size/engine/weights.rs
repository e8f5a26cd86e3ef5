//! The weights one GPU holds, tensor by tensor as vLLM allocates them, each counted as the
//! caching allocator counts it (`block_bytes`): what vLLM logs as "Model loading took".
//!
//! - **Sharding** (`model_executor/layers/linear.py`, `vocab_parallel_embedding.py`): the fused
//!   `qkv_proj` and `gate_up_proj` and the experts are split by output, `o_proj` and `down_proj`
//!   by input, over the tensor-parallel ranks; KV heads are split while there are at least as
//!   many as ranks, else each rank keeps one (`QKVParallelLinear`). The vocabulary is padded to
//!   a multiple of 64 (`pad_vocab_size`) and split. Norms, routers and MLA's `kv_a_proj` are
//!   whole on every rank.
//! - **Pipeline stages** (`distributed/utils.py` `get_pp_indices`): the layers are split evenly,
//!   the remainder going to the stages before the last; the first stage holds the embeddings
//!   (and the vision tower), the last the final norm and `lm_head` (its own copy when the
//!   embeddings are tied but the stages differ).
//! - **Quantized** linear layers keep their scales beside them ([`Quant`]); embeddings and
//!   `lm_head` stay in the compute dtype, as every quantization method here leaves them.
//! - **Rotary caches**: one `positions × rotary_dim` buffer per distinct rotary setting.
//! - **MLA**: after loading, vLLM keeps `W_UK_T` and `W_UV`, copies of `kv_b_proj` split per
//!   head (`attention/backends/mla/common.py` `process_weights_after_loading`).

use super::super::architectures::Architecture;
use super::super::dtype::Dtype;
use super::allocator::block_bytes;
use super::model::{EngineModel, LayerKind, Quant};

/// One GPU's place: its tensor-parallel size and its pipeline stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rank {
    pub tp: u64,
    pub stage: u64,
    pub stages: u64,
}

impl Rank {
    pub fn first(&self) -> bool {
        self.stage == 0
    }
    pub fn last(&self) -> bool {
        self.stage + 1 == self.stages
    }
}

/// The layers of each pipeline stage, as `get_pp_indices` splits them.
pub fn stage_layers(layers: u64, stages: u64) -> Vec<u64> {
    let mut out = vec![layers / stages; stages as usize];
    let remaining = (layers % stages) as usize;
    for i in 2..remaining + 2 {
        let at = out.len() - i;
        out[at] += 1;
    }
    out
}

/// The vocabulary as vLLM pads it: a multiple of 64.
pub fn padded_vocab(vocab: u64) -> u64 {
    vocab.div_ceil(64) * 64
}

/// Bytes of `n` numbers of `dtype` (half bytes of int4 rounded up).
fn bytes(n: u128, dtype: Dtype) -> u64 {
    u64::try_from((n * u128::from(dtype.bits())).div_ceil(8)).unwrap_or(u64::MAX)
}

/// The tensors of `copies` linear layers of `out × inp` (fused into one allocation, as
/// FusedMoE's experts are), stored as `quant` says.
fn linear(out: u64, inp: u64, copies: u64, quant: Quant, compute: Dtype, tensors: &mut Vec<u64>) {
    let n = u128::from(out) * u128::from(inp) * u128::from(copies);
    let per_out = u128::from(out) * u128::from(copies);
    let groups = |g: Option<u64>| g.map_or(1, |g| inp.div_ceil(g));
    match quant {
        Quant::None => tensors.push(bytes(n, compute)),
        Quant::Fp8 { block } => {
            tensors.push(bytes(n, Dtype::Fp8));
            let scales = block.map_or(u128::from(copies), |b| n.div_ceil(u128::from(b)));
            tensors.push(bytes(scales, Dtype::Fp32));
        }
        Quant::Channel8 => {
            tensors.push(bytes(n, Dtype::Int8));
            tensors.push(bytes(per_out, Dtype::Fp32));
        }
        Quant::Gptq {
            bits,
            group,
            desc_act,
        } => {
            let packed = (n * u128::from(bits)).div_ceil(8);
            tensors.push(u64::try_from(packed).unwrap_or(u64::MAX));
            let g = u128::from(groups(group));
            tensors.push(bytes(g * per_out, compute));
            tensors.push(
                u64::try_from((g * per_out * u128::from(bits)).div_ceil(8)).unwrap_or(u64::MAX),
            );
            if desc_act {
                let idx = u128::from(inp) * u128::from(copies);
                tensors.push(bytes(idx, Dtype::Fp32));
                tensors.push(bytes(idx, Dtype::Fp32));
            }
        }
        Quant::Awq { bits, group } => {
            let g = u128::from(groups(group));
            tensors.push(u64::try_from((n * u128::from(bits)).div_ceil(8)).unwrap_or(u64::MAX));
            tensors.push(
                u64::try_from((g * per_out * u128::from(bits)).div_ceil(8)).unwrap_or(u64::MAX),
            );
            tensors.push(bytes(g * per_out, compute));
        }
        Quant::Packed { bits, group } => {
            let g = u128::from(groups(group));
            tensors.push(u64::try_from((n * u128::from(bits)).div_ceil(8)).unwrap_or(u64::MAX));
            tensors.push(bytes(g * per_out, compute));
        }
    }
}

/// What one rank holds, in allocator blocks, with the part of it in the vision tower.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    pub bytes: u64,
    pub vision_bytes: u64,
}

/// The weights `rank` holds of `m`, computing in `compute`, with `quant` on its linear layers.
pub fn held(m: &EngineModel, rank: Rank, compute: Dtype, quant: Quant) -> Held {
    let c = &m.text;
    let t = rank.tp;
    let per_stage = stage_layers(c.layers, rank.stages);
    let start: u64 = per_stage[..rank.stage as usize].iter().sum();
    let layers = per_stage[rank.stage as usize];
    let mut tensors = Vec::new();
    let (mut dense, mut mixture) = (Vec::new(), Vec::new());
    decoder_layer(m, t, compute, quant, false, &mut dense);
    decoder_layer(m, t, compute, quant, true, &mut mixture);
    for i in start..start + layers {
        tensors.extend_from_slice(if is_moe_layer(c, i) { &mixture } else { &dense });
    }
    let vocab_rows = padded_vocab(c.vocab_size) / t;
    let embedding = bytes(u128::from(vocab_rows) * u128::from(c.hidden_size), compute);
    if rank.first() {
        tensors.push(embedding);
    }
    if rank.last() {
        tensors.push(bytes(u128::from(c.hidden_size), compute));
        if !c.tie_word_embeddings || rank.stages > 1 {
            tensors.push(embedding);
        }
    }
    if layers > 0 {
        for r in &m.rope {
            tensors.push(bytes(
                u128::from(r.positions) * u128::from(r.rotary_dim),
                compute,
            ));
        }
    }
    let text: u64 = tensors.iter().map(|b| block_bytes(*b)).sum();
    let vision_bytes = match &m.vision {
        Some(v) if rank.first() => vision_held(v, t, compute),
        _ => 0,
    };
    Held {
        bytes: text.saturating_add(vision_bytes),
        vision_bytes,
    }
}

/// Whether layer `i` has the mixture of experts: the last `moe_layers` of the layers (DeepSeek's
/// `first_k_dense_replace` dense layers come first; Qwen-MoE's `mlp_only_layers` are taken as
/// the first too, which changes no stage's total unless the stages split them).
pub fn is_moe_layer(c: &super::super::config::ModelConfig, i: u64) -> bool {
    c.moe.is_some_and(|m| i >= c.layers - m.moe_layers)
}

/// One decoder layer's tensors on a rank of `t`, with the experts or a dense MLP.
fn decoder_layer(
    m: &EngineModel,
    t: u64,
    compute: Dtype,
    quant: Quant,
    moe: bool,
    out: &mut Vec<u64>,
) {
    let c = &m.text;
    let h = c.hidden_size;
    let small = |n: u64, out: &mut Vec<u64>| out.push(bytes(u128::from(n), compute));
    match c.mla {
        Some(mla) => {
            let heads = c.attention_heads / t;
            let qk = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
            match mla.q_lora_rank {
                Some(r) => {
                    linear(r, h, 1, quant, compute, out);
                    small(r, out);
                    linear(heads * qk, r, 1, quant, compute, out);
                }
                None => linear(heads * qk, h, 1, quant, compute, out),
            }
            linear(
                mla.kv_lora_rank + mla.qk_rope_head_dim,
                h,
                1,
                quant,
                compute,
                out,
            );
            small(mla.kv_lora_rank, out);
            let kv_b = heads * (mla.qk_nope_head_dim + mla.v_head_dim);
            linear(kv_b, mla.kv_lora_rank, 1, quant, compute, out);
            linear(h, heads * mla.v_head_dim, 1, quant, compute, out);
            // W_UK_T and W_UV, in the compute dtype.
            out.push(bytes(
                u128::from(heads * mla.qk_nope_head_dim * mla.kv_lora_rank),
                compute,
            ));
            out.push(bytes(
                u128::from(heads * mla.v_head_dim * mla.kv_lora_rank),
                compute,
            ));
        }
        None => {
            let q = c.attention_heads * c.head_dim / t;
            let kv = (c.kv_heads / t).max(1) * c.head_dim;
            linear(q + 2 * kv, h, 1, quant, compute, out);
            linear(h, q, 1, quant, compute, out);
            if c.architecture.has_qkv_bias() || c.attention_bias {
                small(q + 2 * kv, out);
            }
            if c.attention_bias {
                small(h, out);
            }
            if c.architecture.has_qk_norm() {
                small(c.head_dim, out);
                small(c.head_dim, out);
            }
        }
    }
    let norms = c.architecture.norms_per_layer() * if m.two_matrix_mlp() { 2 } else { 1 };
    for _ in 0..norms {
        small(h, out);
    }
    mlp(m, t, compute, quant, moe, out);
}

/// The layer's MLP: a dense one, or the experts (all of them on every rank, each split), the
/// shared experts and the router.
fn mlp(m: &EngineModel, t: u64, compute: Dtype, quant: Quant, mixture: bool, out: &mut Vec<u64>) {
    let c = &m.text;
    let h = c.hidden_size;
    let Some(moe) = c.moe.filter(|_| mixture) else {
        let i = c.intermediate_size / t;
        let up = if m.two_matrix_mlp() { i } else { 2 * i };
        linear(up, h, 1, quant, compute, out);
        linear(h, i, 1, quant, compute, out);
        if c.mlp_bias || m.two_matrix_mlp() {
            out.push(bytes(u128::from(up + h), compute));
        }
        return;
    };
    let i = moe.expert_intermediate / t;
    linear(2 * i, h, moe.experts, quant, compute, out);
    linear(h, i, moe.experts, quant, compute, out);
    out.push(bytes(u128::from(moe.experts * h), compute));
    if moe.shared_intermediate > 0 {
        let si = moe.shared_intermediate / t;
        linear(2 * si, h, 1, quant, compute, out);
        linear(h, si, 1, quant, compute, out);
    }
    if moe.shared_expert_gate {
        out.push(bytes(u128::from(h), compute));
    }
    if moe.router_bias {
        out.push(bytes(u128::from(moe.experts), Dtype::Fp32));
    }
}

/// The vision tower on the first stage: its matrices split over the ranks, the rest whole.
fn vision_held(v: &super::model::Vision, t: u64, compute: Dtype) -> u64 {
    let (h, i) = (v.hidden, v.intermediate);
    let mlp = if v.gated { 3 * h * i } else { 2 * h * i };
    let layer = [3 * h * h / t, h * h / t, mlp / t];
    let mut total: u64 = 0;
    for _ in 0..v.layers {
        total += layer
            .iter()
            .map(|n| block_bytes(bytes(u128::from(*n), compute)))
            .sum::<u64>();
    }
    total + bytes(v.small_params, compute) + bytes(v.projector_params, compute)
}

/// Whether `m`'s decoder layers are all of one kind (no vision tower in it): its KV layers.
pub fn kv_layers(m: &EngineModel, rank: Rank) -> Vec<LayerKind> {
    let per_stage = stage_layers(m.text.layers, rank.stages);
    let start: u64 = per_stage[..rank.stage as usize].iter().sum();
    let n = per_stage[rank.stage as usize];
    m.layer_kinds[start as usize..(start + n) as usize].to_vec()
}

/// The architecture's name for a note.
pub fn architecture_name(a: Architecture) -> &'static str {
    a.class_name()
}
