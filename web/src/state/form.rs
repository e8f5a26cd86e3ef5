//! The cluster form's fields, shared through context: one signal per field as typed, what the
//! page cannot read in them, and the caps they read as.

use gpu_share_core::api::{ClusterGpuCaps, Error};
use leptos::prelude::*;

use crate::{format, words};

/// The cluster form: what the cluster supports and how it is planned.
#[derive(Clone, Copy)]
pub struct ClusterForm {
    pub gpu_model: RwSignal<String>,
    pub gpu_count: RwSignal<String>,
    pub gpu_count_error: Memo<Option<String>>,
    /// The nodes as typed (`4x8`, `gpu-a:8,gpu-b:4`; blank: no nodes).
    pub nodes: RwSignal<String>,
    pub nodes_error: Memo<Option<String>>,
    /// The CUDA context per process as typed (`500MiB`; blank: the core's default).
    pub context_overhead: RwSignal<String>,
    pub context_overhead_error: Memo<Option<String>>,
    /// The NVIDIA driver as typed (`590.48.01`; blank: plan with the smallest listing).
    pub driver: RwSignal<String>,
    pub mig: RwSignal<bool>,
    pub limit_profiles: RwSignal<bool>,
    pub allowed_profiles: RwSignal<Vec<String>>,
    pub mps: RwSignal<bool>,
    pub timeslice: RwSignal<bool>,
    /// Search for a packing on fewer GPUs than first-fit-decreasing (`&optimize` in the link).
    pub optimize: RwSignal<bool>,
    /// The caps the fields read as (a field the page cannot read counts as blank).
    pub caps: Memo<ClusterGpuCaps>,
}

impl ClusterForm {
    /// The form filled from `caps` (the GPU count left blank when nodes are given) and `optimize`.
    pub fn new(caps: &ClusterGpuCaps, optimize: bool) -> ClusterForm {
        let gpu_model = RwSignal::new(caps.gpu_model.clone().unwrap_or_default());
        let gpu_count = RwSignal::new(
            caps.gpu_count
                .filter(|_| caps.nodes.is_none())
                .map(|n| n.to_string())
                .unwrap_or_default(),
        );
        let nodes = RwSignal::new(
            caps.nodes
                .as_deref()
                .map(gpu_share_core::api::nodes_to_text)
                .unwrap_or_default(),
        );
        let context_overhead = RwSignal::new(
            caps.context_overhead_mib
                .map(gpu_share_core::api::overhead_text)
                .unwrap_or_default(),
        );
        let driver = RwSignal::new(caps.driver.clone().unwrap_or_default());
        let mig = RwSignal::new(caps.supports_mig);
        let limit_profiles = RwSignal::new(caps.mig_profiles.is_some());
        let allowed_profiles = RwSignal::new(caps.mig_profiles.clone().unwrap_or_default());
        let mps = RwSignal::new(caps.supports_mps);
        let timeslice = RwSignal::new(caps.supports_timeslicing);
        let caps = Memo::new(move |_| ClusterGpuCaps {
            supports_mig: mig.get(),
            mig_profiles: limit_profiles.get().then(|| allowed_profiles.get()),
            supports_mps: mps.get(),
            supports_timeslicing: timeslice.get(),
            gpu_model: model(gpu_model),
            gpu_count: format::gpu_count(&gpu_count.get()).ok().flatten(),
            nodes: format::nodes(&nodes.get()).ok().flatten(),
            context_overhead_mib: overhead(context_overhead).ok().flatten(),
            driver: Some(driver.get().trim().to_string()).filter(|d| !d.is_empty()),
        });
        ClusterForm {
            gpu_model,
            gpu_count,
            gpu_count_error: Memo::new(move |_| format::gpu_count(&gpu_count.get()).err()),
            nodes,
            nodes_error: Memo::new(move |_| format::nodes(&nodes.get()).err()),
            context_overhead,
            context_overhead_error: Memo::new(move |_| {
                overhead(context_overhead).err().map(|e| words::message(&e))
            }),
            driver,
            mig,
            limit_profiles,
            allowed_profiles,
            mps,
            timeslice,
            optimize: RwSignal::new(optimize),
            caps,
        }
    }

    /// The GPU model chosen (tracked); `None` for "not specified".
    pub fn model(&self) -> Option<String> {
        model(self.gpu_model)
    }

    /// Allows exactly `model`'s plain profiles: where a limit on the profiles starts from.
    pub fn allow_plain_profiles(&self, model: &gpu_share_core::api::GpuModel) {
        let plain = model
            .profiles
            .iter()
            .filter(|p| p.is_plain())
            .map(|p| p.name.to_string());
        self.allowed_profiles.set(plain.collect());
    }
}

/// The GPU model in `field` (tracked); blank is none.
fn model(field: RwSignal<String>) -> Option<String> {
    Some(field.get()).filter(|m| !m.trim().is_empty())
}

/// The CUDA context typed in `text`: blank is none (the core's default).
fn overhead(text: RwSignal<String>) -> Result<Option<u64>, Error> {
    let text = text.get();
    let text = text.trim();
    (!text.is_empty())
        .then(|| gpu_share_core::api::parse_overhead_mib(text))
        .transpose()
}
