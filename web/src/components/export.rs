//! The export panel: the current plan as Kubernetes, KServe, device plugin, mig-parted, nvidia-smi,
//! Slurm or Kubernetes DRA configuration through the core's `api::export`, made from the same request the plan
//! is (so the text describes the packing the diagram draws); copy it or download it. It shows only
//! the fields the chosen format reads, and its format and fields survive a reload (local storage,
//! checked through the core when read back); the DRA options last until the page is closed.

use gpu_share_core::api::{
    self, DraOptions, ExportFormat, ExportOptions, ExportRequest, MigManagement, MigStrategy,
    PackRequest, TimeSliceInterval, DEFAULT_IMAGE, DEFAULT_KUBERNETES_VERSION,
};
use leptos::prelude::*;

use crate::clipboard::copy;
use crate::download::download;
use crate::in_view::in_view;
use crate::state::Planned;
use crate::storage;
use crate::words;

/// The most text the output box holds (bytes). A box of megabytes (Kubernetes manifests for
/// thousands of asks) took longer to fill than the plan took to make; Copy and Download give all.
pub const PREVIEW_BYTES: usize = 64 * 1024;

/// What the output box shows of `text`: all of it when short, else its whole lines up to
/// [`PREVIEW_BYTES`]; and the lines left out.
pub fn preview(text: &str) -> (&str, usize) {
    if text.len() <= PREVIEW_BYTES {
        return (text, 0);
    }
    // A byte search: `\n` is never inside a multi-byte character, so the cut is a char boundary.
    let cut = text.as_bytes()[..=PREVIEW_BYTES]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let (head, rest) = text.split_at(cut);
    (head, rest.lines().count())
}

/// The `<option>` value of a format (and a stable test hook): `k8s`, `kserve`, `device-plugin`, …
pub fn key(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Kubernetes => "k8s",
        other => other.as_str(),
    }
}

/// The format with this option value (the first one for an unknown value).
pub fn format_of(key: &str) -> ExportFormat {
    key.parse().unwrap_or(ExportFormat::ALL[0])
}

/// Whether the panel shows the MIG strategy: where the core's text depends on it (a test checks
/// this against what the core writes for each format).
pub fn uses_mig_strategy(format: ExportFormat) -> bool {
    format.uses_mig_strategy()
}

mod settings;
pub use settings::Settings;

/// What the panel shows for the current plan and settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exported {
    Text {
        text: String,
        file_name: &'static str,
        media_type: &'static str,
    },
    /// An error about one of the panel's fields (`namespace`, `image`, `mig_strategy`): shown next to it.
    FieldError { field: String, message: String },
    /// Any other error of the export.
    Error(String),
    /// The plan itself has an error (shown in the plan card); nothing to export.
    NoPlan,
    /// Not made yet: the panel has not been in view since the page loaded.
    Pending,
}

/// The panel's fields that an export error can name.
const PANEL_FIELDS: [&str; 4] = [
    "namespace",
    "image",
    "mig_strategy",
    "dra.kubernetes_version",
];

/// The options from the panel's fields: a blank namespace is none; a blank image the default.
/// Formats that write no workloads take neither (their fields are hidden).
pub fn options(
    format: ExportFormat,
    strategy: MigStrategy,
    namespace: &str,
    image: &str,
) -> ExportOptions {
    let defaults = ExportOptions::default();
    let workloads = format.uses_workload_options();
    ExportOptions {
        mig_strategy: strategy,
        namespace: Some(namespace.trim().to_string()).filter(|n| workloads && !n.is_empty()),
        image: Some(image.trim().to_string())
            .filter(|i| workloads && !i.is_empty())
            .unwrap_or(defaults.image.clone()),
        ..defaults
    }
}

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

/// The export of the plan's request in `format`, through the core; errors sorted for display.
/// `plan_ok` says whether the plan of the same request succeeded (else there is nothing to export).
pub fn render(
    request: &PackRequest,
    plan_ok: bool,
    format: ExportFormat,
    options: ExportOptions,
) -> Exported {
    if !plan_ok {
        return Exported::NoPlan;
    }
    let request = ExportRequest {
        format,
        pack: request.clone(),
        options,
    };
    match api::export(&request) {
        Ok(r) => Exported::Text {
            text: r.text,
            file_name: r.file_name,
            media_type: r.media_type,
        },
        Err(e) => match e.field.as_deref().and_then(|f| f.strip_prefix("options.")) {
            Some(f) if PANEL_FIELDS.contains(&f) => Exported::FieldError {
                field: f.to_string(),
                message: words::message(&e),
            },
            _ => Exported::Error(words::error(&e)),
        },
    }
}

/// The panel's choices as typed, one signal each.
#[derive(Clone, Copy)]
struct Choices {
    format: RwSignal<ExportFormat>,
    strategy: RwSignal<MigStrategy>,
    namespace: RwSignal<String>,
    image: RwSignal<String>,
    dra: DraChoices,
}

/// The DRA options as typed (not stored: they last until the page is closed).
#[derive(Clone, Copy)]
struct DraChoices {
    kubernetes_version: RwSignal<String>,
    dynamic_mig: RwSignal<bool>,
    interval: RwSignal<TimeSliceInterval>,
    consumable_memory: RwSignal<bool>,
}

impl DraChoices {
    fn new() -> DraChoices {
        DraChoices {
            kubernetes_version: RwSignal::new(String::new()),
            dynamic_mig: RwSignal::new(false),
            interval: RwSignal::new(TimeSliceInterval::Default),
            consumable_memory: RwSignal::new(false),
        }
    }

    /// The options for `format` (tracked).
    fn options(&self, format: ExportFormat) -> DraOptions {
        dra_options(
            format,
            &self.kubernetes_version.get(),
            self.dynamic_mig.get(),
            self.interval.get(),
            self.consumable_memory.get(),
        )
    }
}

impl Choices {
    fn new(initial: &Settings) -> Choices {
        Choices {
            format: RwSignal::new(initial.format),
            strategy: RwSignal::new(initial.strategy),
            namespace: RwSignal::new(initial.namespace.clone()),
            image: RwSignal::new(initial.image.clone()),
            dra: DraChoices::new(),
        }
    }

    /// The choices as settings to store (tracked).
    fn typed(&self) -> Settings {
        Settings {
            format: self.format.get(),
            strategy: self.strategy.get(),
            namespace: self.namespace.get(),
            image: self.image.get(),
        }
    }
}

/// Stores each change of the choices (the defaults as no entry), only when it differs from what
/// is stored; `note` says when storing failed.
fn store_changes(choices: Choices, initial: Settings, note: RwSignal<Option<String>>) {
    let saved = StoredValue::new(initial);
    Effect::new(move |_| {
        let typed = choices.typed();
        let keep = saved.with_value(|last| typed.storable(last));
        if saved.with_value(|last| *last == keep) {
            return;
        }
        let text = (keep != Settings::default()).then(|| keep.to_stored());
        match storage::save_setting(storage::EXPORT_KEY, text.as_deref()) {
            Ok(()) => {
                saved.set_value(keep);
                note.set(None);
            }
            Err(e) => note.set(Some(format!(
                "These export settings could not be stored ({e}); they last until the page is closed or reloaded."
            ))),
        }
    });
}

/// The export's message about one of the panel's fields, if it has one.
fn field_error(
    exported: Memo<Exported>,
    field: &'static str,
) -> impl Fn() -> Option<String> + Copy + Send + Sync + 'static {
    move || {
        exported.with(|e| match e {
            Exported::FieldError { field: f, message } if f == field => Some(message.clone()),
            _ => None,
        })
    }
}

/// Copies the export's text. Where the browser blocks copying, the text is selected for the
/// keyboard shortcut, or, when the box holds only its beginning, the user is sent to Download.
fn copy_exported(
    exported: Exported,
    status: RwSignal<String>,
    output_ref: NodeRef<leptos::html::Textarea>,
) {
    let Exported::Text { text: t, .. } = exported else {
        return;
    };
    let whole_in_box = preview(&t).1 == 0;
    leptos::task::spawn_local(async move {
        if copy(t).await {
            status.set("Copied.".into());
        } else if !whole_in_box {
            status.set(
                "Copying is blocked here, and the box shows only the beginning: download the file instead."
                    .into(),
            );
        } else {
            // Select the text so the keyboard shortcut copies it.
            if let Some(area) = output_ref.get_untracked() {
                let _ = area.focus();
                area.select();
            }
            status.set(
                "Copying is blocked here: the text is selected, press Ctrl+C (⌘C) to copy it."
                    .into(),
            );
        }
    });
}

/// Downloads the export's text as its format's file, and says so in `status`.
fn download_exported(exported: Exported, status: RwSignal<String>) {
    let Exported::Text {
        text,
        file_name,
        media_type,
    } = exported
    else {
        return;
    };
    match download(file_name, media_type, &text) {
        Ok(()) => status.set(format!("Downloaded {file_name}.")),
        Err(e) => status.set(e),
    }
}

/// The panel's fields: the format, and only the fields it reads (the MIG strategy, with a way out
/// of the single strategy's refusal; the workloads' namespace and image), each with its error.
#[component]
fn ExportFields(choices: Choices, exported: Memo<Exported>) -> impl IntoView {
    let Choices {
        format,
        strategy,
        namespace,
        image,
        dra,
    } = choices;
    let workload_fields = move || format.get().uses_workload_options();
    let strategy_field = move || uses_mig_strategy(format.get());
    let namespace_error = field_error(exported, "namespace");
    let strategy_error = field_error(exported, "mig_strategy");
    let image_error = field_error(exported, "image");
    let format_options = ExportFormat::ALL
        .into_iter()
        .map(|f| view! { <option value=key(f) selected=move || format.get() == f>{f.label()}</option> })
        .collect_view();
    view! {
        <div class="export-fields">
            <label>"Format"
                <select id="export-format" data-testid="export-format"
                    on:change=move |ev| format.set(format_of(&event_target_value(&ev)))>{format_options}</select>
            </label>
            <Show when=strategy_field>
            <label>"MIG strategy"
                <select id="export-strategy" data-testid="export-strategy"
                    on:change=move |ev| strategy.set(event_target_value(&ev).parse().unwrap_or_default())>
                    <option value="mixed" selected=move || strategy.get() == MigStrategy::Mixed>"mixed"</option>
                    <option value="single" selected=move || strategy.get() == MigStrategy::Single>"single"</option>
                </select>
                // The single strategy cannot expose a GPU split into several profiles: say so here, with the way out.
                {move || strategy_error().map(|e| view! {
                    <span class="field-error" role="alert" data-testid="export-strategy-error">{e}</span>
                    <button type="button" class="small" data-testid="use-mixed" on:click=move |_| strategy.set(MigStrategy::Mixed)>"Use mixed"</button>
                })}
            </label>
            </Show>
            <Show when=workload_fields>
            <label>"Namespace"
                <input type="text" id="export-namespace" data-testid="export-namespace" placeholder="none"
                    autocomplete="off" spellcheck="false"
                    aria-invalid=move || if namespace_error().is_some() { "true" } else { "false" }
                    prop:value=move || namespace.get() on:input=move |ev| namespace.set(event_target_value(&ev)) />
                {move || namespace_error().map(|e| view! { <span class="field-error" role="alert" data-testid="export-namespace-error">{e}</span> })}
            </label>
            <label>"Image"
                <input type="text" id="export-image" data-testid="export-image" placeholder=DEFAULT_IMAGE
                    autocomplete="off" spellcheck="false"
                    aria-invalid=move || if image_error().is_some() { "true" } else { "false" }
                    prop:value=move || image.get() on:input=move |ev| image.set(event_target_value(&ev)) />
                {move || image_error().map(|e| view! { <span class="field-error" role="alert" data-testid="export-image-error">{e}</span> })}
            </label>
            </Show>
            <Show when=move || format.get() == ExportFormat::Dra>
                <DraFields dra exported />
            </Show>
        </div>
    }
}

/// The DRA options: the cluster's Kubernetes version (which `resource.k8s.io` version is
/// written, or why none can be), how the driver gets its MIG devices, the time slice and
/// consumable memory.
#[component]
fn DraFields(dra: DraChoices, exported: Memo<Exported>) -> impl IntoView {
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

/// The export of the plan in the chosen format, made from the request the plan is made from
/// (`planned.request`), so the text is the diagram's packing. Made only while the panel is in
/// view (for thousands of asks the text is megabytes, made and drawn on every plan); off screen
/// it keeps what it showed and catches up when scrolled to. Also returns what Copy and Download
/// give: the current plan's text, whether or not the box has caught up.
fn export_when_in_view(
    planned: Planned,
    choices: Choices,
    in_view: Signal<bool>,
) -> (
    Memo<Exported>,
    impl Fn() -> Exported + Copy + Send + Sync + 'static,
) {
    let make = move || {
        let format = choices.format.get();
        let options = ExportOptions {
            dra: choices.dra.options(format),
            ..options(
                format,
                choices.strategy.get(),
                &choices.namespace.get(),
                &choices.image.get(),
            )
        };
        let plan_ok = planned.plan.with(Result::is_ok);
        planned
            .request
            .with(|request| render(request, plan_ok, format, options))
    };
    let exported = Memo::new(
        move |shown: Option<&Exported>| match (in_view.get(), shown) {
            (false, Some(shown)) => shown.clone(),
            (false, None) => Exported::Pending,
            (true, _) => make(),
        },
    );
    let current = move || {
        if in_view.get_untracked() {
            exported.get_untracked()
        } else {
            untrack(make)
        }
    };
    (exported, current)
}

/// The export panel: its choices (kept across visits), the exported text in a box, Copy and Download.
#[component]
pub fn ExportPanel() -> impl IntoView {
    let planned = expect_context::<Planned>();
    // The choices of the last visit; unavailable storage is said about the ledger already.
    let (initial, stored_note) = storage::load_setting(storage::EXPORT_KEY)
        .ok()
        .flatten()
        .map(|t| Settings::from_stored(&t))
        .unwrap_or_default();
    let choices = Choices::new(&initial);
    let settings_note = RwSignal::new(stored_note);
    let status = RwSignal::new(String::new());
    store_changes(choices, initial, settings_note);
    let output_ref = NodeRef::<leptos::html::Textarea>::new();
    let panel_ref = NodeRef::<leptos::html::Section>::new();
    let (exported, current) = export_when_in_view(planned, choices, in_view(panel_ref));
    // Each change of the output clears the last copy status.
    Effect::new(move |_| {
        exported.track();
        status.set(String::new());
    });
    // The box's text and the lines it leaves out, counted once per text.
    let shown = Memo::new(move |_| {
        exported.with(|e| match e {
            Exported::Text { text, .. } => {
                let (head, left_out) = preview(text);
                (head.to_string(), left_out)
            }
            _ => (String::new(), 0),
        })
    });
    let text = move || shown.with(|(head, _)| head.clone());
    let left_out = move || shown.with(|&(_, n)| n);
    let has_text = move || exported.with(|e| matches!(e, Exported::Text { .. }));
    let format = choices.format;
    view! {
        <section class="card export" aria-labelledby="export-h" node_ref=panel_ref>
            <h2 id="export-h">"Export"</h2>
            <p class="hint">"This plan as configuration to apply: Kubernetes or KServe manifests, the device plugin's sharing config, a mig-parted config, nvidia-smi commands, Slurm, or Kubernetes DRA claims. Review it before applying."</p>
            <ExportFields choices exported />
            {move || settings_note.get().map(|n| view! { <p class="note" role="status" data-testid="export-settings-note">{n}</p> })}
            {move || exported.with(|e| match e {
                Exported::Error(m) => Some(view! { <p class="error banner" role="alert" data-testid="export-error">{m.clone()}</p> }.into_any()),
                Exported::NoPlan => Some(view! { <p class="hint">"Fix the plan's error (see the summary) to export it."</p> }.into_any()),
                _ => None,
            })}
            <label for="export-output" class="sr-only">"Exported configuration"</label>
            <textarea id="export-output" data-testid="export-output" class="export-output" node_ref=output_ref autocomplete="off"
                rows="16" readonly spellcheck="false" wrap="off" prop:value=text></textarea>
            {move || (left_out() > 0).then(|| view! {
                <p class="note" role="status" data-testid="export-preview">{format!(
                    "The box shows the beginning; {} more {}. Copy and Download give all of it.",
                    left_out(), if left_out() == 1 { "line follows" } else { "lines follow" })}</p>
            })}
            <div class="buttons">
                <button type="button" data-testid="export-copy" on:click=move |_| copy_exported(current(), status, output_ref)
                    disabled=move || !has_text()>"Copy"</button>
                <button type="button" data-testid="export-download" on:click=move |_| download_exported(current(), status)
                    disabled=move || !has_text()>
                    {move || format!("Download {}", format.get().file_name())}</button>
                <span class="status" role="status" data-testid="export-status">{move || status.get()}</span>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_box_shows_whole_lines_and_counts_the_rest() {
        let short = "a: 1\nb: 2\n";
        assert_eq!(super::preview(short), (short, 0));
        let line = format!("{}\n", "x".repeat(99));
        let long = line.repeat(2 * super::PREVIEW_BYTES / line.len());
        let (head, rest) = super::preview(&long);
        assert!(head.len() <= super::PREVIEW_BYTES && head.ends_with('\n'));
        assert_eq!(head.lines().count() + rest, long.lines().count());
        // One line longer than the box: nothing of it is shown, and it is counted.
        let one = "é".repeat(super::PREVIEW_BYTES);
        assert_eq!(super::preview(&one), ("", 1));
    }

    use super::*;
    use crate::state::AppState;

    #[test]
    fn every_format_has_its_option_value() {
        for f in ExportFormat::ALL {
            assert_eq!(format_of(key(f)), f);
        }
        // The values the page has always offered (links and tests use them).
        let keys: Vec<&str> = ExportFormat::ALL.into_iter().map(key).collect();
        assert_eq!(
            keys,
            [
                "k8s",
                "kserve",
                "device-plugin",
                "mig-parted",
                "mig-commands",
                "slurm",
                "dra"
            ]
        );
        assert_eq!(format_of("nonsense"), ExportFormat::Kubernetes);
    }

    #[test]
    fn blank_fields_take_the_defaults_and_hidden_fields_count_for_nothing() {
        let k8s = ExportFormat::Kubernetes;
        let o = options(k8s, MigStrategy::Mixed, "  ", "");
        assert_eq!(o.namespace, None);
        assert_eq!(o.image, ExportOptions::default().image);
        assert_eq!(o.mig_strategy, MigStrategy::Mixed);
        let o = options(k8s, MigStrategy::Single, " ml ", "img:1");
        assert_eq!(o.namespace.as_deref(), Some("ml"));
        assert_eq!(o.image, "img:1");
        assert_eq!(o.mig_strategy, MigStrategy::Single);
        // mig-parted writes no workloads: its panel hides the fields, and what they hold is ignored.
        let o = options(
            ExportFormat::MigParted,
            MigStrategy::Single,
            "Bad_NS",
            "img:1",
        );
        assert_eq!(o.namespace, None);
        assert_eq!(o.image, ExportOptions::default().image);
        assert_eq!(o.mig_strategy, MigStrategy::Single);
    }

    #[test]
    fn the_page_exports_its_plans_request() {
        let state = AppState::new("ask=x:3g.20gb&ask=y:2g.10gb&gpus=1&mig-capable");
        let request = state.planned.request.get_untracked();
        let ok = state.planned.plan.with_untracked(Result::is_ok);
        let export = |format: ExportFormat, namespace: &str| {
            render(
                &request,
                ok,
                format,
                options(format, MigStrategy::Mixed, namespace, ""),
            )
        };
        let Exported::Text {
            text: k8s,
            file_name,
            media_type,
        } = export(ExportFormat::Kubernetes, "")
        else {
            panic!("no Kubernetes export");
        };
        assert!(k8s.contains("nvidia.com/mig-3g.20gb"), "{k8s}");
        assert_eq!(
            (file_name, media_type),
            ("gpu-share-k8s.yaml", "application/yaml")
        );
        let Exported::Text { text: parted, .. } = export(ExportFormat::MigParted, "Bad_NS") else {
            panic!("no mig-parted export");
        };
        assert!(parted.contains("mig-devices"), "{parted}");
        // A bad namespace is an error about that field, shown next to it.
        match export(ExportFormat::Kubernetes, "Bad_NS") {
            Exported::FieldError { field, .. } => assert_eq!(field, "namespace"),
            other => panic!("{other:?}"),
        }
        // No plan, nothing to export.
        let broken = AppState::new("ask=a:0.5&gpu-model=nonsense&mig-capable");
        assert!(broken.planned.plan.get_untracked().is_err());
        let request = broken.planned.request.get_untracked();
        let k8s = ExportFormat::Kubernetes;
        assert_eq!(
            render(
                &request,
                false,
                k8s,
                options(k8s, MigStrategy::Mixed, "", "")
            ),
            Exported::NoPlan
        );
    }

    /// DRA claims from the page: the Kubernetes version picks the `resource.k8s.io` version, a
    /// version without structured parameters is an error at its field, and other formats read
    /// none of the DRA options.
    #[test]
    fn the_dra_options_reach_the_claims() {
        let state = AppState::new("ask=x:0.5&ask=y:0.5&gpu-model=A100-SXM4-40GB&timeslice");
        let request = state.planned.request.get_untracked();
        let dra = ExportFormat::Dra;
        let export = |version: &str| {
            let options = ExportOptions {
                dra: dra_options(dra, version, false, TimeSliceInterval::Long, false),
                ..options(dra, MigStrategy::Mixed, "", "")
            };
            render(&request, true, dra, options)
        };
        let Exported::Text { text, .. } = export("") else {
            panic!("no DRA export");
        };
        assert!(text.contains("resource.k8s.io/v1\n"), "{text}");
        assert!(text.contains("Long"), "{text}");
        let Exported::Text { text, .. } = export("1.32") else {
            panic!("no DRA export for 1.32");
        };
        assert!(text.contains("resource.k8s.io/v1beta1"), "{text}");
        match export("1.30") {
            Exported::FieldError { field, message } => {
                assert_eq!(field, "dra.kubernetes_version");
                assert!(!message.is_empty());
            }
            other => panic!("{other:?}"),
        }
        let k8s = ExportFormat::Kubernetes;
        assert_eq!(
            dra_options(k8s, "1.30", true, TimeSliceInterval::Long, true),
            DraOptions::default()
        );
    }

    /// The panel shows a field exactly for the formats whose text the core changes with it.
    #[test]
    fn each_format_shows_exactly_the_fields_it_reads() {
        // Two 3g.20gb on one A100-40GB: one profile, so the single strategy is valid too.
        let state = AppState::new("ask=x:3g.20gb&ask=y:3g.20gb&gpus=1&mig-capable");
        let pack = state.planned.request.get_untracked();
        let text = |format: ExportFormat, options: ExportOptions| {
            api::export(&ExportRequest {
                format,
                pack: pack.clone(),
                options,
            })
            .map(|r| r.text)
        };
        for f in ExportFormat::ALL {
            let with = |o: ExportOptions| text(f, o);
            let single = with(ExportOptions {
                mig_strategy: MigStrategy::Single,
                ..ExportOptions::default()
            });
            assert_eq!(
                single != with(ExportOptions::default()),
                uses_mig_strategy(f),
                "{f}: MIG strategy"
            );
            let named = with(ExportOptions {
                namespace: Some("ml".into()),
                image: "img:1".into(),
                ..ExportOptions::default()
            });
            assert_eq!(
                named != with(ExportOptions::default()),
                f.uses_workload_options(),
                "{f}: namespace and image"
            );
        }
        assert!(!uses_mig_strategy(ExportFormat::Slurm));
        assert!(!ExportFormat::Slurm.uses_workload_options());
        assert!(!uses_mig_strategy(ExportFormat::MigParted));
    }

    #[test]
    fn settings_come_back_checked_by_the_core() {
        let chosen = Settings {
            format: ExportFormat::Slurm,
            strategy: MigStrategy::Single,
            namespace: "ml-team".into(),
            image: "img:1".into(),
        };
        assert_eq!(
            Settings::from_stored(&chosen.to_stored()),
            (chosen.clone(), None)
        );
        // Every format's stored key reads back.
        for format in ExportFormat::ALL {
            let s = Settings {
                format,
                ..Settings::default()
            };
            assert_eq!(Settings::from_stored(&s.to_stored()).0, s);
        }
        // A refused field is its default, the rest is kept, and the note names the field.
        let (s, note) = Settings::from_stored(
            r#"{"format":"yaml","mig_strategy":"single","namespace":"Bad_NS","image":"img:2"}"#,
        );
        assert_eq!(
            s,
            Settings {
                strategy: MigStrategy::Single,
                image: "img:2".into(),
                ..Settings::default()
            }
        );
        let note = note.unwrap();
        assert!(
            note.starts_with("The export settings stored in this browser could not all be used (format: unknown export format \"yaml\"")
                && note.contains("; namespace: ")
                && note.ends_with("the defaults are shown for them."),
            "{note}"
        );
        let (s, note) = Settings::from_stored("not json");
        assert_eq!(s, Settings::default());
        assert!(note.unwrap().contains("(not JSON: "));
        // Half-typed or refused text is not stored: the last accepted value is kept.
        let typing = Settings {
            namespace: "ml-".into(),
            ..chosen.clone()
        };
        assert_eq!(typing.storable(&chosen).namespace, "ml-team");
        let blank = Settings {
            namespace: " ".into(),
            ..chosen.clone()
        };
        assert_eq!(blank.storable(&chosen).namespace, " ");
    }
}
