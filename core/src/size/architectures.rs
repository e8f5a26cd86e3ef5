//! The architectures gpu-share can size, by the names config.json gives them (`architectures[0]`,
//! else `model_type`), with the facts of each that its config.json does not spell out: where the
//! biases are, how many norms a layer has, which fields have which default. Each fact is that of
//! the architecture's modelling code in Hugging Face transformers (`models/<type>/modeling_*.py`
//! and `configuration_*.py`); the checkpoints' published parameter counts check them
//! (`tests.rs`).

/// A model family with one parameter-count rule (`parameters.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Architecture {
    Llama,
    Mistral,
    Mixtral,
    Qwen2,
    Qwen2Moe,
    Qwen3,
    Qwen3Moe,
    Gemma,
    Gemma2,
    Phi3,
    GptNeoX,
    DeepseekV2,
    DeepseekV3,
    /// IBM Granite 3.x: Llama's shapes, with multipliers that change no parameter.
    Granite,
    /// Gemma 3's text model (`gemma3_text`): Gemma 2's four norms per layer with Qwen3's q/k norms.
    Gemma3Text,
}

/// Each architecture's class name (`architectures[0]`) and `model_type`.
const NAMES: [(Architecture, &str, &str); 15] = [
    (Architecture::Llama, "LlamaForCausalLM", "llama"),
    (Architecture::Mistral, "MistralForCausalLM", "mistral"),
    (Architecture::Mixtral, "MixtralForCausalLM", "mixtral"),
    (Architecture::Qwen2, "Qwen2ForCausalLM", "qwen2"),
    (Architecture::Qwen2Moe, "Qwen2MoeForCausalLM", "qwen2_moe"),
    (Architecture::Qwen3, "Qwen3ForCausalLM", "qwen3"),
    (Architecture::Qwen3Moe, "Qwen3MoeForCausalLM", "qwen3_moe"),
    (Architecture::Gemma, "GemmaForCausalLM", "gemma"),
    (Architecture::Gemma2, "Gemma2ForCausalLM", "gemma2"),
    (Architecture::Phi3, "Phi3ForCausalLM", "phi3"),
    (Architecture::GptNeoX, "GPTNeoXForCausalLM", "gpt_neox"),
    (
        Architecture::DeepseekV2,
        "DeepseekV2ForCausalLM",
        "deepseek_v2",
    ),
    (
        Architecture::DeepseekV3,
        "DeepseekV3ForCausalLM",
        "deepseek_v3",
    ),
    (Architecture::Granite, "GraniteForCausalLM", "granite"),
    (Architecture::Gemma3Text, "Gemma3ForCausalLM", "gemma3_text"),
];

/// How the model's MLP is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Separate q, k, v, o projections and a gated MLP (gate, up, down), RMSNorm.
    Decoder,
    /// Fused `qkv_proj` and `gate_up_proj` (Phi-3); the same shapes as [`Family::Decoder`].
    Fused,
    /// GPT-NeoX: fused `query_key_value`, a two-matrix MLP, LayerNorms with biases, biases
    /// throughout.
    NeoX,
    /// DeepSeek's multi-head latent attention (MLA) with shared and routed experts.
    Deepseek,
}

impl Architecture {
    /// The class name config.json's `architectures` lists (`LlamaForCausalLM`).
    pub fn class_name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(a, _, _)| *a == self)
            .map_or("", |n| n.1)
    }

    /// Its `model_type` (`llama`, `qwen2_moe`).
    pub fn model_type(self) -> &'static str {
        NAMES
            .iter()
            .find(|(a, _, _)| *a == self)
            .map_or("", |n| n.2)
    }

    /// The architecture of a class name (`architectures[0]`), exactly as transformers spells it.
    pub fn from_class_name(name: &str) -> Option<Architecture> {
        NAMES.iter().find(|(_, c, _)| *c == name).map(|n| n.0)
    }

    /// The architecture of a `model_type` (`llama`).
    pub fn from_model_type(model_type: &str) -> Option<Architecture> {
        NAMES.iter().find(|(_, _, t)| *t == model_type).map(|n| n.0)
    }

    /// Every class name gpu-share sizes, for errors about the others.
    pub fn known() -> Vec<&'static str> {
        NAMES.iter().map(|n| n.1).collect()
    }

    pub fn family(self) -> Family {
        match self {
            Architecture::Phi3 => Family::Fused,
            Architecture::GptNeoX => Family::NeoX,
            Architecture::DeepseekV2 | Architecture::DeepseekV3 => Family::Deepseek,
            _ => Family::Decoder,
        }
    }

    /// Whether `tie_word_embeddings` is on when config.json leaves it out (the config class's
    /// default: true for Gemma and Gemma 2, false for the others).
    pub fn ties_embeddings_by_default(self) -> bool {
        matches!(
            self,
            Architecture::Gemma | Architecture::Gemma2 | Architecture::Gemma3Text
        )
    }

    /// Whether q, k and v always have biases, whatever `attention_bias` says (Qwen2 and
    /// Qwen2-MoE: `bias=True` on q/k/v, none on o).
    pub fn has_qkv_bias(self) -> bool {
        matches!(self, Architecture::Qwen2 | Architecture::Qwen2Moe)
    }

    /// Whether `attention_bias` (when true) adds biases to q, k, v and o: the architectures whose
    /// projections take `bias=config.attention_bias` (GPT-NeoX's default is true, the others'
    /// false; Mistral, Mixtral and Phi-3 have no such field and no biases).
    pub fn reads_attention_bias(self) -> bool {
        matches!(
            self,
            Architecture::Llama
                | Architecture::Qwen3
                | Architecture::Qwen3Moe
                | Architecture::Gemma
                | Architecture::Gemma2
                | Architecture::Gemma3Text
                | Architecture::Granite
                | Architecture::GptNeoX
                | Architecture::DeepseekV2
                | Architecture::DeepseekV3
        )
    }

    /// `attention_bias` when config.json leaves it out.
    pub fn attention_bias_default(self) -> bool {
        self == Architecture::GptNeoX
    }

    /// Whether `mlp_bias` adds biases to the MLP's three matrices (Llama only).
    pub fn reads_mlp_bias(self) -> bool {
        matches!(self, Architecture::Llama | Architecture::Granite)
    }

    /// RMSNorms per layer: two (before attention and before the MLP), four for Gemma 2 (also
    /// after each). GPT-NeoX's two LayerNorms also have biases.
    pub fn norms_per_layer(self) -> u64 {
        if matches!(self, Architecture::Gemma2 | Architecture::Gemma3Text) {
            4
        } else {
            2
        }
    }

    /// Whether each layer normalises queries and keys over the head dimension (`q_norm`,
    /// `k_norm`: Qwen3 and Qwen3-MoE).
    pub fn has_qk_norm(self) -> bool {
        matches!(
            self,
            Architecture::Qwen3 | Architecture::Qwen3Moe | Architecture::Gemma3Text
        )
    }

    /// Whether config.json must give `head_dim` (Gemma's, Gemma 2's and Qwen3's differ from
    /// hidden size / heads, and their config classes default to a constant, not the quotient),
    /// may give it (else hidden size / heads), or has none (always hidden size / heads).
    pub fn head_dim_field(self) -> HeadDim {
        match self {
            Architecture::Gemma
            | Architecture::Gemma2
            | Architecture::Gemma3Text
            | Architecture::Qwen3
            | Architecture::Qwen3Moe => HeadDim::Required,
            Architecture::Llama
            | Architecture::Granite
            | Architecture::Mistral
            | Architecture::Mixtral
            | Architecture::Qwen2
            | Architecture::Qwen2Moe => HeadDim::Optional,
            _ => HeadDim::Quotient,
        }
    }

    /// Whether attention has separate key/value heads (`num_key_value_heads`); GPT-NeoX has one
    /// per attention head.
    pub fn has_kv_heads(self) -> bool {
        self != Architecture::GptNeoX
    }
}

/// Where a layer's head dimension comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadDim {
    Required,
    Optional,
    Quotient,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for (a, class, model_type) in NAMES {
            assert_eq!(Architecture::from_class_name(class), Some(a));
            assert_eq!(Architecture::from_model_type(model_type), Some(a));
            assert_eq!(a.class_name(), class);
        }
        assert_eq!(Architecture::from_class_name("llamaforcausallm"), None);
        assert_eq!(Architecture::known().len(), NAMES.len());
    }
}
