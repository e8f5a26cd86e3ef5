//! The packing diagram: the SVG the CLI's `pack --svg` and npm's `renderSvg` write, drawn by the
//! same renderer (`gpu_share_svg`) byte for byte, a page of lanes at a time, with the numbers
//! around it, details of the block tapped or focused, and downloads as SVG and PNG (the whole
//! document, as the CLI writes it).

use gpu_share_svg::SvgOptions;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::components::pager::{window, Pager};
use crate::download::download;
use crate::format::share_percent;
use crate::state::Planned;

/// The most lanes the downloads draw, as the CLI's `pack --svg`; the plan lists every ask's GPUs.
pub const MAX_LANES: usize = gpu_share_svg::DEFAULT_MAX_GPUS;

/// The options the page's downloads draw with: the CLI's and npm's defaults, so the page's SVG is
/// theirs byte for byte (the page has no ids of its own that `gpu-share-title` could clash with).
pub fn svg_options() -> SvgOptions {
    SvgOptions::default()
}

/// The options the page shows lanes `window` with: the downloads' options, a page of lanes at a
/// time (the whole document when the packing fits on one page).
pub fn shown_options(window: std::ops::Range<usize>) -> SvgOptions {
    SvgOptions {
        first_gpu: window.start,
        max_gpus: window.len().max(1),
        ..svg_options()
    }
}

/// The downloads' SVG of the plan shown (empty without a plan).
fn whole_svg(planned: Planned) -> String {
    planned.plan.with_untracked(|p| {
        p.as_ref()
            .map(|p| gpu_share_svg::render(&p.result, &svg_options()))
            .unwrap_or_default()
    })
}

/// The `<title>` of the diagram element an event hit (a block, free room, an unplaced ask), if any.
fn details_of(ev: &web_sys::Event) -> Option<String> {
    let target = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
    let hit = target.closest(".block, .free, [data-ask]").ok()??;
    let title = hit.query_selector("title").ok()??;
    title.text_content()
}

#[component]
pub fn Diagram() -> impl IntoView {
    let planned = expect_context::<Planned>();
    let page = RwSignal::new(0);
    let total = Signal::derive(move || {
        planned
            .plan
            .with(|p| p.as_ref().map_or(0, |p| p.result.gpus.len()))
    });
    let svg = Memo::new(move |_| {
        let shown = shown_options(window(page.get(), total.get()));
        planned.plan.with(|p| {
            p.as_ref()
                .map(|p| gpu_share_svg::render(&p.result, &shown))
                .unwrap_or_default()
        })
    });
    let selected: RwSignal<Option<String>> = RwSignal::new(None);
    let pick = move |ev: &web_sys::Event| {
        if let Some(text) = details_of(ev) {
            selected.set(Some(text));
        }
    };
    let status: RwSignal<Option<String>> = RwSignal::new(None);
    let save_svg = move |_| {
        let result = download(
            "gpu-share-packing.svg",
            "image/svg+xml",
            &whole_svg(planned),
        );
        status.set(result.err());
    };
    let save_png = move |_| {
        crate::png::download_png("gpu-share-packing.png", &whole_svg(planned), status);
    };
    let stat = move |f: fn(&gpu_share_core::api::PackResult) -> String| {
        move || {
            planned.plan.with(|p| {
                p.as_ref()
                    .map(|p| f(&p.result))
                    .unwrap_or_else(|_| "–".into())
            })
        }
    };
    let unplaced = move || {
        planned
            .plan
            .with(|p| p.as_ref().ok().map(|p| p.result.unplaced.len()))
    };
    let optimized = Memo::new(move |_| {
        planned
            .plan
            .with(|p| p.as_ref().ok().and_then(|p| p.optimize))
    });
    let hidden = move || total.get().saturating_sub(MAX_LANES);
    view! {
        <section class="card diagram" aria-labelledby="diagram-h" data-testid="diagram">
            <h2 id="diagram-h">"Packing"</h2>
            <p class="stats">
                <span>"GPUs used: "<strong data-testid="gpus-used">{stat(|p| p.gpus_used.to_string())}</strong></span>
                <span title="No packing of these asks with these mechanisms uses fewer GPUs.">"lower bound: "<strong data-testid="lower-bound">{stat(|p| p.lower_bound.to_string())}</strong></span>
                <span>"limit: "<strong>{stat(|p| p.gpu_count.map_or("unlimited".into(), |n| n.to_string()))}</strong></span>
                <span title="What the asks asked for, as a share of the GPUs in use.">"utilisation: "<strong data-testid="utilisation">{stat(|p| share_percent(p.utilisation))}</strong></span>
                <span>"model: "<strong>{stat(|p| p.gpu_model.clone().unwrap_or_else(|| "not specified".into()))}</strong></span>
                {move || optimized.get().map(|report| view! {
                    <span data-testid="optimized">"first-fit-decreasing: "<strong>{report.ffd_gpus.to_string()}</strong>
                        {if report.proven_optimal { " · proven optimal" } else { " · not proven optimal" }}</span>
                })}
            </p>
            <p class="hint">"The lower bound: no packing of these asks uses fewer GPUs. Utilisation: what the asks asked for, as a share of the GPUs in use."</p>
            // The renderer escapes every name: the string is markup the core's data cannot inject into.
            <div class="diagram-scroll" data-testid="packing-diagram" tabindex="0" role="region" aria-label="Packing diagram, scrollable"
                on:click=move |ev| pick(&ev) on:focusin=move |ev| pick(&ev) inner_html=move || svg.get()></div>
            <p class="details" role="status" data-testid="block-details">
                {move || selected.get().unwrap_or_else(|| "Tap or focus a block for its details; the plan lists every ask in words.".into())}
            </p>
            <Pager total page what="GPUs" />
            {move || (hidden() > 0).then(|| view! {
                <p class="warn" role="status">{format!("The downloads draw the first {MAX_LANES} GPUs, as the CLI's pack --svg does; {} more are in use and listed in the plan.", hidden())}</p>
            })}
            <p data-testid="unplaced" data-count=move || unplaced().unwrap_or(0).to_string()>
                {move || match unplaced() {
                    None => view! { <span class="hint">"No plan: see the summary."</span> }.into_any(),
                    Some(0) => view! { <span class="ok">"Every ask is placed."</span> }.into_any(),
                    Some(n) => view! { <span class="error">{format!("Unplaced ({n}): each with its reason in the diagram and the plan.")}</span> }.into_any(),
                }}
            </p>
            <div class="buttons">
                <button type="button" data-testid="download-svg" on:click=save_svg disabled=move || planned.plan.with(Result::is_err)>"Download SVG"</button>
                <button type="button" data-testid="download-png" on:click=save_png disabled=move || planned.plan.with(Result::is_err)>"Download PNG"</button>
                {move || status.get().map(|s| view! { <span class="status">{s}</span> })}
            </div>
        </section>
    }
}
