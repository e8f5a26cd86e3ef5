//! The use cases, once. Each takes a validated request in the user's words and returns a response
//! that every front end — the CLI, the npm package, the web page — renders as it is: they only
//! turn their input into a request, make one call here, and show the answer. The same request
//! gives the same response everywhere, and (with the `serde` feature) the same JSON, byte for byte.
//!
//! | use case | call | response |
//! | --- | --- | --- |
//! | plan one ask | [`plan`] | [`PlanResponse`] (the choice, where the caps came from) |
//! | pack a scenario | [`pack`] | [`PackResponse`] (result, optimize report, where the caps came from) |
//! | pack many asks as columns | [`pack_columns`] | [`PackColumns`] (the same packing by position: a summary, one array per field per ask and per GPU) |
//! | pack what can be packed | [`pack_leaving_out`] | [`PackResponse`] with the asks left out, each with its error and fix |
//! | detect | [`detect`] | [`DetectResponse`] (inventory, caps, summary) |
//! | record, release, import | [`record_plan`], [`record_pack`], [`release`], [`import`] | ledger entries |
//! | summarise | [`summarise`] | [`SummaryResponse`] |
//! | export | [`export`] | [`ExportResponse`] |
//! | validate a MIG layout | [`validate_mig`] | [`MigValidation`] |
//! | the fewest moves that fit new asks | [`repartition`] | [`RepartitionResponse`] (end state, steps, commands) |
//! | what fits on GPUs as they are | [`fit`] | [`FitResponse`] (per GPU: creatable profiles, stranded slices; where asks go) |
//! | the memory a model needs (config.json) | `size` | `SizeResponse` (parameters, weights, KV cache, overheads; what fits a budget) |
//! | replay a cluster's workload online | [`replay()`] | [`crate::replay::Replay`] (allocation and fragmentation per percent of demand, per policy and seed; the bound) |

mod cluster;
mod columns;
mod export;
mod fit;
mod ledger;
mod left_out;
mod pack;
mod repartition;
mod replay;
#[cfg(feature = "serde")]
mod size;

pub use crate::account::{already_recorded, remove_entries, AlreadyRecorded};
pub use cluster::{caps_summary, detect, CapsFrom, Cluster, DetectInput, DetectResponse};
pub use columns::{
    pack_columns, AskColumns, AskPlacements, GpuColumns, PackColumns, PackColumnsRequest,
    PackColumnsSummary, UnplacedAt, WarningCount,
};
pub use export::{export, gpu_ranges, ExportRequest, ExportResponse};
pub use fit::{
    fit, Creatable, FitPlacement, FitRequest, FitResponse, FitUnplaced, GpuFit, LiveInstance,
    MAX_FIT_ASKS,
};
#[cfg(feature = "serde")]
pub use ledger::import;
pub use ledger::{
    record_pack, record_plan, release, summarise, Imported, Recording, SummaryRequest,
    SummaryResponse, MAX_UNIX_SECONDS,
};
pub use left_out::{pack_given_leaving_out, pack_leaving_out, Fix, LeftOut};
pub use pack::{
    pack, OptimizeReport, PackRequest, PackResponse, DEFAULT_OPTIMIZE_MS, MAX_OPTIMIZE_MS,
};
pub use repartition::{
    repartition, FreeInstance, InstanceStatus, MovedFrom, PlannedInstance, RepartitionGpu,
    RepartitionRequest, RepartitionResponse, Step, MAX_REPARTITION_ASKS,
};
pub use replay::{replay, ReplayRequest, DEFAULT_SEED};
#[cfg(feature = "serde")]
pub use size::{size, FitResult, FitTarget, ParameterPart, SizePlan, SizeRequest, SizeResponse};

use crate::error::Result;
use crate::{Choice, FractionalAsk, MigValidation};

/// One ask to plan on a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanRequest {
    pub ask: FractionalAsk,
    pub cluster: Cluster,
}

/// The mechanism that serves the ask, and where the caps came from when they were detected.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct PlanResponse {
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub choice: Choice,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub caps_from: Option<CapsFrom>,
}

/// Plans one ask on the cluster: the mechanism that serves it, with notes and warnings.
///
/// # Errors
/// Caps the catalogue refuses (an unknown model where MIG needs one, a profile the model lacks),
/// discovery errors.
pub fn plan(request: &PlanRequest) -> Result<PlanResponse> {
    let (caps, caps_from) = request.cluster.caps()?;
    Ok(PlanResponse {
        choice: crate::select_mechanism(&request.ask, &caps)?,
        caps_from,
    })
}

/// Checks MIG instances on one GPU of the model named `model` (canonical, nvidia-smi or short
/// name): whether they fit, why not, and where each goes.
///
/// # Errors
/// `UnknownModel` (field `model`), `UnknownProfile` (field `profiles`).
pub fn validate_mig(model: &str, profiles: &[&str]) -> Result<MigValidation> {
    let model = crate::catalog::require_model(model).map_err(|e| e.in_field("model"))?;
    crate::validate_mig(model, profiles).map_err(|e| e.in_field("profiles"))
}
