//! The KV cache as vLLM 0.19 sizes and reports it (`v1/core/kv_cache_utils.py`,
//! `v1/kv_cache_interface.py`).
//!
//! - **Per token and layer** (`AttentionSpec.page_size_bytes`): 2 × KV heads on the rank × head
//!   dimension × the cache dtype's bytes, KV heads `max(1, heads / TP)` (`get_num_kv_heads`);
//!   MLA one latent and one RoPE key, `(kv_lora_rank + qk_rope_head_dim)` × bytes, not split.
//!   A block holds 16 tokens (`CacheConfig` default; the H100 start-ups of MLA models log 16 too).
//! - **Groups** (`_get_kv_cache_groups_uniform_page_size`): layers of one kind make one group;
//!   with full and sliding-window layers, each kind is cut into groups of the smaller kind's
//!   count (the larger's, if under 1.25 times it), the last padded. Every block holds one page
//!   of one layer of each group, so the blocks are the KV memory `// (page × group size)`
//!   (`get_kv_cache_config_from_groups`), and the tokens logged are `blocks // groups × 16`
//!   (`_report_kv_cache_config`).
//! - **Concurrency** (same report): the blocks over what one `max_model_len` request needs: per
//!   full group `ceil(len / 16)`, per sliding group `ceil(min(window − 1 + batched tokens, len)
//!   / 16) + 1`.
//! - **One request must fit** (`_check_enough_kv_cache_memory`): the sum over layers of each
//!   layer's `max_memory_usage_bytes` at `max_model_len` must not exceed the KV memory.

use super::super::config::ModelConfig;
use super::super::dtype::Dtype;
use super::model::LayerKind;

/// Tokens per block.
pub const BLOCK_SIZE: u64 = 16;

/// The KV cache of one rank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KvLayout {
    /// Bytes of one layer's block.
    pub page_bytes: u64,
    /// Layers per group, and the groups.
    pub group_size: u64,
    /// Each group's kind.
    pub groups: Vec<LayerKind>,
}

/// Bytes one token takes in one layer on a rank of `tp`.
pub fn bytes_per_token(c: &ModelConfig, kind: LayerKind, kv: Dtype, tp: u64) -> u64 {
    let b = u64::from(kv.bits()) / 8;
    match (kind, c.mla) {
        (LayerKind::Latent, Some(m)) => (m.kv_lora_rank + m.qk_rope_head_dim) * b,
        _ => 2 * (c.kv_heads / tp).max(1) * c.head_dim * b,
    }
}

/// The groups of `layers`.
pub fn layout(c: &ModelConfig, layers: &[LayerKind], kv: Dtype, tp: u64) -> KvLayout {
    let Some(&first) = layers.first() else {
        return KvLayout::default();
    };
    let page_bytes = BLOCK_SIZE * bytes_per_token(c, first, kv, tp);
    let mut kinds: Vec<(LayerKind, u64)> = Vec::new();
    for &k in layers {
        match kinds.iter_mut().find(|(kind, _)| *kind == k) {
            Some((_, n)) => *n += 1,
            None => kinds.push((k, 1)),
        }
    }
    let min = kinds.iter().map(|k| k.1).min().unwrap_or(1);
    let max = kinds.iter().map(|k| k.1).max().unwrap_or(1);
    let group_size = if kinds.len() == 1 || 4 * max < 5 * min {
        max
    } else {
        min
    };
    let mut groups = Vec::new();
    for (kind, n) in kinds {
        for _ in 0..n.div_ceil(group_size) {
            groups.push(kind);
        }
    }
    KvLayout {
        page_bytes,
        group_size,
        groups,
    }
}

impl KvLayout {
    /// Blocks in `kv_bytes` of memory.
    pub fn blocks(&self, kv_bytes: u64) -> u64 {
        let per = self.page_bytes * self.group_size;
        kv_bytes.checked_div(per).unwrap_or(0)
    }

    /// The tokens vLLM logs for `blocks`.
    pub fn tokens(&self, blocks: u64) -> u64 {
        let groups = self.groups.len().max(1) as u64;
        blocks / groups * BLOCK_SIZE
    }

    /// Blocks one request of `len` tokens needs, over all groups.
    pub fn blocks_per_request(&self, len: u64, batched_tokens: u64) -> u64 {
        self.groups
            .iter()
            .map(|k| blocks_for(*k, len, batched_tokens))
            .sum()
    }

    /// `max_memory_usage_bytes` summed over `layers`: what one request of `len` tokens needs.
    pub fn one_request_bytes(&self, layers: &[LayerKind], len: u64, batched_tokens: u64) -> u64 {
        layers
            .iter()
            .map(|k| blocks_for(*k, len, batched_tokens) * self.page_bytes)
            .sum()
    }
}

fn blocks_for(kind: LayerKind, len: u64, batched_tokens: u64) -> u64 {
    match kind {
        LayerKind::Sliding(w) => {
            (w.max(1) - 1 + batched_tokens)
                .min(len)
                .div_ceil(BLOCK_SIZE)
                + 1
        }
        _ => len.div_ceil(BLOCK_SIZE),
    }
}
