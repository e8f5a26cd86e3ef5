//! The capabilities form: GPU model from the core's catalogue, GPU count, MIG (with allowed profiles), MPS, time-slicing.

use gpu_share_core::api::{find_model, models};
use leptos::prelude::*;

use crate::state::{Asks, ClusterForm, PageUi, Planned, SizeKind};
use crate::words;

/// MIG profiles the page changed when the GPU model changed, so one click can undo it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Conversion {
    previous_model: String,
    /// (row id, ask name, old profile, new profile)
    rows: Vec<(u64, String, String, String)>,
}

/// Moves every MIG row whose profile `model` lacks to the model's nearest profile (the core's
/// `nearest_profile`), and says which rows changed.
fn convert_profiles(asks: Asks, previous_model: String, model: &str) -> Option<Conversion> {
    let model = find_model(model).filter(|m| m.is_mig_capable())?;
    let mut rows = Vec::new();
    asks.rows.with_untracked(|all| {
        for r in all {
            let old = r.profile.get_untracked();
            if r.kind.get_untracked() != SizeKind::Mig || model.profile(&old).is_some() {
                continue;
            }
            if let Some(new) = model.nearest_profile(&old) {
                r.profile.set(new.name.to_string());
                rows.push((r.id, r.name.get_untracked(), old, new.name.to_string()));
            }
        }
    });
    (!rows.is_empty()).then_some(Conversion {
        previous_model,
        rows,
    })
}

/// The plan's error about `field` (e.g. the core's range check of the GPU count), in the page's words.
fn plan_error(planned: Planned, field: &'static str) -> impl Fn() -> Option<String> + Copy {
    move || {
        planned.plan.with(|p| {
            p.as_ref()
                .err()
                .filter(|e| e.field.as_deref() == Some(field))
                .map(words::message)
        })
    }
}

/// The GPU model picker's options: "not specified", a model the link named that the catalogue
/// lacks (so the page still shows it), then the catalogue, with `current` selected.
fn model_options(current: String) -> impl IntoView {
    let known = models().iter().any(|m| m.name == current);
    let mut options: Vec<(String, String)> = vec![(String::new(), "not specified".into())];
    if !current.is_empty() && !known {
        options.push((current.clone(), format!("{current} (not in the catalogue)")));
    }
    for m in models() {
        let mig = if m.is_mig_capable() { ", MIG" } else { "" };
        options.push((
            m.name.to_string(),
            format!("{} ({} GiB{mig})", m.name, m.memory_mib / 1024),
        ));
    }
    options
        .into_iter()
        .map(|(value, label)| {
            let selected = value == current;
            view! { <option value=value selected=selected>{label}</option> }
        })
        .collect_view()
}

/// Puts back the model and the profiles a conversion changed (its "Undo").
fn undo_conversion(form: ClusterForm, asks: Asks, conversion: RwSignal<Option<Conversion>>) {
    if let Some(c) = conversion.get_untracked() {
        form.gpu_model.set(c.previous_model);
        asks.rows.with_untracked(|all| {
            for (id, _, old, _) in &c.rows {
                if let Some(r) = all.iter().find(|r| r.id == *id) {
                    r.profile.set(old.clone());
                }
            }
        });
    }
    conversion.set(None);
}

/// The GPU model picker. Choosing a model moves MIG rows to profiles it has, and says which, with
/// an "Undo"; a limit on the profiles starts again from the new model's plain ones.
#[component]
fn ModelChoice() -> impl IntoView {
    let form = expect_context::<ClusterForm>();
    let asks = expect_context::<Asks>();
    let planned = expect_context::<Planned>();
    let conversion: RwSignal<Option<Conversion>> = RwSignal::new(None);
    let on_model = move |ev: leptos::ev::Event| {
        let previous = form.gpu_model.get_untracked();
        let model = event_target_value(&ev);
        conversion.set(convert_profiles(asks, previous, &model));
        form.gpu_model.set(model);
        // Profiles of another model would not be valid: start the limit from the new model's plain profiles.
        if form.limit_profiles.get_untracked() {
            form.allow_plain_profiles(planned.profile_model.get_untracked());
        }
    };
    let converted = move || {
        conversion.get().map(|c| {
            let list: Vec<String> = c
                .rows
                .iter()
                .map(|(_, name, old, new)| format!("{name}: {old} → {new}"))
                .collect();
            view! {
                <p class="warn" role="status" data-testid="converted">
                    {format!("Profiles this model lacks were changed to its nearest: {}. ", list.join(", "))}
                    <button type="button" class="small" data-testid="undo-convert"
                        on:click=move |_| undo_conversion(form, asks, conversion)>"Undo"</button>
                </p>
            }
        })
    };
    view! {
        <label for="gpu-model">"GPU model"</label>
        <select id="gpu-model" on:change=on_model>{move || model_options(form.gpu_model.get())}</select>
        <div class="form-wide">{converted}</div>
    }
}

/// How big the cluster is: a GPU count or nodes, and the CUDA context per process (shown once an
/// ask has memory, the only asks it matters to). Each field shows its own error or the plan's.
#[component]
fn ClusterSize() -> impl IntoView {
    let form = expect_context::<ClusterForm>();
    let asks = expect_context::<Asks>();
    let planned = expect_context::<Planned>();
    let count_error = move || {
        form.gpu_count_error
            .get()
            .or_else(plan_error(planned, "gpu_count"))
    };
    let nodes_error = move || form.nodes_error.get().or_else(plan_error(planned, "nodes"));
    let context_error = move || {
        form.context_overhead_error
            .get()
            .or_else(plan_error(planned, "context_overhead_mib"))
    };
    let driver_error = plan_error(planned, "driver");
    // The CUDA context and the driver matter only to asks with memory: the fields appear with
    // the first one.
    let any_memory = move || {
        asks.entries
            .with(|a| a.iter().any(|e| e.ask.memory().is_some()))
            || !form.context_overhead.get().trim().is_empty()
            || !form.driver.get().trim().is_empty()
    };
    view! {
        <label for="gpu-count">"GPU count"</label>
        <div>
            <input id="gpu-count" type="text" inputmode="numeric" placeholder="unlimited"
                aria-invalid=move || if count_error().is_some() { "true" } else { "false" }
                prop:value=move || form.gpu_count.get()
                on:input=move |ev| form.gpu_count.set(event_target_value(&ev)) />
            {move || count_error().map(|e| view! { <span class="field-error" role="alert" data-testid="gpu-count-error">{e}</span> })}
        </div>
        <label for="nodes">"Nodes"</label>
        <div>
            <input id="nodes" type="text" placeholder="none (e.g. 4x8)" data-testid="nodes"
                aria-invalid=move || if nodes_error().is_some() { "true" } else { "false" }
                aria-describedby="nodes-hint"
                prop:value=move || form.nodes.get()
                on:input=move |ev| form.nodes.set(event_target_value(&ev)) />
            <span class="explain" id="nodes-hint">"4x8 (four nodes of eight GPUs) or gpu-a:8,gpu-b:4: one sharing configuration per node; a multi-GPU ask stays on one node. Leave the GPU count blank."</span>
            {move || nodes_error().map(|e| view! { <span class="field-error" role="alert">{e}</span> })}
        </div>
        <Show when=any_memory>
            <label for="context-overhead">"CUDA context"</label>
            <div>
                <input id="context-overhead" type="text" placeholder="500MiB" data-testid="context-overhead"
                    autocomplete="off" spellcheck="false"
                    aria-invalid=move || if context_error().is_some() { "true" } else { "false" }
                    aria-describedby="context-hint"
                    prop:value=move || form.context_overhead.get()
                    on:input=move |ev| form.context_overhead.set(event_target_value(&ev)) />
                <span class="explain" id="context-hint">"What each process with memory holds besides what it asks for (about 500 MiB); 0 when the memory asked already includes it."</span>
                {move || context_error().map(|e| view! { <span class="field-error" role="alert">{e}</span> })}
            </div>
            <label for="driver">"Driver"</label>
            <div>
                <input id="driver" type="text" placeholder="any" data-testid="driver"
                    autocomplete="off" spellcheck="false"
                    aria-invalid=move || if driver_error().is_some() { "true" } else { "false" }
                    aria-describedby="driver-hint"
                    prop:value=move || form.driver.get()
                    on:input=move |ev| form.driver.set(event_target_value(&ev)) />
                <span class="explain" id="driver-hint">"The NVIDIA driver the GPUs run (590.48.01): a MIG instance's memory differs between drivers, so a plan uses the smallest listing known unless the driver is named."</span>
                {move || driver_error().map(|e| view! { <span class="field-error" role="alert">{e}</span> })}
            </div>
        </Show>
    }
}

/// The sharing mechanisms the cluster supports, and whether to optimize the packing; a hint when
/// the GPUs read in are MIG capable with MIG off.
#[component]
fn Mechanisms() -> impl IntoView {
    let form = expect_context::<ClusterForm>();
    let ui = expect_context::<PageUi>();
    view! {
        <fieldset class="mechanisms">
            <legend>"Sharing the cluster supports"</legend>
            <label class="check"><input type="checkbox" id="mig" prop:checked=move || form.mig.get()
                on:change=move |ev| form.mig.set(event_target_checked(&ev)) />"MIG (hardware partitions)"</label>
            {move || (ui.detected_mig.get().disabled_gpus > 0 && !form.mig.get()).then(|| view! {
                <span class="hint" data-testid="mig-capable-disabled">"Your GPUs are MIG capable with MIG disabled: tick MIG to plan with it."</span>
            })}
            <label class="check"><input type="checkbox" id="mps" prop:checked=move || form.mps.get()
                on:change=move |ev| form.mps.set(event_target_checked(&ev)) />"MPS"</label>
            <label class="check"><input type="checkbox" id="timeslice" prop:checked=move || form.timeslice.get()
                on:change=move |ev| form.timeslice.set(event_target_checked(&ev)) />"Time-slicing"</label>
            <label class="check" title="Search for a packing on fewer GPUs than first-fit-decreasing, up to a proven optimum">
                <input type="checkbox" id="optimize" data-testid="optimize" prop:checked=move || form.optimize.get()
                on:change=move |ev| form.optimize.set(event_target_checked(&ev)) />"Optimize packing"</label>
        </fieldset>
    }
}

/// One allowed-profile checkbox, titled with the profile's slices and how many fit a GPU.
fn profile_check(form: ClusterForm, name: String, title: String) -> impl IntoView {
    let checked = {
        let name = name.clone();
        move || {
            form.allowed_profiles
                .with(|a| a.iter().any(|x| x.eq_ignore_ascii_case(&name)))
        }
    };
    let toggle = {
        let name = name.clone();
        move |ev: leptos::ev::Event| {
            let on = event_target_checked(&ev);
            form.allowed_profiles.update(|a| {
                a.retain(|x| !x.eq_ignore_ascii_case(&name));
                if on {
                    a.push(name.clone());
                }
            });
        }
    };
    view! {
        <label class="check" title=title>
            <input type="checkbox" prop:checked=checked on:change=toggle />
            {name.clone()}
        </label>
    }
}

/// The limit on MIG profiles (with MIG on, or a limit the link set): off, every profile of the
/// model is allowed; on, a checkbox per profile, starting from the model's plain ones.
#[component]
fn ProfileLimit() -> impl IntoView {
    let form = expect_context::<ClusterForm>();
    let planned = expect_context::<Planned>();
    let on_limit = move |ev: leptos::ev::Event| {
        let on = event_target_checked(&ev);
        if on && form.allowed_profiles.with_untracked(Vec::is_empty) {
            form.allow_plain_profiles(planned.profile_model.get_untracked());
        }
        form.limit_profiles.set(on);
    };
    let profile_boxes = move || {
        let model = planned.profile_model.get();
        model
            .profiles
            .iter()
            .map(|p| {
                let title = format!(
                    "{} compute slices, {} memory slices, up to {} per GPU",
                    p.compute_slices, p.memory_slices, p.max_count
                );
                profile_check(form, p.name.to_string(), title)
            })
            .collect_view()
    };
    let profiles_error = plan_error(planned, "mig_profiles");
    let mig_model_note = move || {
        planned
            .profile_model
            .with(|m| format!("Profiles of {}", m.name))
    };
    view! {
        <Show when=move || form.mig.get() || form.limit_profiles.get()>
            <fieldset class="profiles">
                <legend>{mig_model_note}</legend>
                <label class="check"><input type="checkbox" id="limit-profiles" prop:checked=move || form.limit_profiles.get()
                    on:change=on_limit />"Only allow these profiles"</label>
                <Show when=move || form.limit_profiles.get()
                    fallback=|| view! { <p class="hint">"Every profile of the model is allowed; the planner picks plain ones itself."</p> }>
                    <div class="profile-boxes">{profile_boxes}</div>
                    {move || profiles_error().map(|e| view! { <span class="field-error" role="alert" data-testid="profiles-error">{e}</span> })}
                </Show>
            </fieldset>
        </Show>
    }
}

/// The cluster form: what the cluster has and supports, each part its own component reading the
/// form from context.
#[component]
pub fn CapsForm() -> impl IntoView {
    view! {
        <section class="card caps" aria-labelledby="caps-h">
            <h2 id="caps-h">"Cluster"</h2>
            <div class="form-grid">
                <ModelChoice />
                <ClusterSize />
            </div>
            <Mechanisms />
            <ProfileLimit />
        </section>
    }
}
