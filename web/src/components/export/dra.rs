//! The export panel's DRA options: the cluster's Kubernetes version, the time slice, whether the
//! driver makes MIG devices itself and whether it publishes memory as consumable capacity, as
//! `gpu-share export dra`'s flags give them (not stored: they last until the page is closed).

use gpu_share_core::api::{
    DraOptions, ExportFormat, MigManagement, TimeSliceInterval, DEFAULT_KUBERNETES_VERSION,
};
use leptos::prelude::*;

use super::{field_error, Exported};

/// The DRA options from the panel's fields (other formats read none): a blank Kubernetes version
/// is the core's default.
pub fn dra_options(
    format: ExportFormat,
    kubernetes_version: &str,
    dynamic_mig: bool,
    interval: TimeSliceInterval,
    consumable_memory: bool,
) -> DraOptions {
    if format != ExportFormat::Dra {
        return DraOptions::default();
    }
    let version = kubernetes_version.trim();
    DraOptions {
        kubernetes_version: if version.is_empty() {
            DEFAULT_KUBERNETES_VERSION.to_string()
        } else {
            version.to_string()
        },
        mig: if dynamic_mig {
            MigManagement::Dynamic
        } else {
            MigManagement::Static
        },
        time_slice_interval: interval,
        consumable_memory,
    }
}

/// The DRA options as typed (not stored: they last until the page is closed).
#[derive(Clone, Copy)]
pub(super) struct DraChoices {
    kubernetes_version: RwSignal<String>,
    dynamic_mig: RwSignal<bool>,
    interval: RwSignal<TimeSliceInterval>,
    consumable_memory: RwSignal<bool>,
}

impl DraChoices {
    pub(super) fn new() -> DraChoices {
        DraChoices {
            kubernetes_version: RwSignal::new(String::new()),
            dynamic_mig: RwSignal::new(false),
            interval: RwSignal::new(TimeSliceInterval::Default),
            consumable_memory: RwSignal::new(false),
        }
    }

    /// The options for `format` (tracked).
    pub(super) fn options(&self, format: ExportFormat) -> DraOptions {
        dra_options(
            format,
            &self.kubernetes_version.get(),
            self.dynamic_mig.get(),
            self.interval.get(),
            self.consumable_memory.get(),
        )
    }
}

/// The DRA options: the cluster's Kubernetes version (which `resource.k8s.io` version is
/// written, or why none can be), how the driver gets its MIG devices, the time slice and
/// consumable memory.
#[component]
pub(super) fn DraFields(dra: DraChoices, exported: Memo<Exported>) -> impl IntoView {
    let version_error = field_error(exported, "dra.kubernetes_version");
    let intervals = TimeSliceInterval::ALL
        .into_iter()
        .map(|i| view! { <option value=i.as_str() selected=move || dra.interval.get() == i>{i.as_str()}</option> })
        .collect_view();
    view! {
        <label>"Kubernetes version"
            <input type="text" id="export-k8s-version" data-testid="export-k8s-version" placeholder=DEFAULT_KUBERNETES_VERSION
                autocomplete="off" spellcheck="false"
                aria-invalid=move || if version_error().is_some() { "true" } else { "false" }
                prop:value=move || dra.kubernetes_version.get()
                on:input=move |ev| dra.kubernetes_version.set(event_target_value(&ev)) />
            {move || version_error().map(|e| view! { <span class="field-error" role="alert" data-testid="export-k8s-version-error">{e}</span> })}
        </label>
        <label>"Time slice"
            <select id="export-time-slice" data-testid="export-time-slice"
                on:change=move |ev| dra.interval.set(event_target_value(&ev).parse().unwrap_or_default())>{intervals}</select>
        </label>
        <label class="check" title="The driver's DynamicMIG gate: it creates each MIG device when a claim is allocated">
            <input type="checkbox" data-testid="export-dynamic-mig" prop:checked=move || dra.dynamic_mig.get()
                on:change=move |ev| dra.dynamic_mig.set(event_target_checked(&ev)) />"MIG devices made by the driver"</label>
        <label class="check" title="The driver's ConsumableShares gate: shared claims ask for their tenants' memory">
            <input type="checkbox" data-testid="export-consumable-memory" prop:checked=move || dra.consumable_memory.get()
                on:change=move |ev| dra.consumable_memory.set(event_target_checked(&ev)) />"Memory as consumable capacity"</label>
    }
}
