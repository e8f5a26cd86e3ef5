//! The page: builds the scenario's state from the URL, keeps the URL in step, and lays out the
//! components (the ledger component loads and keeps the stored ledger itself).

use leptos::prelude::*;

use crate::components::{
    asks::AsksTable, caps::CapsForm, diagram::Diagram, plan::PlanTable, share::ShareBar,
    summary::Summary,
};
use crate::state::AppState;
use crate::{lazy, settle, url};

#[component]
pub fn App() -> impl IntoView {
    let query = url::current_query();
    let embed = url::is_embed(&query);
    let state = AppState::new(&query);
    state.provide();
    let AppState {
        asks,
        link,
        planned,
        ..
    } = state;
    // The first plan is made in a task of its own, before the asks and the plan's first drawing
    // read it, each in a task of its own too (`Soon`, `FirstPlan`): queued in that order.
    settle::in_own_task(move || planned.plan.with_untracked(|_| ()));

    // The address bar follows the scenario (after the first edit, so a link that failed to
    // parse stays visible until the user changes something), as the plan does: once edits
    // settle, and for a large scenario once they pause (`settle::when_idle`), when its link is
    // also written out — a thousand asks' link takes longer than their plan.
    let address = settle::Idle::new();
    let written = StoredValue::new(link.scenario.with_untracked(|s| url::query_for(s, embed)));
    Effect::new(move |first: Option<()>| {
        planned.settled.track();
        if first.is_none() {
            return;
        }
        let asks = asks.entries.with_untracked(Vec::len);
        settle::when_idle(address, asks, move || {
            let q = link.scenario.with_untracked(|s| url::query_for(s, embed));
            if written.with_value(|w| *w != q) {
                url::replace_query(&q);
                written.set_value(q);
            }
        });
    });

    if embed {
        let full = Memo::new(move |_| url::link(&url::query_for(&link.scenario.get(), false)));
        view! { <Embed planner=full.into() /> }.into_any()
    } else {
        view! {
            <Top />
            <main class="full">
                <Workspace />
                <Later>{lazy::panel("GPUs as they are", lazy::fit_box())}</Later>
                <Later>{lazy::panel("Export", lazy::export_panel())}</Later>
                <Later>{lazy::panel("Accounting", lazy::ledger())}</Later>
                <Later>{lazy::panel("Replay a cluster's workload", lazy::replay_box())}</Later>
            </main>
        }
        .into_any()
    }
}

/// The compact view for docs (`&embed`): a heading with a link to the full planner (`planner`),
/// the summary, the diagram, and the plan per ask folded.
#[component]
pub fn Embed(planner: Signal<String>) -> impl IntoView {
    view! {
        <main class="embed">
            <header class="embed-head">
                <h1>"GPU sharing plan"</h1>
                <a href=move || planner.get() target="_blank" rel="noopener">"Open in the gpu-share planner"</a>
            </header>
            <FirstPlan>
                <Summary />
                <Diagram />
                <details class="embed-plan">
                    <summary>"Plan per ask"</summary>
                    <PlanTable />
                </details>
            </FirstPlan>
        </main>
    }
}

/// The page's title and what it does.
#[component]
pub fn Top() -> impl IntoView {
    view! {
        <header class="top">
            <h1>"gpu-share planner"</h1>
            <p>"Which GPU sharing mechanism serves each ask, how the asks pack onto GPUs, and what they cost. Everything runs in this page; nothing is sent anywhere."</p>
        </header>
    }
}

/// The asks and the cluster beside the plan: what a first look at the page shows. The asks,
/// summary and diagram are built first, in tasks of their own; the panels after them in the next
/// tasks, a task each, each at the end of its column, so nothing above them moves when they come.
#[component]
pub fn Workspace() -> impl IntoView {
    view! {
        <div class="workspace">
            <div class="inputs">
                <Soon>
                    <AsksTable />
                </Soon>
                <Later>{lazy::panel("Size from a model", lazy::size_box())}</Later>
                <Later>
                    <CapsForm />
                </Later>
                <Later>{lazy::panel("Fill from your GPUs", lazy::detect_box())}</Later>
                <Later>
                    <ShareBar />
                </Later>
            </div>
            <div class="answer">
                <FirstPlan>
                    <Summary />
                    <Diagram />
                </FirstPlan>
                <Later>
                    <PlanTable />
                </Later>
            </div>
        </div>
    }
}

/// The first plan, built in a task after the rest of the first screen (which is built hidden
/// under the static shell, `web/style.css`), taking the shell's place as it is drawn; then the
/// panels that wait for it (`Later`) are built. One task for all of it held the main thread
/// for one long task, much of it V8 compiling WebAssembly on first calls (BENCHMARKS.md, first
/// load). Outside a browser it is built at once.
#[component]
fn FirstPlan(children: ChildrenFn) -> impl IntoView {
    let shown = settle::soon();
    Effect::new(move |_| {
        if shown.get() {
            crate::remove_shell();
            settle::first_plan_drawn();
        }
    });
    view! { <Show when=move || shown.get()>{children()}</Show> }
}

/// A part of the first screen built in a task of its own (`settle::soon`), hidden under the
/// shell until the first plan is drawn.
#[component]
fn Soon(children: ChildrenFn) -> impl IntoView {
    let shown = settle::soon();
    view! { <Show when=move || shown.get()>{children()}</Show> }
}

/// Panels built in a task of their own after the first plan is drawn (`settle::later`):
/// building the whole page at once held the main thread for one long task (BENCHMARKS.md).
#[component]
fn Later(children: ChildrenFn) -> impl IntoView {
    let shown = settle::later();
    view! { <Show when=move || shown.get()>{children()}</Show> }
}
