//! Arguments of `size`: a model's config.json and what to size it for, turned into the core's
//! `SizeRequest`.

use super::flags::at_flag;
use super::CapsArgs;
use super::{format, read_input, Format};
use crate::exit::CliError;
use clap::Args;
use gpu_share_core::api::{
    Dtype, EngineOptions, FitTarget, ListedModel, Memory, ModelAsk, SizePlan, SizeRequest,
    SizingOptions, Utilization,
};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct SizeArgs {
    /// The model's Hugging Face config.json (`-` is stdin).
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The weights' dtype: fp32, bf16, fp16, fp8, int8 or int4 (default: the config's
    /// quantization_config, else its torch_dtype).
    #[arg(long, value_name = "D")]
    pub dtype: Option<String>,
    /// The KV cache's dtype (default: the dtype the model computes in).
    #[arg(long, value_name = "D")]
    pub kv_dtype: Option<String>,
    /// Tokens per sequence (default: the model's max_position_embeddings).
    #[arg(long, value_name = "N")]
    pub context: Option<u64>,
    /// Sequences at once (default 1).
    #[arg(long, value_name = "N")]
    pub concurrency: Option<u64>,
    /// A budget to fit: memory (40GiB, 42949672960) or, with --gpu-model, a MIG profile
    /// (3g.40gb); --gpu-model alone fits a whole GPU. Says whether the model fits, and the
    /// longest context and the most sequences that do.
    #[arg(long, value_name = "MEMORY|PROFILE")]
    pub fit: Option<String>,
    /// Plan the model on the cluster the caps flags describe (--gpu-model, --mig-capable, --mps,
    /// --timeslice, …) as an ask of its total memory named NAME.
    #[arg(long, value_name = "NAME")]
    pub plan: Option<String>,
    /// The cluster for --plan; its --gpu-model is also the model of --fit PROFILE, or alone the
    /// whole GPU to fit (a100-80gb, h100, L40S, …).
    #[command(flatten)]
    pub caps: CapsArgs,
    /// Size the model as this inference engine starts it on the --gpu-model or --fit PROFILE
    /// device (vllm): what it requests, loads, profiles and leaves for the KV cache, whether it
    /// starts, and the flags to pass. With --concurrency and no --gpu-memory-utilization, the
    /// smallest utilisation that serves it.
    #[arg(long, value_name = "NAME")]
    pub engine: Option<String>,
    #[command(flatten)]
    pub engine_flags: EngineFlags,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// The engine's own flags, named as vLLM names them.
#[derive(Args, Debug, Default)]
pub struct EngineFlags {
    /// The engine's version (0.19, 0.19.1; default: the newest calibrated).
    #[arg(long, value_name = "V", requires = "engine")]
    pub engine_version: Option<String>,
    /// Tensor parallel size (vLLM's --tensor-parallel-size).
    #[arg(long, value_name = "N", requires = "engine")]
    pub tp: Option<u64>,
    /// Pipeline parallel size (vLLM's --pipeline-parallel-size).
    #[arg(long, value_name = "N", requires = "engine")]
    pub pp: Option<u64>,
    /// The share of the device's memory the engine requests, in (0, 1] (default 0.9, or with
    /// --concurrency the smallest that serves it).
    #[arg(long, value_name = "U", requires = "engine")]
    pub gpu_memory_utilization: Option<f64>,
    /// vLLM's --max-model-len (default --context, else the model's positions).
    #[arg(long, value_name = "L", requires = "engine")]
    pub max_model_len: Option<u64>,
    /// vLLM's --quantization: fp8 quantizes a 16-bit checkpoint online.
    #[arg(long, value_name = "Q", requires = "engine")]
    pub quantization: Option<String>,
    /// vLLM's --max-num-seqs (default: vLLM's for the device).
    #[arg(long, value_name = "N", requires = "engine")]
    pub max_num_seqs: Option<u64>,
    /// vLLM's --max-num-batched-tokens (default: vLLM's for the device).
    #[arg(long, value_name = "N", requires = "engine")]
    pub max_num_batched_tokens: Option<u64>,
    /// vLLM's --enforce-eager: no CUDA graphs.
    #[arg(long, requires = "engine")]
    pub enforce_eager: bool,
}

impl EngineFlags {
    pub(super) fn options(&self, name: Option<&str>) -> Result<Option<EngineOptions>, CliError> {
        let Some(name) = name else {
            return Ok(None);
        };
        let gpu_memory_utilization = match self.gpu_memory_utilization {
            None => None,
            Some(u) => Some(Utilization::from_f64(u).ok_or_else(|| {
                CliError::Usage(format!(
                    "--gpu-memory-utilization must be above 0 and at most 1, got {u}"
                ))
            })?),
        };
        Ok(Some(EngineOptions {
            name: name.to_string(),
            version: self.engine_version.clone(),
            tensor_parallel_size: self.tp,
            pipeline_parallel_size: self.pp,
            gpu_memory_utilization,
            max_model_len: self.max_model_len,
            quantization: self.quantization.clone(),
            max_num_seqs: self.max_num_seqs,
            max_num_batched_tokens: self.max_num_batched_tokens,
            enforce_eager: self.enforce_eager,
        }))
    }
}

/// `size`, checked.
pub struct SizeConfig {
    pub request: SizeRequest,
    /// The config.json's name, for errors about its fields.
    pub config_name: String,
    pub format: Format,
}

impl SizeArgs {
    pub fn into_config(self) -> Result<SizeConfig, CliError> {
        let dtype = |text: &Option<String>, flag: &str| {
            text.as_deref()
                .map(Dtype::parse)
                .transpose()
                .map_err(|e| CliError::from(at_flag(e, flag)))
        };
        let plan = match &self.plan {
            Some(name) => Some(SizePlan {
                name: name.clone(),
                cluster: self.caps.cluster()?,
            }),
            None if self.caps.only_a_model() => None,
            None => {
                return Err(CliError::Usage(
                    "the cluster's flags (--mig-capable, --mps, --timeslice, --caps-from, …) are for --plan NAME; give it, or leave them out".into(),
                ))
            }
        };
        // With --plan, --gpu-model is the cluster's; a whole-GPU fit needs --fit or no plan.
        let model_fit = if self.plan.is_some() {
            None
        } else {
            self.caps.gpu_model.clone()
        };
        let fit = match (self.fit.as_deref(), self.caps.gpu_model.clone()) {
            (None, None) => None,
            (None, Some(_)) => model_fit.map(|gpu_model| FitTarget::Gpu { gpu_model }),
            (Some(fit), gpu_model) => match (Memory::parse(fit), gpu_model) {
                (Ok(m), None) => Some(FitTarget::Bytes(m.bytes())),
                (Ok(_), Some(_)) => {
                    return Err(CliError::Usage(
                        "--fit MEMORY is a budget of its own: give --gpu-model only with --fit PROFILE, or alone for a whole GPU".into(),
                    ))
                }
                (Err(_), Some(gpu_model)) => Some(FitTarget::Profile {
                    gpu_model,
                    profile: fit.to_string(),
                }),
                (Err(e), None) => {
                    return Err(CliError::Input(at_flag(
                        gpu_share_core::api::Error {
                            message: format!(
                                "{}; or give --gpu-model to read it as a MIG profile",
                                e.message
                            ),
                            ..e
                        },
                        "--fit",
                    )))
                }
            },
        };
        let config_name = if self.config.as_os_str() == "-" {
            "stdin".to_string()
        } else {
            self.config.display().to_string()
        };
        Ok(SizeConfig {
            request: SizeRequest {
                config_json: read_input(&self.config)?,
                options: SizingOptions {
                    dtype: dtype(&self.dtype, "--dtype")?,
                    kv_dtype: dtype(&self.kv_dtype, "--kv-dtype")?,
                    context: self.context,
                    concurrency: self.concurrency,
                    fit,
                    plan,
                    engine: self.engine_flags.options(self.engine.as_deref())?,
                },
            },
            config_name,
            format: format(self.json),
        })
    }
}

/// `--model NAME=CONFIG[:context=L][:concurrency=N]` (the `i`-th), its config read.
pub(super) fn model_ask(spec: &str, i: usize) -> Result<ModelAsk, CliError> {
    let flag = format!("--model #{}", i + 1);
    let usage = |why: &str| {
        CliError::Usage(format!(
            "{flag} {spec:?}: {why}; give NAME=CONFIG[:context=L][:concurrency=N]"
        ))
    };
    let Some((name, rest)) = spec.split_once('=') else {
        return Err(usage("no ="));
    };
    let mut parts: Vec<&str> = rest.split(':').collect();
    let (mut context, mut concurrency) = (None, None);
    // The settings are the trailing `key=value` parts; the path is what comes before them.
    while let Some((key, value)) = parts.last().and_then(|p| p.split_once('=')) {
        let n = value
            .parse::<u64>()
            .map_err(|_| usage(&format!("{key}={value} is not a whole number")))?;
        match key {
            "context" => context = Some(n),
            "concurrency" => concurrency = Some(n),
            other => return Err(usage(&format!("unknown setting {other:?}"))),
        }
        parts.pop();
    }
    let path = PathBuf::from(parts.join(":"));
    if path.as_os_str().is_empty() {
        return Err(usage("no config file"));
    }
    Ok(ModelAsk {
        name: name.to_string(),
        config: read_input(&path)?,
        context,
        concurrency,
    })
}

/// A model row of an ask list (`--asks-file`): its config read from its path, relative to the
/// list's folder (to the working folder for a list on stdin).
pub(super) fn listed_model(m: &ListedModel, list: &Path) -> Result<ModelAsk, CliError> {
    let written = Path::new(&m.config_path);
    let path = match list.parent() {
        Some(dir) if written.is_relative() && list.as_os_str() != "-" => dir.join(written),
        _ => written.to_path_buf(),
    };
    let config = read_input(&path).map_err(|e| match e {
        CliError::Usage(why) => CliError::Usage(format!(
            "{why} (the model of line {} of {})",
            m.line,
            list.display()
        )),
        other => other,
    })?;
    Ok(ModelAsk {
        name: m.name.clone(),
        config,
        context: m.context,
        concurrency: m.concurrency,
    })
}
