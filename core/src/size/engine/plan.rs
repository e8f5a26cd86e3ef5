//! One engine at one utilisation: the request checked and the fixed terms computed once
//! ([`Prepared`]), then the budget, the KV cache and whether vLLM would start.

use super::activation::{self, Peak};
use super::batch::{batch, Batch};
use super::kv::{layout, KvLayout};
use super::measured;
use super::model::{self, EngineModel, LayerKind, Quant};
use super::version;
use super::weights::{held, is_moe_layer, kv_layers, stage_layers, Rank};
use super::{Engine, EngineDetail, EngineRequest, PerGpu, Utilization};
use crate::error::{Error, ErrorKind, Result};
use crate::size::dtype::Dtype;
use crate::size::text::bytes_text;

/// One pipeline stage's fixed terms.
#[derive(Clone, Debug)]
struct Stage {
    weights: u64,
    vision: u64,
    peak: Peak,
    non_torch: u64,
    cuda_graphs: u64,
    layers: Vec<LayerKind>,
    kv: KvLayout,
}

/// An engine request checked, with every term that does not depend on the utilisation.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub request: EngineRequest,
    pub model: EngineModel,
    pub compute: Dtype,
    pub kv_dtype: Dtype,
    pub quant: Quant,
    pub batch: Batch,
    pub max_model_len: u64,
    stages: Vec<Stage>,
    /// Reasons vLLM refuses the configuration whatever the memory.
    refusals: Vec<String>,
    notes: Vec<String>,
}

pub(super) fn out_of_range(field: &str, message: String) -> Error {
    Error::new(ErrorKind::OutOfRange, message).in_field(field)
}

/// Checks `r` and computes its fixed terms.
///
/// # Errors
/// An unknown engine or version (`engine`, `version`), a config that cannot be read
/// (`config.…`), parallel sizes or lengths out of range, a dtype vLLM does not compute in.
pub fn prepare(r: &EngineRequest) -> Result<Prepared> {
    version::check(&r.engine, &r.version)?;
    let m = model::read(&r.config)?;
    if !(1..=64).contains(&r.tensor_parallel_size) {
        return Err(out_of_range(
            "tensor_parallel_size",
            format!("must be from 1 to 64, got {}", r.tensor_parallel_size),
        ));
    }
    if !(1..=64).contains(&r.pipeline_parallel_size) || r.pipeline_parallel_size > m.text.layers {
        return Err(out_of_range(
            "pipeline_parallel_size",
            format!(
                "must be from 1 to the model's {} layers, got {}",
                m.text.layers, r.pipeline_parallel_size
            ),
        ));
    }
    if !(1u64 << 30..=1u64 << 50).contains(&r.gpu_total_bytes) {
        return Err(out_of_range(
            "gpu_total_bytes",
            "must be from 1 GiB to 1 PiB".into(),
        ));
    }
    let compute = m.compute_dtype(r.dtype)?;
    let kv_dtype = match r.kv_cache_dtype {
        None => compute,
        Some(d) if d == Dtype::Fp8 || d.is_compute() => d,
        Some(d) => {
            return Err(out_of_range(
                "kv_cache_dtype",
                format!(
                    "vLLM caches keys and values in fp8 or the compute dtype, not {}",
                    d.name()
                ),
            ))
        }
    };
    let quant = match (r.quantization.as_deref(), m.quant) {
        (None, q) => q,
        (Some("fp8"), Quant::None) => Quant::Fp8 { block: None },
        (Some(given), q) if Some(given) == m.quant_name.as_deref() || q != Quant::None => q,
        (Some(other), _) => return Err(Error::new(ErrorKind::UnknownModel, format!("--quantization {other:?} on an unquantized checkpoint: only fp8 (online) is modelled")).in_field("quantization")),
    };
    let derived = m.text.max_position_embeddings.unwrap_or(u64::MAX);
    let max_model_len = match r.max_model_len {
        Some(0) => return Err(out_of_range("max_model_len", "must be at least 1".into())),
        Some(n) => n,
        None if derived < u64::MAX => derived,
        None => {
            return Err(Error::new(
                ErrorKind::Syntax,
                "the config names no max_position_embeddings: give max_model_len",
            )
            .in_field("max_model_len"))
        }
    };
    let nvml = r.nvml_total_bytes.unwrap_or(r.gpu_total_bytes);
    let batch = batch(
        r.max_num_batched_tokens,
        r.max_num_seqs,
        max_model_len,
        nvml,
        &r.gpu_name,
    )?;
    let mut refusals = Vec::new();
    let c = &m.text;
    if !c.attention_heads.is_multiple_of(r.tensor_parallel_size) {
        refusals.push(format!("vLLM refuses a tensor parallel size of {} for {} attention heads: it must divide them (config/parallel.py verify_with_model_config).", r.tensor_parallel_size, c.attention_heads));
    }
    if max_model_len > derived {
        refusals.push(format!("vLLM refuses max_model_len {max_model_len}: more than the model's {derived} positions (config/model.py get_and_verify_max_len)."));
    }
    let stages = stages(&m, r, compute, kv_dtype, quant, &batch);
    let mut notes = Vec::new();
    if r.dtype.is_none() && c.torch_dtype == Some(Dtype::Fp32) {
        notes.push("The config's float32 weights run in bf16: vLLM's --dtype auto takes the platform's first dtype for float32 (config/model.py).".into());
    }
    if let Some(v) = &m.vision {
        notes.push(format!("The {} vision tower's weights are counted ({} on the first GPU); its profile run counts the encoder's cached outputs (the encoder budget's tokens × the hidden size), not the encoder's own peak.", v.name, bytes_text(stages[0].vision)));
    }
    Ok(Prepared {
        request: r.clone(),
        model: m,
        compute,
        kv_dtype,
        quant,
        batch,
        max_model_len,
        stages,
        refusals,
        notes,
    })
}

fn stages(
    m: &EngineModel,
    r: &EngineRequest,
    compute: Dtype,
    kv: Dtype,
    quant: Quant,
    batch: &Batch,
) -> Vec<Stage> {
    let (tp, pp) = (r.tensor_parallel_size, r.pipeline_parallel_size);
    let per_stage = stage_layers(m.text.layers, pp);
    (0..pp)
        .map(|stage| {
            let rank = Rank {
                tp,
                stage,
                stages: pp,
            };
            let h = held(m, rank, compute, quant);
            let n = per_stage[stage as usize];
            let start: u64 = per_stage[..stage as usize].iter().sum();
            let moe_layers = (start..start + n)
                .filter(|i| is_moe_layer(&m.text, *i))
                .count() as u64;
            let layers = kv_layers(m, rank);
            Stage {
                weights: h.bytes,
                vision: h.vision_bytes,
                peak: activation::peak(
                    &m.text,
                    compute,
                    batch,
                    tp,
                    activation::StageHolds {
                        first: rank.first(),
                        last: rank.last(),
                        moe: moe_layers > 0,
                        multimodal: m.vision.is_some(),
                    },
                ),
                non_torch: measured::non_torch(tp, pp).0,
                cuda_graphs: measured::cuda_graphs(n, moe_layers, tp, r.enforce_eager),
                kv: layout(&m.text, &layers, kv, tp),
                layers,
            }
        })
        .collect()
}

impl Prepared {
    /// The engine at `u`.
    pub fn at(&self, u: Utilization) -> EngineDetail {
        let total = self.request.gpu_total_bytes;
        let requested = u.of(total);
        let before = measured::before_snapshot(self.request.tensor_parallel_size);
        // The stage with the fewest blocks sets the engine's (get_kv_cache_configs takes the min).
        let mut best: Option<(u64, usize, i128)> = None;
        for (i, s) in self.stages.iter().enumerate() {
            let signed = i128::from(requested)
                - i128::from(s.weights)
                - i128::from(s.peak.bytes())
                - i128::from(s.non_torch);
            let blocks = s.kv.blocks(u64::try_from(signed.max(0)).unwrap_or(0));
            if best.is_none_or(|(b, _, _)| blocks < b) {
                best = Some((blocks, i, signed));
            }
        }
        let (blocks, i, signed) = best.unwrap_or((0, 0, 0));
        let s = &self.stages[i];
        let kv_bytes = u64::try_from(signed.max(0)).unwrap_or(0);
        let per_request =
            s.kv.blocks_per_request(self.max_model_len, self.batch.tokens);
        let per_gpu = PerGpu {
            total_bytes: total,
            requested_bytes: requested,
            weights_bytes: s.weights,
            activation_bytes: s.peak.bytes(),
            non_torch_bytes: s.non_torch,
            cuda_graph_bytes: s.cuda_graphs,
            kv_cache_bytes: kv_bytes,
        };
        let refusals = self.refusals_at(s, &per_gpu, before, signed);
        let starts = refusals.is_empty();
        let mut why = self.explain(s, &per_gpu, blocks, per_request);
        why.extend(refusals);
        EngineDetail {
            engine: Engine {
                name: "vllm".into(),
                version: self.request.version.trim().trim_start_matches('v').into(),
                gpu_memory_utilization: u.as_f64(),
                tensor_parallel_size: self.request.tensor_parallel_size,
                max_model_len: self.max_model_len,
                per_gpu,
                kv_cache_tokens: s.kv.tokens(blocks),
                max_concurrency: blocks.checked_div(per_request).unwrap_or(0),
                starts,
                why,
                args: self.args(u),
            },
            utilization: u,
            kv_blocks: blocks,
            blocks_per_request: per_request,
            before_snapshot_bytes: before,
            kv_signed_bytes: signed,
        }
    }

    /// Why vLLM would refuse to start at this budget (empty: it starts).
    fn refusals_at(&self, s: &Stage, g: &PerGpu, before: u64, signed: i128) -> Vec<String> {
        let mut out = self.refusals.clone();
        let free = g.total_bytes.saturating_sub(before);
        if g.requested_bytes > free {
            out.push(format!("vLLM refuses to start: it requests {} but about {} is free once the process's CUDA context{} exists (gpu_worker.py request_memory: \"Free memory on device ... is less than desired GPU memory utilization\").", bytes_text(g.requested_bytes), bytes_text(free), if self.request.tensor_parallel_size > 1 { " and NCCL buffers" } else { "" }));
        } else if g.requested_bytes + before + g.cuda_graph_bytes > g.total_bytes {
            out.push(format!("The request ({}) with the CUDA context and the CUDA graphs captured after the KV cache ({}) exceeds the device's {}: vLLM would run out of memory capturing the graphs (pass --enforce-eager or a lower utilisation).", bytes_text(g.requested_bytes), bytes_text(before + g.cuda_graph_bytes), bytes_text(g.total_bytes)));
        }
        if signed <= 0 {
            out.push("vLLM refuses to start: no memory is left for the KV cache (kv_cache_utils.py: \"No available memory for the cache blocks\").".into());
        } else {
            let need =
                s.kv.one_request_bytes(&s.layers, self.max_model_len, self.batch.tokens);
            if need > g.kv_cache_bytes {
                out.push(format!("vLLM refuses to start: one sequence of max_model_len {} tokens needs {} of KV cache, more than the {} available (kv_cache_utils.py _check_enough_kv_cache_memory).", self.max_model_len, bytes_text(need), bytes_text(g.kv_cache_bytes)));
            }
        }
        out
    }

    /// Each term with its source.
    fn explain(&self, s: &Stage, g: &PerGpu, blocks: u64, per_request: u64) -> Vec<String> {
        let r = &self.request;
        let mut why = vec![
            format!("Requested: ceil(utilisation × {}) = {} (gpu_worker.py request_memory).", bytes_text(g.total_bytes), bytes_text(g.requested_bytes)),
            format!("Weights: {} on this GPU, tensor by tensor as vLLM shards them over {} tensor-parallel rank(s){} and as PyTorch's caching allocator counts them.", bytes_text(g.weights_bytes), r.tensor_parallel_size, if r.pipeline_parallel_size > 1 { format!(" and {} pipeline stages", r.pipeline_parallel_size) } else { String::new() }),
            format!("Activation peak: {} — the profile run of {} tokens in {} requests (gpu_model_runner.py profile_run): the sampler's logits {} × {} and its float32 buffers, or the forward's widest layer, whichever is larger.", bytes_text(g.activation_bytes), self.batch.tokens, self.batch.requests(), self.batch.requests(), self.model.text.vocab_size),
            format!("Non-torch memory: {} (cuBLAS, NCCL; measured on vLLM 0.19 start-ups{}).", bytes_text(g.non_torch_bytes), if measured::non_torch(r.tensor_parallel_size, r.pipeline_parallel_size).1 { "" } else { ", this parallelism not among them: a guess" }),
            format!("KV cache: {} = {} blocks of {} tokens × {} group(s) of {} layer(s), {} per layer-block; one {}-token sequence needs {} blocks.", bytes_text(g.kv_cache_bytes), blocks, super::kv::BLOCK_SIZE, s.kv.groups.len(), s.kv.group_size, bytes_text(s.kv.page_bytes), self.max_model_len, per_request),
            format!("CUDA graphs: about {} captured after the KV cache, on top of the request (vLLM 0.19 does not subtract them; an estimate).", bytes_text(g.cuda_graph_bytes)),
        ];
        why.extend(self.notes.iter().cloned());
        why
    }

    /// The flags to pass.
    pub fn args(&self, u: Utilization) -> Vec<String> {
        let r = &self.request;
        let mut a = vec![
            "--gpu-memory-utilization".to_string(),
            u.text(),
            "--max-model-len".to_string(),
            self.max_model_len.to_string(),
        ];
        let mut flag = |name: &str, value: String| {
            a.push(name.to_string());
            a.push(value);
        };
        if r.tensor_parallel_size > 1 {
            flag("--tensor-parallel-size", r.tensor_parallel_size.to_string());
        }
        if r.pipeline_parallel_size > 1 {
            flag(
                "--pipeline-parallel-size",
                r.pipeline_parallel_size.to_string(),
            );
        }
        if let Some(d) = r.dtype {
            flag("--dtype", torch_name(d).into());
        }
        if let Some(d) = r.kv_cache_dtype {
            flag(
                "--kv-cache-dtype",
                if d == Dtype::Fp8 {
                    "fp8".into()
                } else {
                    "auto".into()
                },
            );
        }
        if let Some(q) = &r.quantization {
            flag("--quantization", q.clone());
        }
        if !self.batch.tokens_default {
            flag("--max-num-batched-tokens", self.batch.tokens.to_string());
        }
        if !self.batch.seqs_default {
            flag("--max-num-seqs", self.batch.seqs.to_string());
        }
        if r.enforce_eager {
            a.push("--enforce-eager".into());
        }
        a
    }
}

fn torch_name(d: Dtype) -> &'static str {
    match d {
        Dtype::Fp32 => "float32",
        Dtype::Fp16 => "float16",
        _ => "bfloat16",
    }
}

/// One pipeline stage's terms at a utilisation (the bench compares them with the rank vLLM
/// logged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageTerms {
    pub weights: u64,
    pub activation: u64,
    pub non_torch: u64,
    pub kv_bytes: i128,
}

impl Prepared {
    /// Every stage's terms at `u`.
    pub fn stage_terms(&self, u: Utilization) -> Vec<StageTerms> {
        let requested = u.of(self.request.gpu_total_bytes);
        self.stages
            .iter()
            .map(|s| StageTerms {
                weights: s.weights,
                activation: s.peak.bytes(),
                non_torch: s.non_torch,
                kv_bytes: i128::from(requested)
                    - i128::from(s.weights)
                    - i128::from(s.peak.bytes())
                    - i128::from(s.non_torch),
            })
            .collect()
    }
}
