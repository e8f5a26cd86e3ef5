//! gpu-share's placement beside what the scheduler would do: with claims written the usual way (a template per workload) and with gpu-share's own claims.
//!
//! The usual way is how the NVIDIA driver's demos and dra-driver-nvidia-gpu#932 write it: each
//! workload a ResourceClaimTemplate asking for one device of its kind. Under DRA that gives every
//! pod a device of its own (a time-sliced ask takes a whole GPU) and, with one slice per GPU,
//! lets each MIG claim start on any GPU. gpu-share's claims hold each planned GPU's devices in one
//! claim on one GPU (see `claims`).

use super::gpus::stranded;
use super::{simulate, FirstFit, SliceOrder};
use crate::discover::resource_slice::ResourceSlices;
use crate::error::Result;
use crate::export::dra::claims::{
    self, product_names, ClaimKind, DeviceClass, DraClaim, DraRequest,
};
use crate::export::dra::options::DraOptions;
use crate::export::kubernetes::object_name;
use crate::export::Plan;
use crate::pack::mig::Placed;
use crate::pack::PackResult;
use crate::plan::Mechanism;
use std::collections::BTreeSet;

/// gpu-share's placement and the scheduler's first fit of two sets of claims, on the same slices.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct PlanVsScheduler {
    /// GPUs gpu-share's own placement uses.
    pub planned_gpus_used: u64,
    /// Memory slices gpu-share's MIG layouts leave stranded for the profiles asked.
    pub planned_stranded_memory_slices: u64,
    /// The slices' GPUs that gpu-share's placement leaves whole, when it needs no more than there are.
    pub planned_whole_gpus_left: Option<u64>,
    /// The scheduler's first fit of claims written the usual way: a template per workload.
    pub per_ask: FirstFit,
    /// The scheduler's first fit of gpu-share's claims.
    pub gpu_share: FirstFit,
    pub notes: Vec<String>,
}

/// What a simulation of a plan takes besides the plan and the slices: the options of
/// `api::simulate_dra`'s request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct SimulationOptions {
    /// The order each claim visits a node's slices. `None`: both, since the scheduler's own
    /// order is not fixed (pools come from a Go map, slices in the informer's order): `listed`,
    /// then `spread`, the order that scatters small claims (dra-driver-nvidia-gpu#932).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub order: Option<SliceOrder>,
    /// The DRA export's options, so that the claims simulated are the ones it writes.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub dra: DraOptions,
}

/// One template per placed ask, one device each (whole asks: their GPU count).
///
/// # Errors
/// As [`crate::export::dra::claims_for`].
pub fn per_ask_claims(result: &PackResult, options: &DraOptions) -> Result<Vec<DraClaim>> {
    options.resolve()?;
    let plan = Plan::new(result)?;
    let products = product_names(plan.model);
    let mut taken = BTreeSet::new();
    let mut out = Vec::new();
    for ask in &plan.placed {
        let object = object_name(ask.name, 57, &taken);
        taken.insert(object.clone());
        let c = ask.choice;
        let (class, profile, count) = match c.mechanism {
            Mechanism::Mig => (
                DeviceClass::Mig,
                ask.instance
                    .map(|i| i.profile.to_string())
                    .or(c.mig_profile.clone()),
                1,
            ),
            Mechanism::Whole => (
                DeviceClass::Gpu,
                None,
                u32::try_from(c.gpus).unwrap_or(u32::MAX),
            ),
            Mechanism::Timeslice | Mechanism::Mps => (DeviceClass::Gpu, None, 1),
        };
        out.push(DraClaim {
            name: format!("{object}-claim"),
            kind: ClaimKind::Template,
            planned_gpus: ask.gpus.clone(),
            requests: vec![DraRequest {
                name: "gpu".into(),
                class,
                profile,
                product_names: products.clone(),
                count,
                memory_mib: None,
                ask: Some(ask.name.to_string()),
            }],
            same_gpu: false,
            sharing: None,
        });
    }
    Ok(out)
}

/// Simulates both sets of claims for `result` on `slices`, visiting slices in `order`.
///
/// # Errors
/// As [`per_ask_claims`] and [`simulate`].
pub fn compare(
    slices: &ResourceSlices,
    result: &PackResult,
    options: &DraOptions,
    order: SliceOrder,
) -> Result<PlanVsScheduler> {
    let per_ask = simulate(slices, &per_ask_claims(result, options)?, order)?;
    let plan = Plan::new(result)?;
    let ours = claims::build(&plan, options)?.claims;
    let gpu_share = simulate(slices, &ours, order)?;
    let asked: BTreeSet<&str> = result
        .gpus
        .iter()
        .flat_map(|g| g.instances())
        .map(|i| i.profile)
        .collect();
    let mut planned_stranded = 0;
    if let Some(model) = plan.model {
        for g in result
            .gpus
            .iter()
            .filter(|g| g.mechanism() == Mechanism::Mig)
        {
            let placed: Vec<Placed> = g
                .instances()
                .iter()
                .filter_map(|i| {
                    let profile = model.profiles.iter().position(|p| p.name == i.profile)?;
                    Some(Placed {
                        profile,
                        start: i.start,
                    })
                })
                .collect();
            let used: u16 = g.instances().iter().fold(0, |m, i| {
                m | (((1u32 << i.memory_slices) - 1) << i.start) as u16
            });
            let total = model.mig.map_or(0, |m| m.memory_slices);
            let free: Vec<u8> = (0..total).filter(|s| used & (1 << s) == 0).collect();
            planned_stranded += stranded(model, &placed, &free, &asked).len() as u64;
        }
    }
    let gpus_in_slices = gpu_share.gpus.len() as u64;
    let mut notes = Vec::new();
    if result.gpu_model.is_some() && gpu_share.gpus.iter().all(|g| g.model != result.gpu_model) {
        notes.push(format!(
            "no GPU of the slices is the plan's model {}: the claims select it by productName",
            result.gpu_model.as_deref().unwrap_or("?")
        ));
    }
    Ok(PlanVsScheduler {
        planned_gpus_used: result.gpus_used,
        planned_stranded_memory_slices: planned_stranded,
        planned_whole_gpus_left: gpus_in_slices.checked_sub(result.gpus_used),
        per_ask,
        gpu_share,
        notes,
    })
}
