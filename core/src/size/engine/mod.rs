//! What an inference engine allocates inside the GPU memory it is given: vLLM 0.19's start-up,
//! term by term as its code computes it, from a model's config.json.
//!
//! vLLM requests `ceil(gpu_memory_utilization × total)` bytes of the device (`gpu_worker.py`
//! `request_memory`; it refuses to start when less is free), loads the weights, runs one profile
//! forward and sampler pass, and gives the KV cache what is left of the request after the
//! weights, the pass's activation peak and the non-torch memory that rose meanwhile
//! (`determine_available_memory`). Each term is its own file: [`weights`] (tensor by tensor, as
//! PyTorch's allocator counts them), [`activation`], [`measured`] (what the code does not size,
//! measured), [`kv`] (pages, groups, blocks, tokens, concurrency). [`inverse`] finds the
//! smallest utilisation that serves a concurrency; [`cotenants`] plans engines that share one
//! device.
//!
//! The inputs and outputs are plain data ([`EngineRequest`], [`Engine`]), integers inside;
//! `gpu_memory_utilization` is a float only in the output, as vLLM takes it.

pub mod activation;
mod allocator;
pub mod batch;
pub mod cotenants;
pub mod inverse;
pub mod kv;
pub mod measured;
pub mod model;
mod plan;
#[cfg(test)]
mod tests;
pub mod version;
pub mod weights;

pub use cotenants::{share_device, PlannedEngine, SharedDevice, TenantAsk};
pub use inverse::{plan_engine, smallest_utilization};
pub use plan::{prepare, Prepared, StageTerms};

use super::dtype::Dtype;

/// `gpu_memory_utilization` in ten-thousandths (0.95 is 9500): exact, and as fine as any value a
/// user types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Utilization(pub u32);

impl Utilization {
    pub const MAX: Utilization = Utilization(10_000);

    /// The utilisation of a float in (0, 1], rounded to the nearest ten-thousandth.
    pub fn from_f64(value: f64) -> Option<Utilization> {
        (value > 0.0 && value <= 1.0)
            .then(|| Utilization((value * 10_000.0).round().max(1.0) as u32))
    }

    /// Hundredths (the inverse's steps).
    pub fn hundredths(h: u32) -> Utilization {
        Utilization(h * 100)
    }

    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 10_000.0
    }

    /// As vLLM's flag takes it: `0.95`, `0.9`, `0.925`.
    pub fn text(self) -> String {
        let whole = self.0 / 10_000;
        let frac = format!("{:04}", self.0 % 10_000);
        let frac = frac.trim_end_matches('0');
        if frac.is_empty() {
            format!("{whole}.0")
        } else {
            format!("{whole}.{frac}")
        }
    }

    /// `ceil(utilization × total)`, as `request_memory` computes it.
    pub fn of(self, total: u64) -> u64 {
        u64::try_from((u128::from(total) * u128::from(self.0)).div_ceil(10_000)).unwrap_or(u64::MAX)
    }
}

/// What the engine is asked to do: run at a utilisation, or serve a concurrency (the smallest
/// utilisation that does, [`inverse`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineTarget {
    Utilization(Utilization),
    /// Sequences of `max_model_len` tokens served at once.
    Concurrency {
        sequences: u64,
    },
}

/// One engine to plan: the engine and version, the model, the device as CUDA reports it, and
/// the flags. `None` takes vLLM's default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineRequest {
    /// `vllm`.
    pub engine: String,
    /// `0.19.0`.
    pub version: String,
    /// The model's config.json.
    pub config: String,
    /// Total device memory as CUDA reports it (`torch.cuda.mem_get_info`): on a MIG instance,
    /// the instance's memory.
    pub gpu_total_bytes: u64,
    /// The device's name (`NVIDIA H100 80GB HBM3`): vLLM's batch defaults read it.
    pub gpu_name: String,
    /// The memory NVML reports for the device index, which the batch defaults read: the parent
    /// GPU's on a MIG instance. `None`: `gpu_total_bytes`.
    pub nvml_total_bytes: Option<u64>,
    pub tensor_parallel_size: u64,
    pub pipeline_parallel_size: u64,
    pub target: EngineTarget,
    pub max_model_len: Option<u64>,
    /// `--dtype`: the compute dtype.
    pub dtype: Option<Dtype>,
    /// `--kv-cache-dtype` (fp8, or a compute dtype; `None`: the compute dtype).
    pub kv_cache_dtype: Option<Dtype>,
    /// `--quantization` (only `fp8`: online quantization of a 16-bit checkpoint).
    pub quantization: Option<String>,
    pub max_num_batched_tokens: Option<u64>,
    pub max_num_seqs: Option<u64>,
    /// `--enforce-eager`: no CUDA graphs.
    pub enforce_eager: bool,
}

impl EngineRequest {
    /// vLLM 0.19.0 serving `config` on one device of `gpu_total_bytes` at `target`.
    pub fn vllm(config: &str, gpu_name: &str, gpu_total_bytes: u64, target: EngineTarget) -> Self {
        EngineRequest {
            engine: "vllm".into(),
            version: "0.19.0".into(),
            config: config.into(),
            gpu_total_bytes,
            gpu_name: gpu_name.into(),
            nvml_total_bytes: None,
            tensor_parallel_size: 1,
            pipeline_parallel_size: 1,
            target,
            max_model_len: None,
            dtype: None,
            kv_cache_dtype: None,
            quantization: None,
            max_num_batched_tokens: None,
            max_num_seqs: None,
            enforce_eager: false,
        }
    }
}

/// One GPU's memory, term by term (the pipeline stage with the fewest KV blocks, which sets the
/// engine's tokens).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct PerGpu {
    pub total_bytes: u64,
    pub requested_bytes: u64,
    pub weights_bytes: u64,
    pub activation_bytes: u64,
    pub non_torch_bytes: u64,
    /// The CUDA graphs' pool, on top of the request in vLLM 0.19 (an estimate).
    pub cuda_graph_bytes: u64,
    /// `requested − weights − activation − non-torch`; 0 when that is negative.
    pub kv_cache_bytes: u64,
}

impl PerGpu {
    /// Each term with its name, in the order of vLLM's budget: the device, the request, what the
    /// request holds, the CUDA graphs beside it and the KV cache left.
    pub fn terms(&self) -> [(&'static str, u64); 7] {
        [
            ("device", self.total_bytes),
            ("requested", self.requested_bytes),
            ("weights", self.weights_bytes),
            ("activation peak", self.activation_bytes),
            ("non-torch", self.non_torch_bytes),
            ("CUDA graphs", self.cuda_graph_bytes),
            ("KV cache", self.kv_cache_bytes),
        ]
    }
}

/// An engine's plan, as the CLI prints it (`engine` object).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Engine {
    pub name: String,
    pub version: String,
    pub gpu_memory_utilization: f64,
    pub tensor_parallel_size: u64,
    pub max_model_len: u64,
    pub per_gpu: PerGpu,
    pub kv_cache_tokens: u64,
    /// Whole sequences of `max_model_len` tokens the KV cache holds at once.
    pub max_concurrency: u64,
    pub starts: bool,
    /// Sentences: each term's source, and why the engine would not start.
    pub why: Vec<String>,
    /// The flags to pass, as vLLM takes them.
    pub args: Vec<String>,
}

/// An engine's plan with the numbers behind it (the bench compares them with vLLM's log).
#[derive(Clone, Debug, PartialEq)]
pub struct EngineDetail {
    pub engine: Engine,
    pub utilization: Utilization,
    pub kv_blocks: u64,
    pub blocks_per_request: u64,
    /// Bytes a process holds before vLLM's snapshot (CUDA context, NCCL), outside the request.
    pub before_snapshot_bytes: u64,
    /// `requested − weights − activation − non-torch`, which may be negative.
    pub kv_signed_bytes: i128,
}
