//! The answer in one glance, kept in view while editing: GPUs used against the lower bound and the
//! limit, unplaced asks, rows left out, the plan's error, and a small map of the GPUs.

use gpu_share_core::api::{Mechanism, PackResult};
use leptos::prelude::*;

use crate::format::share_percent;
use crate::state::{Asks, PageUi, Planned};
use crate::words;

/// The most GPUs the small map draws; the diagram below shows them all.
const MINI_GPUS: usize = 48;

/// One tile of the small map: the GPU's mechanism and how full it is (0–100).
fn tiles(pack: &PackResult) -> Vec<(Mechanism, u8)> {
    pack.gpus
        .iter()
        .take(MINI_GPUS)
        .map(|g| {
            let used = g.used_fraction().min(gpu_share_core::api::Share::ONE);
            let percent = used
                .units()
                .saturating_mul(100)
                .div_ceil(gpu_share_core::api::Share::ONE.units());
            (g.mechanism(), percent.min(100) as u8)
        })
        .collect()
}

/// Size of one tile of the small map, and the gap between tiles, in pixels.
const TILE_W: usize = 14;
const TILE_H: usize = 20;
const TILE_GAP: usize = 3;

/// The small map as SVG (the page's CSP allows no inline styles; SVG attributes are not styles).
/// Each tile is keyed by its place, mechanism and fill, so a new plan redraws only the tiles that
/// changed: redrawing all of them removed and set every attribute of every tile, most of the DOM
/// writes of an edit at 1,000 asks (a CPU profile in Chromium, 4x throttle).
#[component]
fn MiniMap(tiles: Memo<Vec<(Mechanism, u8)>>, more: Memo<usize>) -> impl IntoView {
    let width = move || tiles.with(|t| (t.len() * (TILE_W + TILE_GAP)).max(1));
    view! {
        <div class="mini-map" aria-hidden="true">
            <svg width=move || width().to_string() height=TILE_H.to_string() viewBox=move || format!("0 0 {} {TILE_H}", width())>
                <For each=move || tiles.get().into_iter().enumerate() key=|tile| *tile let((i, (mechanism, percent)))>
                    <Tile i mechanism percent />
                </For>
            </svg>
            {move || {
                let more = more.get();
                (more > 0).then(|| view! { <span class="tile-more">{format!("+{more}")}</span> })
            }}
        </div>
    }
}

/// GPU `i`'s tile: its mechanism's colour, filled from the bottom to the share of it in use.
#[component]
fn Tile(i: usize, mechanism: Mechanism, percent: u8) -> impl IntoView {
    let x = i * (TILE_W + TILE_GAP);
    let fill = TILE_H * usize::from(percent) / 100;
    view! {
        <g class=format!("tile mech-{mechanism}")>
            <title>{format!("GPU {i}: {mechanism}, {percent}% used")}</title>
            <rect class="tile-box" x=(x as f64 + 0.5).to_string() y="0.5" width=(TILE_W - 1).to_string() height=(TILE_H - 1).to_string() rx="2"></rect>
            <rect class="tile-fill" x=x.to_string() y=(TILE_H - fill).to_string() width=TILE_W.to_string() height=fill.to_string()></rect>
        </g>
    }
}

#[component]
pub fn Summary() -> impl IntoView {
    let asks = expect_context::<Asks>();
    let planned = expect_context::<Planned>();
    let ui = expect_context::<PageUi>();
    let left_out = move || asks.invalid_rows.get() + planned.left_out.with(Vec::len);
    let plan = planned.plan;
    let planned = Memo::new(move |_| plan.with(Result::is_ok));
    let tiles =
        Memo::new(move |_| plan.with(|p| p.as_ref().map(|p| tiles(&p.result)).unwrap_or_default()));
    let more = Memo::new(move |_| {
        plan.with(|p| {
            p.as_ref()
                .map_or(0, |p| p.result.gpus.len().saturating_sub(MINI_GPUS))
        })
    });
    let body = move || {
        plan.with(|plan| match plan {
            Err(e) => view! {
                <p class="error" role="alert" data-testid="summary-error">{words::error(e)}</p>
            }
            .into_any(),
            Ok(p) => {
                let r = &p.result;
                let unplaced = r.unplaced.len();
                let unplaced_class = if unplaced > 0 { "bad" } else { "good" };
                let limit = r.gpu_count.map(|n| format!(" of {n}")).unwrap_or_default();
                view! {
                    <p class="summary-line" data-testid="summary-line">
                        <span><strong data-testid="summary-gpus">{r.gpus_used}</strong>{format!(" GPU{}{limit} used", if r.gpus_used == 1 { "" } else { "s" })}</span>
                        <span title="No packing of these asks with these mechanisms uses fewer GPUs.">"lower bound "<strong>{r.lower_bound}</strong></span>
                        <span title="What the asks asked for, as a share of the GPUs in use.">"utilisation "<strong>{share_percent(r.utilisation)}</strong></span>
                        <span class=unplaced_class data-testid="summary-unplaced">
                            <strong>{unplaced}</strong>" unplaced"
                        </span>
                    </p>
                }
                .into_any()
            }
        })
    };
    view! {
        <section class="card summary" aria-label="Summary of the plan" aria-live="polite" data-testid="summary">
            {body}
            // Outside the body, which is redrawn with each plan: the map keeps its tiles.
            {move || planned.get().then(|| view! { <MiniMap tiles more /> })}
            {move || {
                let n = left_out();
                (n > 0).then(|| view! {
                    <p class="warn" data-testid="summary-left-out">{format!("{n} ask{} with errors left out: see the marked rows", if n == 1 { "" } else { "s" })}</p>
                })
            }}
            {move || {
                let disabled = ui.detected_mig.get().disabled_gpus;
                let uses_mig = plan.with(|p| p.as_ref().is_ok_and(|p| p.result.gpus.iter().any(|g| g.mechanism() == Mechanism::Mig)));
                (disabled > 0 && uses_mig).then(|| view! {
                    <p class="warn" data-testid="summary-mig-reset">{format!(
                        "This plan uses MIG, which is disabled on {disabled} of your GPUs: enable it first (each GPU idle, then reset).")}</p>
                })
            }}
            <p class="summary-links"><a href="#plan-h">"Plan"</a>" · "<a href="#diagram-h">"Diagram"</a></p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::AppState;

    #[test]
    fn tiles_say_how_full_each_gpu_is() {
        let state = AppState::new("ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice");
        let plan = state.planned.plan.get_untracked().unwrap();
        let t = tiles(&plan.result);
        assert_eq!(t, [(Mechanism::Timeslice, 90), (Mechanism::Timeslice, 30)]);
    }
}
