//! When the page re-plans after an edit. Planning and drawing happen on the main thread, so a
//! keystroke that arrives while a long plan is drawn waits for it. A scenario of at most
//! [`SMALL`] asks, and any whose last plan was drawn within [`QUICK_MS`], re-plans at once, as the
//! edit's own effects run; otherwise the page waits until the edits pause for [`PAUSE_MS`], so
//! typing is not held up by plans of text still being typed. Work the user need not wait for
//! (the address bar) waits longer still in a large scenario: [`when_idle`].

use leptos::prelude::*;

/// A plan whose script (the core's plan and the page's update of its DOM, not the browser's
/// style, layout and paint) took at most this (ms) is re-made at once after each edit.
pub const QUICK_MS: f64 = 50.0;

/// Otherwise the page waits for this long without an edit (ms) before it plans.
pub const PAUSE_MS: u64 = 300;

/// Work that need not share the plan's frame waits until the edits pause for this long (ms).
pub const IDLE_MS: u64 = 1_000;

/// A scenario of at most this many asks is always re-planned at once: its plan is quick, and a
/// busy machine's one slow plan must not make the page wait after every edit.
pub const SMALL: usize = crate::components::pager::PAGE_ROWS;

/// A signal that changes once `edits` (a closure reading the signals the plan depends on, and
/// returning how many asks the scenario has) has changed and the edits have settled. Reading it tracks the settled edits: outside a browser
/// (the page's native tests) it tracks `edits` itself, so a plan follows each edit at once.
pub fn after_edits(edits: impl Fn() -> usize + Send + Sync + 'static) -> Signal<u64> {
    #[cfg(target_arch = "wasm32")]
    {
        browser::after_edits(edits)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        Signal::derive(move || {
            edits();
            0
        })
    }
}

/// Runs `work` for a scenario of `asks` asks: at once while it is small, otherwise once the edits
/// have paused for [`IDLE_MS`], in place of the work still waiting from an earlier call of the
/// same `slot`. For what the user need not wait for: the address bar, whose `replaceState` of a
/// long link costs Chromium more than the plan of a thousand asks. Outside a browser, at once.
pub fn when_idle(slot: Idle, asks: usize, work: impl FnOnce() + 'static) {
    #[cfg(target_arch = "wasm32")]
    {
        if let Some(handle) = slot.pending.get_value() {
            handle.clear();
        }
        if asks <= SMALL {
            slot.pending.set_value(None);
            work();
        } else {
            let wait = std::time::Duration::from_millis(IDLE_MS);
            slot.pending
                .set_value(set_timeout_with_handle(work, wait).ok());
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (slot, asks);
        work();
    }
}

/// A signal that turns true in a task after the current one, for parts of the page its first
/// plan need not wait for: building the whole page in one task held the main thread for one long
/// task (BENCHMARKS.md, first load). Outside a browser it is true at once.
pub fn later() -> Signal<bool> {
    #[cfg(target_arch = "wasm32")]
    {
        let shown = RwSignal::new(false);
        set_timeout(move || shown.set(true), std::time::Duration::ZERO);
        shown.into()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        Signal::derive(|| true)
    }
}

/// The work [`when_idle`] still has waiting for one purpose (a later call replaces it).
#[derive(Clone, Copy)]
pub struct Idle {
    #[cfg(target_arch = "wasm32")]
    pending: StoredValue<Option<TimeoutHandle>, LocalStorage>,
}

impl Idle {
    pub fn new() -> Idle {
        Idle {
            #[cfg(target_arch = "wasm32")]
            pending: StoredValue::new_local(None),
        }
    }
}

impl Default for Idle {
    fn default() -> Idle {
        Idle::new()
    }
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::{PAUSE_MS, QUICK_MS, SMALL};
    use leptos::prelude::*;
    use std::time::Duration;

    pub fn after_edits(edits: impl Fn() -> usize + Send + Sync + 'static) -> Signal<u64> {
        let settled = RwSignal::new(0_u64);
        let pending: StoredValue<Option<TimeoutHandle>, LocalStorage> =
            StoredValue::new_local(None);
        // How long the last plan took to make and draw: its task's script, not style, layout or
        // paint, which the browser does for every edit whether the page re-plans or not.
        let last_ms = StoredValue::new(0.0_f64);
        Effect::new(move |first: Option<()>| {
            let asks = edits();
            // The first run is the page's first plan, made when it was first read.
            if first.is_none() {
                return;
            }
            if let Some(handle) = pending.get_value() {
                handle.clear();
            }
            let tick = move || {
                pending.set_value(None);
                let start = js_sys::Date::now();
                settled.update(|n| *n += 1);
                // The plan is made and drawn by effects of this task. An animation frame's
                // callbacks run after them and before the frame's style, layout and paint; a
                // timeout ran after the paint too, which at 1,000 asks (4x CPU throttle) took
                // longer than the plan, so the page always waited for a pause.
                request_animation_frame(move || last_ms.set_value(js_sys::Date::now() - start));
            };
            if asks <= SMALL || last_ms.get_value() <= QUICK_MS {
                tick();
            } else {
                let wait = Duration::from_millis(PAUSE_MS);
                pending.set_value(set_timeout_with_handle(tick, wait).ok());
            }
        });
        settled.into()
    }
}
