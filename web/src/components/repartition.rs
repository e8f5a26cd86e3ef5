//! "Make room": under the pasted live layouts, the core's `api::repartition` — the fewest
//! instances moved that let the scenario's asks in — as each GPU's layout after the moves (kept,
//! moved and new instances marked), the steps in order, the nvidia-smi commands and what to drain.
//! Which existing instances may go is chosen here, with a box per instance.

use gpu_share_core::api::{
    self, DetectInput, FitResponse, FreeInstance, InstanceStatus, PackRequest, RepartitionGpu,
    RepartitionOptions, RepartitionRequest, RepartitionResponse, Step,
};
use leptos::prelude::*;

use crate::state::{ClusterForm, Planned};
use crate::words;

/// An existing instance the user marked as not in use: its GPU (node, index) and GPU instance ID.
pub type Freed = (Option<String>, u64, u32);

/// Plans the fewest moves for the plan's asks (`Planned::kept`) on the pasted GPUs.
pub fn run(
    planned: Planned,
    form: ClusterForm,
    text: &str,
    freed: &[Freed],
) -> Result<RepartitionResponse, String> {
    let request = RepartitionRequest {
        current: vec![DetectInput {
            label: "pasted text".into(),
            text: text.into(),
        }],
        asks: planned.kept.with(PackRequest::ask_list),
        options: RepartitionOptions {
            gpu_model: form.model(),
            free: freed
                .iter()
                .map(|(node, gpu, id)| FreeInstance {
                    node: node.clone(),
                    gpu: *gpu,
                    gpu_instance_id: *id,
                })
                .collect(),
        },
    };
    api::repartition(&request).map_err(|e| words::error(&e))
}

/// One cell per memory slice of a GPU after the moves: `(class, label, title)`.
pub fn after_cells(gpu: &RepartitionGpu, model: &str) -> Vec<(&'static str, String, String)> {
    let model = gpu_share_core::api::find_model(model);
    let slices = model.and_then(|m| m.mig).map_or(8, |g| g.memory_slices);
    let mut cells: Vec<(&'static str, String, String)> = (0..slices)
        .map(|s| ("free", String::new(), format!("slice {s}: free")))
        .collect();
    for i in &gpu.instances {
        let size = model
            .and_then(|m| m.profile(&i.profile))
            .map_or(1, |p| p.memory_slices);
        let (kind, what) = match i.status {
            InstanceStatus::Kept => ("held", "kept".to_string()),
            InstanceStatus::Moved => ("moved", "moved here".to_string()),
            InstanceStatus::New => ("new", "new".to_string()),
        };
        let who = i
            .ask
            .as_ref()
            .map(|a| format!(" for {a}"))
            .unwrap_or_default();
        for s in i.start..i.start.saturating_add(size).min(slices) {
            let label = if s == i.start {
                format!("{}{who}", i.profile)
            } else {
                String::new()
            };
            cells[usize::from(s)] = (kind, label, format!("slice {s}: {} {what}{who}", i.profile));
        }
    }
    cells
}

fn plan_view(r: RepartitionResponse) -> impl IntoView {
    let summary = format!(
        "{} instance{} moved, {} GPU{} touched",
        r.moved,
        if r.moved == 1 { "" } else { "s" },
        r.gpus_touched,
        if r.gpus_touched == 1 { "" } else { "s" }
    );
    let model = r.model.clone();
    let gpus = r.gpus.clone();
    let steps: Vec<String> = r.steps.iter().map(Step::describe).collect();
    let commands = r.commands.join("\n");
    let drain = r.drain.clone();
    let unplaced = r.unplaced_reasons.clone();
    view! {
        <div class="repartition-answer" role="status" data-testid="repartition-answer">
            <p><strong data-testid="repartition-summary">{summary}</strong></p>
            <ul class="fit-gpus">
                {gpus.into_iter().map(|g| {
                    let cells = after_cells(&g, &model);
                    view! {
                        <li class="fit-gpu" data-testid=format!("after-gpu-{}", g.index)>
                            <h3>{format!("GPU {} after", g.index)}</h3>
                            <ol class="slices" aria-label="memory slices after the moves">
                                {cells.into_iter().map(|(kind, label, title)| view! {
                                    <li class=format!("slice {kind}") title=title.clone() aria-label=title tabindex="0">{label}</li>
                                }).collect_view()}
                            </ol>
                        </li>
                    }
                }).collect_view()}
            </ul>
            {(!drain.is_empty()).then(|| view! {
                <h3>"First, drain"</h3>
                <ul>{drain.into_iter().map(|d| view! { <li>{d}</li> }).collect_view()}</ul>
            })}
            {(!steps.is_empty()).then(|| view! {
                <h3>"Steps"</h3>
                <ol data-testid="repartition-steps">{steps.into_iter().map(|s| view! { <li>{s}</li> }).collect_view()}</ol>
                <pre class="commands" data-testid="repartition-commands">{commands}</pre>
            })}
            {(!unplaced.is_empty()).then(|| view! {
                <p class="error">"Fits nowhere, even moving instances:"</p>
                <ul class="error" data-testid="repartition-unplaced">
                    {unplaced.into_iter().map(|u| view! { <li><strong>{u.name}</strong>{format!(": {}", u.reason)}</li> }).collect_view()}
                </ul>
            })}
        </div>
    }
}

/// The boxes that mark existing instances as not in use, and the plan.
#[component]
pub fn Repartition(
    text: RwSignal<String>,
    fit: Memo<Option<Result<FitResponse, String>>>,
) -> impl IntoView {
    let planned = expect_context::<Planned>();
    let form = expect_context::<ClusterForm>();
    let freed: RwSignal<Vec<Freed>> = RwSignal::new(Vec::new());
    // A new paste starts with every instance in use.
    Effect::new(move |_| {
        text.track();
        freed.set(Vec::new());
    });
    let result = Memo::new(move |_| {
        let t = text.get();
        let any_ask = planned.kept.with(|r| !r.asks.is_empty());
        (!t.trim().is_empty() && any_ask).then(|| freed.with(|f| run(planned, form, &t, f)))
    });
    let boxes = move || {
        let Some(Ok(fit)) = fit.get() else {
            return None;
        };
        let rows: Vec<(Freed, String)> = fit
            .gpus
            .iter()
            .flat_map(|g| {
                g.instances.iter().filter_map(move |i| {
                    let id = i.gpu_instance_id?;
                    let label = format!(
                        "GPU {} · {} at slice {} (GPU instance {id})",
                        g.index, i.profile, i.start
                    );
                    Some(((g.node.clone(), g.index, id), label))
                })
            })
            .collect();
        (!rows.is_empty()).then(|| view! {
            <fieldset class="freed">
                <legend>"Not in use (may be destroyed)"</legend>
                {rows.into_iter().map(|(key, label)| {
                    let k = key.clone();
                    let checked = move || freed.with(|f| f.contains(&k));
                    let toggle = move |ev: leptos::ev::Event| {
                        let on = event_target_checked(&ev);
                        freed.update(|f| {
                            f.retain(|x| *x != key);
                            if on {
                                f.push(key.clone());
                            }
                        });
                    };
                    view! { <label class="check"><input type="checkbox" prop:checked=checked on:change=toggle />" "{label}</label> }
                }).collect_view()}
            </fieldset>
        })
    };
    let shown = move || {
        result.get().map(|r| match r {
            Ok(plan) => plan_view(plan).into_any(),
            Err(e) => {
                view! { <p class="error" role="alert" data-testid="repartition-error">{e}</p> }
                    .into_any()
            }
        })
    };
    view! {
        <div class="repartition">
            <h3>"Make room: the fewest moves"</h3>
            <p class="hint">"Every instance is in use unless marked below: it may move (destroyed and created again elsewhere), never disappear. The plan moves as few as possible, then touches as few GPUs as possible."</p>
            {boxes}
            {shown}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::AppState;

    const LGI_933: &str =
        include_str!("../../../tests/fixtures/nvidia-smi/mig-lgi__dra-driver-nvidia-gpu-933.txt");

    #[test]
    fn one_move_makes_room_and_the_strip_marks_it() {
        let state = AppState::new("ask=big:3g.40gb");
        state.form.gpu_model.set("A100-SXM4-80GB".into());
        let r = run(state.planned, state.form, LGI_933, &[]).unwrap();
        assert_eq!(r.moved, 1);
        let kinds: Vec<&str> = after_cells(&r.gpus[0], &r.model)
            .iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(
            kinds,
            ["held", "held", "moved", "free", "new", "new", "new", "new"]
        );
        let freed = run(state.planned, state.form, LGI_933, &[(None, 3, 12)]).unwrap();
        assert_eq!(freed.moved, 0);
        assert!(r.steps[0].describe().contains("GPU instance 12"));
    }
}
