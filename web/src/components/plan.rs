//! The plan table: per ask the mechanism, an isolation badge with its one-line meaning, the share allocated, the waste and the warnings.

use std::collections::HashMap;

use gpu_share_core::api::gpu_ranges;
use gpu_share_core::{Choice, PackResult};
use leptos::prelude::*;

use crate::state::AppState;
use crate::words;

/// Where each ask ended up: its GPU indices, or `None` when unplaced.
fn placements(pack: &PackResult) -> HashMap<String, Vec<u64>> {
    let mut map: HashMap<String, Vec<u64>> = HashMap::new();
    for gpu in &pack.gpus {
        for ask in gpu.asks() {
            map.entry(ask.to_string()).or_default().push(gpu.index);
        }
    }
    map
}

/// The GPUs an ask sits on as the core writes them (`0, 2-4, 7`), or `unplaced`.
fn gpu_list(indices: &[u64]) -> String {
    if indices.is_empty() {
        "unplaced".into()
    } else {
        gpu_ranges(indices)
    }
}

#[component]
fn ChoiceRow(choice: Choice, gpus: String) -> impl IntoView {
    let iso = choice.isolation;
    let badge = format!("badge iso-{}", iso.as_str());
    let allocated = match &choice.mig_profile {
        Some(p) => format!("{} ({p})", choice.allocated_fraction),
        None => choice.allocated_fraction.to_string(),
    };
    let waste_class = if choice.wasted_fraction.is_zero() {
        "num"
    } else {
        "num waste"
    };
    let has_notes = !choice.warnings.is_empty() || !choice.notes.is_empty();
    let warnings = choice.warnings.clone();
    let notes = choice.notes.clone();
    view! {
        <tr class="choice">
            <th scope="row" class="ask-name">{choice.name.clone()}</th>
            <td><span class=format!("mech mech-{}", choice.mechanism)>{choice.mechanism.to_string()}</span></td>
            <td>
                <span class=badge title=iso.explain()>{iso.as_str()}</span>
                <span class="explain">{iso.explain()}</span>
            </td>
            <td class="num">{choice.requested_fraction.to_string()}</td>
            <td class="num">{allocated}</td>
            <td class=waste_class>{choice.wasted_fraction.to_string()}</td>
            <td class="num">{gpus}</td>
        </tr>
        {has_notes.then(|| view! {
            <tr class="choice-notes">
                <td colspan="7">
                    {warnings.into_iter().map(|w| view! { <p class="warning"><span aria-hidden="true">"⚠ "</span><strong>{w}</strong></p> }).collect_view()}
                    {notes.into_iter().map(|n| view! { <p class="note">{n}</p> }).collect_view()}
                </td>
            </tr>
        })}
    }
}

#[component]
pub fn PlanTable() -> impl IntoView {
    let state = expect_context::<AppState>();
    let rows = Memo::new(move |_| {
        state.plan.with(|p| match p {
            Ok(plan) => {
                let placed = placements(&plan.result);
                plan.result
                    .choices
                    .iter()
                    .map(|c| {
                        (
                            c.clone(),
                            gpu_list(placed.get(&c.name).map_or(&[][..], Vec::as_slice)),
                        )
                    })
                    .collect::<Vec<_>>()
            }
            Err(_) => Vec::new(),
        })
    });
    let error = move || {
        state.plan.with(|p| p.as_ref().err().map(|e| view! { <p class="error banner" role="alert" data-testid="plan-error">{words::error(e)}</p> }))
    };
    let notes = move || {
        state.plan.with(|p| {
            p.as_ref().ok().map(|p| {
                p.result
                    .notes
                    .iter()
                    .map(|n| view! { <p class="note">{n.clone()}</p> })
                    .collect_view()
            })
        })
    };
    view! {
        <section class="card plan" aria-labelledby="plan-h">
            <h2 id="plan-h">"Plan"</h2>
            {error}
            {move || state.link_error.get().map(|e| view! { <p class="error banner" role="alert">{e}</p> })}
            {notes}
            <Show when=move || !rows.with(Vec::is_empty)
                fallback=move || view! { <p class="hint">{move || if state.plan.with(|p| p.is_ok()) { "Add an ask to see its plan." } else { "" }}</p> }>
                <div class="table-scroll">
                    <table class="plan-table" data-testid="plan-table">
                        <thead>
                            <tr>
                                <th scope="col">"Ask"</th><th scope="col">"Mechanism"</th><th scope="col">"Isolation"</th>
                                <th scope="col" class="num">"Requested"</th><th scope="col" class="num">"Allocated"</th>
                                <th scope="col" class="num">"Wasted"</th><th scope="col" class="num">"GPU"</th>
                            </tr>
                        </thead>
                        <For each=move || rows.get() key=|r| r.clone()
                            children=move |(choice, gpus)| view! { <tbody><ChoiceRow choice gpus /></tbody> } />
                    </table>
                </div>
            </Show>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_lists_read_well() {
        assert_eq!(gpu_list(&[]), "unplaced");
        assert_eq!(gpu_list(&[3]), "3");
        assert_eq!(gpu_list(&[3, 4, 5]), "3-5");
        assert_eq!(gpu_list(&[1, 4]), "1, 4");
        assert_eq!(gpu_list(&[7, 0, 2, 3, 4]), "0, 2-4, 7");
    }

    #[test]
    fn each_ask_lists_its_gpus_or_unplaced() {
        let state = AppState::new("ask=a:2&ask=b:0.5&ask=c:0.9&gpus=3&timeslice");
        let plan = state.plan.get_untracked().unwrap();
        let placed = placements(&plan.result);
        let list = |name: &str| gpu_list(placed.get(name).map_or(&[][..], Vec::as_slice));
        assert_eq!(
            (list("a").as_str(), list("b").as_str(), list("c").as_str()),
            ("0, 1", "unplaced", "2")
        );
    }

    #[test]
    fn a_plan_error_says_what_to_do_on_the_page() {
        // No GPU model offers both profiles: the core's hint is to give one, said as the form says it.
        let state = AppState::new("ask=a:1g.5gb&ask=b:1g.20gb&mig-capable");
        let error = words::error(&state.plan.get_untracked().unwrap_err());
        assert!(
            error.starts_with("MIG profiles: no GPU model offers all of"),
            "{error}"
        );
        assert!(error.ends_with("; choose the GPU model"), "{error}");
        assert!(!error.contains("--"), "{error}");
    }
}
