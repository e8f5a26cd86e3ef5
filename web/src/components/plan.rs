//! The plan table: per ask the mechanism, an isolation badge with its one-line meaning, the share allocated, the waste and the warnings.

use std::collections::HashMap;

use gpu_share_core::{Choice, PackResult};
use leptos::prelude::*;

use crate::state::AppState;

/// Where each ask ended up: its GPU indices, or `None` when unplaced.
fn placements(pack: &PackResult) -> HashMap<String, Vec<u64>> {
    let mut map: HashMap<String, Vec<u64>> = HashMap::new();
    for gpu in &pack.gpus {
        for ask in &gpu.asks {
            map.entry(ask.clone()).or_default().push(gpu.index);
        }
    }
    map
}

/// `0, 1, 2` or `3–6` for a run.
fn gpu_list(indices: &[u64]) -> String {
    match indices {
        [] => "unplaced".into(),
        [one] => one.to_string(),
        [first, .., last] if indices.windows(2).all(|w| w[1] == w[0] + 1) => {
            format!("{first}–{last}")
        }
        many => many
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
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
        state.pack.with(|p| match p {
            Ok(pack) => {
                let placed = placements(pack);
                pack.choices
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
        state.pack.with(|p| p.as_ref().err().map(|e| view! { <p class="error banner" role="alert" data-testid="plan-error">{e.to_string()}</p> }))
    };
    let notes = move || {
        state.pack.with(|p| {
            p.as_ref().ok().map(|p| {
                p.notes
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
                fallback=move || view! { <p class="hint">{move || if state.pack.with(|p| p.is_ok()) { "Add an ask to see its plan." } else { "" }}</p> }>
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
        assert_eq!(gpu_list(&[3, 4, 5]), "3–5");
        assert_eq!(gpu_list(&[1, 4]), "1, 4");
    }
}
