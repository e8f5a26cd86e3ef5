//! Whether an element is on screen (or about to be): panels whose content is costly to make for
//! a large scenario (the export's text) make it only while someone can see it, and catch up when
//! scrolled to. Outside a browser (the page's native tests) everything is in view.

use leptos::html::Section;
use leptos::prelude::*;

/// How far outside the viewport an element already counts as in view: it is filled in just before
/// it is scrolled to, not as it appears.
#[cfg(target_arch = "wasm32")]
const MARGIN: &str = "50% 0px";

/// A signal that is true while the `node` section is within half a viewport of the screen. Its first
/// value is false: the browser says whether the element is in view once it is laid out.
pub fn in_view(node: NodeRef<Section>) -> Signal<bool> {
    #[cfg(target_arch = "wasm32")]
    {
        browser::watch(node)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = node;
        Signal::derive(|| true)
    }
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::MARGIN;
    use leptos::html::Section;
    use leptos::prelude::*;
    use wasm_bindgen::prelude::*;
    use web_sys::{IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};

    pub fn watch(node: NodeRef<Section>) -> Signal<bool> {
        let seen = RwSignal::new(false);
        Effect::new(move |_| {
            let Some(element) = node.get() else { return };
            let on_change = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
                // The last entry is the element's latest state.
                if let Some(entry) = entries.iter().last() {
                    seen.set(
                        entry
                            .unchecked_into::<IntersectionObserverEntry>()
                            .is_intersecting(),
                    );
                }
            });
            let init = IntersectionObserverInit::new();
            init.set_root_margin(MARGIN);
            match IntersectionObserver::new_with_options(on_change.as_ref().unchecked_ref(), &init)
            {
                Ok(observer) => observer.observe(&element),
                // No observer (a very old browser): always fill the panel in.
                Err(_) => seen.set(true),
            }
            // The panel lives as long as the page, and so does the observer's callback.
            on_change.forget();
        });
        seen.into()
    }
}
