//! `size`'s engine: the model as an inference engine (vLLM 0.19) starts it on the device `fit`
//! names — a whole GPU of the catalogue or a MIG instance — at a utilisation, or at the smallest
//! utilisation that serves the concurrency asked (`core/src/size/engine/`, docs/vllm-engine.md).

use super::FitTarget;
use crate::catalog::{require_model, GpuModel};
use crate::error::{Error, ErrorKind, Hint, Input, Result};
use crate::memory::MIB;
use crate::size::engine::{plan_engine, version, EngineRequest, EngineTarget, Utilization};
use crate::size::Dtype;

/// The engine to size for (`name` is required), and its flags; each `None` takes the engine's
/// default. The model's
/// context (`options.context`) is `max_model_len` when this does not give one; the compute and KV
/// dtypes are `options.dtype` and `options.kv_dtype`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "EngineOptions", rename_all = "camelCase"))]
pub struct EngineOptions {
    /// `vllm`.
    pub name: String,
    /// A version the model was calibrated for (`0.19`, `0.19.1`); default: the newest known.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub version: Option<String>,
    /// `--tensor-parallel-size`; default 1.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub tensor_parallel_size: Option<u64>,
    /// `--pipeline-parallel-size`; default 1.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub pipeline_parallel_size: Option<u64>,
    /// `--gpu-memory-utilization` in (0, 1]. Without it: the smallest (in hundredths) that
    /// serves `options.concurrency` sequences when that is given, else vLLM's default 0.9.
    #[cfg_attr(feature = "serde", serde(deserialize_with = "utilization", default))]
    #[cfg_attr(feature = "ts", ts(optional = nullable, as = "Option<f64>"))]
    pub gpu_memory_utilization: Option<Utilization>,
    /// `--max-model-len`; default `options.context`, else the model's positions.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub max_model_len: Option<u64>,
    /// `--quantization fp8` (online, on a 16-bit checkpoint); a quantized checkpoint's own method
    /// is read from its config.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub quantization: Option<String>,
    /// `--max-num-seqs`; default vLLM's for the device.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub max_num_seqs: Option<u64>,
    /// `--max-num-batched-tokens`; default vLLM's for the device.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub max_num_batched_tokens: Option<u64>,
    /// `--enforce-eager`: no CUDA graphs.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "serde", serde(default))]
    pub enforce_eager: bool,
}

/// A utilisation read from a number in (0, 1].
#[cfg(feature = "serde")]
fn utilization<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Utilization>, D::Error> {
    use serde::de::Error as _;
    match <Option<f64> as serde::Deserialize>::deserialize(d)? {
        None => Ok(None),
        Some(u) => Utilization::from_f64(u)
            .map(Some)
            .ok_or_else(|| D::Error::custom(format!("must be above 0 and at most 1, got {u}"))),
    }
}

/// What the rest of the size request settles for the engine.
pub(super) struct Settled<'a> {
    pub config: &'a str,
    pub dtype: Option<Dtype>,
    pub kv_dtype: Option<Dtype>,
    pub context: Option<u64>,
    pub concurrency: Option<u64>,
    pub fit: Option<&'a FitTarget>,
}

/// Plans the engine. Fields are relative to the size request's `options`.
///
/// # Errors
/// No device (`fit` a GPU model or a MIG profile), an unknown engine or version, flags out of
/// range, a weights dtype vLLM does not quantize to online; the model's own errors.
pub(super) fn engine(o: &EngineOptions, s: &Settled) -> Result<crate::size::engine::Engine> {
    let version = resolve_version(o).map_err(|e| engine_field(e, false))?;
    let (gpu_name, total, nvml) = device(s.fit)?;
    let (dtype, online) = compute_dtype(s.dtype)?;
    let target = match (o.gpu_memory_utilization, s.concurrency) {
        (Some(u), _) => EngineTarget::Utilization(u),
        (None, Some(sequences)) => EngineTarget::Concurrency { sequences },
        (None, None) => EngineTarget::Utilization(Utilization(9_000)),
    };
    let mut r = EngineRequest::vllm(s.config, gpu_name, total, target);
    r.engine = o.name.clone();
    r.version = version;
    r.nvml_total_bytes = nvml;
    r.tensor_parallel_size = o.tensor_parallel_size.unwrap_or(1);
    r.pipeline_parallel_size = o.pipeline_parallel_size.unwrap_or(1);
    r.max_model_len = o.max_model_len.or(s.context);
    r.dtype = dtype;
    r.kv_cache_dtype = s.kv_dtype;
    r.quantization = o.quantization.clone().or(online);
    r.max_num_seqs = o.max_num_seqs;
    r.max_num_batched_tokens = o.max_num_batched_tokens;
    r.enforce_eager = o.enforce_eager;
    plan_engine(&r).map_err(|e| engine_field(e, o.max_model_len.is_some()))
}

/// The version asked for, as the engine model knows it: a series (`0.19`) is its newest release.
fn resolve_version(o: &EngineOptions) -> Result<String> {
    let newest = |series: &str| -> Option<String> {
        let versions = version::KNOWN
            .iter()
            .find(|(e, _)| e.eq_ignore_ascii_case(o.name.trim()))?
            .1;
        versions
            .iter()
            .rev()
            .find(|v| series.is_empty() || v.starts_with(&format!("{series}.")))
            .map(|v| (*v).to_string())
    };
    let asked = o
        .version
        .as_deref()
        .map(|v| v.trim().trim_start_matches('v'));
    let version = match asked {
        None => newest("").unwrap_or_default(),
        Some(v) => newest(v).unwrap_or_else(|| v.to_string()),
    };
    version::check(&o.name, &version).map(|()| version)
}

/// The device the engine sees: its name, the total CUDA reports (`mem_get_info`: the memory
/// processes can allocate on a whole GPU, the instance's memory on a MIG instance) and, on an
/// instance, the parent GPU's memory NVML reports, which vLLM's batch defaults read.
fn device(fit: Option<&FitTarget>) -> Result<(&'static str, u64, Option<u64>)> {
    let name = |m: &GpuModel| m.smi_names.first().copied().unwrap_or(m.name);
    match fit {
        Some(FitTarget::Gpu { gpu_model }) => {
            let m = require_model(gpu_model).map_err(|e| e.in_field("fit.gpu_model"))?;
            Ok((name(m), m.usable_memory().mib * MIB, None))
        }
        Some(FitTarget::Profile { gpu_model, profile }) => {
            let m = require_model(gpu_model).map_err(|e| e.in_field("fit.gpu_model"))?;
            let p = m
                .require_profile(profile)
                .map_err(|e| e.in_field("fit.profile"))?;
            let instance = m.profile_memory(p).mib * MIB;
            Ok((name(m), instance, Some(m.usable_memory().mib * MIB)))
        }
        Some(FitTarget::Bytes(_)) | None => Err(Error::new(
            ErrorKind::Syntax,
            "an engine is sized on a device as CUDA reports it: a GPU model of the catalogue, whole or with a MIG profile, not bytes",
        )
        .with_hint(Hint::Give {
            input: Input::GpuModel,
        })
        .in_field("fit")),
    }
}

/// `options.dtype` as vLLM takes it: a compute dtype is `--dtype`; fp8 on a 16-bit checkpoint is
/// online quantization (`--quantization fp8`); int8 and int4 come only from a quantized checkpoint.
fn compute_dtype(d: Option<Dtype>) -> Result<(Option<Dtype>, Option<String>)> {
    match d {
        None => Ok((None, None)),
        Some(d) if d.is_compute() => Ok((Some(d), None)),
        Some(Dtype::Fp8) => Ok((None, Some("fp8".into()))),
        Some(d) => Err(Error::new(
            ErrorKind::OutOfRange,
            format!(
                "vLLM quantizes a checkpoint online only to fp8; {} weights come from a quantized checkpoint, whose config.json says so",
                d.name()
            ),
        )
        .in_field("dtype")),
    }
}

/// The engine model's fields, as the size request names them.
fn engine_field(e: Error, len_given: bool) -> Error {
    let Some(field) = e.field.clone() else {
        return e;
    };
    let renamed = match field.as_str() {
        "engine" => "engine.name".to_string(),
        "kv_cache_dtype" => "kv_dtype".to_string(),
        "concurrency" | "dtype" => field,
        "max_model_len" if !len_given => "context".to_string(),
        f if f == "config" || f.starts_with("config.") => field,
        f => format!("engine.{f}"),
    };
    Error {
        field: Some(renamed),
        ..e
    }
}

#[cfg(test)]
mod tests {
    use super::super::{size, SizeRequest, SizingOptions};
    use super::*;

    const LLAMA_3_1_8B: &str = include_str!("../../size/published/llama_3_1_8b.json");

    fn h100(engine: EngineOptions, options: SizingOptions) -> Result<crate::size::engine::Engine> {
        let r = size(&SizeRequest {
            config_json: LLAMA_3_1_8B.into(),
            options: SizingOptions {
                fit: Some(FitTarget::Gpu {
                    gpu_model: "h100".into(),
                }),
                engine: Some(engine),
                ..options
            },
        })?;
        Ok(r.engine.expect("an engine was asked for"))
    }

    fn vllm() -> EngineOptions {
        EngineOptions {
            name: "vllm".into(),
            ..Default::default()
        }
    }

    /// vLLM 0.19.0 logged 58.11 GiB of KV cache and 476,016 tokens for Llama-3.1-8B-Instruct at
    /// 0.95, 8,192 tokens, fp16, on an H100-80GB (llm-d-planner's accuracy study, runs.tsv).
    #[test]
    fn a_utilisation_sizes_the_kv_cache_as_vllm_logged() {
        let e = h100(
            EngineOptions {
                gpu_memory_utilization: Utilization::from_f64(0.95),
                version: Some("0.19".into()),
                ..vllm()
            },
            SizingOptions {
                context: Some(8192),
                dtype: Some(Dtype::Fp16),
                ..Default::default()
            },
        )
        .unwrap();
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        assert!(
            (gib(e.per_gpu.kv_cache_bytes) - 58.11).abs() <= 0.25,
            "{e:?}"
        );
        assert!(e.kv_cache_tokens.abs_diff(476_016) <= 476_016 / 50, "{e:?}");
        assert_eq!(e.version, "0.19.1", "a series is its newest release");
        assert_eq!(e.max_model_len, 8192, "the context is max_model_len");
        assert!(e.starts);
        assert!(
            e.args.iter().any(|a| a == "--gpu-memory-utilization"),
            "{:?}",
            e.args
        );
    }

    /// With a concurrency and no utilisation, the smallest that serves it: one hundredth less
    /// serves fewer.
    #[test]
    fn a_concurrency_finds_the_smallest_utilisation() {
        let options = SizingOptions {
            context: Some(8192),
            concurrency: Some(20),
            ..Default::default()
        };
        let e = h100(vllm(), options.clone()).unwrap();
        assert!(e.starts && e.max_concurrency >= 20, "{e:?}");
        let less = Utilization::from_f64(e.gpu_memory_utilization - 0.01);
        let below = h100(
            EngineOptions {
                gpu_memory_utilization: less,
                ..vllm()
            },
            options,
        )
        .unwrap();
        assert!(!below.starts || below.max_concurrency < 20, "{below:?}");
    }

    #[test]
    fn too_many_sequences_do_not_start() {
        let e = h100(
            vllm(),
            SizingOptions {
                context: Some(131_072),
                concurrency: Some(1000),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(!e.starts);
        assert!(
            e.why.last().unwrap().contains("No utilisation up to 1"),
            "{:?}",
            e.why
        );
    }

    /// vLLM on an instance of `profile` of an H100, at 8,192 tokens.
    fn on_instance(profile: &str) -> super::super::SizeResponse {
        size(&SizeRequest {
            config_json: LLAMA_3_1_8B.into(),
            options: SizingOptions {
                context: Some(8192),
                fit: Some(FitTarget::Profile {
                    gpu_model: "h100".into(),
                    profile: profile.into(),
                }),
                engine: Some(vllm()),
                ..Default::default()
            },
        })
        .unwrap()
    }

    /// On a MIG instance the total is the instance's memory; the batch defaults read the parent.
    #[test]
    fn a_mig_instance_is_the_device() {
        let e = on_instance("3g.40gb").engine.unwrap();
        let m = require_model("h100").unwrap();
        let p = m.require_profile("3g.40gb").unwrap();
        assert_eq!(e.per_gpu.total_bytes, m.profile_memory(p).mib * MIB);
        assert!(e.starts, "{e:?}");
    }

    /// A model the instance cannot hold is the engine's answer (it would not start), not the
    /// formula's budget error.
    #[test]
    fn too_small_an_instance_does_not_start() {
        let r = on_instance("1g.10gb");
        assert!(r.fit.is_none());
        let e = r.engine.unwrap();
        assert!(!e.starts);
        assert!(
            e.why.iter().any(|w| w.starts_with("vLLM refuses to start")),
            "{:?}",
            e.why
        );
    }

    #[test]
    fn errors_name_the_size_requests_fields() {
        let field = |engine: EngineOptions, options: SizingOptions| {
            h100(engine, options).unwrap_err().field.unwrap()
        };
        let named = |name: &str| EngineOptions {
            name: name.into(),
            ..vllm()
        };
        assert_eq!(
            field(named("sglang"), SizingOptions::default()),
            "options.engine.name"
        );
        let old = EngineOptions {
            version: Some("0.6".into()),
            ..vllm()
        };
        assert_eq!(
            field(old, SizingOptions::default()),
            "options.engine.version"
        );
        let tp = EngineOptions {
            tensor_parallel_size: Some(0),
            ..vllm()
        };
        assert_eq!(
            field(tp, SizingOptions::default()),
            "options.engine.tensor_parallel_size"
        );
        let int4 = SizingOptions {
            dtype: Some(Dtype::Int4),
            ..Default::default()
        };
        assert_eq!(field(vllm(), int4), "options.dtype");
        let no_device = size(&SizeRequest {
            config_json: LLAMA_3_1_8B.into(),
            options: SizingOptions {
                engine: Some(vllm()),
                ..Default::default()
            },
        })
        .unwrap_err();
        assert_eq!(no_device.field.as_deref(), Some("options.fit"));
    }

    #[cfg(feature = "serde")]
    #[test]
    fn reads_from_json() {
        let r: SizeRequest = serde_json::from_str(
            r#"{"config": {"architectures": ["LlamaForCausalLM"]}, "options": {"engine":
                {"name": "vllm", "gpu_memory_utilization": 0.925, "tensor_parallel_size": 2}}}"#,
        )
        .unwrap();
        let e = r.options.engine.unwrap();
        assert_eq!(e.gpu_memory_utilization, Some(Utilization(9_250)));
        assert_eq!(e.tensor_parallel_size, Some(2));
        let bad = serde_json::from_str::<SizeRequest>(
            r#"{"config": "{}", "options": {"engine": {"name": "vllm", "gpu_memory_utilization": 1.5}}}"#,
        );
        assert!(bad.unwrap_err().to_string().contains("at most 1"));
    }
}
