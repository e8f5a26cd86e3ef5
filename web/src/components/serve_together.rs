//! "Serve together": models sized with an engine, planned as co-tenants on the Cluster form's
//! GPUs by the core (`api::export` of the launch script, whose response carries the packing and
//! its engines): each device's engines in start order with their utilisation, KV cache,
//! sequences and flags, the models left unplaced and why, and the script that starts them.
//!
//! It lives in the "Size from a model" panel, a split part of its own, so the engine model
//! stays out of the page's first load; the configs stay in this page, not in the link.

use gpu_share_core::api::{
    self, bytes_text, grouped, Cluster, ClusterGpuCaps, DeviceEngines, EngineOptions, ExportFormat,
    ExportRequest, ExportResponse, ModelAsk, PackOptions, PackRequest,
};
use leptos::prelude::*;

use crate::download::download;
use crate::state::ClusterForm;
use crate::words;

/// The request: the models alone, each an engine of `vllm`, on the form's caps.
fn request(models: Vec<ModelAsk>, caps: ClusterGpuCaps) -> ExportRequest {
    ExportRequest {
        format: ExportFormat::Launch,
        pack: PackRequest {
            asks: Vec::new(),
            gpu_count: None,
            cluster: Cluster::Given(caps),
            options: PackOptions {
                models,
                engine: Some(EngineOptions {
                    name: "vllm".into(),
                    ..Default::default()
                }),
                ..Default::default()
            },
        },
        options: Default::default(),
    }
}

/// Adds a model under its name, or the core's unused `name-2`, `name-3`, … when the list has it.
pub fn add_model(models: RwSignal<Vec<ModelAsk>>, mut model: ModelAsk) -> String {
    let taken: Vec<String> = models.with_untracked(|m| m.iter().map(|m| m.name.clone()).collect());
    if taken.contains(&model.name) {
        let taken: Vec<&str> = taken.iter().map(String::as_str).collect();
        model.name = api::unused_name(&model.name, 2, &taken);
    }
    let name = model.name.clone();
    models.update(|m| m.push(model));
    name
}

/// One device's engines, in the order to start them.
#[component]
fn Device(device: DeviceEngines) -> impl IntoView {
    let place = match &device.instance {
        Some(i) => format!("GPU {}, MIG instance {i}", device.gpu),
        None => format!("GPU {}", device.gpu),
    };
    view! {
        <h4>{format!("{place} ({})", bytes_text(device.total_bytes))}</h4>
        <ol class="engines">
            {device.engines.into_iter().map(|e| view! {
                <li data-testid="serve-engine">
                    <strong>{e.ask.clone()}</strong>
                    {format!(
                        ": gpu_memory_utilization {}, KV cache {}, {} sequences at once. Flags: ",
                        e.gpu_memory_utilization,
                        bytes_text(e.kv_cache_bytes),
                        grouped(e.max_concurrency)
                    )}
                    <code>{e.args.join(" ")}</code>
                </li>
            }).collect_view()}
        </ol>
        {device.why.into_iter().map(|w| view! { <p class="note">{w}</p> }).collect_view()}
    }
}

/// The plan of the models together: devices, unplaced models and the launch script.
#[component]
fn Served(response: ExportResponse) -> impl IntoView {
    let unplaced = response.pack.result.unplaced.clone();
    let (text, file, media) = (response.text, response.file_name, response.media_type);
    let status = RwSignal::new(String::new());
    let save = {
        let text = text.clone();
        move |_| {
            if let Err(why) = download(file, media, &text) {
                status.set(why);
            }
        }
    };
    view! {
        <div data-testid="serve-plan">
            {response.pack.engines.into_iter().map(|device| view! { <Device device /> }).collect_view()}
            {unplaced.into_iter().map(|u| view! {
                <p class="error" data-testid="serve-unplaced">{format!("{} not placed: {}", u.name, u.reason)}</p>
            }).collect_view()}
            <details>
                <summary>"Launch script (starts them in this order)"</summary>
                <textarea readonly rows="8" spellcheck="false" data-testid="serve-launch" aria-label="Launch script">{text}</textarea>
                <button type="button" on:click=save>"Download "{file}</button>
                <p role="status">{move || status.get()}</p>
            </details>
        </div>
    }
}

/// The models to serve together, and their plan on the Cluster form's GPUs.
#[component]
pub fn ServeTogether(models: RwSignal<Vec<ModelAsk>>) -> impl IntoView {
    let form = expect_context::<ClusterForm>();
    let planned = Memo::new(move |_| {
        let list = models.get();
        (!list.is_empty())
            .then(|| api::export(&request(list, form.caps.get())).map_err(|e| words::error(&e)))
    });
    let remove = move |name: String| models.update(|m| m.retain(|x| x.name != name));
    let shown = move || {
        planned.get().map(|p| match p {
            Ok(response) => view! { <Served response /> }.into_any(),
            Err(e) => {
                view! { <p class="error" role="alert" data-testid="serve-error">{e}</p> }.into_any()
            }
        })
    };
    view! {
        {move || (!models.with(Vec::is_empty)).then(|| view! {
            <h3>"Serve together"</h3>
            <p class="hint">"These models as vLLM engines on the Cluster form's GPUs, planned by themselves (not with the asks above): each engine's utilisation is a share of the device it gets, together they fit it with every engine's overheads, and they start one at a time in the order given."</p>
            <ul class="serve-models" data-testid="serve-models">
                {models.get().into_iter().map(|m| {
                    let name = m.name.clone();
                    let what = format!(
                        "{}: {} tokens, {} at once",
                        m.name,
                        m.context.map_or("the model's maximum".to_string(), grouped),
                        grouped(m.concurrency.unwrap_or(1))
                    );
                    view! {
                        <li>{what}" "
                            <button type="button" on:click=move |_| remove(name.clone())>{format!("Remove {}", m.name)}</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <div aria-live="polite">{shown}</div>
        })}
    }
}
