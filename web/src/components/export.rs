//! The export panel: the current plan (the same pack result the diagram draws) as Kubernetes,
//! KServe, device plugin, mig-parted, nvidia-smi or Slurm configuration, through the core's
//! `export`; copy it or download it.

use gpu_share_core::export::{export, ExportFormat, ExportOptions, MigStrategy};
use gpu_share_core::{Error, FractionalAsk, PackResult};
use leptos::prelude::*;

use crate::clipboard::copy;
use crate::download::download;
use crate::state::AppState;

/// One choice of the format selector.
pub struct FormatChoice {
    pub format: ExportFormat,
    /// The `<option>` value (and a stable test hook).
    pub key: &'static str,
    pub label: &'static str,
    pub filename: &'static str,
    pub mime: &'static str,
}

/// The formats offered, in the selector's order.
pub const FORMATS: [FormatChoice; 6] = [
    FormatChoice {
        format: ExportFormat::Kubernetes,
        key: "k8s",
        label: "Kubernetes Deployments",
        filename: "gpu-share-k8s.yaml",
        mime: "application/yaml",
    },
    FormatChoice {
        format: ExportFormat::KServe,
        key: "kserve",
        label: "KServe InferenceServices",
        filename: "gpu-share-kserve.yaml",
        mime: "application/yaml",
    },
    FormatChoice {
        format: ExportFormat::DevicePlugin,
        key: "device-plugin",
        label: "NVIDIA device plugin config",
        filename: "gpu-share-device-plugin.yaml",
        mime: "application/yaml",
    },
    FormatChoice {
        format: ExportFormat::MigParted,
        key: "mig-parted",
        label: "mig-parted config",
        filename: "gpu-share-mig-parted.yaml",
        mime: "application/yaml",
    },
    FormatChoice {
        format: ExportFormat::MigCommands,
        key: "mig-commands",
        label: "nvidia-smi mig commands",
        filename: "gpu-share-mig.sh",
        mime: "text/x-shellscript",
    },
    FormatChoice {
        format: ExportFormat::Slurm,
        key: "slurm",
        label: "Slurm (gres.conf, GRES lines, --gres options)",
        filename: "gpu-share-slurm.txt",
        mime: "text/plain",
    },
];

/// The choice with this option value (the first one for an unknown value).
pub fn choice(key: &str) -> &'static FormatChoice {
    FORMATS.iter().find(|c| c.key == key).unwrap_or(&FORMATS[0])
}

/// What the panel shows for the current plan and settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exported {
    Text(String),
    /// An error about one of the panel's fields (`namespace`, `image`): shown next to it.
    FieldError {
        field: String,
        message: String,
    },
    /// Any other error of the export.
    Error(String),
    /// The plan itself has an error (shown in the plan card); nothing to export.
    NoPlan,
}

/// The panel's fields that an export error can name.
const PANEL_FIELDS: [&str; 2] = ["namespace", "image"];

/// The options from the panel's fields: a blank namespace is none; a blank image the default.
pub fn options(strategy: &str, namespace: &str, image: &str) -> ExportOptions {
    let defaults = ExportOptions::default();
    ExportOptions {
        mig_strategy: if strategy == "single" {
            MigStrategy::Single
        } else {
            MigStrategy::Mixed
        },
        namespace: Some(namespace.trim().to_string()).filter(|n| !n.is_empty()),
        image: Some(image.trim().to_string())
            .filter(|i| !i.is_empty())
            .unwrap_or(defaults.image.clone()),
        ..defaults
    }
}

/// The export of a pack result (the page's `state.pack`) and the asks it packed, in the format
/// with option value `key`; errors sorted for display.
pub fn render(
    pack: &Result<PackResult, Error>,
    asks: &[FractionalAsk],
    key: &str,
    options: &ExportOptions,
) -> Exported {
    let Ok(pack) = pack else {
        return Exported::NoPlan;
    };
    match export(pack, asks, choice(key).format, options) {
        Ok(text) => Exported::Text(text),
        Err(e) => match e.field.as_deref() {
            Some(f) if PANEL_FIELDS.contains(&f) => Exported::FieldError {
                field: f.to_string(),
                message: e.message,
            },
            _ => Exported::Error(e.to_string()),
        },
    }
}

#[component]
pub fn ExportPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let format = RwSignal::new(FORMATS[0].key.to_string());
    let strategy = RwSignal::new("mixed".to_string());
    let namespace = RwSignal::new(String::new());
    let image = RwSignal::new(String::new());
    let status = RwSignal::new(String::new());
    let output_ref = NodeRef::<leptos::html::Textarea>::new();

    // The same pack result the diagram draws (`state.pack`), with the asks it packed.
    let exported = Memo::new(move |_| {
        let options = options(&strategy.get(), &namespace.get(), &image.get());
        let key = format.get();
        state.pack.with(|pack| {
            state
                .scenario
                .with(|s| render(pack, &s.asks, &key, &options))
        })
    });
    // Each change of the output clears the last copy status.
    Effect::new(move |_| {
        exported.track();
        status.set(String::new());
    });
    let text = move || match exported.get() {
        Exported::Text(t) => t,
        _ => String::new(),
    };
    let has_text = move || exported.with(|e| matches!(e, Exported::Text(_)));
    let field_error = move |field: &'static str| {
        move || {
            exported.with(|e| match e {
                Exported::FieldError { field: f, message } if f == field => Some(message.clone()),
                _ => None,
            })
        }
    };
    let namespace_error = field_error("namespace");
    let image_error = field_error("image");
    let on_copy = move |_| {
        let Exported::Text(t) = exported.get_untracked() else {
            return;
        };
        leptos::task::spawn_local(async move {
            if copy(t).await {
                status.set("Copied.".into());
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
    };
    let on_download = move |_| {
        let Exported::Text(t) = exported.get_untracked() else {
            return;
        };
        let c = choice(&format.get_untracked());
        match download(c.filename, c.mime, &t) {
            Ok(()) => status.set(format!("Downloaded {}.", c.filename)),
            Err(e) => status.set(e),
        }
    };
    let format_options = FORMATS
        .iter()
        .map(|c| view! { <option value=c.key selected=move || format.get() == c.key>{c.label}</option> })
        .collect_view();
    let default_image = ExportOptions::default().image;
    view! {
        <section class="card export" aria-labelledby="export-h">
            <h2 id="export-h">"Export"</h2>
            <p class="hint">"This plan as configuration to apply: Kubernetes or KServe manifests, the device plugin's sharing config, a mig-parted config, nvidia-smi commands or Slurm. Review it before applying."</p>
            <div class="export-fields">
                <label>"Format"
                    <select id="export-format" data-testid="export-format"
                        on:change=move |ev| format.set(event_target_value(&ev))>{format_options}</select>
                </label>
                <label>"MIG strategy"
                    <select id="export-strategy" data-testid="export-strategy"
                        on:change=move |ev| strategy.set(event_target_value(&ev))>
                        <option value="mixed" selected=move || strategy.get() == "mixed">"mixed"</option>
                        <option value="single" selected=move || strategy.get() == "single">"single"</option>
                    </select>
                </label>
                <label>"Namespace"
                    <input type="text" id="export-namespace" data-testid="export-namespace" placeholder="none"
                        autocomplete="off" spellcheck="false"
                        aria-invalid=move || if namespace_error().is_some() { "true" } else { "false" }
                        prop:value=move || namespace.get() on:input=move |ev| namespace.set(event_target_value(&ev)) />
                    {move || namespace_error().map(|e| view! { <span class="field-error" role="alert" data-testid="export-namespace-error">{e}</span> })}
                </label>
                <label>"Image"
                    <input type="text" id="export-image" data-testid="export-image" placeholder=default_image
                        autocomplete="off" spellcheck="false"
                        aria-invalid=move || if image_error().is_some() { "true" } else { "false" }
                        prop:value=move || image.get() on:input=move |ev| image.set(event_target_value(&ev)) />
                    {move || image_error().map(|e| view! { <span class="field-error" role="alert" data-testid="export-image-error">{e}</span> })}
                </label>
            </div>
            {move || exported.with(|e| match e {
                Exported::Error(m) => Some(view! { <p class="error banner" role="alert" data-testid="export-error">{m.clone()}</p> }.into_any()),
                Exported::NoPlan => Some(view! { <p class="hint">"Fix the plan's error above to export it."</p> }.into_any()),
                _ => None,
            })}
            <label for="export-output" class="sr-only">"Exported configuration"</label>
            <textarea id="export-output" data-testid="export-output" class="export-output" node_ref=output_ref
                rows="16" readonly spellcheck="false" wrap="off" prop:value=text></textarea>
            <div class="buttons">
                <button type="button" data-testid="export-copy" on:click=on_copy disabled=move || !has_text()>"Copy"</button>
                <button type="button" data-testid="export-download" on:click=on_download disabled=move || !has_text()>
                    {move || format!("Download {}", choice(&format.get()).filename)}</button>
                <span class="status" role="status" data-testid="export-status">{move || status.get()}</span>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::AppState;

    #[test]
    fn every_format_has_its_own_key_and_file() {
        for (i, a) in FORMATS.iter().enumerate() {
            assert_eq!(choice(a.key).filename, a.filename);
            for b in &FORMATS[i + 1..] {
                assert_ne!(a.key, b.key);
                assert_ne!(a.filename, b.filename);
            }
        }
        assert_eq!(choice("nonsense").key, "k8s");
    }

    #[test]
    fn blank_fields_take_the_defaults() {
        let o = options("mixed", "  ", "");
        assert_eq!(o.namespace, None);
        assert_eq!(o.image, ExportOptions::default().image);
        assert_eq!(o.mig_strategy, MigStrategy::Mixed);
        let o = options("single", " ml ", "img:1");
        assert_eq!(o.namespace.as_deref(), Some("ml"));
        assert_eq!(o.image, "img:1");
        assert_eq!(o.mig_strategy, MigStrategy::Single);
    }

    #[test]
    fn the_page_state_exports_its_plan() {
        let state = AppState::new(
            "ask=x:3g.20gb&ask=y:2g.10gb&gpus=1&mig-capable",
            false,
            Ok(Vec::new()),
            0,
        );
        let asks = state.scenario.with_untracked(|s| s.asks.clone());
        let pack = state.pack.get_untracked();
        let mixed = options("mixed", "", "");
        let Exported::Text(k8s) = render(&pack, &asks, "k8s", &mixed) else {
            panic!("no Kubernetes export");
        };
        assert!(k8s.contains("nvidia.com/mig-3g.20gb"), "{k8s}");
        let Exported::Text(parted) = render(&pack, &asks, "mig-parted", &mixed) else {
            panic!("no mig-parted export");
        };
        assert!(parted.contains("mig-devices"), "{parted}");
        // A bad namespace is an error about that field, shown next to it.
        match render(&pack, &asks, "k8s", &options("mixed", "Bad_NS", "")) {
            Exported::FieldError { field, .. } => assert_eq!(field, "namespace"),
            other => panic!("{other:?}"),
        }
        // No plan, nothing to export.
        let broken = AppState::new(
            "ask=a:0.5&gpu-model=nonsense&mig-capable",
            false,
            Ok(Vec::new()),
            0,
        );
        let pack = broken.pack.get_untracked();
        assert!(pack.is_err());
        assert_eq!(render(&pack, &[], "k8s", &mixed), Exported::NoPlan);
    }
}
