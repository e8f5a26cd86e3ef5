//! The repartition use case: the fewest GPU instances moved (then the fewest GPUs touched) that
//! let new asks into live MIG layouts, found exactly (`search.rs`), with the ordered
//! steps, the nvidia-smi commands, what to drain first, and the mig-parted config of the end state.

use super::discover::{labelled, DetectInput};
use super::fit::{
    gpu_name, in_request, live_asks, live_inventory, profile_for, targets, FitUnplaced, Target,
};
use crate::ask::FractionalAsk;
use crate::catalog::GpuModel;
use crate::error::{Error, ErrorKind, Result};
use search::{solve, Existing, Refusal, MAX_WORK};

mod plan;
mod search;
mod why;
use plan::{commands, mig_parted, placed_asks, Planner};

/// The most asks one repartition places.
pub const MAX_REPARTITION_ASKS: usize = 64;

/// GPUs as they are, the instances that may go, and the asks to fit: npm `repartition(current,
/// asks, options)`, `gpu-share repartition --current FILE`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RepartitionRequest {
    /// nvidia-smi or kubectl output: one text per machine (`nvidia-smi mig -lgi` gives placements).
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "super::discover::texts::one_or_many")
    )]
    pub current: Vec<DetectInput>,
    pub asks: Vec<FractionalAsk>,
    #[cfg_attr(feature = "serde", serde(default))]
    pub options: RepartitionOptions,
}

/// The model the texts may not name, and the instances that may go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct RepartitionOptions {
    /// The GPU model, for GPUs whose texts do not name it.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub gpu_model: Option<String>,
    /// GPU instances that are not in use and may be destroyed; every other one is in use.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub free: Vec<FreeInstance>,
}

/// A GPU instance that may go: its GPU (node and index) and its GPU instance ID.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct FreeInstance {
    #[cfg_attr(feature = "serde", serde(default))]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub node: Option<String>,
    pub gpu: u64,
    pub gpu_instance_id: u32,
}

/// The plan: what each GPU ends as, and the steps that get it there.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct RepartitionResponse {
    pub model: String,
    /// Instances in use that are destroyed and re-created elsewhere: the fewest possible.
    pub moved: u32,
    /// GPUs with any destroy or create: the fewest possible for that many moves.
    pub gpus_touched: u32,
    /// Asks left out (names, in input order).
    pub unplaced: Vec<String>,
    /// Why each of them is left out, in the same order: it fits nowhere even moving instances, or
    /// it fits alone but not with the asks placed (naming them and the moves each needs).
    pub unplaced_reasons: Vec<FitUnplaced>,
    /// Every GPU as it ends.
    pub gpus: Vec<RepartitionGpu>,
    /// In order; each is valid at the moment it runs.
    pub steps: Vec<Step>,
    /// The same steps as nvidia-smi commands, with comments.
    pub commands: Vec<String>,
    /// What runs on a moved instance must stop first.
    pub drain: Vec<String>,
    /// A mig-parted config of the end state, for the GPUs touched.
    pub mig_parted: String,
    pub notes: Vec<String>,
}

/// One GPU as it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct RepartitionGpu {
    pub node: Option<String>,
    pub index: u64,
    pub instances: Vec<PlannedInstance>,
}

/// An instance of the end state.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct PlannedInstance {
    pub profile: String,
    pub start: u8,
    /// The existing instance's ID; `None` for one created by the plan.
    pub gpu_instance_id: Option<u32>,
    /// The ask it serves; `None` for an instance that was already in use.
    pub ask: Option<String>,
    pub status: InstanceStatus,
    /// A moved instance: where it was.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub moved_from: Option<MovedFrom>,
}

/// Where a moved instance was.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct MovedFrom {
    pub node: Option<String>,
    pub gpu: u64,
    pub gpu_instance_id: Option<u32>,
    pub start: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum InstanceStatus {
    /// Already there, untouched.
    Kept,
    /// Re-created here after its old place was destroyed.
    Moved,
    /// Created for an ask.
    New,
}

/// One step of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "op", rename_all = "snake_case"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(
    feature = "ts",
    ts(tag = "op", rename_all = "snake_case", rename_all_fields = "camelCase")
)]
pub enum Step {
    /// Destroy a GPU instance (its compute instances first).
    Destroy {
        node: Option<String>,
        gpu: u64,
        gpu_instance_id: Option<u32>,
        profile: String,
        start: u8,
    },
    /// Create a GPU instance (with one compute instance spanning it) at a free placement.
    Create {
        node: Option<String>,
        gpu: u64,
        profile: String,
        start: u8,
        /// The ask it is for, or the moved instance it replaces (`GPU 3 instance 12`).
        #[cfg_attr(feature = "serde", serde(rename = "for"))]
        #[cfg_attr(feature = "ts", ts(rename = "for"))]
        for_: String,
    },
}

impl Step {
    /// The step in words, as every front end shows it: `destroy 1g.10gb at slice 5 (GPU instance
    /// 12) on GPU 3`, `create 3g.40gb at slice 4 on GPU 3 for big`.
    pub fn describe(&self) -> String {
        match self {
            Step::Destroy {
                node,
                gpu,
                gpu_instance_id,
                profile,
                start,
            } => {
                let id = gpu_instance_id
                    .map(|id| format!(" (GPU instance {id})"))
                    .unwrap_or_default();
                let on = gpu_name(node.as_deref(), *gpu);
                format!("destroy {profile} at slice {start}{id} on {on}")
            }
            Step::Create {
                node,
                gpu,
                profile,
                start,
                for_,
            } => {
                let on = gpu_name(node.as_deref(), *gpu);
                format!("create {profile} at slice {start} on {on} for {for_}")
            }
        }
    }
}

/// An ask resolved to a profile of the model, with its position in the request.
pub(super) struct Wanted<'a> {
    pub index: usize,
    pub name: &'a str,
    pub profile: usize,
}

/// Plans the fewest moves that let the asks in.
///
/// # Errors
/// As `fit` (discovery, the model, the layout); `free` naming no existing GPU instance (field
/// `free[i]`); GPUs of more than one model; more than [`MAX_REPARTITION_ASKS`] asks; a search
/// larger than the exact search takes on (`TooLarge`).
pub fn repartition(request: &RepartitionRequest) -> Result<RepartitionResponse> {
    repartition_live(request).map_err(in_request)
}

fn repartition_live(request: &RepartitionRequest) -> Result<RepartitionResponse> {
    live_asks(&request.asks, MAX_REPARTITION_ASKS, "repartition")?;
    let (inventory, given, mut notes) = live_inventory(
        &labelled(&request.current, "current"),
        request.options.gpu_model.as_deref(),
    )?;
    let targets = targets(&inventory, given, &mut notes)?;
    let model = one_model(&targets)?;
    let gpus = existing(&targets, &request.options.free)?;
    let mut wanted = Vec::new();
    let mut unplaced = Vec::new();
    for (index, ask) in request.asks.iter().enumerate() {
        match profile_for(ask, model) {
            Some(profile) => wanted.push(Wanted {
                index,
                name: ask.name(),
                profile,
            }),
            None => unplaced.push((index, ask.name().to_string())),
        }
    }
    let mut asks = vec![0u32; model.profiles.len()];
    for w in &wanted {
        asks[w.profile] += 1;
    }
    let solution = solve(model, &gpus, &asks).map_err(|Refusal::TooLarge| {
        Error::new(
            ErrorKind::TooLarge,
            format!("this repartition needs more than {MAX_WORK} search steps to be exact; give fewer GPUs (one node at a time) or fewer asks"),
        )
    })?;
    let plan = Planner::new(model, &targets, &gpus, &solution, &wanted);
    let (gpus_out, steps, drain) = plan.build();
    let placed = placed_asks(&wanted, &solution.unplaced);
    let reasons = why::reasons(model, &gpus, &wanted, &placed, &unplaced);
    for w in &wanted {
        if !placed.iter().any(|p| p.index == w.index) {
            unplaced.push((w.index, w.name.to_string()));
        }
    }
    crate::sort::sort(&mut unplaced);
    let commands = commands(model, &targets, &gpus, &solution, &steps);
    Ok(RepartitionResponse {
        model: model.name.to_string(),
        moved: solution.moved,
        gpus_touched: solution.touched,
        unplaced: unplaced.into_iter().map(|(_, n)| n).collect(),
        unplaced_reasons: reasons.into_iter().map(|(_, r)| r).collect(),
        mig_parted: mig_parted(&targets, &solution, model),
        gpus: gpus_out,
        steps,
        commands,
        drain,
        notes,
    })
}

fn one_model(targets: &[Target]) -> Result<&'static GpuModel> {
    let Some(first) = targets.first() else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "the inputs show no MIG-enabled GPU with known placements (nvidia-smi mig -lgi shows them)",
        )
        .in_field("inputs"));
    };
    let model = first.live.model;
    if let Some(other) = targets.iter().find(|t| t.live.model.name != model.name) {
        return Err(Error::new(
            ErrorKind::Syntax,
            format!(
                "the inputs hold GPUs of two models ({} and {}); repartition plans one model at a time",
                model.name, other.live.model.name
            ),
        )
        .in_field("inputs"));
    }
    Ok(model)
}

/// Each GPU's instances, marked in use unless `free` names them.
fn existing(targets: &[Target], free: &[FreeInstance]) -> Result<Vec<Vec<Existing>>> {
    let mut out: Vec<Vec<Existing>> = targets
        .iter()
        .map(|t| {
            t.live
                .placed
                .iter()
                .map(|&placed| Existing {
                    placed,
                    in_use: true,
                })
                .collect()
        })
        .collect();
    for (i, f) in free.iter().enumerate() {
        let found = targets.iter().enumerate().find_map(|(g, t)| {
            let here = t.source.index == f.gpu && (f.node.is_none() || f.node == t.source.node);
            let k = id_position(t, f.gpu_instance_id).filter(|_| here)?;
            Some((g, k))
        });
        let Some((g, k)) = found else {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!(
                    "{} has no GPU instance {} in the inputs",
                    gpu_name(f.node.as_deref(), f.gpu),
                    f.gpu_instance_id
                ),
            )
            .in_field(format!("free[{i}]")));
        };
        out[g][k].in_use = false;
    }
    Ok(out)
}

/// Position in `t.live.placed` (sorted by start) of the instance with this GPU instance ID.
fn id_position(t: &Target, id: u32) -> Option<usize> {
    let device = t
        .source
        .mig_devices
        .iter()
        .find(|d| d.gpu_instance_id == Some(id))?;
    t.live
        .placed
        .iter()
        .position(|p| Some(p.start) == device.start)
}

/// The GPU instance ID of the instance at `start` on `t`, as listed.
pub(super) fn id_at(t: &Target, start: u8) -> Option<u32> {
    t.source
        .mig_devices
        .iter()
        .find(|d| d.start == Some(start))
        .and_then(|d| d.gpu_instance_id)
}
