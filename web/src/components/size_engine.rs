//! "Size from a model", as an inference engine starts it: the engine's choices (vLLM, the MIG
//! instance of the Cluster form's GPU model or the whole GPU, the utilisation, tensor
//! parallelism) made into the size request's `engine` and `fit`, and the core's answer — memory
//! term by term, KV tokens, sequences at once, whether it starts, and the flags to copy.

use gpu_share_core::api::{bytes_text, grouped, Engine, EngineOptions, FitTarget, Utilization};
use leptos::prelude::*;

/// The engine choices as typed; `engine` empty: the formula's sizing, no engine.
#[derive(Clone, Copy)]
pub struct EngineChoices {
    pub engine: RwSignal<String>,
    pub profile: RwSignal<String>,
    pub utilization: RwSignal<String>,
    pub tp: RwSignal<String>,
}

impl EngineChoices {
    pub fn new() -> EngineChoices {
        EngineChoices {
            engine: RwSignal::new(String::new()),
            profile: RwSignal::new(String::new()),
            utilization: RwSignal::new(String::new()),
            tp: RwSignal::new(String::new()),
        }
    }
}

/// The request's `engine` and `fit` from the choices and the Cluster form's GPU model (tracked).
pub fn engine_request(
    c: EngineChoices,
    gpu_model: Option<String>,
) -> Result<(Option<EngineOptions>, Option<FitTarget>), gpu_share_core::api::Error> {
    let name = c.engine.get();
    if name.is_empty() {
        return Ok((None, None));
    }
    let utilization = c.utilization.get();
    let gpu_memory_utilization = match utilization.trim() {
        "" => None,
        t => Some(
            t.parse::<f64>()
                .ok()
                .and_then(Utilization::from_f64)
                .ok_or_else(|| {
                    gpu_share_core::api::Error::new(
                        gpu_share_core::api::ErrorKind::OutOfRange,
                        format!("expected a number above 0 and at most 1, got {t:?}"),
                    )
                    .in_field("options.engine.gpu_memory_utilization")
                })?,
        ),
    };
    let fit = gpu_model.map(|gpu_model| match c.profile.get().trim() {
        "" => FitTarget::Gpu { gpu_model },
        p => FitTarget::Profile {
            gpu_model,
            profile: p.to_string(),
        },
    });
    let engine = EngineOptions {
        name,
        tensor_parallel_size: super::size::count(
            &c.tp.get(),
            "options.engine.tensor_parallel_size",
        )?,
        gpu_memory_utilization,
        ..Default::default()
    };
    Ok((Some(engine), fit))
}

/// The engine's fields beside the sizing choices.
#[component]
pub fn EngineFields(choices: EngineChoices) -> impl IntoView {
    let c = choices;
    let on = move || !c.engine.get().is_empty();
    view! {
        <div class="form-grid">
            <label for="size-engine">"Engine"</label>
            <select id="size-engine" data-testid="size-engine" on:change=move |ev| c.engine.set(event_target_value(&ev))>
                <option value="" selected=move || !on()>"none: weights, KV cache and 20% for activations"</option>
                <option value="vllm" selected=on>"vLLM 0.19, as its code allocates"</option>
            </select>
            {move || on().then(|| view! {
                <label for="size-profile">"MIG instance"</label>
                <input id="size-profile" data-testid="size-profile" type="text" placeholder="blank: the whole GPU of the Cluster form"
                    prop:value=move || c.profile.get() on:input=move |ev| c.profile.set(event_target_value(&ev)) />
                <label for="size-utilization">"GPU memory utilisation"</label>
                <input id="size-utilization" data-testid="size-utilization" type="text" inputmode="decimal"
                    placeholder="0.9, or the smallest for the sequences"
                    prop:value=move || c.utilization.get() on:input=move |ev| c.utilization.set(event_target_value(&ev)) />
                <label for="size-tp">"Tensor parallel"</label>
                <input id="size-tp" data-testid="size-tp" type="text" inputmode="numeric" placeholder="1"
                    prop:value=move || c.tp.get() on:input=move |ev| c.tp.set(event_target_value(&ev)) />
            })}
        </div>
    }
}

/// The engine's answer: per-GPU memory, tokens and sequences, why, and the flags to copy.
#[component]
pub fn EngineSized(engine: Engine) -> impl IntoView {
    let rows = engine.per_gpu.terms();
    let headline = format!(
        "{} {} at gpu_memory_utilization {}: {} KV tokens, {} sequences of {} tokens at once",
        engine.name,
        engine.version,
        engine.gpu_memory_utilization,
        grouped(engine.kv_cache_tokens),
        grouped(engine.max_concurrency),
        grouped(engine.max_model_len)
    );
    let flags = engine.args.join(" ");
    let starts = engine.starts;
    let why = engine.why.clone();
    view! {
        <h3>"On the engine"</h3>
        <p data-testid="size-engine-headline"><strong>{headline}</strong></p>
        <table class="size-table" data-testid="size-engine-table">
            <tbody>
                {rows.into_iter().map(|(name, bytes)| view! {
                    <tr><th scope="row">{name}</th><td class="num">{bytes_text(bytes)}</td></tr>
                }).collect_view()}
            </tbody>
        </table>
        {if starts {
            view! { <p>"Flags to pass: "<code data-testid="size-engine-flags">{flags}</code></p> }.into_any()
        } else {
            let reason = why.last().cloned().unwrap_or_default();
            view! { <p class="error" role="alert" data-testid="size-engine-refused">{format!("vLLM would not start: {reason}")}</p> }.into_any()
        }}
        <details>
            <summary>"Each term, from vLLM's code"</summary>
            {why.into_iter().map(|l| view! { <p class="note">{l}</p> }).collect_view()}
        </details>
    }
}
