//! The page: builds the state from the URL and the stored ledger, keeps the URL in step, and lays out the components.

use leptos::prelude::*;

use crate::components::{
    asks::AsksTable, caps::CapsForm, detect::DetectBox, diagram::Diagram, export::ExportPanel,
    ledger::Ledger, plan::PlanTable, share::ShareBar,
};
use crate::state::{now_unix, AppState};
use crate::{storage, url};

#[component]
pub fn App() -> impl IntoView {
    let query = url::current_query();
    let embed = url::is_embed(&query);
    let ledger = if embed {
        Ok(Vec::new())
    } else {
        storage::load()
    };
    let state = AppState::new(&query, embed, ledger, now_unix());
    provide_context(state);

    // The address bar follows the scenario (after the first edit, so a link that failed to
    // parse stays visible until the user changes something).
    Effect::new(move |previous: Option<String>| {
        let q = url::query_for(&state.scenario.get(), embed);
        if previous.as_ref().is_some_and(|p| *p != q) {
            url::replace_query(&q);
        }
        q
    });
    // Open uses count up to now: refresh the clock twice a minute.
    if !embed {
        set_interval(
            move || state.now.set(now_unix()),
            std::time::Duration::from_secs(30),
        );
    }

    if embed {
        let full = Memo::new(move |_| url::link(&url::query_for(&state.scenario.get(), false)));
        view! {
            <main class="embed">
                <PlanTable />
                <Diagram />
                <p class="hint"><a href=move || full.get() target="_blank" rel="noopener">"Open in the gpu-share planner"</a></p>
            </main>
        }
        .into_any()
    } else {
        view! {
            <header class="top">
                <h1>"gpu-share planner"</h1>
                <p>"Which GPU sharing mechanism serves each ask, how the asks pack onto GPUs, and what they cost. Everything runs in this page; nothing is sent anywhere."</p>
            </header>
            <main class="full">
                <div class="inputs">
                    <AsksTable />
                    <div class="side">
                        <CapsForm />
                        <DetectBox />
                        <ShareBar />
                    </div>
                </div>
                <PlanTable />
                <Diagram />
                <ExportPanel />
                <Ledger />
            </main>
        }
        .into_any()
    }
}
