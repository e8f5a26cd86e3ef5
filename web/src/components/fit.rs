//! "GPUs as they are": paste `nvidia-smi mig -lgi` output; the core's `api::fit` says, per GPU,
//! which memory slices are held, free or stranded, which profiles can still be created where, and
//! where the scenario's asks would go without moving an instance.
//!
//! The pasted text stays in this component (it can be large and names real machines); the asks and
//! the GPU model come from the scenario, so the answer follows every edit. Below it, the fewest
//! moves that would let every ask in (`repartition.rs`).

use gpu_share_core::api::{
    self, DetectInput, FitRequest, FitResponse, GpuFit, LiveOptions, PackRequest,
};
use leptos::prelude::*;

use super::left_out::LeftOutNote;
use super::repartition::Repartition;
use crate::file_input::{pasted_text, read_chosen_text};
use crate::state::{ClusterForm, Planned};
use crate::words;

/// The label the core names this box's input by, in its errors.
const PASTED: &str = "pasted text";

/// What one memory slice of a GPU holds, for the slice strip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceCell {
    /// `held`, `new`, `free` or `stranded` (the CSS class).
    pub kind: &'static str,
    /// Short visible text: the profile at an instance's first slice, else empty.
    pub label: String,
    /// What the cell is, in words (its accessible name and tooltip).
    pub title: String,
}

/// The memory slices of `gpu` in order: existing instances, the asks `placed` there, free and stranded slices.
pub fn slice_cells(gpu: &GpuFit, response: &FitResponse) -> Vec<SliceCell> {
    let slices = memory_slices(gpu);
    let mut cells: Vec<SliceCell> = (0..slices)
        .map(|s| {
            let stranded = gpu.stranded_memory_slices.contains(&s);
            SliceCell {
                kind: if stranded { "stranded" } else { "free" },
                label: String::new(),
                title: if stranded {
                    format!("slice {s}: free, but no profile can be created over it now (stranded)")
                } else {
                    format!("slice {s}: free")
                },
            }
        })
        .collect();
    let mut mark = |start: u8, size: u8, kind: &'static str, label: String, title: &str| {
        for s in start..start.saturating_add(size).min(slices) {
            let cell = &mut cells[usize::from(s)];
            cell.kind = kind;
            cell.title = format!("slice {s}: {title}");
            cell.label = if s == start {
                label.clone()
            } else {
                String::new()
            };
        }
    };
    for (i, inst) in gpu.instances.iter().enumerate() {
        let size = instance_size(gpu, i, slices);
        let id = inst
            .gpu_instance_id
            .map(|id| format!(" (GPU instance {id})"))
            .unwrap_or_default();
        mark(
            inst.start,
            size,
            "held",
            inst.profile.clone(),
            &format!("{}{id}, in use", inst.profile),
        );
    }
    for p in response
        .placed
        .iter()
        .filter(|p| p.gpu == gpu.index && p.node == gpu.node)
    {
        let size = profile_slices(&gpu.model, &p.profile);
        let title = format!("{} for {}, new", p.profile, p.ask);
        mark(
            p.start,
            size,
            "new",
            format!("{} {}", p.ask, p.profile),
            &title,
        );
    }
    cells
}

fn memory_slices(gpu: &GpuFit) -> u8 {
    gpu_share_core::api::find_model(&gpu.model)
        .and_then(|m| m.mig)
        .map_or(8, |g| g.memory_slices)
}

fn profile_slices(model: &str, profile: &str) -> u8 {
    gpu_share_core::api::find_model(model)
        .and_then(|m| m.profile(profile))
        .map_or(1, |p| p.memory_slices)
}

/// An instance's width: its profile's memory slices on the GPU's model.
fn instance_size(gpu: &GpuFit, i: usize, slices: u8) -> u8 {
    profile_slices(&gpu.model, &gpu.instances[i].profile).min(slices)
}

/// `2, 3, 6` or `none`.
fn list(slices: &[u8]) -> String {
    if slices.is_empty() {
        "none".into()
    } else {
        slices
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Fits the plan's asks (those the plan shown was made of: `Planned::kept`) on the pasted GPUs:
/// the form's GPU model for GPUs the text does not name.
pub fn run(planned: Planned, form: ClusterForm, text: &str) -> Result<FitResponse, String> {
    let request = FitRequest {
        current: vec![DetectInput {
            label: PASTED.into(),
            text: text.into(),
        }],
        asks: planned.kept.with(PackRequest::ask_list),
        options: LiveOptions {
            gpu_model: form.model(),
        },
    };
    api::fit(&request).map_err(|e| words::error(&e))
}

#[component]
fn GpuCard(gpu: GpuFit, response: FitResponse) -> impl IntoView {
    let cells = slice_cells(&gpu, &response);
    let node = gpu
        .node
        .clone()
        .map(|n| format!("{n} · "))
        .unwrap_or_default();
    let title = format!("{node}GPU {} · {}", gpu.index, gpu.model);
    let creatable = if gpu.creatable.is_empty() {
        "nothing".to_string()
    } else {
        gpu.creatable
            .iter()
            .map(|c| format!("{} at {}", c.profile, list(&c.starts)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let for_asks = gpu.stranded_for_asks.clone();
    view! {
        <li class="fit-gpu" data-testid=format!("fit-gpu-{}", gpu.index)>
            <h3>{title}</h3>
            <ol class="slices" aria-label="memory slices">
                {cells.into_iter().map(|c| view! {
                    <li class=format!("slice {}", c.kind) title=c.title.clone() aria-label=c.title tabindex="0">{c.label}</li>
                }).collect_view()}
            </ol>
            <dl>
                <dt>"Free"</dt><dd>{format!("memory slices {}; {} compute slices", list(&gpu.free_memory_slices), gpu.free_compute_slices)}</dd>
                <dt>"Can create"</dt><dd data-testid="fit-creatable">{creatable}</dd>
                <dt>"Stranded"</dt><dd data-testid="fit-stranded">{format!("memory slices {}", list(&gpu.stranded_memory_slices))}</dd>
                {for_asks.map(|s| view! { <dt>"Stranded for the asks"</dt><dd>{format!("memory slices {}", list(&s))}</dd> })}
            </dl>
        </li>
    }
}

fn answer(response: FitResponse) -> impl IntoView {
    let placed: Vec<String> = response
        .placed
        .iter()
        .map(|p| {
            format!(
                "{}: {} at memory slice {} of GPU {}",
                p.ask, p.profile, p.start, p.gpu
            )
        })
        .collect();
    let unplaced: Vec<String> = response
        .unplaced
        .iter()
        .map(|u| format!("{}: no room — {}", u.name, u.reason))
        .collect();
    let notes = response.notes.clone();
    let empty = response.gpus.is_empty();
    let gpus = response.gpus.clone();
    view! {
        <div class="fit-answer" role="status" data-testid="fit-answer">
            {empty.then(|| view! { <p class="hint">"No MIG-enabled GPU with known placements in the text."</p> })}
            <ul class="fit-gpus">
                {gpus.into_iter().map(|g| view! { <GpuCard gpu=g response=response.clone() /> }).collect_view()}
            </ul>
            <ul class="fit-placed" data-testid="fit-placed">
                {placed.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
                {unplaced.into_iter().map(|u| view! { <li class="unplaced">{u}</li> }).collect_view()}
            </ul>
            {(!notes.is_empty()).then(|| view! {
                <ul class="detect-notes">{notes.into_iter().map(|n| view! { <li class="note">{n}</li> }).collect_view()}</ul>
            })}
        </div>
    }
}

#[component]
pub fn FitBox() -> impl IntoView {
    let planned = expect_context::<Planned>();
    let form = expect_context::<ClusterForm>();
    let text = RwSignal::new(String::new());
    let read_error: RwSignal<Option<String>> = RwSignal::new(None);
    // Follows the pasted text, the plan's asks and the GPU model.
    let result = Memo::new(move |_| {
        let t = text.get();
        (!t.trim().is_empty()).then(|| run(planned, form, &t))
    });
    let on_paste = move |ev: leptos::ev::Event| match pasted_text(&ev) {
        Ok(pasted) => {
            read_error.set(None);
            text.set(pasted);
        }
        Err(why) => read_error.set(Some(why)),
    };
    let on_file = move |ev: leptos::ev::Event| {
        read_chosen_text(&ev, move |file| match file {
            Ok(file) => {
                read_error.set(None);
                text.set(file);
            }
            Err(why) => read_error.set(Some(why)),
        });
    };
    let shown = move || {
        if let Some(why) = read_error.get() {
            return Some(
                view! { <p class="error" role="alert" data-testid="fit-error">{why}</p> }
                    .into_any(),
            );
        }
        result.get().map(|r| match r {
            Ok(response) => answer(response).into_any(),
            Err(e) => {
                view! { <p class="error" role="alert" data-testid="fit-error">{e}</p> }.into_any()
            }
        })
    };
    view! {
        <section class="card fit" aria-labelledby="fit-h">
            <h2 id="fit-h">"GPUs as they are"</h2>
            <p class="hint">"Paste "<code>"nvidia-smi mig -lgi"</code>" (with "<code>"nvidia-smi -L"</code>
                " to name the model, or choose the GPU model above): which profiles can still be created where, which free memory slices are stranded, and where this scenario's asks would go without moving anything. It is read in this page and not put in the link."</p>
            <label for="fit-paste">"Paste nvidia-smi mig -lgi output"</label>
            <textarea id="fit-paste" data-testid="fit-input" rows="5" spellcheck="false" autocomplete="off"
                placeholder="nvidia-smi mig -lgi > instances.txt"
                prop:value=move || text.get() on:input=on_paste></textarea>
            <label class="file">"Or pick a file "
                <input type="file" data-testid="fit-file" accept=".txt,.log,text/plain" on:change=on_file /></label>
            <p class="legend"><span class="slice held">"in use"</span>" "<span class="slice new">"new"</span>" "<span class="slice moved">"moved"</span>" "
                <span class="slice free">"free"</span>" "<span class="slice stranded">"stranded"</span></p>
            {move || (!text.with(|t| t.trim().is_empty())).then(|| view! { <LeftOutNote /> })}
            // Now and after the moves, side by side on wide screens.
            <div class="fit-columns">
                <div class="fit-now">{shown}</div>
                <Repartition text=text fit=result />
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::AppState;

    const LGI_933: &str =
        include_str!("../../../tests/fixtures/nvidia-smi/mig-lgi__dra-driver-nvidia-gpu-933.txt");

    #[test]
    fn the_strip_shows_held_new_and_free_slices() {
        let state = AppState::new("ask=small:2g.20gb&ask=big:3g.40gb");
        state.form.gpu_model.set("A100-SXM4-80GB".into());
        let r = run(state.planned, state.form, LGI_933).unwrap();
        let cells = slice_cells(&r.gpus[0], &r);
        let kinds: Vec<&str> = cells.iter().map(|c| c.kind).collect();
        // 1g.10gb at 0, 1 and 5; the 2g.20gb ask at 2–3; 4, 6 and 7 free.
        assert_eq!(
            kinds,
            ["held", "held", "new", "new", "free", "held", "free", "free"]
        );
        assert_eq!(cells[2].label, "small 2g.20gb");
        assert!(
            cells[5].title.contains("GPU instance 12"),
            "{}",
            cells[5].title
        );
        assert_eq!(r.unplaced[0].name, "big");
    }

    #[test]
    fn without_a_model_the_page_asks_for_one() {
        let state = AppState::new("ask=a:1g.10gb");
        state.form.gpu_model.set(String::new());
        let e = run(state.planned, state.form, LGI_933).unwrap_err();
        assert!(e.ends_with("choose the GPU model"), "{e}");
    }
}
