//! The size use case: the GPU memory a model needs, from its Hugging Face config.json — its
//! parameters, weights, KV cache and overheads, each explained, the total as the memory of an
//! ask — and, against a budget (bytes, a whole GPU or a MIG instance of the catalogue), whether
//! it fits and the longest context or the most sequences that do.

use crate::caps::DEFAULT_CONTEXT_MIB;
use crate::catalog::{require_model, Certainty};
use crate::error::{Error, ErrorKind, Result};
use crate::memory::{Memory, MAX_MEMORY, MIB};
use crate::size::{self, bytes_text, grouped, plural, Dtype, Overhead, SizeOptions, Sizing};

mod engine;
pub use engine::EngineOptions;

/// A model's config.json and what to size it for: npm `sizeModel(config, options)`, `gpu-share size
/// --config FILE`. In JSON `config` is the config's text or the object itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SizeRequest {
    /// The text of the model's config.json.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "config", deserialize_with = "config_text")
    )]
    pub config_json: String,
    #[cfg_attr(feature = "serde", serde(default))]
    pub options: SizingOptions,
}

/// The text of a config given as text, or of the object given.
pub(super) fn config_text<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<String, D::Error> {
    use serde::Deserialize;
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(text) => text,
        object => object.to_string(),
    })
}

/// What to size a model for; each `None` takes its default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SizeOptions", rename_all = "camelCase"))]
pub struct SizingOptions {
    /// The weights' dtype; default: the config's `quantization_config`, else its `torch_dtype`.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::DtypeInput>"))]
    pub dtype: Option<Dtype>,
    /// The KV cache's dtype; default: the dtype the model computes in.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::ts::DtypeInput>"))]
    pub kv_dtype: Option<Dtype>,
    /// Tokens per sequence; default: the model's `max_position_embeddings`.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub context: Option<u64>,
    /// Sequences at once; default 1.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub concurrency: Option<u64>,
    /// A memory budget to fit: with it the response says whether the model fits and the
    /// longest context and the most sequences that do.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub fit: Option<FitTarget>,
    /// Plan the model on a cluster as an ask of its total memory, under this name.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub plan: Option<SizePlan>,
    /// Size the model as this inference engine starts it on the device `fit` names: what it
    /// requests, loads, profiles and leaves for the KV cache, and the flags to pass.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub engine: Option<EngineOptions>,
}

/// The ask a sized model becomes, and the cluster to plan it on.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct SizePlan {
    pub name: String,
    #[cfg_attr(feature = "serde", serde(default, rename = "caps"))]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub cluster: super::Cluster,
}

/// A memory budget. In JSON: bytes (a number), memory text (`"40GiB"`), or `{"gpu_model",
/// "profile"}` (no profile: the whole GPU).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FitTarget {
    /// Bytes the model may use, as given.
    Bytes(u64),
    /// A whole GPU of the catalogue: what processes can allocate on it, less one CUDA context.
    Gpu { gpu_model: String },
    /// A MIG instance of the catalogue: its memory, less one CUDA context.
    Profile { gpu_model: String, profile: String },
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for FitTarget {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Board {
            gpu_model: String,
            #[serde(default)]
            profile: Option<String>,
        }
        #[derive(serde::Deserialize)]
        #[serde(
            untagged,
            expecting = "bytes, memory such as \"40GiB\", or {\"gpu_model\", \"profile\"}"
        )]
        enum Written {
            Bytes(u64),
            Text(String),
            Board(Board),
        }
        Ok(match Written::deserialize(d)? {
            Written::Bytes(bytes) => FitTarget::Bytes(bytes),
            Written::Text(text) => {
                FitTarget::Bytes(Memory::parse(&text).map_err(D::Error::custom)?.bytes())
            }
            Written::Board(Board {
                gpu_model,
                profile: None,
            }) => FitTarget::Gpu { gpu_model },
            Written::Board(Board {
                gpu_model,
                profile: Some(profile),
            }) => FitTarget::Profile { gpu_model, profile },
        })
    }
}

/// The memory a model needs, part by part, each with why.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct SizeResponse {
    /// The architecture sized (`LlamaForCausalLM`).
    pub architecture: String,
    pub parameters: u64,
    /// The parameters part by part: embeddings, attention, MLP or experts, norms, biases, output
    /// embeddings.
    pub parameter_parts: Vec<ParameterPart>,
    /// The weights' dtype.
    pub dtype: Dtype,
    pub kv_dtype: Dtype,
    /// Tokens per sequence sized.
    pub context: u64,
    /// Sequences sized.
    pub concurrency: u64,
    pub weights_bytes: u64,
    pub weights_why: String,
    pub kv_cache_bytes: u64,
    pub kv_cache_why: String,
    /// Allowances beyond weights and KV cache that have a published rule.
    pub overheads: Vec<Overhead>,
    /// Weights, KV cache and overheads; not the CUDA context each process holds, which the
    /// planner adds.
    pub total_bytes: u64,
    /// A name for the ask: the last part of the config's `_name_or_path`
    /// (`Meta-Llama-3-8B`) when `ask_name:ask_memory` reads back as an ask of that name, else
    /// the architecture's `model_type` (`llama`).
    pub ask_name: String,
    /// The memory of an ask holding the total (`NAME:MEMORY`): whole MiB, rounded up.
    pub ask_memory: String,
    /// What the parts' reasons do not say: the architecture, the parameters part by part, the
    /// defaults taken, what is not counted and, with a budget, the fit.
    pub explanation: Vec<String>,
    /// With a budget: whether the model fits it, and how far it stretches.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub fit: Option<FitResult>,
    /// With `plan`: the sized model planned on the cluster as an ask of `ask_memory`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub plan: Option<super::PlanResponse>,
    /// With `engine`: what the engine allocates on the device, whether it starts, and its flags.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub engine: Option<size::engine::Engine>,
}

/// One part of the parameters.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct ParameterPart {
    pub name: String,
    pub parameters: u64,
    /// How it is counted: `32 layers × 41,943,040 (q 4096×4096, …)`.
    pub detail: String,
}

/// The model against a budget.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct FitResult {
    pub budget_bytes: u64,
    /// Where the budget comes from, in the user's words.
    pub budget_why: String,
    /// Whether the total at the context and concurrency sized is within the budget.
    pub fits: bool,
    /// The longest context that fits with the concurrency sized (0: not one token).
    pub max_context: u64,
    /// The most sequences of the context sized that fit (0: not one).
    pub max_concurrency: u64,
}

/// Reads the config, sizes the model and, with a budget, fits it.
///
/// # Errors
/// The config's errors, their field a path in it (`config.num_key_value_heads`; an unknown
/// architecture names it and the known ones); `dtype`, `kv_dtype`, `context`, `concurrency`
/// out of range or not settled by the config; `fit` (`fit.gpu_model`, `fit.profile`) not in the
/// catalogue, or a budget the weights and overheads alone exceed.
pub fn size(request: &SizeRequest) -> Result<SizeResponse> {
    sized(request).map_err(|e| match e.field.as_deref() {
        Some(f) if f != "config" && !f.starts_with("config.") => e.in_field("options"),
        _ => e,
    })
}

fn sized(request: &SizeRequest) -> Result<SizeResponse> {
    let config = size::read_config(&request.config_json).map_err(|e| e.in_field("config"))?;
    let config_json = &request.config_json;
    let request = &request.options;
    let options = SizeOptions {
        dtype: request.dtype,
        kv_dtype: request.kv_dtype,
        context: request.context,
        concurrency: request.concurrency,
    };
    let sized = size::size(&config, &options)?;
    let engine = request
        .engine
        .as_ref()
        .map(|e| {
            engine::engine(
                e,
                &engine::Settled {
                    config: config_json,
                    dtype: request.dtype,
                    kv_dtype: request.kv_dtype,
                    context: request.context,
                    concurrency: request.concurrency,
                    fit: request.fit.as_ref(),
                },
            )
        })
        .transpose()?;
    let fit = match request.fit.as_ref() {
        None => None,
        // With an engine the device is the engine's: a model too large for the formula's budget
        // is the engine's answer (it would not start), not an error.
        Some(_) if engine.as_ref().is_some_and(|e| !e.starts) => None,
        Some(target) => Some(fit(&config, &options, &sized, target)?),
    };
    let mut explanation = sized.notes.clone();
    if let Some(f) = &fit {
        explanation.extend(fit_lines(&sized, f, config.max_position_embeddings));
    }
    let ask = Memory::from_mib(sized.total_bytes.div_ceil(MIB))?;
    // The sized model as an ask of its memory, planned as `plan` plans one ask.
    let plan = match &request.plan {
        Some(p) => {
            let ask = crate::ask::FractionalAsk::memory_only(&p.name, ask)
                .map_err(|e| e.in_field("plan"))?;
            Some(super::plan(&super::PlanRequest {
                ask,
                cluster: p.cluster.clone(),
            })?)
        }
        None => None,
    };
    Ok(SizeResponse {
        architecture: config.architecture.class_name().to_string(),
        parameters: u64::try_from(sized.parameters.total()).unwrap_or(u64::MAX),
        parameter_parts: sized
            .parameters
            .parts
            .iter()
            .map(|p| ParameterPart {
                name: p.name.to_string(),
                parameters: u64::try_from(p.parameters).unwrap_or(u64::MAX),
                detail: p.detail.clone(),
            })
            .collect(),
        dtype: sized.precision.weights,
        kv_dtype: sized.precision.kv,
        context: sized.context,
        concurrency: sized.concurrency,
        weights_bytes: sized.weights_bytes,
        weights_why: sized.weights_why,
        kv_cache_bytes: sized.kv_cache_bytes,
        kv_cache_why: sized.kv_cache_why,
        overheads: sized.overheads,
        total_bytes: sized.total_bytes,
        ask_name: ask_name(&config, &ask),
        ask_memory: ask.to_exact_text(),
        explanation,
        fit,
        plan,
        engine,
    })
}

/// The config's own name for the model (the last part of a repository id or a folder), where it
/// is one an ask can carry; else its `model_type`.
fn ask_name(config: &size::ModelConfig, memory: &Memory) -> String {
    let reads_back = |name: &str| {
        crate::ask::FractionalAsk::parse_spec(&format!("{name}:{}", memory.to_exact_text()))
            .is_ok_and(|a| a.name() == name)
    };
    config
        .name_or_path
        .as_deref()
        .and_then(|p| p.trim_end_matches(['/', '\\']).rsplit(['/', '\\']).next())
        .map(str::trim)
        .filter(|n| reads_back(n))
        .map_or_else(
            || config.architecture.model_type().to_string(),
            str::to_string,
        )
}

fn fit(
    config: &size::ModelConfig,
    options: &SizeOptions,
    sized: &Sizing,
    target: &FitTarget,
) -> Result<FitResult> {
    let (budget_bytes, budget_why) = budget(target)?;
    // The context and concurrency the main sizing settled, so both answers are about its model.
    let options = SizeOptions {
        context: Some(sized.context),
        concurrency: Some(sized.concurrency),
        ..*options
    };
    let max_context =
        size::max_context(config, &options, budget_bytes).map_err(|e| e.in_field("fit"))?;
    let max_concurrency =
        size::max_concurrency(config, &options, budget_bytes).map_err(|e| e.in_field("fit"))?;
    Ok(FitResult {
        budget_bytes,
        budget_why,
        fits: sized.total_bytes <= budget_bytes,
        max_context,
        max_concurrency,
    })
}

/// The budget's bytes and where they come from. A GPU's or an instance's memory is less one
/// CUDA context, which the planner adds to every process with memory.
fn budget(target: &FitTarget) -> Result<(u64, String)> {
    let context = DEFAULT_CONTEXT_MIB * MIB;
    let less_context = format!(
        "less one CUDA context ({DEFAULT_CONTEXT_MIB} MiB), which the planner adds to every process"
    );
    let uncertain = |c: Certainty| match c {
        Certainty::Known => String::new(),
        Certainty::Uncertain(why) => format!(" (uncertain: {why})"),
    };
    match target {
        FitTarget::Bytes(b) => {
            if *b == 0 || *b > MAX_MEMORY {
                return Err(Error::new(
                    ErrorKind::OutOfRange,
                    format!("must be from 1 byte to 64 TiB, got {b} bytes"),
                )
                .in_field("fit"));
            }
            Ok((*b, "the budget given".to_string()))
        }
        FitTarget::Gpu { gpu_model } => {
            let model = require_model(gpu_model).map_err(|e| e.in_field("fit.gpu_model"))?;
            let usable = model.usable_memory();
            let reserved = model.reserved_memory();
            Ok((
                (usable.mib * MIB).saturating_sub(context),
                format!(
                    "a whole {}: the {} MiB processes can allocate ({} MiB less the {} MiB the driver keeps{}), {less_context}",
                    model.name,
                    usable.mib,
                    model.memory_mib,
                    reserved.mib,
                    uncertain(usable.certainty)
                ),
            ))
        }
        FitTarget::Profile { gpu_model, profile } => {
            let model = require_model(gpu_model).map_err(|e| e.in_field("fit.gpu_model"))?;
            let p = model
                .require_profile(profile)
                .map_err(|e| e.in_field("fit.profile"))?;
            let memory = model.profile_memory(p);
            let seen = match memory.certainty {
                Certainty::Known => " (real nvidia-smi output)".to_string(),
                c => uncertain(c),
            };
            Ok((
                (memory.mib * MIB).saturating_sub(context),
                format!(
                    "a {} instance of {}: {} MiB{seen}, {less_context}",
                    p.name, model.name, memory.mib
                ),
            ))
        }
    }
}

/// The fit, in the user's words.
fn fit_lines(sized: &Sizing, f: &FitResult, positions: Option<u64>) -> Vec<String> {
    let mut out = vec![format!(
        "budget: {}, {}",
        bytes_text(f.budget_bytes),
        f.budget_why
    )];
    out.push(if f.fits {
        format!(
            "fits: the total leaves {} of the budget",
            bytes_text(f.budget_bytes - sized.total_bytes)
        )
    } else {
        format!(
            "does not fit: the total is {} over the budget",
            bytes_text(sized.total_bytes - f.budget_bytes)
        )
    });
    let sequences = plural(sized.concurrency, "sequence", "sequences");
    out.push(if f.max_context == 0 {
        format!(
            "longest context with {sequences}: not one token fits beside the weights and overheads"
        )
    } else {
        let cap = if positions == Some(f.max_context) {
            ", the model's max_position_embeddings"
        } else {
            ""
        };
        format!(
            "longest context with {sequences}: {} tokens{cap}",
            grouped(f.max_context)
        )
    });
    out.push(format!(
        "most sequences of {}: {}",
        plural(sized.context, "token", "tokens"),
        grouped(f.max_concurrency)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LLAMA_3_8B: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
        "intermediate_size": 14336, "max_position_embeddings": 8192, "num_attention_heads": 32,
        "num_hidden_layers": 32, "num_key_value_heads": 8, "tie_word_embeddings": false,
        "torch_dtype": "bfloat16", "vocab_size": 128256}"#;

    fn request(fit: Option<FitTarget>) -> SizeRequest {
        SizeRequest {
            config_json: LLAMA_3_8B.into(),
            options: SizingOptions {
                fit,
                ..Default::default()
            },
        }
    }

    #[test]
    fn sizes_and_says_the_ask() {
        let r = size(&request(None)).unwrap();
        assert_eq!(r.parameters, 8_030_261_248);
        assert_eq!(r.weights_bytes, 16_060_522_496);
        assert_eq!(r.kv_cache_bytes, 131_072 * 8192);
        assert_eq!(r.overheads[0].bytes, 3_212_104_500);
        assert_eq!(
            r.total_bytes,
            16_060_522_496 + 1_073_741_824 + 3_212_104_500
        );
        // 20,346,368,820 bytes, rounded up to whole MiB.
        assert_eq!(r.ask_memory, "19404MiB");
        assert_eq!(r.parameter_parts[0].name, "embeddings");
        assert!(
            r.explanation[0].starts_with("LlamaForCausalLM: 32 layers"),
            "{:?}",
            r.explanation
        );
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["dtype"], "bf16");
        assert!(json.get("fit").is_none());
        assert_eq!(r.ask_name, "llama", "no _name_or_path: the model_type");
    }

    /// The ask is named by the config's `_name_or_path` (a repository id's or a folder's last
    /// part) when that name reads back from `NAME:MEMORY`, else by the architecture.
    #[test]
    fn names_the_ask_from_the_config() {
        let named = |path: &str| {
            let config = LLAMA_3_8B.replacen('{', &format!("{{\"_name_or_path\": {path:?}, "), 1);
            let r = size(&SizeRequest {
                config_json: config,
                ..Default::default()
            })
            .unwrap();
            r.ask_name
        };
        assert_eq!(named("meta-llama/Meta-Llama-3-8B"), "Meta-Llama-3-8B");
        assert_eq!(named("/models/llama3/"), "llama3");
        assert_eq!(named("C:\\models\\Llama 3"), "Llama 3");
        assert_eq!(named("  "), "llama");
        assert_eq!(named("/"), "llama");
        // `x:0.5` would read back as the ask `x` with a share of half a GPU.
        assert_eq!(named("org/x:0.5"), "llama");
        assert_eq!(named(&"n".repeat(200)), "llama", "too long for a name");
        assert_eq!(named("org/tab\there"), "llama");
    }

    #[test]
    fn fits_a_budget_a_gpu_and_an_instance() {
        let r = size(&request(Some(FitTarget::Bytes(20 << 30)))).unwrap();
        let f = r.fit.unwrap();
        assert!(f.fits);
        assert_eq!(f.max_context, 8192, "the model's positions cap it");
        assert!(f.max_concurrency >= 1);
        let gpu = size(&request(Some(FitTarget::Gpu {
            gpu_model: "h100".into(),
        })))
        .unwrap();
        let f = gpu.fit.unwrap();
        assert_eq!(f.budget_bytes, (81559 - 480 - 500) * MIB);
        assert!(f.budget_why.contains("H100-80GB-HBM3"), "{}", f.budget_why);
        let mig = size(&request(Some(FitTarget::Profile {
            gpu_model: "A100-SXM4-40GB".into(),
            profile: "3g.20gb".into(),
        })))
        .unwrap();
        let f = mig.fit.unwrap();
        // 3g.20gb: 19.50 GiB in the NVIDIA MIG User Guide's `-lgip` example, 19.62 in a driver
        // 580.126.09 listing; the budget is the smaller (docs/hardware-facts.md §1.6).
        assert_eq!(f.budget_bytes, (19968 - 500) * MIB);
        assert!(f.fits);
        assert!(mig.explanation.iter().any(|l| l.starts_with("budget: ")));
    }

    #[test]
    fn errors_name_their_field() {
        let mut r = request(Some(FitTarget::Bytes(1 << 30)));
        assert_eq!(size(&r).unwrap_err().field.as_deref(), Some("options.fit"));
        r.options.fit = Some(FitTarget::Profile {
            gpu_model: "a100".into(),
            profile: "9g.99gb".into(),
        });
        assert_eq!(
            size(&r).unwrap_err().field.as_deref(),
            Some("options.fit.profile")
        );
        r.options.fit = Some(FitTarget::Gpu {
            gpu_model: "Z9".into(),
        });
        assert_eq!(
            size(&r).unwrap_err().field.as_deref(),
            Some("options.fit.gpu_model")
        );
        r.options.fit = Some(FitTarget::Bytes(0));
        assert_eq!(size(&r).unwrap_err().field.as_deref(), Some("options.fit"));
        r.options.fit = None;
        r.config_json = LLAMA_3_8B.replace("\"num_key_value_heads\": 8,", "");
        assert_eq!(
            size(&r).unwrap_err().field.as_deref(),
            Some("config.num_key_value_heads")
        );
        r.config_json = "{".into();
        assert_eq!(size(&r).unwrap_err().field.as_deref(), Some("config"));
    }
}
