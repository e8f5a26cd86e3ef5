//! The parameter count of a [`ModelConfig`], part by part, from the shapes of its architecture:
//! one rule per family (separate q/k/v/o with a gated MLP, Phi-3's fused projections, GPT-NeoX,
//! DeepSeek's latent attention), each with the embeddings, the attention with grouped-query
//! key/value heads, the MLP or every expert of a mixture, the norms, the biases where the
//! architecture has them, and the output embeddings unless they are tied to the input ones.

use super::architectures::Family;
use super::config::{Mla, ModelConfig, Moe};
use super::text::{grouped, plural};

/// How a part is stored when the weights are quantized: quantizers (GPTQ, AWQ, fp8) convert
/// the layers' weight matrices and keep the rest in the dtype the model computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartClass {
    /// Input or output embeddings (GPTQ and AWQ leave `lm_head` and the embeddings unquantized).
    Embedding,
    /// A layer's weight matrices: attention, MLP, experts.
    Matrix,
    /// Norms, biases and routers: small, and kept unquantized.
    Small,
}

/// One part of the model's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub name: &'static str,
    pub parameters: u128,
    pub class: PartClass,
    /// How the count is made, in the user's words: `32 layers × 41,943,040 (q 4096×4096, …)`.
    pub detail: String,
}

/// The model's parameters, part by part, in a fixed order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParameterCount {
    pub parts: Vec<Part>,
}

impl ParameterCount {
    pub fn total(&self) -> u128 {
        self.parts.iter().map(|p| p.parameters).sum()
    }

    /// The parameters of one class.
    pub fn of(&self, class: PartClass) -> u128 {
        self.parts
            .iter()
            .filter(|p| p.class == class)
            .map(|p| p.parameters)
            .sum()
    }

    fn push(&mut self, name: &'static str, parameters: u128, class: PartClass, detail: String) {
        if parameters > 0 {
            self.parts.push(Part {
                name,
                parameters,
                class,
                detail,
            });
        }
    }
}

/// `layers × each`, with what `each` is.
fn per_layer(layers: u64, each: u128, what: &str) -> String {
    format!(
        "{} × {} ({what})",
        plural(layers, "layer", "layers"),
        grouped(each)
    )
}

/// Counts the parameters of `c`.
pub fn count(c: &ModelConfig) -> ParameterCount {
    let mut out = ParameterCount::default();
    let (h, vocab) = (u128::from(c.hidden_size), u128::from(c.vocab_size));
    out.push(
        "embeddings",
        vocab * h,
        PartClass::Embedding,
        format!("{} tokens × {}", c.vocab_size, c.hidden_size),
    );
    match c.architecture.family() {
        Family::Decoder | Family::Fused => attention(c, &mut out),
        Family::NeoX => neox(c, &mut out),
        Family::Deepseek => latent_attention(c, c.mla.unwrap_or_else(no_mla), &mut out),
    }
    mlp(c, &mut out);
    norms(c, &mut out);
    if !c.tie_word_embeddings {
        out.push(
            "output embeddings",
            vocab * h,
            PartClass::Embedding,
            format!(
                "{} × {} (lm_head, not tied to the embeddings)",
                c.hidden_size, c.vocab_size
            ),
        );
    }
    out
}

/// A config of the DeepSeek family always has its MLA fields (`config.rs`); this only keeps
/// `count` total.
fn no_mla() -> Mla {
    Mla {
        q_lora_rank: None,
        kv_lora_rank: 0,
        qk_nope_head_dim: 0,
        qk_rope_head_dim: 0,
        v_head_dim: 0,
    }
}

/// q, k, v and o (Phi-3: `qkv_proj` and o), with grouped-query key/value heads and biases.
fn attention(c: &ModelConfig, out: &mut ParameterCount) {
    let h = u128::from(c.hidden_size);
    let q = u128::from(c.attention_heads * c.head_dim);
    let kv = u128::from(c.kv_heads * c.head_dim);
    let each = h * q + 2 * h * kv + q * h;
    let what = if c.architecture.family() == Family::Fused {
        format!("fused qkv_proj {h}×{}, o {q}×{h}", q + 2 * kv)
    } else if q == kv {
        format!("q, k, v {h}×{q} each, o {q}×{h}")
    } else {
        format!("q {h}×{q}, k and v {h}×{kv} each, o {q}×{h}")
    };
    let layers = u128::from(c.layers);
    out.push(
        "attention",
        layers * each,
        PartClass::Matrix,
        per_layer(c.layers, each, &what),
    );
    let (bias, which) = if c.architecture.has_qkv_bias() {
        (q + 2 * kv, "q, k and v")
    } else if c.attention_bias {
        (q + 2 * kv + h, "q, k, v and o")
    } else {
        (0, "")
    };
    out.push(
        "attention biases",
        layers * bias,
        PartClass::Small,
        per_layer(c.layers, bias, which),
    );
}

/// GPT-NeoX: `query_key_value` and `dense`, with biases unless `attention_bias` is false.
fn neox(c: &ModelConfig, out: &mut ParameterCount) {
    let h = u128::from(c.hidden_size);
    let layers = u128::from(c.layers);
    let each = h * 3 * h + h * h;
    out.push(
        "attention",
        layers * each,
        PartClass::Matrix,
        per_layer(
            c.layers,
            each,
            &format!("query_key_value {h}×{}, dense {h}×{h}", 3 * h),
        ),
    );
    if c.attention_bias {
        out.push(
            "attention biases",
            layers * 4 * h,
            PartClass::Small,
            per_layer(c.layers, 4 * h, "query_key_value and dense"),
        );
    }
}

/// DeepSeek's multi-head latent attention: queries through `q_lora_rank` (or a full
/// projection), keys and values through the `kv_lora_rank` latent plus one shared RoPE key.
fn latent_attention(c: &ModelConfig, m: Mla, out: &mut ParameterCount) {
    let h = u128::from(c.hidden_size);
    let heads = u128::from(c.attention_heads);
    let qk = u128::from(m.qk_nope_head_dim + m.qk_rope_head_dim);
    let (latent, rope) = (u128::from(m.kv_lora_rank), u128::from(m.qk_rope_head_dim));
    let v = u128::from(m.v_head_dim);
    let (q, q_what) = match m.q_lora_rank.map(u128::from) {
        Some(r) => (h * r + r * heads * qk, format!("q through rank {r}")),
        None => (h * heads * qk, format!("q {h}×{}", heads * qk)),
    };
    let each = q + h * (latent + rope) + latent * heads * (qk - rope + v) + heads * v * h;
    let what = format!(
        "{q_what}, keys and values through a latent of {latent} and a RoPE key of {rope}, o {}×{h}",
        heads * v
    );
    let layers = u128::from(c.layers);
    out.push(
        "attention",
        layers * each,
        PartClass::Matrix,
        per_layer(c.layers, each, &what),
    );
    if c.attention_bias {
        let bias = m.q_lora_rank.map_or(0, u128::from) + latent + rope + h;
        out.push(
            "attention biases",
            layers * bias,
            PartClass::Small,
            per_layer(c.layers, bias, "q_a_proj, kv_a_proj_with_mqa and o"),
        );
    }
}

/// The dense MLP of the layers without experts, then every expert of the others.
fn mlp(c: &ModelConfig, out: &mut ParameterCount) {
    let h = u128::from(c.hidden_size);
    let i = u128::from(c.intermediate_size);
    let moe_layers = c.moe.map_or(0, |m| m.moe_layers);
    let dense_layers = c.layers - moe_layers;
    let (each, what, bias) = match c.architecture.family() {
        Family::NeoX => (
            2 * h * i,
            format!("dense_h_to_4h {h}×{i}, dense_4h_to_h {i}×{h}"),
            i + h,
        ),
        Family::Fused => (
            3 * h * i,
            format!("fused gate_up_proj {h}×{}, down {i}×{h}", 2 * i),
            0,
        ),
        _ => (
            3 * h * i,
            format!("gate, up and down {h}×{i}"),
            if c.mlp_bias { 2 * i + h } else { 0 },
        ),
    };
    let dense = u128::from(dense_layers);
    out.push(
        "MLP",
        dense * each,
        PartClass::Matrix,
        per_layer(dense_layers, each, &what),
    );
    out.push(
        "MLP biases",
        dense * bias,
        PartClass::Small,
        per_layer(dense_layers, bias, "the MLP's matrices"),
    );
    if let Some(m) = c.moe {
        experts(c, m, out);
    }
}

/// Every routed expert, the shared experts and the routers of the MoE layers.
fn experts(c: &ModelConfig, m: Moe, out: &mut ParameterCount) {
    let h = u128::from(c.hidden_size);
    let layers = u128::from(m.moe_layers);
    let (n, ei) = (u128::from(m.experts), u128::from(m.expert_intermediate));
    let expert = 3 * h * ei;
    out.push(
        "experts",
        layers * n * expert,
        PartClass::Matrix,
        format!(
            "{} × {} × {} (gate, up and down {h}×{ei}; {} per token, but all in memory)",
            plural(m.moe_layers, "layer", "layers"),
            plural(m.experts, "expert", "experts"),
            grouped(expert),
            m.experts_per_token
        ),
    );
    let si = u128::from(m.shared_intermediate);
    out.push(
        "shared experts",
        layers * 3 * h * si,
        PartClass::Matrix,
        per_layer(
            m.moe_layers,
            3 * h * si,
            &format!("gate, up and down {h}×{si}"),
        ),
    );
    let gate = if m.shared_expert_gate { h } else { 0 };
    let bias = if m.router_bias { n } else { 0 };
    let router = n * h + gate + bias;
    let mut what = format!("a {h} → {n} router");
    if m.shared_expert_gate {
        what.push_str(", a shared-expert gate");
    }
    if m.router_bias {
        what.push_str(", a routing bias per expert");
    }
    out.push(
        "routers",
        layers * router,
        PartClass::Small,
        per_layer(m.moe_layers, router, &what),
    );
}

/// RMSNorm weights (GPT-NeoX: LayerNorm weights and biases) of every layer and the final one,
/// with Qwen3's q/k norms and DeepSeek's latent norms.
fn norms(c: &ModelConfig, out: &mut ParameterCount) {
    let h = u128::from(c.hidden_size);
    let a = c.architecture;
    let per_norm = if a.family() == Family::NeoX { 2 * h } else { h };
    let mut each = u128::from(a.norms_per_layer()) * per_norm;
    let mut what = format!("{} of {h}", a.norms_per_layer());
    if a.family() == Family::NeoX {
        what.push_str(" with biases");
    }
    if a.has_qk_norm() {
        each += 2 * u128::from(c.head_dim);
        what.push_str(&format!(", q and k norms of {}", c.head_dim));
    }
    if let Some(m) = c.mla {
        let latent = m.q_lora_rank.map_or(0, u128::from) + u128::from(m.kv_lora_rank);
        each += latent;
        what.push_str(", the latents' norms");
    }
    let total = u128::from(c.layers) * each + per_norm;
    out.push(
        "norms",
        total,
        PartClass::Small,
        format!("{} and a final norm", per_layer(c.layers, each, &what)),
    );
}
