//! "Size from a model": paste a Hugging Face config.json; the core's `api::size` says what the
//! model needs (weights, KV cache, overheads, each with why) and "Add as an ask" puts a row of
//! that memory in the asks table, where the plan takes it like any other.
//!
//! The pasted config and the sizing choices stay in this component; only the ask it adds goes
//! into the scenario (and so the link).

use gpu_share_core::api::{
    self, bytes_text, grouped, Dtype, EngineOptions, FitTarget, ModelAsk, SizeRequest,
    SizeResponse, SizingOptions,
};
use leptos::prelude::*;

use super::serve_together::{add_model, ServeTogether};
use super::size_engine::{engine_request, EngineChoices, EngineFields, EngineSized};
use crate::file_input::{pasted_text, read_chosen_text};
use crate::state::{Asks, ClusterForm, RowText, SizeKind};
use crate::words;

/// The dtype choices; empty: the config's own.
const DTYPES: [&str; 7] = ["", "bf16", "fp16", "fp32", "fp8", "int8", "int4"];

/// A count typed in a field: blank is the core's default.
pub(super) fn count(text: &str, field: &str) -> Result<Option<u64>, gpu_share_core::api::Error> {
    let t = text.trim().replace([',', '_'], "");
    if t.is_empty() {
        return Ok(None);
    }
    t.parse().map(Some).map_err(|_| {
        gpu_share_core::api::Error::new(
            gpu_share_core::api::ErrorKind::Syntax,
            format!("expected a whole number, got {:?}", text.trim()),
        )
        .in_field(field)
    })
}

/// The request the panel's fields make; `engine` and `fit` from the engine's fields.
fn request(
    config: &str,
    dtype: &str,
    context: &str,
    concurrency: &str,
    (engine, fit): (Option<EngineOptions>, Option<FitTarget>),
) -> Result<SizeRequest, gpu_share_core::api::Error> {
    let dtype = (!dtype.is_empty())
        .then(|| Dtype::parse(dtype).map_err(|e| e.in_field("dtype")))
        .transpose()?;
    Ok(SizeRequest {
        config_json: config.to_string(),
        options: SizingOptions {
            dtype,
            context: count(context, "context")?,
            concurrency: count(concurrency, "concurrency")?,
            engine,
            fit,
            ..Default::default()
        },
    })
}

/// The sized model and, with an engine, a button to serve it with other models (`on_serve`).
#[component]
fn Sized(response: SizeResponse, on_add: Callback<()>, on_serve: Callback<()>) -> impl IntoView {
    let mut rows = vec![
        (
            "weights".to_string(),
            response.weights_bytes,
            response.weights_why.clone(),
        ),
        (
            "KV cache".to_string(),
            response.kv_cache_bytes,
            response.kv_cache_why.clone(),
        ),
    ];
    rows.extend(
        response
            .overheads
            .iter()
            .map(|o| (o.name.clone(), o.bytes, o.why.clone())),
    );
    let engine = response.engine.clone().map(|engine| {
        view! {
            <EngineSized engine />
            <button type="button" data-testid="size-serve" on:click=move |_| on_serve.run(())>
                "Serve it together with other models"
            </button>
        }
    });
    view! {
        <p data-testid="size-headline"><strong>{format!("{}: {} parameters", response.architecture, grouped(response.parameters))}</strong></p>
        <table class="size-table" data-testid="size-table">
            <tbody>
                {rows.into_iter().map(|(name, bytes, why)| view! {
                    <tr><th scope="row">{name}</th><td class="num">{bytes_text(bytes)}</td><td class="explain">{why}</td></tr>
                }).collect_view()}
                <tr class="total"><th scope="row">"total"</th><td class="num" data-testid="size-total">{bytes_text(response.total_bytes)}</td>
                    <td>{format!("an ask of {}, plus a CUDA context the plan adds", response.ask_memory)}</td></tr>
            </tbody>
        </table>
        <button type="button" data-testid="size-add" on:click=move |_| on_add.run(())>
            {format!("Add as an ask of {}", response.ask_memory)}
        </button>
        <details>
            <summary>"How it was counted"</summary>
            {response.explanation.iter().map(|l| view! { <p class="note">{l.clone()}</p> }).collect_view()}
        </details>
        {engine}
    }
}

/// The sizing choices beside the pasted config: the weights' dtype, the context and the
/// sequences served at once (each blank for the config's or the core's default).
#[component]
fn SizeChoices(
    dtype: RwSignal<String>,
    context: RwSignal<String>,
    concurrency: RwSignal<String>,
) -> impl IntoView {
    view! {
        <div class="form-grid">
            <label for="size-dtype">"Weights dtype"</label>
            <select id="size-dtype" on:change=move |ev| dtype.set(event_target_value(&ev))>
                {DTYPES.iter().map(|d| view! {
                    <option value=*d selected=move || dtype.get() == *d>{if d.is_empty() { "the config's" } else { d }}</option>
                }).collect_view()}
            </select>
            <label for="size-context">"Context (tokens)"</label>
            <input id="size-context" data-testid="size-context" type="text" inputmode="numeric" placeholder="the model's maximum"
                prop:value=move || context.get() on:input=move |ev| context.set(event_target_value(&ev)) />
            <label for="size-concurrency">"Sequences at once"</label>
            <input id="size-concurrency" data-testid="size-concurrency" type="text" inputmode="numeric" placeholder="1"
                prop:value=move || concurrency.get() on:input=move |ev| concurrency.set(event_target_value(&ev)) />
        </div>
    }
}

/// Adds the sized model to the asks table as a row of its memory, under the model's name (with
/// `-2`, `-3`, … when a row has it already), and says so in `added`.
fn add_sized_ask(asks: Asks, response: &SizeResponse, added: RwSignal<Option<String>>) {
    let taken = asks.names();
    let base = response.ask_name.clone();
    let name = if taken.contains(&base) {
        (2..)
            .map(|n| format!("{base}-{n}"))
            .find(|c| !taken.contains(c))
            .unwrap_or(base)
    } else {
        base
    };
    let row = asks.new_row(RowText {
        name: name.clone(),
        kind: SizeKind::Fraction,
        fraction: String::new(),
        memory: response.ask_memory.clone(),
        profile: String::new(),
        hours: String::new(),
    });
    asks.rows.update(|rows| rows.push(row));
    added.set(Some(format!(
        "added {name} ({}) to the asks",
        response.ask_memory
    )));
}

#[component]
pub fn SizeBox() -> impl IntoView {
    let asks = expect_context::<Asks>();
    let form = expect_context::<ClusterForm>();
    let choices = EngineChoices::new();
    let config = RwSignal::new(String::new());
    let dtype = RwSignal::new(String::new());
    let context = RwSignal::new(String::new());
    let concurrency = RwSignal::new(String::new());
    let read_error: RwSignal<Option<String>> = RwSignal::new(None);
    let added: RwSignal<Option<String>> = RwSignal::new(None);
    let result = Memo::new(move |_| {
        let text = config.get();
        (!text.trim().is_empty()).then(|| {
            engine_request(choices, form.model())
                .and_then(|engine| {
                    request(
                        &text,
                        &dtype.get(),
                        &context.get(),
                        &concurrency.get(),
                        engine,
                    )
                })
                .and_then(|r| api::size(&r))
                .map_err(|e| words::error(&e))
        })
    });
    let on_paste = move |ev: leptos::ev::Event| match pasted_text(&ev) {
        Ok(text) => {
            read_error.set(None);
            config.set(text);
        }
        Err(why) => read_error.set(Some(why)),
    };
    let on_file = move |ev: leptos::ev::Event| {
        read_chosen_text(&ev, move |file| match file {
            Ok(text) => {
                read_error.set(None);
                config.set(text);
            }
            Err(why) => read_error.set(Some(why)),
        })
    };
    let add = move |response: &SizeResponse| add_sized_ask(asks, response, added);
    let served: RwSignal<Vec<ModelAsk>> = RwSignal::new(Vec::new());
    let serve = move |response: &SizeResponse| {
        let name = add_model(
            served,
            ModelAsk {
                name: response.ask_name.clone(),
                config: config.get_untracked(),
                context: count(&context.get_untracked(), "context").ok().flatten(),
                concurrency: count(&concurrency.get_untracked(), "concurrency")
                    .ok()
                    .flatten(),
            },
        );
        added.set(Some(format!("added {name} to the models served together")));
    };
    let shown = move || {
        if let Some(why) = read_error.get() {
            return Some(
                view! { <p class="error" role="alert" data-testid="size-error">{why}</p> }
                    .into_any(),
            );
        }
        result.get().map(|r| match r {
            Ok(response) => {
                let for_add = response.clone();
                let on_add = Callback::new(move |()| add(&for_add));
                let for_serve = response.clone();
                let on_serve = Callback::new(move |()| serve(&for_serve));
                view! { <Sized response on_add on_serve /> }.into_any()
            }
            Err(e) => {
                view! { <p class="error" role="alert" data-testid="size-error">{e}</p> }.into_any()
            }
        })
    };
    view! {
        <section class="card size" aria-labelledby="size-h">
            <h2 id="size-h">"Size from a model"</h2>
            <p class="hint">"Paste a model's Hugging Face "<code>"config.json"</code>": the memory its weights, KV cache and activations need, each explained, then add it as an ask. It is read in this page and not put in the link."</p>
            <label for="size-paste">"Paste config.json"</label>
            <textarea id="size-paste" data-testid="size-input" rows="4" spellcheck="false" autocomplete="off"
                placeholder="{\"architectures\": [\"LlamaForCausalLM\"], …}"
                prop:value=move || config.get() on:input=on_paste></textarea>
            <label class="file">"Or pick a file "
                <input type="file" data-testid="size-file" accept=".json,application/json" on:change=on_file /></label>
            <SizeChoices dtype context concurrency />
            <EngineFields choices />
            <div aria-live="polite">{shown}</div>
            {move || added.get().map(|m| view! { <p class="ok" role="status" data-testid="size-added">{m}</p> })}
            <ServeTogether models=served />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_make_the_request_through_the_core() {
        let r = request("{}", "int4", "8,192", "", (None, None)).unwrap();
        assert_eq!(r.options.dtype, Some(Dtype::Int4));
        assert_eq!(
            (r.options.context, r.options.concurrency),
            (Some(8192), None)
        );
        assert_eq!(
            request("{}", "", "lots", "", (None, None))
                .unwrap_err()
                .field
                .as_deref(),
            Some("context")
        );
    }
}
