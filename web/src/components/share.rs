//! Share and embed: the link that reproduces this plan, a copy button, and the iframe snippet for docs pages.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::clipboard::copy;
use crate::settle;
use crate::state::{Asks, Link, Planned};
use crate::url;

/// The iframe snippet for a link to the embed view.
pub fn iframe_snippet(embed_link: &str) -> String {
    let src = embed_link.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        r#"<iframe src="{src}" title="gpu-share plan" width="100%" height="520" loading="lazy"></iframe>"#
    )
}

#[component]
pub fn ShareBar() -> impl IntoView {
    let asks = expect_context::<Asks>();
    let link = expect_context::<Link>();
    let planned = expect_context::<Planned>();
    // As the address bar, the links follow the scenario once the edits settle, and for a large
    // scenario once they pause (`settle::when_idle`): writing them out is not the plan's work.
    let link_of = move |embed: bool| {
        link.scenario
            .with_untracked(|s| url::link(&url::query_for(s, embed)))
    };
    let link = RwSignal::new(String::new());
    let embed_link = RwSignal::new(String::new());
    let idle = settle::Idle::new();
    Effect::new(move |_| {
        planned.settled.track();
        let asks = asks.entries.with_untracked(Vec::len);
        settle::when_idle(idle, asks, move || {
            link.set(link_of(false));
            embed_link.set(link_of(true));
        });
    });
    let status = RwSignal::new(String::new());
    let on_copy = move |_| {
        let text = link.get_untracked();
        leptos::task::spawn_local(async move {
            let done = copy(text).await;
            status.set(if done {
                "Link copied.".into()
            } else {
                "Copying is blocked here: select the link and copy it.".into()
            });
        });
    };
    let select_all = |ev: leptos::ev::FocusEvent| {
        if let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            input.select();
        }
    };
    view! {
        <section class="card share" aria-labelledby="share-h">
            <h2 id="share-h">"Share & embed"</h2>
            <div class="share-row">
                <label for="share-link" class="sr-only">"Link to this plan"</label>
                <input id="share-link" type="text" readonly autocomplete="off" data-testid="share-link" prop:value=move || link.get() on:focus=select_all />
                <button type="button" data-testid="copy-link" on:click=on_copy>"Copy link"</button>
            </div>
            <p class="status" role="status">{move || status.get()}</p>
            <details>
                <summary>"Embed in a docs page"</summary>
                <label for="embed-snippet">"iframe snippet (compact view: plan and diagram)"</label>
                <textarea id="embed-snippet" rows="3" readonly autocomplete="off" spellcheck="false" prop:value=move || iframe_snippet(&embed_link.get())></textarea>
                <p><a href=move || embed_link.get() target="_blank" rel="noopener">"Open the embed view"</a></p>
            </details>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::iframe_snippet;

    #[test]
    fn the_snippet_escapes_the_link() {
        let s = iframe_snippet("https://h/p/?ask=a:0.5&embed");
        assert!(
            s.contains(r#"src="https://h/p/?ask=a:0.5&amp;embed""#),
            "{s}"
        );
        assert!(!iframe_snippet("x\"><script>").contains("\"><script>"));
    }
}
