//! The one door into the core. Each use case is here once: a request (plain data) in, a finished
//! response out, which every front end — the CLI, the npm package, the web page — renders as it
//! is. They turn their input into a request, make one call here, and show the answer; the same
//! request gives the same response everywhere and (with the `serde` feature) the same JSON, byte
//! for byte. Beside the use cases, this module re-exports the value types those requests and
//! responses are made of; nothing else of the core is public.
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
//! | the Kubernetes DRA allocator's first fit of a plan's claims on ResourceSlices | [`simulate_dra`] | [`SimulateDraResponse`] (per slice order: GPUs used, left whole, memory slices stranded, for claims a template per workload and for gpu-share's; the text) |
//! | validate a MIG layout | [`validate_mig`] | [`MigValidation`] |
//! | the fewest moves that fit new asks | [`repartition`] | [`RepartitionResponse`] (end state, steps, commands) |
//! | what fits on GPUs as they are | [`fit`] | [`FitResponse`] (per GPU: creatable profiles, stranded slices; where asks go) |
//! | the memory a model needs (config.json) | `size` | `SizeResponse` (parameters, weights, KV cache, overheads; what fits a budget) |
//! | plain bin packing of whole-number sizes | [`first_fit_decreasing_bins`] | the bins used |
//! | replay a cluster's workload online | [`replay()`] | [`Replay`] (allocation and fragmentation per percent of demand, per policy and seed; the bound) |

mod account;
mod bins;
mod cluster;
mod columns;
mod discover;
// ResourceSlices are read from JSON or YAML only.
#[cfg(feature = "serde")]
mod dra;
mod export;
#[cfg(feature = "serde")]
mod fields;
mod fit;
mod left_out;
mod pack;
mod plan;
mod repartition;
mod replay;
#[cfg(feature = "serde")]
mod serve;
#[cfg(feature = "serde")]
mod size;
mod validate_mig;

// The use cases, their requests and responses.
pub use crate::account::AlreadyRecorded;
#[cfg(feature = "serde")]
pub use crate::size::engine::{Engine, PerGpu, PlannedEngine, Utilization};
pub use account::{
    already_recorded, record_pack, record_plan, recorded_before, release, summarise, undo,
    ImportRequest, Imported, LedgerChangeRequest, RecordPlanRequest, RecordedBefore, Recording,
    ReleaseRequest, SummaryRequest, SummaryResponse, MAX_UNIX_SECONDS,
};
#[cfg(feature = "serde")]
pub use account::{import, ledger_json_lines};
pub use bins::first_fit_decreasing_bins;
pub use cluster::{check_caps, CapsFrom, Cluster, Detected};
pub use columns::{
    pack_columns, AskColumns, AskPlacements, GpuColumns, PackColumns, PackColumnsRequest,
    PackColumnsSummary, UnplacedAt, WarningCount,
};
pub use discover::{caps_summary, detect, DetectInput, DetectRequest, DetectResponse};
#[cfg(feature = "serde")]
pub use dra::{simulate_dra, SimulateDraRequest, SimulateDraResponse, SimulateDraSettings};
pub use export::{export, gpu_ranges, ExportRequest, ExportResponse, ExportSettings};
#[cfg(feature = "serde")]
pub use fields::{use_case, UseCase, USE_CASES};
pub use fit::{
    fit, Creatable, FitPlacement, FitRequest, FitResponse, FitUnplaced, GpuFit, LiveInstance,
    LiveOptions, MAX_FIT_ASKS,
};
pub use left_out::{pack_given_leaving_out, pack_leaving_out, Fix, LeftOut};
pub use pack::{
    pack, OptimizeReport, PackOptions, PackRequest, PackResponse, DEFAULT_OPTIMIZE_MS,
    MAX_OPTIMIZE_MS,
};
pub use plan::{plan, PlanRequest, PlanResponse};
pub use repartition::{
    repartition, FreeInstance, InstanceStatus, MovedFrom, PlannedInstance, RepartitionGpu,
    RepartitionOptions, RepartitionRequest, RepartitionResponse, Step, MAX_REPARTITION_ASKS,
};
pub use replay::{replay, ReplayRequest, ReplaySettings, DEFAULT_SEED};
#[cfg(feature = "serde")]
pub use serve::{DeviceEngines, ModelAsk};
#[cfg(feature = "serde")]
pub use size::{
    size, EngineOptions, FitResult, FitTarget, ParameterPart, SizePlan, SizeRequest, SizeResponse,
    SizingOptions,
};
pub use validate_mig::{validate_mig, ValidateMigRequest};
#[cfg(feature = "serde")]
pub use validate_mig::{validate_mig_parted, MigPartedEntry, MigPartedRequest, MigPartedResponse};

// The values requests and responses are made of.
#[cfg(feature = "serde")]
pub use crate::account::{
    format_entry, ledger_document, parse_ledger, parse_ledger_any, MAX_LEDGER_BYTES,
};
pub use crate::account::{
    fractional_gpu_hours, ledger_csv, summary_csv, utc_text, GpuHours, LedgerEntry, Rates,
    RatesInput, Summary, SummaryRow, Usage, UsageRecord, UsageStatus,
};
#[cfg(feature = "serde")]
pub use crate::ask::AskReader;
pub use crate::ask::{unused_name, validate_name, AskSize, FractionalAsk};
pub use crate::caps::nodes::{nodes_to_text, parse_nodes, NodeSpec};
pub use crate::caps::{ClusterGpuCaps, MAX_GPU_COUNT};
pub use crate::catalog::{
    find_model, models, require_model, Certainty, GpuModel, MigProfile, ProfileSms,
    DEFAULT_MIG_MODEL,
};
pub use crate::discover::{failed_input, DiscoveredGpu, Inventory};
pub use crate::error::{Error, ErrorKind, Hint, Input, Result};
pub use crate::export::dra::allocator::{
    Allocated, ClaimOutcome, FirstFit, GpuOutcome, PlanVsScheduler, SimulationOptions, SliceOrder,
};
pub use crate::export::dra::{
    DraOptions, KubernetesVersion, MigManagement, TimeSliceInterval, DEFAULT_KUBERNETES_VERSION,
};
pub use crate::export::{
    ExportFormat, ExportOptions, MigStrategy, DEFAULT_CONFIG_NAME, DEFAULT_IMAGE,
};
pub use crate::memory::{mib_text, overhead_text, parse_overhead_mib, Memory};
pub use crate::pack::{
    GpuLayout, MigInstance, NodeLayout, NodeRole, PackResult, SharedSlot, Tenants, Unplaced,
    MAX_ASKS,
};
pub use crate::parse::{
    hours_text, parse_ask_list, parse_asks, parse_hours, parse_seconds, too_large, AskEntry,
    AskList, ListedModel, Oversize, MAX_INPUT_BYTES, MAX_SECONDS,
};
pub use crate::plan::{Choice, Isolation, Mechanism, ShareInstead, WarningGroup, WarningKind};
pub use crate::replay::percent::Percent;
pub use crate::replay::run::PolicyRuns;
pub use crate::replay::workload::Tune;
pub use crate::replay::{Policy, Replay, Run};
pub use crate::scenario::Scenario;
#[cfg(feature = "serde")]
pub use crate::size::{bytes_text, grouped, Dtype};
pub use crate::sort::sort;
pub use crate::units::Share;
pub use crate::validate_mig::{MigPlacement, MigValidation};
