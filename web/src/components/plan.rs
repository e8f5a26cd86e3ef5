//! The plan table: per ask the mechanism, an isolation badge with its one-line meaning, the share allocated, the waste and the warnings.

use std::collections::HashMap;

use gpu_share_core::api::{gpu_ranges, Choice, PackResult, ShareInstead, WarningKind};
use leptos::prelude::*;

use crate::components::pager::{window, Pager};
use crate::state::{Asks, PageUi, Planned, SizeKind};
use crate::words;

/// Where each ask ended up: its GPU indices, or `None` when unplaced.
fn placements(pack: &PackResult) -> HashMap<&str, Vec<u64>> {
    let mut map: HashMap<&str, Vec<u64>> = HashMap::with_capacity(pack.choices.len());
    for gpu in &pack.gpus {
        for ask in gpu.asks() {
            map.entry(ask).or_default().push(gpu.index);
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

/// The isolation levels the plan uses, each once, in order of first use: the table's legend.
fn isolations(choices: &[Choice]) -> Vec<gpu_share_core::api::Isolation> {
    let mut seen = Vec::new();
    for c in choices {
        if !seen.contains(&c.isolation) {
            seen.push(c.isolation);
        }
    }
    seen
}

/// The core's offer for a MIG profile on a cluster without MIG that shares GPUs: a button that
/// asks the row of that name for the same share with memory.
#[component]
fn ShareInsteadButton(name: String, instead: ShareInstead) -> impl IntoView {
    let asks = expect_context::<Asks>();
    let label = format!("Use {} with {}", instead.fraction, instead.memory);
    let apply = move |_| {
        let row = asks.rows.with_untracked(|rows| {
            rows.iter()
                .find(|r| r.name.get_untracked() == name)
                .copied()
        });
        if let Some(row) = row {
            row.kind.set(SizeKind::Fraction);
            row.fraction.set(instead.fraction.clone());
            row.memory.set(instead.memory.clone());
            row.profile.set(String::new());
        }
    };
    view! { <button type="button" class="small fix" data-testid="share-instead" on:click=apply>{label}</button> }
}

#[component]
fn ChoiceRow(choice: Choice, gpus: String) -> impl IntoView {
    let iso = choice.isolation;
    let badge = format!("badge iso-{}", iso.as_str());
    let with_memory = |text: String, mib: Option<u64>| match mib {
        Some(mib) => format!("{text} · {}", gpu_share_core::api::mib_text(mib)),
        None => text,
    };
    let requested = with_memory(choice.requested_fraction.to_string(), choice.memory_mib);
    let allocated = with_memory(
        match &choice.mig_profile {
            Some(p) => format!("{} ({p})", choice.allocated_fraction),
            None => choice.allocated_fraction.to_string(),
        },
        choice.allocated_memory_mib,
    );
    let waste_class = if choice.wasted_fraction.is_zero() {
        "num"
    } else {
        "num waste"
    };
    // Warnings are said once for all asks, above the table (`Warnings`); notes are this ask's own.
    let has_notes = !choice.notes.is_empty();
    let notes = choice.notes.clone();
    let instead = choice
        .share_instead
        .clone()
        .map(|instead| view! { <ShareInsteadButton name=choice.name.clone() instead /> });
    view! {
        <tr class="choice">
            <th scope="row" class="ask-name">{choice.name.clone()}</th>
            <td data-label="Mechanism"><span class=format!("mech mech-{}", choice.mechanism)>{choice.mechanism.to_string()}</span></td>
            <td data-label="Isolation">
                <span class=badge title=iso.explain()>{iso.as_str()}</span>
                <span class="explain">{iso.explain()}</span>
            </td>
            <td class="num" data-label="Requested">{requested}</td>
            <td class="num" data-label="Allocated">{allocated}</td>
            <td class=waste_class data-label="Wasted">{choice.wasted_fraction.to_string()}</td>
            <td class="num" data-label="GPU">{gpus}</td>
        </tr>
        {has_notes.then(|| view! {
            <tr class="choice-notes">
                <td colspan="7">
                    {notes.into_iter().map(|n| view! { <p class="note">{n}</p> }).collect_view()}
                    {instead}
                </td>
            </tr>
        })}
    }
}

/// What a shared link held that could not be read: dropped, the rest loaded.
#[component]
fn LinkDropped() -> impl IntoView {
    let ui = expect_context::<PageUi>();
    move || {
        let dropped = ui.link_dropped.get();
        (!dropped.is_empty()).then(|| view! {
            <div class="error banner" role="alert" data-testid="link-dropped">
                <p>{format!("The link held {} part{} this page could not read; the rest is loaded:", dropped.len(), if dropped.len() == 1 { "" } else { "s" })}</p>
                <ul>{dropped.into_iter().map(|d| view! { <li>{d}</li> }).collect_view()}</ul>
                <button type="button" class="small" on:click=move |_| ui.link_dropped.set(Vec::new())>"Dismiss"</button>
            </div>
        })
    }
}

/// Every warning of the plan once, with the asks it concerns; estimated catalogue data as a
/// small marker whose explanation opens on demand.
#[component]
fn Warnings() -> impl IntoView {
    let planned = expect_context::<Planned>();
    let groups = Memo::new(move |_| {
        planned
            .plan
            .with(|p| p.as_ref().map(|p| p.warnings.clone()).unwrap_or_default())
    });
    let list = move |kind: WarningKind| {
        groups.with(|g| {
            g.iter()
                .filter(|g| g.kind == kind)
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        <ul class="warnings" data-testid="warnings">
            {move || list(WarningKind::Plan).into_iter().map(|g| view! {
                <li class="warning"><span aria-hidden="true">"⚠ "</span><strong>{g.text}</strong>
                    " "<span class="applies">{words::applies_to(&g.asks)}</span></li>
            }).collect_view()}
        </ul>
        {move || {
            let estimated = list(WarningKind::EstimatedData);
            (!estimated.is_empty()).then(|| view! {
                <details class="estimated" data-testid="estimated">
                    <summary><span class="marker">"estimated data"</span>" Some catalogue facts behind this plan were not seen in a real capture."</summary>
                    <ul>{estimated.into_iter().map(|g| view! {
                        <li>{g.text}" "<span class="applies">{words::applies_to(&g.asks)}</span></li>
                    }).collect_view()}</ul>
                </details>
            })
        }}
    }
}

#[component]
pub fn PlanTable() -> impl IntoView {
    let planned = expect_context::<Planned>();
    let total = Memo::new(move |_| {
        planned
            .plan
            .with(|p| p.as_ref().map_or(0, |p| p.result.choices.len()))
    });
    let page = RwSignal::new(0);
    // Only the shown page's choices are copied out of the plan: a thousand asks' choices, each
    // with its notes, were copied on every edit to show a hundred.
    let shown = Memo::new(move |_| {
        let range = window(page.get(), total.get());
        planned.plan.with(|p| match p {
            Ok(plan) => {
                let placed = placements(&plan.result);
                let choices = plan.result.choices.get(range).unwrap_or_default();
                choices
                    .iter()
                    .map(|c| {
                        let gpus = placed.get(c.name.as_str()).map_or(&[][..], Vec::as_slice);
                        (c.clone(), gpu_list(gpus))
                    })
                    .collect::<Vec<_>>()
            }
            Err(_) => Vec::new(),
        })
    });
    let total: Signal<usize> = total.into();
    let error = move || {
        planned.plan.with(|p| p.as_ref().err().map(|e| view! { <p class="error banner" role="alert" data-testid="plan-error">{words::error(e)}</p> }))
    };
    let notes = move || {
        planned.plan.with(|p| {
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
            <LinkDropped />
            {notes}
            <Warnings />
            <Show when=move || total.get() != 0
                fallback=move || view! { <p class="hint">{move || if planned.plan.with(|p| p.is_ok()) { "Add an ask to see its plan." } else { "" }}</p> }>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Plan, scrollable">
                    <table class="plan-table" data-testid="plan-table">
                        <thead>
                            <tr>
                                <th scope="col">"Ask"</th><th scope="col">"Mechanism"</th><th scope="col">"Isolation"</th>
                                <th scope="col" class="num">"Requested"</th><th scope="col" class="num">"Allocated"</th>
                                <th scope="col" class="num">"Wasted"</th><th scope="col" class="num">"GPU"</th>
                            </tr>
                        </thead>
                        <For each=move || shown.get() key=|r| r.clone()
                            children=move |(choice, gpus)| view! { <tbody><ChoiceRow choice gpus /></tbody> } />
                    </table>
                </div>
                <Pager total page what="Plan rows" />
                <ul class="iso-legend" data-testid="isolation-legend">
                    {move || planned.plan.with(|p| p.as_ref().map(|p| isolations(&p.result.choices)).unwrap_or_default()).into_iter().map(|iso| view! {
                        <li><span class=format!("badge iso-{}", iso.as_str())>{iso.as_str()}</span>" "{iso.explain()}</li>
                    }).collect_view()}
                </ul>
            </Show>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::AppState;

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
        let plan = state.planned.plan.get_untracked().unwrap();
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
        let error = words::error(&state.planned.plan.get_untracked().unwrap_err());
        assert!(
            error.starts_with("MIG profiles: no GPU model offers all of"),
            "{error}"
        );
        assert!(error.ends_with("; choose the GPU model"), "{error}");
        assert!(!error.contains("--"), "{error}");
    }
}
