//! Several engines sharing one device's memory (a GPU, a MIG instance, a shared GPU): each
//! engine's utilisation is a share of the memory *it* sees (`gpu_total_bytes`, the same for all
//! of them), found as for one engine; then the set must fit together.
//!
//! vLLM checks only that the memory free when it starts covers its own request
//! (`request_memory`), and an engine profiling while another loads reads the other's memory as
//! its own (vllm-project/vllm#55827), so the engines start one at a time, each after the one
//! before is ready (PR #18974). Each engine then holds its request, the memory its process took
//! before vLLM's snapshot (CUDA context, NCCL) and its CUDA graphs (captured after the KV cache,
//! outside the request in 0.19): those footprints must sum to at most the device. When they do,
//! every engine's start-up check passes in the order given (what is free when engine k starts is
//! the device less the footprints before it, at least its request and its own context).

use super::inverse::smallest_utilization;
use super::plan::prepare;
use super::{EngineRequest, EngineTarget};
use crate::error::{Error, ErrorKind, Result};
use crate::size::text::bytes_text;

/// One engine of the set, named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TenantAsk {
    pub ask: String,
    pub request: EngineRequest,
}

/// One engine placed on the device.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct PlannedEngine {
    pub ask: String,
    pub gpu_memory_utilization: f64,
    /// 1 for the first to start; each starts once the one before is ready.
    pub start_order: u64,
    pub args: Vec<String>,
    pub kv_cache_bytes: u64,
    pub max_concurrency: u64,
    /// What it holds: the request, its context and its CUDA graphs.
    pub footprint_bytes: u64,
}

/// The plan for a device's engines, or why they cannot share it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct SharedDevice {
    pub total_bytes: u64,
    /// Every engine, in start order; empty when the set does not fit.
    pub tenants: Vec<PlannedEngine>,
    /// The engines left unplaced (all of them, when the set does not fit).
    pub unplaced: Vec<String>,
    pub why: Vec<String>,
}

/// Plans `engines` on one device. Every request must give the same `gpu_total_bytes`.
///
/// # Errors
/// No engines, devices that differ (field `engines[i].gpu_total_bytes`), and each engine's own
/// errors under `engines[i]`.
pub fn share_device(engines: &[TenantAsk]) -> Result<SharedDevice> {
    let Some(first) = engines.first() else {
        return Err(
            Error::new(ErrorKind::OutOfRange, "give at least one engine").in_field("engines"),
        );
    };
    let total = first.request.gpu_total_bytes;
    let mut tenants = Vec::new();
    let mut why = Vec::new();
    let mut refused = Vec::new();
    for (i, e) in engines.iter().enumerate() {
        let field = format!("engines[{i}]");
        if e.request.gpu_total_bytes != total {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("every engine shares one device of {total} bytes"),
            )
            .in_field(format!("{field}.gpu_total_bytes")));
        }
        let detail = match e.request.target {
            EngineTarget::Utilization(u) => prepare(&e.request)
                .map_err(|x| x.in_field(field.clone()))?
                .at(u),
            EngineTarget::Concurrency { sequences } => smallest_utilization(&e.request, sequences)
                .map_err(|x| x.in_field(field.clone()))?,
        };
        let g = &detail.engine.per_gpu;
        if !detail.engine.starts {
            refused.push(e.ask.clone());
            why.push(format!(
                "{}: {}",
                e.ask,
                detail.engine.why.last().cloned().unwrap_or_default()
            ));
        }
        tenants.push(PlannedEngine {
            ask: e.ask.clone(),
            gpu_memory_utilization: detail.engine.gpu_memory_utilization,
            start_order: i as u64 + 1,
            args: detail.engine.args.clone(),
            kv_cache_bytes: g.kv_cache_bytes,
            max_concurrency: detail.engine.max_concurrency,
            footprint_bytes: g.requested_bytes + detail.before_snapshot_bytes + g.cuda_graph_bytes,
        });
    }
    let sum: u128 = tenants.iter().map(|t| u128::from(t.footprint_bytes)).sum();
    if refused.is_empty() && sum <= u128::from(total) {
        why.push(format!("The engines hold {} of the device's {} (each its request, CUDA context and CUDA graphs); start them one at a time in this order, each once the one before is ready.", bytes_text(u64::try_from(sum).unwrap_or(u64::MAX)), bytes_text(total)));
        return Ok(SharedDevice {
            total_bytes: total,
            tenants,
            unplaced: Vec::new(),
            why,
        });
    }
    if refused.is_empty() {
        let parts: Vec<String> = tenants
            .iter()
            .map(|t| format!("{} {}", t.ask, bytes_text(t.footprint_bytes)))
            .collect();
        why.push(format!(
            "The engines cannot share the device: together they hold {} ({}), more than its {}.",
            bytes_text(u64::try_from(sum).unwrap_or(u64::MAX)),
            parts.join(", "),
            bytes_text(total)
        ));
    }
    Ok(SharedDevice {
        total_bytes: total,
        unplaced: engines.iter().map(|e| e.ask.clone()).collect(),
        tenants: Vec::new(),
        why,
    })
}
