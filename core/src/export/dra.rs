//! Kubernetes Dynamic Resource Allocation (DRA) for the NVIDIA DRA driver: the claims each placed ask needs and the Deployments that reference them.
//!
//! From the same pack result as every other export (docs/hardware-facts.md §13): MIG GPUs as one
//! ResourceClaim each on the `mig.nvidia.com` class (requests by `profile` and `productName`, held on
//! one GPU by `matchAttribute: gpu.nvidia.com/parentUUID`); time-sliced and MPS GPUs as one
//! ResourceClaim each on `gpu.nvidia.com`, shared by every tenant's pod, with the driver's
//! `GpuConfig` sharing settings; whole GPUs as a ResourceClaimTemplate per workload. The
//! `resource.k8s.io` version follows the Kubernetes version ([`DraOptions`]); the driver's feature
//! gates the plan needs and whether MIG devices must be made first are written as comments and
//! returned as data by `requirements`. [`allocator`] simulates the scheduler's first fit on
//! real ResourceSlices.

pub mod allocator;
mod cel;
pub mod claims;
mod manifests;
pub mod options;
mod requirements;
#[cfg(test)]
mod tests;

pub use cel::string_literal as cel_string_literal;
pub use claims::{ClaimKind, DeviceClass, DraClaim, DraRequest, GpuSharing};
pub use manifests::{GPU_CONFIG_API, PARENT_UUID, POD_CLAIM};
pub use options::{
    DraOptions, KubernetesVersion, MigManagement, ResourceApi, TimeSliceInterval,
    DEFAULT_KUBERNETES_VERSION,
};
pub use requirements::{DraRequirements, Gate};

use super::yaml;
use super::{ExportOptions, Plan};
use crate::error::Result;
use crate::pack::PackResult;

/// The DRA export of `plan`: claims first, then one Deployment per placed ask.
pub(crate) fn dra(plan: &Plan, options: &ExportOptions) -> Result<String> {
    let (version, api) = options.dra.resolve()?;
    let dra_plan = claims::build(plan, &options.dra)?;
    let needs = requirements::requirements(&dra_plan.claims, &options.dra, version, api);
    let mut out = plan.header("dra");
    let mut intro = needs.notes.join("\n");
    let mig = dra_plan
        .claims
        .iter()
        .any(|c| c.requests.iter().any(|r| r.class == DeviceClass::Mig));
    intro.push_str(&format!(
        "\nThe scheduler allocates each claim by first fit, devices in ResourceSlice order, with no device scoring (kubernetes/kubernetes#138765): {} One replica each: the plan reserves devices for one pod.",
        if mig {
            "one claim per planned GPU, its MIG devices held together, is what keeps the planned layout."
        } else if plan.model.is_some() {
            "the claims ask only for devices of the planned board."
        } else {
            "with no GPU model in the plan, the claims take any GPU of the class."
        }
    ));
    intro.push_str(&format!(
        "\nThe image is {}.",
        if options.image == super::DEFAULT_IMAGE {
            "a placeholder: give the image to run"
        } else {
            "as given"
        }
    ));
    yaml::write_comment(&mut out, 0, &intro);
    for claim in &dra_plan.claims {
        out.push_str("---\n");
        yaml::write_comment(&mut out, 0, &manifests::claim_comment(claim, &dra_plan));
        out.push_str(&yaml::document(&manifests::claim_document(
            claim, api, options,
        )));
    }
    for w in &dra_plan.workloads {
        out.push_str("---\n");
        let c = w.ask.choice;
        let claim = &dra_plan.claims[w.claim];
        let what = match &w.request {
            Some(r) => format!("request {r} of {}", claim.name),
            None => claim.name.clone(),
        };
        yaml::write_comment(
            &mut out,
            0,
            &format!(
                "ask {}: {} on {}, through {what}",
                yaml::quoted(w.ask.name),
                c.mechanism,
                super::gpu_list(&w.ask.gpus)
            ),
        );
        let engine = plan.engines.get(w.ask.name);
        out.push_str(&yaml::document(&manifests::deployment(
            &dra_plan, w, engine, options,
        )));
    }
    Ok(out)
}

/// The claims gpu-share writes for `result`, as data (what the first-fit simulation allocates).
///
/// # Errors
/// As the export: bad options, a MIG layout the catalogue refuses, a plan the driver cannot serve.
pub fn claims_for(result: &PackResult, options: &DraOptions) -> Result<Vec<DraClaim>> {
    options.resolve()?;
    let plan = Plan::new(result)?;
    Ok(claims::build(&plan, options)?.claims)
}

/// What the cluster needs for the DRA export of `result`: the API version, the feature gates and
/// whether the MIG devices must be made first (the export's comments say the same).
///
/// # Errors
/// As [`claims_for`].
pub fn requirements(result: &PackResult, options: &DraOptions) -> Result<DraRequirements> {
    let (version, api) = options.resolve()?;
    let plan = Plan::new(result)?;
    let built = claims::build(&plan, options)?;
    Ok(requirements::requirements(
        &built.claims,
        options,
        version,
        api,
    ))
}
