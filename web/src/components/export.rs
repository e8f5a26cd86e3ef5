//! The export panel: the current plan as Kubernetes, KServe, device plugin, mig-parted, nvidia-smi,
//! Slurm or Kubernetes DRA configuration through the core's `api::export`, made from the same request the plan
//! is (so the text describes the packing the diagram draws); copy it or download it. It shows only
//! the fields the chosen format reads, and its format and fields survive a reload (local storage,
//! checked through the core when read back); the DRA options last until the page is closed.

use gpu_share_core::api::{
    self, ExportFormat, ExportOptions, ExportRequest, MigStrategy, PackRequest, DEFAULT_IMAGE,
};
use leptos::prelude::*;

use super::left_out::LeftOutNote;
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

mod dra;
mod settings;
pub use dra::dra_options;
use dra::{DraChoices, DraFields};
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

/// The export of the plan in the chosen format, made from the request the plan shown was made
/// of (`planned.kept`: without the rows the core left out), so the text is the diagram's packing. Made only while the panel is in
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
            .kept
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
            <LeftOutNote />
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
mod tests;
