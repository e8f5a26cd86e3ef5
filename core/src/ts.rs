//! TypeScript descriptions (ts-rs) of the types whose JSON is written or read by hand rather than
//! derived: each response type says what its `Serialize` writes, each request part what its reader
//! takes (a fraction as "25%", memory as "12GiB", a budget as bytes, text or a board), with keys in
//! camelCase as the npm package gives and takes them. `tests/core/ts_export/` checks every one
//! against what the type actually serialises or reads.
//!
//! Only with the `ts` feature, which nothing but the declaration generator uses; public (hidden)
//! for the generator to reach the request shapes that have no Rust type of their own.

use crate::account::GpuHours;
use crate::api::{
    CapsFrom, Cluster, DetectResponse, Detected, ExportSettings, FitTarget, OptimizeReport,
    PackOptions as ApiPackOptions, PackResponse,
};
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::discover::Inventory;
use crate::export::{ExportFormat, ExportOptions};
use crate::pack::NodeLayout;
use crate::pack::{GpuLayout, MigInstance, PackResult, SharedSlot, Unplaced};
use crate::plan::Choice;
use crate::size::Dtype;
use crate::units::Share;
use ts_rs::{Config, TypeVisitor, TS};

/// A type written as a plain TypeScript `number` (like ts-rs's own primitives): no declaration.
macro_rules! number {
    ($ty:ty) => {
        impl TS for $ty {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;
            fn name(_: &Config) -> String {
                "number".to_owned()
            }
            fn inline(cfg: &Config) -> String {
                Self::name(cfg)
            }
        }
    };
}

// `Share` serialises as the nearest float number of GPUs; `GpuHours` as a float of GPU-hours.
number!(Share);
number!(GpuHours);

/// A declared type whose body `$body(cfg)` is written here, with its docs and the types it refers to.
macro_rules! declared {
    ($ty:ty, $name:literal, $docs:literal, $body:ident, [$($dep:ty),*]) => {
        impl TS for $ty {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;
            fn docs() -> Option<String> {
                Some(ts_rs::format_docs(&[$docs]))
            }
            fn ident(_: &Config) -> String {
                $name.to_owned()
            }
            fn name(_: &Config) -> String {
                $name.to_owned()
            }
            fn inline(cfg: &Config) -> String {
                $body(cfg)
            }
            fn decl(cfg: &Config) -> String {
                format!("type {} = {};", $name, Self::inline(cfg))
            }
            fn decl_concrete(cfg: &Config) -> String {
                Self::decl(cfg)
            }
            #[allow(unused_variables)]
            fn visit_dependencies(v: &mut impl TypeVisitor)
            where
                Self: 'static,
            {
                $(v.visit::<$dep>();)*
            }
            fn output_path() -> Option<std::path::PathBuf> {
                Some(concat!($name, ".ts").into())
            }
        }
    };
}

/// `<T as TS>::name(cfg)`, shorter.
fn n<T: TS + ?Sized>(cfg: &Config) -> String {
    T::name(cfg)
}

/// An object type: `(doc, key, type)` for each field, in order; a key ending in `?` is optional.
fn object(fields: &[(&str, &str, String)]) -> String {
    let mut out = String::from("{ ");
    for (doc, key, ty) in fields {
        if !doc.is_empty() {
            out.push_str(&format!("/** {doc} */ "));
        }
        out.push_str(&format!("{key}: {ty}, "));
    }
    out.push('}');
    out
}

// ask.rs: `{"name", "fraction"}` or `{"name", "mig_profile"}`.
declared!(
    FractionalAsk,
    "FractionalAsk",
    " An ask as the core writes it: a name with a fraction of a GPU (1 or more: whole GPUs), or with a MIG profile.",
    fractional_ask,
    []
);

fn fractional_ask(cfg: &Config) -> String {
    let name = ("", "name", n::<String>(cfg));
    let fraction = object(&[name.clone(), ("", "fraction", n::<Share>(cfg))]);
    let profile = object(&[name, ("", "migProfile", n::<String>(cfg))]);
    format!("{fraction} | {profile}")
}

// pack/layout.rs: `unplaced` lists names, `unplaced_reasons` the asks with why, `utilisation` is computed.
declared!(
    PackResult,
    "PackResult",
    " The packing of a set of asks.",
    pack_result,
    [Unplaced, GpuLayout, Choice, NodeLayout]
);

fn pack_result(cfg: &Config) -> String {
    object(&[
        ("Physical GPUs in use.", "gpusUsed", n::<u64>(cfg)),
        (
            "No packing of these asks with these mechanisms uses fewer GPUs.",
            "lowerBound",
            n::<u64>(cfg),
        ),
        (
            "The GPU limit packed against, if any.",
            "gpuCount",
            n::<Option<u64>>(cfg),
        ),
        ("", "gpuModel", n::<Option<String>>(cfg)),
        (
            "How much of the GPUs in use the asks asked for, as a share of one GPU (≤ 1).",
            "utilisation",
            n::<Share>(cfg),
        ),
        (
            "Names of the asks that found no room, in input order.",
            "unplaced",
            n::<Vec<String>>(cfg),
        ),
        (
            "The asks that found no room, with why.",
            "unplacedReasons",
            n::<Vec<Unplaced>>(cfg),
        ),
        (
            "One entry per GPU in use, in index order.",
            "gpus",
            n::<Vec<GpuLayout>>(cfg),
        ),
        (
            "The mechanism choice for every ask, in input order.",
            "choices",
            n::<Vec<Choice>>(cfg),
        ),
        ("", "notes", n::<Vec<String>>(cfg)),
        (
            "The nodes, when the cluster has them: each one's role and GPUs.",
            "nodes?",
            n::<Vec<NodeLayout>>(cfg),
        ),
    ])
}

// pack/gpu_layout.rs: one object per mechanism, told apart by `mechanism`; a whole GPU's one slot has share 1.
declared!(
    GpuLayout,
    "GpuLayout",
    " One physical GPU and what runs on it: MIG instances, or shared or whole slots.",
    gpu_layout,
    [MigInstance, SharedSlot]
);

fn gpu_layout(cfg: &Config) -> String {
    let common = |mechanism: &str| {
        vec![
            ("The GPU's position in the packing, from 0.", "index", n::<u64>(cfg)),
            ("The node it is on, when the cluster has nodes.", "node?", n::<String>(cfg)),
            ("", "mechanism", mechanism.to_string()),
            ("Names of the asks on this GPU.", "asks", n::<Vec<String>>(cfg)),
            (
                "The share of this GPU taken (for MIG, the larger of compute and memory slices in use).",
                "usedFraction",
                n::<Share>(cfg),
            ),
        ]
    };
    let mut mig = common("\"mig\"");
    mig.push((
        "Each instance at its placement.",
        "instances",
        n::<Vec<MigInstance>>(cfg),
    ));
    // Absent on a MIG GPU: `g.slots ?? []` type-checks on any GPU.
    mig.push(("", "slots?", "never".to_string()));
    let mut shared = common("\"mps\" | \"timeslice\" | \"whole\"");
    shared.push((
        "MPS and time-sliced GPUs whose asks give memory: the MiB they hold (each with its CUDA context).",
        "memoryUsedMib?",
        n::<u64>(cfg),
    ));
    shared.push((
        "With memoryUsedMib: what the GPU offers (its memory less the driver's reserve), in MiB.",
        "memoryBudgetMib?",
        n::<u64>(cfg),
    ));
    shared.push((
        "Each ask's share of this GPU (a whole GPU's one ask: 1).",
        "slots",
        n::<Vec<SharedSlot>>(cfg),
    ));
    shared.push(("", "instances?", "never".to_string()));
    format!("{} | {}", object(&mig), object(&shared))
}

// api/pack.rs: the result's fields with `optimize` and `caps_from` beside them when present.
declared!(
    PackResponse,
    "PackResponse",
    " A packing (binPack), with how the optimizer did when asked to optimize.",
    pack_response,
    [
        PackResult,
        OptimizeReport,
        CapsFrom,
        crate::api::DeviceEngines
    ]
);

fn pack_response(cfg: &Config) -> String {
    let extra = object(&[
        (
            "Present when the packing was optimized.",
            "optimize?",
            n::<OptimizeReport>(cfg),
        ),
        (
            "Present when the caps were detected.",
            "capsFrom?",
            n::<CapsFrom>(cfg),
        ),
        (
            "Present when models were packed with an engine: the engines on each device, in start order.",
            "engines?",
            n::<Vec<crate::api::DeviceEngines>>(cfg),
        ),
    ]);
    format!("{} & {extra}", n::<PackResult>(cfg))
}

// api/cluster.rs: the inventory's fields, then `caps`.
declared!(
    DetectResponse,
    "DetectResponse",
    " What detect found: the inventory and the capabilities it implies.",
    detect_response,
    [Inventory, ClusterGpuCaps]
);

fn detect_response(cfg: &Config) -> String {
    let caps = object(&[(
        "The capabilities the inventory implies, ready for selectMechanism / binPack.",
        "caps",
        n::<ClusterGpuCaps>(cfg),
    )]);
    format!("{} & {caps}", n::<Inventory>(cfg))
}

// What the npm functions take: their own file.
mod requests;
pub use requests::*;
