//! The model as vLLM builds it, read from a config.json: the text model's shapes
//! ([`ModelConfig`]), each layer's attention kind (full, sliding window, latent), the weights'
//! quantization as vLLM's quantization methods store it, the rotary caches vLLM registers, and a
//! multimodal model's vision tower.
//!
//! Multimodal configs nest the text model in `text_config`: the architectures known here are
//! Gemma 3 (`Gemma3ForConditionalGeneration`, a SigLIP tower), Mistral 3
//! (`Mistral3ForConditionalGeneration`, Pixtral), LLaVA-NeXT (`LlavaNextForConditionalGeneration`,
//! as Granite Vision uses it) and Kimi-VL (`KimiVLForConditionalGeneration`, MoonViT). Keys the
//! nested config leaves out take the defaults of its transformers config class (Gemma 3's
//! `Gemma3TextConfig`: vocabulary 262,208, 8 heads, 4 KV heads, head dimension 256, 131,072
//! positions, a sliding window on five layers of six).

use super::super::architectures::{Architecture, Family};
use super::super::config::{from_map, ModelConfig};
use super::super::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use serde_json::{Map, Value};

/// How one decoder layer attends, as vLLM's KV cache spec for it (`v1/kv_cache_interface.py`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerKind {
    /// `FullAttentionSpec`: every token of the sequence.
    Full,
    /// `SlidingWindowSpec` with this window.
    Sliding(u64),
    /// `MLAAttentionSpec`: one latent and one RoPE key per token, shared by the heads.
    Latent,
}

/// How vLLM stores the weights of the linear layers (embeddings, `lm_head`, norms and routers
/// stay in the compute dtype under every method here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quant {
    None,
    /// fp8 weights with one float32 scale per tensor (`fp8`, online or a checkpoint), or per
    /// block of `block` weights (DeepSeek-V3's `weight_block_size`).
    Fp8 {
        block: Option<u64>,
    },
    /// 8-bit weights (int8 or fp8) with one float32 scale per output channel
    /// (compressed-tensors `strategy: channel`; `compressed_tensors_w8a8_int8.py`,
    /// `compressed_tensors_w8a8_fp8.py`).
    Channel8,
    /// GPTQ (`gptq`, run as `gptq_marlin`): int32-packed int4/int8 `qweight`, a compute-dtype
    /// scale and a packed zero point per group, `g_idx` (and Marlin's sort indices) with
    /// `desc_act` (`gptq_marlin.py` `create_weights`).
    Gptq {
        bits: u32,
        group: Option<u64>,
        desc_act: bool,
    },
    /// AWQ: packed `qweight`, `qzeros` and compute-dtype scales per group.
    Awq {
        bits: u32,
        group: Option<u64>,
    },
    /// compressed-tensors' packed int4/int8 weights (`pack-quantized`, wNa16) with a
    /// compute-dtype scale per group.
    Packed {
        bits: u32,
        group: Option<u64>,
    },
}

/// One rotary embedding cache: `positions × rotary_dim` numbers in the compute dtype
/// (`rotary_embedding` `_compute_cos_sin_cache`; `get_rope` keeps one per distinct setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RopeCache {
    pub positions: u64,
    pub rotary_dim: u64,
}

/// A vision tower: its ViT layers and the projector into the text model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vision {
    /// The tower's name for the user (`SigLIP`, `Pixtral`, `MoonViT`).
    pub name: &'static str,
    pub layers: u64,
    pub hidden: u64,
    pub intermediate: u64,
    /// Whether the MLP is gated (three matrices, Pixtral) rather than two (SigLIP, MoonViT).
    pub gated: bool,
    /// Patch and position embeddings, norms and biases: kept whole on every rank.
    pub small_params: u128,
    /// The projector's matrices into the text model.
    pub projector_params: u128,
}

/// A model as vLLM loads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineModel {
    pub text: ModelConfig,
    pub layer_kinds: Vec<LayerKind>,
    pub quant: Quant,
    /// The quantization method's name as vLLM logs it (`compressed-tensors`, `gptq_marlin`).
    pub quant_name: Option<String>,
    pub rope: Vec<RopeCache>,
    pub vision: Option<Vision>,
    /// The class name in `architectures`, multimodal or not.
    pub class_name: String,
}

/// The multimodal classes known, each with its vision tower's kind.
const MULTIMODAL: [(&str, &str); 4] = [
    ("Gemma3ForConditionalGeneration", "SigLIP"),
    ("Mistral3ForConditionalGeneration", "Pixtral"),
    ("LlavaNextForConditionalGeneration", "SigLIP"),
    ("KimiVLForConditionalGeneration", "MoonViT"),
];

/// `Gemma3TextConfig`'s defaults (transformers `configuration_gemma3.py`), which Gemma 3's
/// published configs rely on.
const GEMMA3_TEXT_DEFAULTS: [(&str, u64); 7] = [
    ("vocab_size", 262_208),
    ("num_attention_heads", 8),
    ("num_key_value_heads", 4),
    ("head_dim", 256),
    ("max_position_embeddings", 131_072),
    ("sliding_window_pattern", 6),
    ("query_pre_attn_scalar", 256),
];

/// Reads a config.json as vLLM would build the model.
///
/// # Errors
/// As [`super::super::read_config`] (fields of a nested text model named `text_config.…`), and
/// a quantization method vLLM's loader here does not read, naming `quantization_config`.
pub fn read(text: &str) -> Result<EngineModel> {
    if text.len() > super::super::MAX_CONFIG_BYTES {
        return Err(
            Error::new(ErrorKind::TooLarge, "the config.json is too large").in_field("config"),
        );
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        Error::new(ErrorKind::Syntax, format!("not a JSON config.json: {e}")).in_field("config")
    })?;
    let Value::Object(top) = value else {
        return Err(
            Error::new(ErrorKind::Syntax, "a config.json is a JSON object").in_field("config"),
        );
    };
    let class_name = first_class(&top).unwrap_or_default();
    let multimodal = MULTIMODAL.iter().find(|(c, _)| *c == class_name);
    let (text_map, vision) = match multimodal {
        Some((_, tower)) => {
            let text_map = nested_text(&top)?;
            let vision = vision(&top, tower, &text_map)?;
            (text_map, Some(vision))
        }
        None => (top.clone(), None),
    };
    let prefix = if multimodal.is_some() {
        "config.text_config"
    } else {
        "config"
    };
    let config = from_map(&text_map).map_err(|e| e.in_field(prefix))?;
    let (quant, quant_name) = quant(&top)?;
    Ok(EngineModel {
        layer_kinds: layer_kinds(&config, &text_map),
        rope: rope(&config, &text_map),
        text: config,
        quant,
        quant_name,
        vision,
        class_name,
    })
}

fn first_class(map: &Map<String, Value>) -> Option<String> {
    map.get("architectures")?
        .as_array()?
        .first()?
        .as_str()
        .map(str::to_string)
}

/// `text_config`, with its class's defaults and the top level's dtype.
fn nested_text(top: &Map<String, Value>) -> Result<Map<String, Value>> {
    let Some(Value::Object(inner)) = top.get("text_config") else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "missing: a multimodal config's text model (text_config)",
        )
        .in_field("config.text_config"));
    };
    let mut map = inner.clone();
    if map.get("model_type").and_then(Value::as_str) == Some("gemma3_text") {
        for (key, value) in GEMMA3_TEXT_DEFAULTS {
            map.entry(key).or_insert(Value::from(value));
        }
    }
    for key in ["torch_dtype", "dtype", "quantization_config"] {
        if let Some(v) = top.get(key) {
            map.entry(key).or_insert(v.clone());
        }
    }
    // The nested config names no class; its model_type does.
    map.remove("architectures");
    Ok(map)
}

fn count(map: &Map<String, Value>, key: &str) -> Option<u64> {
    map.get(key).and_then(Value::as_u64)
}

/// The vision tower from `vision_config`, with its vLLM class's shapes.
fn vision(
    top: &Map<String, Value>,
    tower: &'static str,
    text: &Map<String, Value>,
) -> Result<Vision> {
    let Some(Value::Object(v)) = top.get("vision_config") else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "missing: the vision tower (vision_config)",
        )
        .in_field("config.vision_config"));
    };
    let need = |key: &str| {
        count(v, key).ok_or_else(|| {
            Error::new(
                ErrorKind::Syntax,
                format!("missing: the vision tower's {key}"),
            )
            .in_field(format!("config.vision_config.{key}"))
        })
    };
    let hidden = need("hidden_size")?;
    let intermediate = need("intermediate_size")?;
    let layers = count(v, "num_hidden_layers").unwrap_or(27);
    let patch = count(v, "patch_size").unwrap_or(14);
    let channels = count(v, "num_channels").unwrap_or(3);
    let text_hidden = count(text, "hidden_size").unwrap_or(0);
    let (h, i, th) = (
        u128::from(hidden),
        u128::from(intermediate),
        u128::from(text_hidden),
    );
    let patch_embed = u128::from(channels * patch * patch) * h;
    let (small, projector, gated) = match tower {
        // SigLIP (Gemma 3, LLaVA-NeXT): learned positions for every patch, LayerNorms with
        // biases, biases on every matrix, a final LayerNorm.
        "SigLIP" => {
            let side = count(v, "image_size").unwrap_or(384) / patch;
            let positions = u128::from(side * side) * h;
            let per_layer = 4 * h + 4 * h + 3 * h + h + i + h;
            let small = patch_embed + h + positions + u128::from(layers) * per_layer + 2 * h;
            let projector = if top.contains_key("mm_tokens_per_image") {
                // Gemma 3: one vision → text matrix and a norm.
                h * th + h
            } else {
                // LLaVA-NeXT: two layers from the concatenated feature layers, and image_newline.
                let feature_layers = top
                    .get("vision_feature_layer")
                    .and_then(Value::as_array)
                    .map_or(1, |l| l.len() as u128);
                feature_layers * h * th + th + th * th + th + th
            };
            (small, projector, false)
        }
        // Pixtral (Mistral 3): RMSNorms, no biases, a gated MLP; a 2×2 patch merger and two
        // projector layers.
        "Pixtral" => {
            let small = patch_embed + h + u128::from(layers) * 2 * h;
            let merge = u128::from(count(top, "spatial_merge_size").unwrap_or(2));
            (small, h + merge * merge * h * h + h * th + th * th, true)
        }
        // MoonViT (Kimi-VL): SigLIP-like layers with learned 64×64 positions; a 2×2 merge into a
        // LayerNorm and two projector layers.
        _ => {
            let per_layer = 4 * h + 4 * h + 3 * h + h + i + h;
            let small = patch_embed + h + 64 * 64 * h + u128::from(layers) * per_layer + 2 * h;
            let merged = 4 * h;
            (
                small,
                2 * merged + merged * merged + merged + merged * th + th,
                false,
            )
        }
    };
    Ok(Vision {
        name: tower,
        layers,
        hidden,
        intermediate,
        gated,
        small_params: small,
        projector_params: projector,
    })
}

/// Each decoder layer's attention: `layer_types` where the config lists them; Gemma 2 slides on
/// even layers (vLLM `gemma2.py`); Gemma 3 on all but every `sliding_window_pattern`-th
/// (`gemma3.py`); a model with a window used everywhere (Mistral-7B-v0.1) slides on all; MLA
/// models cache a latent.
fn layer_kinds(c: &ModelConfig, map: &Map<String, Value>) -> Vec<LayerKind> {
    let n = c.layers as usize;
    if c.mla.is_some() {
        return vec![LayerKind::Latent; n];
    }
    let window = map.get("sliding_window").and_then(Value::as_u64);
    if let (Some(w), Some(Value::Array(types))) = (window, map.get("layer_types")) {
        if types.len() == n {
            return types
                .iter()
                .map(|t| match t.as_str() {
                    Some("sliding_attention") => LayerKind::Sliding(w),
                    _ => LayerKind::Full,
                })
                .collect();
        }
    }
    match (c.architecture, window) {
        (Architecture::Gemma2, Some(w)) => (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    LayerKind::Sliding(w)
                } else {
                    LayerKind::Full
                }
            })
            .collect(),
        (Architecture::Gemma3Text, Some(w)) => {
            let pattern = count(map, "sliding_window_pattern").unwrap_or(6).max(1) as usize;
            (0..n)
                .map(|i| {
                    if (i + 1) % pattern == 0 {
                        LayerKind::Full
                    } else {
                        LayerKind::Sliding(w)
                    }
                })
                .collect()
        }
        _ => match c.sliding_window {
            Some(w) if c.max_position_embeddings.is_none_or(|m| w < m) => {
                vec![LayerKind::Sliding(w); n]
            }
            _ => vec![LayerKind::Full; n],
        },
    }
}

/// The rotary caches: one per distinct setting, `max_position_embeddings` rows (linear and
/// dynamic scaling: times the factor; YaRN: the original positions times the factor), the
/// head (DeepSeek: RoPE) dimension wide. Gemma 3 keeps a second, unscaled one for its local
/// layers (`rope_local_base_freq`).
fn rope(c: &ModelConfig, map: &Map<String, Value>) -> Vec<RopeCache> {
    let positions = c.max_position_embeddings.unwrap_or(0);
    let rotary_dim = c.mla.map_or(c.head_dim, |m| m.qk_rope_head_dim);
    let scaling = map.get("rope_scaling").and_then(Value::as_object);
    let kind = scaling
        .and_then(|s| s.get("rope_type").or_else(|| s.get("type")))
        .and_then(Value::as_str)
        .unwrap_or("default");
    let factor = scaling
        .and_then(|s| s.get("factor"))
        .and_then(Value::as_f64)
        .filter(|f| *f >= 1.0 && *f <= 1024.0)
        .map_or(1, |f| f.ceil() as u64);
    let scaled = match kind {
        "linear" | "dynamic" => positions * factor,
        "yarn" | "deepseek_yarn" => scaling
            .and_then(|s| s.get("original_max_position_embeddings"))
            .and_then(Value::as_u64)
            .map_or(positions, |o| o * factor),
        _ => positions,
    };
    let mut caches = vec![RopeCache {
        positions: scaled,
        rotary_dim,
    }];
    if c.architecture == Architecture::Gemma3Text && scaled != positions {
        caches.push(RopeCache {
            positions,
            rotary_dim,
        });
    }
    caches
}

/// The quantization of the linear layers, from `quantization_config`.
fn quant(top: &Map<String, Value>) -> Result<(Quant, Option<String>)> {
    let q = match top.get("quantization_config") {
        Some(Value::Object(q)) => q,
        _ => return Ok((Quant::None, None)),
    };
    let method = q.get("quant_method").and_then(Value::as_str).unwrap_or("");
    let group = |key: &str| match q.get(key).and_then(Value::as_i64) {
        Some(g) if g > 0 => Some(g as u64),
        Some(_) => None,
        None => Some(128),
    };
    let bits = |key: &str| q.get(key).and_then(Value::as_u64).unwrap_or(4) as u32;
    let out = match method {
        "fp8" => Quant::Fp8 {
            block: q
                .get("weight_block_size")
                .and_then(Value::as_array)
                .and_then(|b| Some(b.first()?.as_u64()? * b.get(1)?.as_u64()?)),
        },
        "gptq" => Quant::Gptq {
            bits: bits("bits"),
            group: group("group_size"),
            desc_act: q.get("desc_act").and_then(Value::as_bool).unwrap_or(false),
        },
        "awq" => Quant::Awq { bits: bits("bits").max(bits("w_bit")), group: group("group_size") },
        "compressed-tensors" => compressed_tensors(q)?,
        other => {
            return Err(Error::new(
                ErrorKind::UnknownModel,
                format!("the weights are quantized with {other:?}, whose layout this engine model does not read; known: fp8, gptq, awq, compressed-tensors"),
            )
            .in_field("config.quantization_config.quant_method"))
        }
    };
    let name = match out {
        Quant::Gptq { .. } => "gptq_marlin",
        Quant::Awq { .. } => "awq_marlin",
        _ => method,
    };
    Ok((out, Some(name.to_string())))
}

/// compressed-tensors' first config group: 8-bit weights per channel or tensor, or packed
/// 4/8-bit weights per group.
fn compressed_tensors(q: &Map<String, Value>) -> Result<Quant> {
    let weights = q
        .get("config_groups")
        .and_then(Value::as_object)
        .and_then(|g| g.values().next())
        .and_then(|g| g.get("weights"))
        .and_then(Value::as_object);
    let Some(w) = weights else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "missing: the quantized weights' scheme (config_groups.*.weights)",
        )
        .in_field("config.quantization_config.config_groups"));
    };
    let bits = w.get("num_bits").and_then(Value::as_u64).unwrap_or(8) as u32;
    let strategy = w
        .get("strategy")
        .and_then(Value::as_str)
        .unwrap_or("tensor");
    let kind = w.get("type").and_then(Value::as_str).unwrap_or("int");
    let group = w
        .get("group_size")
        .and_then(Value::as_u64)
        .filter(|g| *g > 0);
    Ok(match (bits, strategy, kind) {
        (8, "channel", _) => Quant::Channel8,
        (8, "tensor", "float") => Quant::Fp8 { block: None },
        (8, "block", "float") => Quant::Fp8 { block: Some(128 * 128) },
        (4 | 8, "group" | "channel", "int") => Quant::Packed { bits, group: if strategy == "group" { group.or(Some(128)) } else { None } },
        _ => {
            return Err(Error::new(
                ErrorKind::UnknownModel,
                format!("compressed-tensors weights of {bits} bits, {kind}, per {strategy}: a scheme this engine model does not read"),
            )
            .in_field("config.quantization_config.config_groups"))
        }
    })
}

impl EngineModel {
    /// The dtype the model computes in: given (`--dtype`), else the config's; a float32 config
    /// runs in bf16 (vLLM's `--dtype auto` takes the platform's first supported dtype for
    /// float32 weights, `config/model.py` `_resolve_auto_dtype`).
    pub fn compute_dtype(&self, given: Option<Dtype>) -> Result<Dtype> {
        match given.or(self.text.torch_dtype) {
            Some(Dtype::Fp32) if given.is_none() => Ok(Dtype::Bf16),
            Some(d) if d.is_compute() => Ok(d),
            Some(d) => Err(Error::new(
                ErrorKind::OutOfRange,
                format!(
                    "{} is not a dtype vLLM computes in: give bf16, fp16 or fp32",
                    d.name()
                ),
            )
            .in_field("dtype")),
            None => Ok(Dtype::Bf16),
        }
    }

    /// Whether the text model's MLP is GPT-NeoX's two matrices rather than a gated three.
    pub fn two_matrix_mlp(&self) -> bool {
        self.text.architecture.family() == Family::NeoX
    }
}
