//! What a DRA plan needs of the cluster before its pods can start: the `resource.k8s.io` version, Kubernetes and driver feature gates, and whether MIG devices must be made first.
//!
//! The driver's gates (kubernetes-sigs/dra-driver-nvidia-gpu `pkg/featuregates`, docs/hardware-facts.md
//! §13): `TimeSlicingSettings` and `MPSSupport` are alpha and off by default, and the driver's
//! `GpuConfig` validation refuses a TimeSlicing or MPS strategy without them — at the pod's
//! start, after the scheduler has allocated the claim; `DynamicMIG` is alpha too. Nothing in
//! Kubernetes checks them earlier, so the export states them.

use super::claims::{DeviceClass, DraClaim, GpuSharing};
use super::options::{DraOptions, KubernetesVersion, MigManagement, ResourceApi};

/// A feature gate the plan needs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Gate {
    pub name: String,
    /// `alpha` or `beta`, where the source says.
    pub stage: String,
    /// Which component sets it: `the NVIDIA DRA driver` or the Kubernetes components.
    pub set_on: String,
    /// Why this plan needs it.
    pub why: String,
}

/// Everything the cluster must have for the export to work.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DraRequirements {
    /// `1.34`.
    pub kubernetes_version: String,
    /// `resource.k8s.io/v1`.
    pub api_version: String,
    pub gates: Vec<Gate>,
    /// Static MIG: the MIG devices must exist before the claims are allocated (`gpu-share
    /// export mig-parted`), since the driver publishes only those.
    pub mig_devices_first: bool,
    /// The same, one sentence each, as written in the export's comments.
    pub notes: Vec<String>,
}

fn gate(name: &str, stage: &str, set_on: &str, why: &str) -> Gate {
    Gate {
        name: name.into(),
        stage: stage.into(),
        set_on: set_on.into(),
        why: why.into(),
    }
}

const DRIVER: &str = "the NVIDIA DRA driver's kubelet plugin";
const KUBERNETES: &str = "kube-apiserver, kube-controller-manager, kube-scheduler and kubelet";

/// The requirements of `claims` on Kubernetes `version` (`api`).
pub(crate) fn requirements(
    claims: &[DraClaim],
    options: &DraOptions,
    version: KubernetesVersion,
    api: ResourceApi,
) -> DraRequirements {
    let sharing = |mps: bool| {
        claims.iter().any(|c| match c.sharing {
            Some(GpuSharing::Mps { .. }) => mps,
            Some(GpuSharing::TimeSlicing { .. }) => !mps,
            None => false,
        })
    };
    let mig = claims
        .iter()
        .any(|c| c.requests.iter().any(|r| r.class == DeviceClass::Mig));
    let mut gates = Vec::new();
    if api == ResourceApi::V1beta1 {
        gates.push(gate("DynamicResourceAllocation", "beta", KUBERNETES, "DRA is beta and off by default in Kubernetes 1.32 and 1.33; the API group also needs --runtime-config=resource.k8s.io/v1beta1=true on kube-apiserver"));
    }
    if sharing(false) {
        gates.push(gate("TimeSlicingSettings", "alpha", DRIVER, "the time-sliced GPUs' GpuConfig sets sharing.strategy TimeSlicing, which the driver refuses without it"));
    }
    if sharing(true) {
        gates.push(gate("MPSSupport", "alpha", DRIVER, "the MPS GPUs' GpuConfig sets sharing.strategy MPS, which the driver refuses without it"));
    }
    if mig && options.mig == MigManagement::Dynamic {
        gates.push(gate(
            "DynamicMIG",
            "alpha",
            DRIVER,
            "the driver creates each MIG device when its claim is allocated",
        ));
        if version.minor < 36 {
            gates.push(gate("DRAPartitionableDevices", "alpha", KUBERNETES, "dynamic MIG publishes partitionable devices (shared counters), which the scheduler ignores without it"));
        }
    }
    if options.consumable_memory {
        gates.push(gate(
            "ConsumableShares",
            "alpha",
            DRIVER,
            "the shared claims ask for part of a GPU's memory (capacity.requests.memory)",
        ));
        if version.minor < 36 {
            gates.push(gate(
                "DRAConsumableCapacity",
                "alpha",
                KUBERNETES,
                "requests with capacity.requests need it",
            ));
        }
    }
    let mig_devices_first = mig && options.mig == MigManagement::Static;
    let mut notes = vec![format!(
        "Kubernetes {version}: {} (the NVIDIA DRA driver, kubernetes-sigs/dra-driver-nvidia-gpu, with its DeviceClasses gpu.nvidia.com and mig.nvidia.com).",
        api.api_version()
    )];
    for g in &gates {
        notes.push(format!(
            "Needs the feature gate {} ({}, set on {}): {}.",
            g.name, g.stage, g.set_on, g.why
        ));
    }
    if mig_devices_first {
        notes.push("Static MIG: the driver publishes only MIG devices that exist, so create the planned layout first (gpu-share export mig-parted, applied by mig-parted or the GPU Operator's MIG manager), then let the driver republish its ResourceSlices.".into());
    }
    let gpu_class = claims
        .iter()
        .any(|c| c.requests.iter().any(|r| r.class == DeviceClass::Gpu));
    if mig_devices_first && gpu_class {
        notes.push("The driver also advertises MIG-partitioned GPUs whole (dra-driver-nvidia-gpu#719, open): a gpu.nvidia.com claim can be given a GPU whose MIG devices are in use, so keep the whole-GPU and shared claims' pods off the MIG nodes (node affinity) until it is fixed.".into());
    }
    if gates.is_empty() && !mig_devices_first {
        notes.push("No feature gate beyond what the driver enables by default.".into());
    }
    DraRequirements {
        kubernetes_version: version.to_string(),
        api_version: api.api_version().to_string(),
        gates,
        mig_devices_first,
        notes,
    }
}
