//! A Hugging Face `config.json` read into a typed, checked [`ModelConfig`]: the architecture and
//! every shape its parameter count and KV cache need. A shape field that is missing, not a whole
//! number or beyond its limit is an error naming it; flags take their config class's default.

use super::architectures::{Architecture, Family, HeadDim};
use super::dtype::Dtype;
use super::fields::Fields;
use super::quantization::{self, Quantization};
use crate::error::{Error, ErrorKind, Result};
use serde_json::{Map, Value};

/// The longest config.json read: real ones are a few kilobytes (tens with a quantizer's module
/// lists).
pub const MAX_CONFIG_BYTES: usize = 4 << 20;

/// Limits far beyond any published model, so that every count stays exact in `u128` and every
/// size below [`MAX_MEMORY`](crate::memory::MAX_MEMORY) is exact in `u64`.
const MAX_DIM: u64 = 1 << 20;
const MAX_LAYERS: u64 = 1 << 12;
const MAX_HEADS: u64 = 1 << 14;
const MAX_VOCAB: u64 = 1 << 24;
const MAX_EXPERTS: u64 = 1 << 14;
const MAX_POSITIONS: u64 = 1 << 40;

/// A model's shapes, as its config.json gives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    pub architecture: Architecture,
    pub vocab_size: u64,
    pub hidden_size: u64,
    /// `num_hidden_layers`: the decoder layers (DeepSeek-V3's multi-token-prediction layers are
    /// not among them: [`ModelConfig::mtp_layers`]).
    pub layers: u64,
    pub attention_heads: u64,
    /// Key/value heads (grouped-query attention); equal to `attention_heads` without grouping.
    pub kv_heads: u64,
    /// The dimension of one attention head (DeepSeek: of the keys' non-RoPE part, unused).
    pub head_dim: u64,
    /// The dense MLP's width (`intermediate_size`), 0 when every layer is a mixture of experts.
    pub intermediate_size: u64,
    pub tie_word_embeddings: bool,
    /// Biases on the attention projections (`attention_bias`, where the architecture reads it).
    pub attention_bias: bool,
    /// Biases on the MLP's matrices (`mlp_bias`, Llama).
    pub mlp_bias: bool,
    pub max_position_embeddings: Option<u64>,
    /// `torch_dtype` (or `dtype`, as newer transformers writes it): what the weights are stored
    /// and computed in.
    pub torch_dtype: Option<Dtype>,
    pub quantization: Option<Quantization>,
    /// An attention window narrower than the context, where the model uses one (on some or all
    /// layers).
    pub sliding_window: Option<u64>,
    pub moe: Option<Moe>,
    pub mla: Option<Mla>,
    /// `num_nextn_predict_layers` (DeepSeek-V3): multi-token-prediction layers beyond
    /// `num_hidden_layers`, which are not counted.
    pub mtp_layers: u64,
    /// `_name_or_path`, as transformers writes it when it saves a model (`meta-llama/Meta-Llama-3-8B`
    /// or a local folder); not a shape, only a name for the ask the model becomes.
    pub name_or_path: Option<String>,
}

/// A mixture of experts: every expert's weights are in memory, whichever ones a token uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moe {
    /// Routed experts per MoE layer.
    pub experts: u64,
    /// Experts each token is routed to.
    pub experts_per_token: u64,
    /// One routed expert's MLP width.
    pub expert_intermediate: u64,
    /// The shared experts' total MLP width (0: none).
    pub shared_intermediate: u64,
    /// A gate scaling the shared expert's output (`shared_expert_gate`, Qwen2-MoE).
    pub shared_expert_gate: bool,
    /// A per-expert bias added to the routing scores (`e_score_correction_bias`, DeepSeek-V3's
    /// `topk_method: noaux_tc`).
    pub router_bias: bool,
    /// How many of the layers are MoE layers; the others have a dense MLP.
    pub moe_layers: u64,
}

/// DeepSeek's multi-head latent attention: keys and values through a low-rank latent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mla {
    /// The queries' low rank (`q_lora_rank`); `None`: a full query projection.
    pub q_lora_rank: Option<u64>,
    pub kv_lora_rank: u64,
    pub qk_nope_head_dim: u64,
    pub qk_rope_head_dim: u64,
    pub v_head_dim: u64,
}

/// Reads config.json text.
///
/// # Errors
/// `TooLarge` beyond [`MAX_CONFIG_BYTES`]; `Syntax` for text that is not a JSON object;
/// `UnknownModel` for an architecture gpu-share does not size (naming it and the known ones);
/// a missing or invalid shape field, named (`num_key_value_heads`).
pub fn read_config(text: &str) -> Result<ModelConfig> {
    if text.len() > MAX_CONFIG_BYTES {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "{} bytes is more than the {MAX_CONFIG_BYTES} a config.json may have",
                text.len()
            ),
        ));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Error::new(ErrorKind::Syntax, format!("not a JSON config.json: {e}")))?;
    let Value::Object(map) = value else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "a config.json is a JSON object",
        ));
    };
    from_map(&map)
}

/// Reads a parsed config.json object.
///
/// # Errors
/// As [`read_config`], without the size and JSON checks.
pub fn from_map(map: &Map<String, Value>) -> Result<ModelConfig> {
    let f = Fields::new(map, "");
    let architecture = architecture(&f)?;
    let hidden_size = f.count("hidden_size", MAX_DIM, "the hidden size")?;
    let attention_heads = f.count("num_attention_heads", MAX_HEADS, "the attention heads")?;
    let layers = f.count("num_hidden_layers", MAX_LAYERS, "the layers")?;
    let vocab_size = f.count("vocab_size", MAX_VOCAB, "the vocabulary")?;
    let kv_heads = kv_heads(&f, architecture, attention_heads)?;
    let head_dim = head_dim(&f, architecture, hidden_size, attention_heads)?;
    let (moe, mla) = match architecture.family() {
        Family::Deepseek => deepseek(&f, architecture, layers)?,
        _ => (moe(&f, architecture, layers)?, None),
    };
    let dense_layers = layers - moe.map_or(0, |m| m.moe_layers);
    let intermediate_size = if dense_layers > 0 {
        f.count("intermediate_size", MAX_DIM, "the MLP's width")?
    } else {
        0
    };
    let attention_bias = architecture.reads_attention_bias()
        && f.flag("attention_bias", architecture.attention_bias_default())?;
    let mlp_bias = architecture.reads_mlp_bias() && f.flag("mlp_bias", false)?;
    Ok(ModelConfig {
        architecture,
        vocab_size,
        hidden_size,
        layers,
        attention_heads,
        kv_heads,
        head_dim,
        intermediate_size,
        tie_word_embeddings: f.flag(
            "tie_word_embeddings",
            architecture.ties_embeddings_by_default(),
        )?,
        attention_bias,
        mlp_bias,
        max_position_embeddings: f.optional_count("max_position_embeddings", MAX_POSITIONS)?,
        torch_dtype: torch_dtype(&f)?,
        quantization: f
            .object("quantization_config")?
            .map(quantization::read)
            .transpose()?,
        sliding_window: sliding_window(&f, architecture),
        moe,
        mla,
        mtp_layers: if architecture == Architecture::DeepseekV3 {
            f.get("num_nextn_predict_layers")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(MAX_LAYERS)
        } else {
            0
        },
        name_or_path: f
            .get("_name_or_path")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// `architectures[0]`, else `model_type`; never a guess.
fn architecture(f: &Fields) -> Result<Architecture> {
    let known = || Architecture::known().join(", ");
    if let Some(list) = f.get("architectures") {
        let first = list
            .as_array()
            .and_then(|l| l.first())
            .and_then(Value::as_str);
        let Some(name) = first else {
            return Err(f.error(
                "architectures",
                ErrorKind::Syntax,
                "must be a list of class names such as [\"LlamaForCausalLM\"]",
            ));
        };
        return Architecture::from_class_name(name).ok_or_else(|| {
            f.error(
                "architectures",
                ErrorKind::UnknownModel,
                format!("gpu-share does not know the architecture {name:?}, so it cannot count its parameters; known: {}", known()),
            )
        });
    }
    match f.text("model_type")? {
        Some(t) => Architecture::from_model_type(t).ok_or_else(|| {
            f.error(
                "model_type",
                ErrorKind::UnknownModel,
                format!("gpu-share does not know the model type {t:?}, so it cannot count its parameters; known: {}", known()),
            )
        }),
        None => Err(f.error(
            "architectures",
            ErrorKind::Syntax,
            "missing: the architecture (architectures, or model_type)",
        )),
    }
}

fn kv_heads(f: &Fields, architecture: Architecture, heads: u64) -> Result<u64> {
    if architecture.family() == Family::Deepseek || !architecture.has_kv_heads() {
        // MLA caches a latent, not heads; GPT-NeoX has a key and a value per attention head.
        return Ok(heads);
    }
    let kv = f.count(
        "num_key_value_heads",
        MAX_HEADS,
        "the key/value heads, which size the attention weights and the KV cache",
    )?;
    if kv > heads || !heads.is_multiple_of(kv) {
        return Err(f.error(
            "num_key_value_heads",
            ErrorKind::OutOfRange,
            format!("must divide num_attention_heads ({heads}), got {kv}"),
        ));
    }
    Ok(kv)
}

fn head_dim(f: &Fields, architecture: Architecture, hidden: u64, heads: u64) -> Result<u64> {
    let quotient = || {
        if hidden.is_multiple_of(heads) {
            Ok(hidden / heads)
        } else {
            Err(f.error(
                "num_attention_heads",
                ErrorKind::OutOfRange,
                format!(
                    "must divide hidden_size ({hidden}) when there is no head_dim, got {heads}"
                ),
            ))
        }
    };
    match architecture.head_dim_field() {
        HeadDim::Required => f.count("head_dim", MAX_DIM, "the dimension of one attention head"),
        HeadDim::Optional => match f.optional_count("head_dim", MAX_DIM)? {
            Some(d) => Ok(d),
            None => quotient(),
        },
        // DeepSeek's heads are given by its MLA fields; this is only a label.
        HeadDim::Quotient if architecture.family() == Family::Deepseek => Ok(hidden / heads),
        HeadDim::Quotient => quotient(),
    }
}

/// Mixtral, Qwen2-MoE and Qwen3-MoE's experts; `None` for dense architectures.
fn moe(f: &Fields, architecture: Architecture, layers: u64) -> Result<Option<Moe>> {
    let (experts_key, width_key) = match architecture {
        Architecture::Mixtral => ("num_local_experts", "intermediate_size"),
        Architecture::Qwen2Moe | Architecture::Qwen3Moe => ("num_experts", "moe_intermediate_size"),
        _ => return Ok(None),
    };
    let experts = f.count(experts_key, MAX_EXPERTS, "the experts per layer")?;
    let experts_per_token = f.count(
        "num_experts_per_tok",
        experts,
        "the experts each token is routed to",
    )?;
    let expert_intermediate = f.count(width_key, MAX_DIM, "one expert's MLP width")?;
    let shared_intermediate = if architecture == Architecture::Qwen2Moe {
        f.count(
            "shared_expert_intermediate_size",
            MAX_DIM,
            "the shared expert's MLP width",
        )?
    } else {
        0
    };
    let moe_layers = if architecture == Architecture::Mixtral {
        layers
    } else {
        // transformers: layer i is sparse unless listed in mlp_only_layers, and when
        // (i + 1) % decoder_sparse_step == 0.
        let step = f
            .optional_count("decoder_sparse_step", MAX_LAYERS)?
            .unwrap_or(1);
        let dense_only = f.indices("mlp_only_layers", layers)?;
        (0..layers)
            .filter(|i| !dense_only.contains(i) && (i + 1).is_multiple_of(step))
            .count() as u64
    };
    Ok(Some(Moe {
        experts,
        experts_per_token,
        expert_intermediate,
        shared_intermediate,
        shared_expert_gate: architecture == Architecture::Qwen2Moe,
        router_bias: false,
        moe_layers,
    }))
}

/// DeepSeek-V2/V3's MLA fields and experts.
fn deepseek(
    f: &Fields,
    architecture: Architecture,
    layers: u64,
) -> Result<(Option<Moe>, Option<Mla>)> {
    let mla = Mla {
        q_lora_rank: f.optional_count("q_lora_rank", MAX_DIM)?,
        kv_lora_rank: f.count("kv_lora_rank", MAX_DIM, "the keys' and values' latent rank")?,
        qk_nope_head_dim: f.count(
            "qk_nope_head_dim",
            MAX_DIM,
            "the keys' dimension without RoPE",
        )?,
        qk_rope_head_dim: f.count("qk_rope_head_dim", MAX_DIM, "the keys' RoPE dimension")?,
        v_head_dim: f.count("v_head_dim", MAX_DIM, "the values' head dimension")?,
    };
    // modeling_deepseek.py: layer i is MoE when n_routed_experts is set, i >= first_k_dense_replace
    // and i % moe_layer_freq == 0; null experts make every layer dense.
    let Some(experts) = f.optional_count("n_routed_experts", MAX_EXPERTS)? else {
        return Ok((None, Some(mla)));
    };
    let first_dense = f
        .whole("first_k_dense_replace", 0, MAX_LAYERS)?
        .unwrap_or(0);
    let freq = f.optional_count("moe_layer_freq", MAX_LAYERS)?.unwrap_or(1);
    let moe_layers = (0..layers)
        .filter(|i| *i >= first_dense && i.is_multiple_of(freq))
        .count() as u64;
    let expert_intermediate =
        f.count("moe_intermediate_size", MAX_DIM, "one expert's MLP width")?;
    let shared = f.whole("n_shared_experts", 0, MAX_EXPERTS)?.unwrap_or(0);
    let default_method = if architecture == Architecture::DeepseekV3 {
        "noaux_tc"
    } else {
        "greedy"
    };
    let method = f.text("topk_method")?.unwrap_or(default_method);
    let moe = Moe {
        experts,
        experts_per_token: f.count(
            "num_experts_per_tok",
            experts,
            "the experts each token is routed to",
        )?,
        expert_intermediate,
        shared_intermediate: shared * expert_intermediate,
        shared_expert_gate: false,
        router_bias: method == "noaux_tc",
        moe_layers,
    };
    Ok((Some(moe), Some(mla)))
}

fn torch_dtype(f: &Fields) -> Result<Option<Dtype>> {
    let key = if f.get("torch_dtype").is_some() {
        "torch_dtype"
    } else {
        "dtype"
    };
    match f.text(key)? {
        None => Ok(None),
        Some(t) => Dtype::from_torch_dtype(t).map(Some).ok_or_else(|| {
            f.error(
                key,
                ErrorKind::Syntax,
                format!("expected bfloat16, float16 or float32, got {t:?}"),
            )
        }),
    }
}

/// The attention window, where the model uses one: Qwen's only with `use_sliding_window`.
fn sliding_window(f: &Fields, architecture: Architecture) -> Option<u64> {
    let window = f.get("sliding_window").and_then(Value::as_u64)?;
    let qwen = matches!(
        architecture,
        Architecture::Qwen2 | Architecture::Qwen2Moe | Architecture::Qwen3 | Architecture::Qwen3Moe
    );
    let used = !qwen || f.get("use_sliding_window").and_then(Value::as_bool) == Some(true);
    used.then_some(window)
}
