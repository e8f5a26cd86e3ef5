//! The claims a plan needs under DRA, as plain data: the manifests are written from it, and the first-fit simulation allocates it.
//!
//! One claim per planned GPU for what shares a GPU, and a template per whole-GPU workload
//! (docs/hardware-facts.md §13): under DRA only the pods that reference one ResourceClaim share its
//! devices, while a ResourceClaimTemplate gives every pod its own claim, so its own device.
//!
//! - **MIG GPU**: a ResourceClaim with one request per instance on the `mig.nvidia.com` class,
//!   selected by `profile` and the board's `productName`, largest instance first, all held on one
//!   GPU by `matchAttribute: gpu.nvidia.com/parentUUID`; each workload takes its own request.
//! - **Time-sliced or MPS GPU**: a ResourceClaim for one device of the `gpu.nvidia.com` class with
//!   the driver's `GpuConfig` sharing settings, referenced by every tenant's pod.
//! - **Whole GPUs**: a ResourceClaimTemplate per workload, `count` GPUs of the board.

use super::options::{DraOptions, MigManagement, TimeSliceInterval};
use crate::catalog::GpuModel;
use crate::error::{Error, ErrorKind, Result};
use crate::export::kubernetes::object_name;
use crate::export::{PlacedAsk, Plan};
use crate::pack::GpuLayout;
use crate::plan::Mechanism;
use crate::units::Share;
use std::collections::BTreeSet;

/// The NVIDIA DRA driver's device classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum DeviceClass {
    /// `gpu.nvidia.com`: whole GPUs (`type == 'gpu'`).
    Gpu,
    /// `mig.nvidia.com`: MIG devices (`type == 'mig'`).
    Mig,
}

impl DeviceClass {
    pub fn name(self) -> &'static str {
        match self {
            DeviceClass::Gpu => "gpu.nvidia.com",
            DeviceClass::Mig => "mig.nvidia.com",
        }
    }

    /// The `type` attribute the class selects (the driver's DeviceClass selector).
    pub fn device_type(self) -> &'static str {
        match self {
            DeviceClass::Gpu => "gpu",
            DeviceClass::Mig => "mig",
        }
    }
}

/// One request of a claim.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct DraRequest {
    /// A DNS label, unique in its claim.
    pub name: String,
    pub class: DeviceClass,
    /// The MIG profile the device must have (`profile` attribute).
    #[cfg_attr(feature = "serde", serde(default))]
    pub profile: Option<String>,
    /// The boards it may be on (`productName`, as nvidia-smi prints it); empty: any.
    #[cfg_attr(feature = "serde", serde(default))]
    pub product_names: Vec<String>,
    /// How many devices (`ExactCount`).
    pub count: u32,
    /// Consumable memory asked of the device (`capacity.requests.memory`), in MiB.
    #[cfg_attr(feature = "serde", serde(default))]
    pub memory_mib: Option<u64>,
    /// The ask of the plan this request is for (MIG requests); not written to the manifests.
    #[cfg_attr(feature = "serde", serde(default))]
    pub ask: Option<String>,
}

/// Whether the pods share one claim or each gets its own from a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum ClaimKind {
    /// A ResourceClaim: allocated once, shared by every pod that names it.
    Shared,
    /// A ResourceClaimTemplate: every pod gets a claim (and devices) of its own.
    Template,
}

/// The driver's `GpuConfig` sharing settings of a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum GpuSharing {
    TimeSlicing {
        interval: TimeSliceInterval,
    },
    Mps {
        /// `defaultActiveThreadPercentage`: the largest share among the GPU's tenants.
        active_thread_percentage: u8,
        /// `defaultPinnedDeviceMemoryLimit` in MiB: the most any tenant needs, when known.
        pinned_memory_mib: Option<u64>,
    },
}

/// One ResourceClaim or ResourceClaimTemplate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct DraClaim {
    /// A DNS subdomain (here always a DNS label).
    pub name: String,
    pub kind: ClaimKind,
    /// The GPUs of the plan it stands for.
    #[cfg_attr(feature = "serde", serde(default))]
    pub planned_gpus: Vec<u64>,
    pub requests: Vec<DraRequest>,
    /// All requests on one GPU: `matchAttribute: gpu.nvidia.com/parentUUID` over them.
    #[cfg_attr(feature = "serde", serde(default))]
    pub same_gpu: bool,
    #[cfg_attr(feature = "serde", serde(default))]
    pub sharing: Option<GpuSharing>,
}

/// The workload of one placed ask and what it references.
pub(crate) struct DraWorkload<'a> {
    pub ask: &'a PlacedAsk<'a>,
    /// The Deployment's name.
    pub object: String,
    /// Index into [`DraPlan::claims`].
    pub claim: usize,
    /// The request of the claim its container takes (`None`: all of it).
    pub request: Option<String>,
    /// `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` when the ask's share is below the claim's default.
    pub mps_thread_percentage: Option<u8>,
}

/// Everything the plan needs under DRA.
pub(crate) struct DraPlan<'a> {
    pub claims: Vec<DraClaim>,
    pub workloads: Vec<DraWorkload<'a>>,
}

/// The `productName` values of the plan's board (every name nvidia-smi prints for it).
pub(crate) fn product_names(model: Option<&GpuModel>) -> Vec<String> {
    model
        .map(|m| m.smi_names.iter().map(|n| n.to_string()).collect())
        .unwrap_or_default()
}

/// Builds the claims and workloads of `plan`.
///
/// # Errors
/// `OutOfRange` for a plan the driver cannot serve with these options: MPS with dynamic MIG
/// (the driver's DynamicMIG and MPSSupport gates exclude each other) or with consumable memory
/// (its ConsumableShares gate does not support MPS); dynamic MIG before Kubernetes 1.34.
pub(crate) fn build<'a>(plan: &'a Plan<'a>, options: &DraOptions) -> Result<DraPlan<'a>> {
    check_gates(plan, options)?;
    let products = product_names(plan.model);
    let mut claims = Vec::new();
    for g in &plan.result.gpus {
        let claim = match g.mechanism() {
            Mechanism::Mig => mig_claim(g, &products),
            Mechanism::Timeslice | Mechanism::Mps => shared_claim(plan, g, &products, options),
            Mechanism::Whole => continue,
        };
        claims.push(claim);
    }
    let mut taken = BTreeSet::new();
    let mut workloads = Vec::new();
    for ask in &plan.placed {
        let object = object_name(ask.name, 63, &taken);
        taken.insert(object.clone());
        workloads.push(workload(ask, object, &mut claims, &products)?);
    }
    Ok(DraPlan { claims, workloads })
}

fn check_gates(plan: &Plan, options: &DraOptions) -> Result<()> {
    let has = |m: Mechanism| plan.result.gpus.iter().any(|g| g.mechanism() == m);
    let refuse = |field: &str, message: String| {
        Err(Error::new(ErrorKind::OutOfRange, message).in_field(format!("dra.{field}")))
    };
    if options.mig == MigManagement::Dynamic && has(Mechanism::Mig) && has(Mechanism::Mps) {
        return refuse("mig", "the plan has MIG and MPS GPUs, but the NVIDIA DRA driver's DynamicMIG gate is mutually exclusive with its MPSSupport gate: use static MIG (MIG devices made beforehand, e.g. with the mig-parted export) or plan without MPS. Nothing written.".into());
    }
    if options.consumable_memory && has(Mechanism::Mps) {
        return refuse("consumable_memory", "the plan has MPS GPUs, but the NVIDIA DRA driver does not support MPS sharing with its ConsumableShares gate (consumable memory): turn consumable memory off or plan without MPS. Nothing written.".into());
    }
    if options.mig == MigManagement::Dynamic && has(Mechanism::Mig) {
        let (version, _) = options.resolve()?;
        if version.minor < 34 {
            return refuse("mig", format!("dynamic MIG needs partitionable devices (shared counters), which the NVIDIA DRA driver publishes for Kubernetes 1.34 and later; Kubernetes {version} has none. Nothing written."));
        }
    }
    Ok(())
}

/// A MIG GPU's claim: one request per instance, largest first, all on one GPU.
fn mig_claim(g: &GpuLayout, products: &[String]) -> DraClaim {
    let mut instances: Vec<_> = g.instances().iter().collect();
    // First fit takes requests in order: the largest first keeps room for the rest.
    instances.sort_by_key(|i| (std::cmp::Reverse(i.memory_slices), i.start));
    let mut taken = BTreeSet::new();
    let requests: Vec<DraRequest> = instances
        .iter()
        .map(|i| {
            let name = object_name(&i.ask, 63, &taken);
            taken.insert(name.clone());
            DraRequest {
                name,
                class: DeviceClass::Mig,
                profile: Some(i.profile.to_string()),
                product_names: products.to_vec(),
                count: 1,
                memory_mib: None,
                ask: Some(i.ask.clone()),
            }
        })
        .collect();
    DraClaim {
        name: format!("gpu-{}-mig", g.index),
        kind: ClaimKind::Shared,
        planned_gpus: vec![g.index],
        same_gpu: requests.len() > 1,
        requests,
        sharing: None,
    }
}

/// A time-sliced or MPS GPU's claim, shared by its tenants.
fn shared_claim(plan: &Plan, g: &GpuLayout, products: &[String], options: &DraOptions) -> DraClaim {
    let mps = g.mechanism() == Mechanism::Mps;
    let tenants: Vec<&crate::plan::Choice> = g
        .asks()
        .filter_map(|a| plan.result.choices.iter().find(|c| c.name == a))
        .collect();
    let sharing = if mps {
        GpuSharing::Mps {
            active_thread_percentage: tenants
                .iter()
                .filter_map(|c| c.mps.map(|m| m.active_thread_percentage))
                .max()
                .unwrap_or(100),
            pinned_memory_mib: tenants
                .iter()
                .filter_map(|c| {
                    c.mps
                        .and_then(|m| m.pinned_memory_mib)
                        .or(c.held_memory_mib)
                })
                .max(),
        }
    } else {
        GpuSharing::TimeSlicing {
            interval: options.time_slice_interval,
        }
    };
    let memory_mib = options
        .consumable_memory
        .then(|| tenants_memory(g, plan.model))
        .flatten();
    DraClaim {
        name: format!(
            "gpu-{}-{}",
            g.index,
            if mps { "mps" } else { "time-slicing" }
        ),
        kind: ClaimKind::Shared,
        planned_gpus: vec![g.index],
        requests: vec![DraRequest {
            name: "gpu".into(),
            class: DeviceClass::Gpu,
            profile: None,
            product_names: products.to_vec(),
            count: 1,
            memory_mib,
            ask: None,
        }],
        same_gpu: false,
        sharing: Some(sharing),
    }
}

/// The memory a shared GPU's tenants hold together, in MiB: what each asked (with its context),
/// else its share of the board's memory rounded up. `None` without a model for a share.
fn tenants_memory(g: &GpuLayout, model: Option<&GpuModel>) -> Option<u64> {
    let one = u128::from(Share::ONE.units());
    let mut total: u64 = 0;
    for slot in g.slots() {
        let mib = match slot.memory_mib {
            Some(m) => m,
            None => {
                let board = u128::from(model?.memory_mib);
                let share = u128::from(slot.share.units());
                u64::try_from((share * board).div_ceil(one)).ok()?
            }
        };
        total = total.saturating_add(mib);
    }
    Some(total)
}

fn workload<'a>(
    ask: &'a PlacedAsk<'a>,
    object: String,
    claims: &mut Vec<DraClaim>,
    products: &[String],
) -> Result<DraWorkload<'a>> {
    let c = ask.choice;
    let first = ask.gpus.first().copied();
    let on_gpu = |claims: &Vec<DraClaim>| {
        claims
            .iter()
            .position(|k| k.kind == ClaimKind::Shared && Some(k.planned_gpus[0]) == first)
    };
    let mut out = DraWorkload {
        ask,
        object: object.clone(),
        claim: 0,
        request: None,
        mps_thread_percentage: None,
    };
    match c.mechanism {
        Mechanism::Whole => {
            claims.push(DraClaim {
                name: format!("{}-gpu", object_name(&object, 59, &BTreeSet::new())),
                kind: ClaimKind::Template,
                planned_gpus: ask.gpus.clone(),
                requests: vec![DraRequest {
                    name: "gpu".into(),
                    class: DeviceClass::Gpu,
                    profile: None,
                    product_names: products.to_vec(),
                    count: u32::try_from(c.gpus).unwrap_or(u32::MAX),
                    memory_mib: None,
                    ask: Some(ask.name.to_string()),
                }],
                same_gpu: false,
                sharing: None,
            });
            out.claim = claims.len() - 1;
        }
        mechanism => {
            let Some(k) = on_gpu(claims) else {
                return Err(Error::new(
                    ErrorKind::OutOfRange,
                    format!("ask {:?} is on no GPU of the plan", ask.name),
                )
                .in_field(format!("asks[{}]", ask.index)));
            };
            out.claim = k;
            if mechanism == Mechanism::Mig {
                out.request = mig_request(&claims[k], ask);
            }
            if let (
                Some(GpuSharing::Mps {
                    active_thread_percentage,
                    ..
                }),
                Some(limits),
            ) = (claims[k].sharing, c.mps)
            {
                out.mps_thread_percentage = (limits.active_thread_percentage
                    < active_thread_percentage)
                    .then_some(limits.active_thread_percentage);
            }
        }
    }
    Ok(out)
}

/// The request of a MIG claim made for `ask`'s instance.
fn mig_request(claim: &DraClaim, ask: &PlacedAsk) -> Option<String> {
    claim
        .requests
        .iter()
        .find(|r| r.ask.as_deref() == Some(ask.name))
        .map(|r| r.name.clone())
}
