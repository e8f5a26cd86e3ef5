//! Models to serve, packed beside the other asks: each model becomes an ask of the memory it
//! needs and, with an engine, the engines that share a GPU or sit in a MIG instance are planned
//! together on the device they see (`size::engine::cotenants`: each engine's utilisation against
//! that device, their footprints within it, and the order to start them in).
//!
//! An engine's ask holds the most it could take on any device the packer may give it (the whole
//! GPU or an instance of any of its profiles): its request at the smallest utilisation that serves
//! the model's concurrency there, its CUDA context and its CUDA graphs, less the one CUDA context
//! the packer adds to every process. Whatever device the packer then chooses holds the engine,
//! and engines sharing a GPU hold no more than its memory (docs/hardware-facts.md §14).

use super::size::{EngineOptions, SizeRequest, SizingOptions};
use crate::ask::FractionalAsk;
use crate::caps::{ClusterGpuCaps, DEFAULT_CONTEXT_MIB};
use crate::catalog::{require_model, GpuModel};
use crate::error::{Error, ErrorKind, Hint, Input, Result};
use crate::memory::{Memory, MIB};
use crate::pack::{PackResult, Tenants};
use crate::size::engine::{share_device, EngineRequest, EngineTarget, PlannedEngine, TenantAsk};

mod launch;
#[cfg(test)]
mod tests;

/// A model to serve as an ask: its name, its config.json and what it must serve.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct ModelAsk {
    pub name: String,
    /// The model's config.json: its text (an object is read as its JSON, keys as given).
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "super::size::config_text")
    )]
    #[cfg_attr(feature = "ts", ts(type = "string | Record<string, unknown>"))]
    pub config: String,
    /// Tokens per sequence (`max_model_len`); default: the model's positions.
    #[cfg_attr(feature = "serde", serde(default))]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub context: Option<u64>,
    /// Sequences served at once; default 1.
    #[cfg_attr(feature = "serde", serde(default))]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub concurrency: Option<u64>,
}

/// The engines planned on one device: a GPU, or a MIG instance of it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct DeviceEngines {
    /// The GPU's index in the packing.
    pub gpu: u64,
    /// The MIG instance's profile and start, when the device is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub instance: Option<String>,
    /// The memory the engines see (CUDA's total on the GPU or instance).
    pub total_bytes: u64,
    /// In start order: each starts once the one before is ready.
    pub engines: Vec<PlannedEngine>,
    pub why: Vec<String>,
}

// A utilisation is never NaN: hundredths or ten-thousandths of a device, as plain floats.
impl Eq for DeviceEngines {}

/// What the plan of engines on an MPS GPU assumes.
const MPS_TOTAL: &str = "Under MPS the utilisations are shares of the whole GPU, as CUDA reports it to a client without a pinned-memory limit; a client given CUDA_MPS_PINNED_DEVICE_MEM_LIMIT may see that limit as its total instead: check torch.cuda.mem_get_info() in the client, or use time-slicing or MIG for engines.";

/// The models as asks, and what the engines need to be planned once placed.
pub(super) struct Served {
    pub asks: Vec<FractionalAsk>,
    models: Vec<(ModelAsk, Option<EngineRequest>)>,
}

/// Each model as an ask of its memory: the engine's footprint on the device it could be given,
/// or without an engine what `size` says it needs.
///
/// # Errors
/// A model's config or sizing errors (under `models[i]`), an engine without the cluster's GPU
/// model, an engine over several GPUs.
pub(super) fn serve(
    models: &[ModelAsk],
    engine: Option<&EngineOptions>,
    caps: &ClusterGpuCaps,
) -> Result<Served> {
    if let Some(e) = engine {
        if e.tensor_parallel_size.unwrap_or(1) != 1 || e.pipeline_parallel_size.unwrap_or(1) != 1 {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                "engines that share a GPU or sit in a MIG instance run on that one device: tensor and pipeline parallel sizes are 1",
            )
            .in_field("engine.tensor_parallel_size"));
        }
    }
    let mut served = Served {
        asks: Vec::new(),
        models: Vec::new(),
    };
    for (i, m) in models.iter().enumerate() {
        let field = format!("models[{i}]");
        let (memory, request) = match engine {
            None => (formula_memory(m).map_err(|e| model_field(e, i))?, None),
            Some(e) => {
                let request = engine_request(m, e, caps).map_err(|e| model_field(e, i))?;
                let memory =
                    engine_memory(&m.name, &request, caps).map_err(|e| e.in_field(&field))?;
                (memory, Some(request))
            }
        };
        let ask = FractionalAsk::memory_only(&m.name, memory).map_err(|e| e.in_field(&field))?;
        served.asks.push(ask);
        served.models.push((m.clone(), request));
    }
    Ok(served)
}

/// A size request's field as the pack request names it: the model's own under `models[i]`, the
/// engine's where it is (`engine.…`), the device's as the cluster's GPU model.
fn model_field(e: Error, i: usize) -> Error {
    let Some(field) = e.field.clone() else {
        return e.in_field(format!("models[{i}]"));
    };
    let renamed = match field.strip_prefix("options.") {
        _ if field == "gpu_model" || field.starts_with("options.fit") => "gpu_model".to_string(),
        Some(engine) if engine.starts_with("engine") => engine.to_string(),
        Some(own) => format!("models[{i}].{own}"),
        None => format!("models[{i}].{field}"),
    };
    Error {
        field: Some(renamed),
        ..e
    }
}

/// What `size` sizes the model at: weights, KV cache and overheads.
fn formula_memory(m: &ModelAsk) -> Result<Memory> {
    let sized = super::size(&SizeRequest {
        config_json: m.config.clone(),
        options: SizingOptions {
            context: m.context,
            concurrency: m.concurrency,
            ..Default::default()
        },
    })?;
    Memory::parse(&sized.ask_memory)
}

/// The engine's request for `m` on the cluster's GPU; the device is set per placement.
fn engine_request(m: &ModelAsk, e: &EngineOptions, caps: &ClusterGpuCaps) -> Result<EngineRequest> {
    let model = gpu_model(caps)?;
    let sized = super::size(&SizeRequest {
        config_json: m.config.clone(),
        options: SizingOptions {
            context: m.context,
            concurrency: m.concurrency,
            fit: Some(super::FitTarget::Gpu {
                gpu_model: model.name.to_string(),
            }),
            engine: Some(e.clone()),
            ..Default::default()
        },
    })?;
    let Some(engine) = sized.engine else {
        return Err(Error::new(ErrorKind::Syntax, "the engine was not sized").in_field("engine"));
    };
    let mut r = EngineRequest::vllm(
        &m.config,
        model.smi_names.first().copied().unwrap_or(model.name),
        usable_bytes(model),
        target(e, m),
    );
    r.engine = engine.name;
    r.version = engine.version;
    r.max_model_len = Some(engine.max_model_len);
    r.max_num_seqs = e.max_num_seqs;
    r.max_num_batched_tokens = e.max_num_batched_tokens;
    r.enforce_eager = e.enforce_eager;
    r.quantization = e.quantization.clone();
    Ok(r)
}

fn target(e: &EngineOptions, m: &ModelAsk) -> EngineTarget {
    match e.gpu_memory_utilization {
        Some(u) => EngineTarget::Utilization(u),
        None => EngineTarget::Concurrency {
            sequences: m.concurrency.unwrap_or(1),
        },
    }
}

fn gpu_model(caps: &ClusterGpuCaps) -> Result<&'static GpuModel> {
    let Some(name) = caps.gpu_model.as_deref() else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "an engine is sized on the memory of the cluster's GPU model",
        )
        .with_hint(Hint::Give {
            input: Input::GpuModel,
        })
        .in_field("gpu_model"));
    };
    require_model(name).map_err(|e| e.in_field("gpu_model"))
}

fn usable_bytes(model: &GpuModel) -> u64 {
    model.usable_memory().mib * MIB
}

/// The most the engine holds on any device it could be given (the whole GPU, an instance of
/// each profile), less the CUDA context the packer adds; an engine no device serves is an error.
fn engine_memory(name: &str, r: &EngineRequest, caps: &ClusterGpuCaps) -> Result<Memory> {
    let model = gpu_model(caps)?;
    let devices = std::iter::once(usable_bytes(model)).chain(
        model
            .profiles
            .iter()
            .map(|p| model.profile_memory(p).mib * MIB),
    );
    let mut most: Option<u64> = None;
    let mut why = String::new();
    for total in devices {
        let device = share_device(&[tenant(r, name, total)])?;
        match device.tenants.first() {
            Some(t) => most = Some(most.unwrap_or(0).max(t.footprint_bytes)),
            None if total == usable_bytes(model) => why = device.why.join(" "),
            None => {}
        }
    }
    let Some(bytes) = most else {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "the engine does not serve it on a whole {} or any instance of it: {why}",
                model.name
            ),
        ));
    };
    let context = caps.context_overhead_mib.unwrap_or(DEFAULT_CONTEXT_MIB) * MIB;
    Memory::from_mib(bytes.saturating_sub(context).div_ceil(MIB).max(1))
}

fn tenant(r: &EngineRequest, ask: &str, total: u64) -> TenantAsk {
    let mut request = r.clone();
    request.gpu_total_bytes = total;
    TenantAsk {
        ask: ask.to_string(),
        request,
    }
}

impl Served {
    /// The engines on each device of `result` that holds a model, planned together.
    pub(super) fn engines(&self, result: &PackResult) -> Result<Vec<DeviceEngines>> {
        let Some(model) = result.memory_model() else {
            return Ok(Vec::new());
        };
        let request = |ask: &str| {
            self.models
                .iter()
                .find(|(m, _)| m.name == ask)
                .and_then(|(_, r)| r.as_ref())
        };
        let mut out = Vec::new();
        for gpu in &result.gpus {
            let mut device = |total: u64, asks: Vec<&str>, instance: Option<String>| {
                let tenants: Vec<TenantAsk> = asks
                    .iter()
                    .filter_map(|a| request(a).map(|r| tenant(r, a, total)))
                    .collect();
                if tenants.is_empty() {
                    return Ok(());
                }
                let d = share_device(&tenants)?;
                out.push(DeviceEngines {
                    gpu: gpu.index,
                    instance,
                    total_bytes: total,
                    engines: d.tenants,
                    why: d.why,
                });
                Ok::<(), Error>(())
            };
            match gpu.tenants() {
                Tenants::Mig(instances) => {
                    for i in instances {
                        let p = model.profiles.iter().find(|p| p.name == i.profile);
                        let total = p.map_or(0, |p| model.profile_memory(p).mib * MIB);
                        let at = format!("{} at {}", i.profile, i.start);
                        device(total, vec![i.ask.as_str()], Some(at))?;
                    }
                }
                Tenants::Timeslice(slots) => {
                    let asks = slots.iter().map(|s| s.ask.as_str()).collect();
                    device(usable_bytes(model), asks, None)?;
                }
                Tenants::Mps(slots) => {
                    let asks = slots.iter().map(|s| s.ask.as_str()).collect();
                    device(usable_bytes(model), asks, None)?;
                    if let Some(d) = out.last_mut().filter(|d| d.gpu == gpu.index) {
                        d.why.push(MPS_TOTAL.to_string());
                    }
                }
                Tenants::Whole(ask) => device(usable_bytes(model), vec![ask.as_str()], None)?,
            }
        }
        Ok(out)
    }
}

/// Packs `asks` and the models of `options` (each an ask of its memory), then plans the engines
/// on each device that holds one.
///
/// # Errors
/// As [`super::pack::pack_on`]; a model's errors under `options.models[i]`, the engine's under
/// `options.engine`.
pub(super) fn pack_models(
    asks: &[FractionalAsk],
    options: &super::PackOptions,
    caps: &ClusterGpuCaps,
    caps_from: Option<super::CapsFrom>,
) -> Result<super::PackResponse> {
    let served =
        serve(&options.models, options.engine.as_ref(), caps).map_err(|e| match e.field {
            Some(ref f) if f == "gpu_model" => e,
            _ => e.in_field("options"),
        })?;
    let mut all = asks.to_vec();
    all.extend(served.asks.iter().cloned());
    let mut response = super::pack::pack_on(&all, options, caps, caps_from)
        .map_err(|e| as_model(e, asks.len()))?;
    response.engines = served.engines(&response.result)?;
    Ok(response)
}

/// An error about the packing's ask `asks[k]` that is the model `k − given`: named as the model.
fn as_model(e: Error, given: usize) -> Error {
    let model = e.field.as_deref().and_then(|f| {
        let (k, rest) = f.strip_prefix("asks[")?.split_once(']')?;
        let i = k.parse::<usize>().ok()?.checked_sub(given)?;
        Some(format!("options.models[{i}]{rest}"))
    });
    match model {
        Some(field) => Error {
            field: Some(field),
            ..e
        },
        None => e,
    }
}

/// The engines of a packing by ask, as the Kubernetes exports start them.
pub(super) fn served_engines(
    packed: &super::PackResponse,
    options: &super::PackOptions,
) -> std::collections::BTreeMap<String, crate::export::ServedEngine> {
    packed
        .engines
        .iter()
        .flat_map(|d| &d.engines)
        .map(|e| {
            let model = options
                .models
                .iter()
                .find(|m| m.name == e.ask)
                .and_then(|m| default_path(&m.config));
            let engine = crate::export::ServedEngine {
                model,
                args: e.args.clone(),
                start_order: e.start_order,
            };
            (e.ask.clone(), engine)
        })
        .collect()
}

/// The model a config names (`_name_or_path`), to load by default.
fn default_path(config: &str) -> Option<String> {
    crate::size::read_config(config).ok()?.name_or_path
}

/// The `launch` export of a packing: its engines' `vllm serve` lines in start order.
///
/// # Errors
/// A packing without engines (field `options.models`).
pub(super) fn launch(packed: &super::PackResponse, options: &super::PackOptions) -> Result<String> {
    let models: Vec<launch::Served> = options
        .models
        .iter()
        .map(|m| launch::Served {
            ask: &m.name,
            default_path: default_path(&m.config),
        })
        .collect();
    let unplaced: Vec<(&str, &str)> = packed
        .result
        .unplaced
        .iter()
        .filter(|u| models.iter().any(|m| m.ask == u.name))
        .map(|u| (u.name.as_str(), u.reason.as_str()))
        .collect();
    launch::script(&packed.engines, &models, &unplaced)
}
