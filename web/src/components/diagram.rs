//! The packing diagram (SVG): a lane per GPU, MIG lanes as memory-slice maps, shared GPUs as stacked shares, with legend and totals.

use leptos::prelude::*;

use crate::colour;
use crate::layout::{self, Lane, BAR_HEIGHT, BAR_TOP, LANE_HEIGHT};
use crate::state::AppState;

/// The most lanes drawn; the plan table still lists every ask's GPUs.
pub const MAX_LANES: usize = 500;

#[component]
fn LaneView(lane: Lane) -> impl IntoView {
    let y = lane.index as u32 * LANE_HEIGHT;
    let grid = lane.slices.map(|n| {
        (1..n)
            .map(|i| {
                let x = layout::percent(f64::from(i) / f64::from(n));
                view! { <line class="slice-line" x1=x.clone() x2=x y1=BAR_TOP.to_string() y2=(BAR_TOP + BAR_HEIGHT).to_string() /> }
            })
            .collect_view()
    });
    let segments = lane
        .segments
        .into_iter()
        .map(|s| {
            let (class, fill) = match &s.ask {
                Some(name) => ("seg", colour::fill(name)),
                None => ("seg free", "none".to_string()),
            };
            let ask = s.ask.clone();
            view! {
                <svg class=class data-ask=ask x=s.x y=BAR_TOP.to_string() width=s.width height=BAR_HEIGHT.to_string()>
                    <title>{s.tooltip}</title>
                    <rect class="seg-box" x="0.5" y="0.5" width="100%" height=(BAR_HEIGHT - 1).to_string() fill=fill rx="3"></rect>
                    <text class="seg-label" x="5" y="15">{s.label}</text>
                </svg>
            }
        })
        .collect_view();
    view! {
        <g data-testid=format!("gpu-{}", lane.index) class=format!("lane lane-{}", lane.mechanism) transform=format!("translate(0 {y})")>
            <text class="lane-title" x="0" y="13">{lane.title}</text>
            {segments}
            {grid}
        </g>
    }
}

#[component]
pub fn Diagram() -> impl IntoView {
    let state = expect_context::<AppState>();
    let all = Memo::new(move |_| {
        state.plan.with(|p| {
            p.as_ref()
                .map(|p| layout::lanes(&p.result))
                .unwrap_or_default()
        })
    });
    // A page with a lane per GPU for tens of thousands of whole GPUs would freeze: draw the first ones.
    let lanes =
        Memo::new(move |_| all.with(|l| l.iter().take(MAX_LANES).cloned().collect::<Vec<_>>()));
    let hidden = move || all.with(Vec::len).saturating_sub(MAX_LANES);
    let height = move || (lanes.with(Vec::len) as u32 * LANE_HEIGHT + 4).to_string();
    let stat = move |f: fn(&gpu_share_core::PackResult) -> String| {
        move || {
            state.plan.with(|p| {
                p.as_ref()
                    .map(|p| f(&p.result))
                    .unwrap_or_else(|_| "–".into())
            })
        }
    };
    let unplaced = Memo::new(move |_| {
        state.plan.with(|p| {
            p.as_ref()
                .map(|p| p.result.unplaced.clone())
                .unwrap_or_default()
        })
    });
    // With optimize on: how the optimizer did against first-fit-decreasing.
    let optimized = Memo::new(move |_| {
        state
            .plan
            .with(|p| p.as_ref().ok().and_then(|p| p.optimize))
    });
    let legend = Memo::new(move |_| {
        state.plan.with(|p| {
            let mut names: Vec<String> = Vec::new();
            if let Ok(p) = p {
                for g in &p.result.gpus {
                    for a in g.asks() {
                        if !names.iter().any(|n| n == a) {
                            names.push(a.to_string());
                        }
                    }
                }
            }
            names
        })
    });
    view! {
        <section class="card diagram" aria-labelledby="diagram-h">
            <h2 id="diagram-h">"Packing"</h2>
            <p class="stats">
                <span>"GPUs used: "<strong data-testid="gpus-used">{stat(|p| p.gpus_used.to_string())}</strong></span>
                <span>"lower bound: "<strong data-testid="lower-bound">{stat(|p| p.lower_bound.to_string())}</strong></span>
                <span>"limit: "<strong>{stat(|p| p.gpu_count.map_or("unlimited".into(), |n| n.to_string()))}</strong></span>
                <span>"utilisation: "<strong data-testid="utilisation">{stat(|p| layout::share_percent(p.utilisation()))}</strong></span>
                <span>"model: "<strong>{stat(|p| p.gpu_model.clone().unwrap_or_else(|| "not specified".into()))}</strong></span>
                {move || optimized.get().map(|report| view! {
                    <span data-testid="optimized">"first-fit-decreasing: "<strong>{report.ffd_gpus.to_string()}</strong>
                        {if report.proven_optimal { " · proven optimal" } else { " · not proven optimal" }}</span>
                })}
            </p>
            <div class="diagram-scroll" tabindex="0" aria-label="Packing diagram, scrollable">
                <svg data-testid="packing-diagram" class="packing" width="100%" height=height role="img"
                    aria-label=move || format!("Packing diagram: {} GPU lanes", lanes.with(Vec::len))>
                    <For each=move || lanes.get() key=|l| l.clone() children=move |lane| view! { <LaneView lane /> } />
                </svg>
            </div>
            {move || lanes.with(Vec::is_empty).then(|| view! { <p class="hint">"No GPU in use."</p> })}
            {move || (hidden() > 0).then(|| view! {
                <p class="warn" role="status">{format!("Showing the first {MAX_LANES} GPUs; {} more are in use and listed in the plan.", hidden())}</p>
            })}
            <div data-testid="unplaced" class="unplaced" data-count=move || unplaced.with(Vec::len).to_string()>
                {move || {
                    let list = unplaced.get();
                    if list.is_empty() {
                        view! { <p class="ok">"Every ask is placed."</p> }.into_any()
                    } else {
                        view! {
                            <h3>{format!("Unplaced ({})", list.len())}</h3>
                            <ul>
                                {list.into_iter().map(|u| view! {
                                    <li><strong class="ask-name">{u.name}</strong>" ("{u.mechanism.to_string()}"): "{u.reason}</li>
                                }).collect_view()}
                            </ul>
                        }.into_any()
                    }
                }}
            </div>
            <details class="legend" open=move || legend.with(|l| l.len() <= 40)>
                <summary>"Legend"</summary>
                <ul>
                    <li><svg class="swatch" width="14" height="14" aria-hidden="true"><rect class="seg-box free-box" x="0.5" y="0.5" width="13" height="13" fill="none"></rect></svg>"free"</li>
                    <For each=move || legend.get() key=|n| n.clone() children=move |name| {
                        let fill = colour::fill(&name);
                        view! {
                            <li><svg class="swatch" width="14" height="14" aria-hidden="true"><rect x="0.5" y="0.5" width="13" height="13" fill=fill rx="2"></rect></svg>{name}</li>
                        }
                    } />
                </ul>
                <p class="hint">"MIG lanes show the GPU's memory slices: each instance sits at its real start and width. Time-sliced and MPS lanes stack each ask's share; whole GPUs are full. Hover a block for details."</p>
            </details>
        </section>
    }
}
