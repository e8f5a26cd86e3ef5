//! When the page re-plans after an edit. Planning and drawing happen on the main thread, so a
//! keystroke that arrives while a long plan is drawn waits for it. A scenario of at most
//! [`SMALL`] asks, and any whose last edit was planned and drawn within [`QUICK_MS`], re-plans at
//! once, as the edit's own effects run; otherwise the page waits until the edits pause for
//! [`PAUSE_MS`], so typing is not held up by plans of text still being typed. The first edit after
//! asks were added or removed (a list loaded) re-plans at once and is timed: that plan also built
//! rows, and its time is not an edit's. Work the user need not wait for (the address bar) waits
//! longer still in a large scenario: [`when_idle`].

use leptos::prelude::*;

/// A plan whose script (the core's plan and the page's update of its DOM, to the last change it
/// made; not the browser's style, layout and paint) took at most this (ms) is re-made at once
/// after each edit: a task longer than 50 ms is what browsers call long (it delays input).
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

/// Runs `work` in a task of its own, after the tasks queued before it: the first screen is built
/// in several tasks (the plan, the asks, the first plan drawn), as one task for all of it held
/// the main thread long enough to delay input (BENCHMARKS.md, first load). Outside a browser, at
/// once.
pub fn in_own_task(work: impl FnOnce() + 'static) {
    #[cfg(target_arch = "wasm32")]
    set_timeout(work, std::time::Duration::ZERO);
    #[cfg(not(target_arch = "wasm32"))]
    work();
}

/// A signal that turns true in a task of its own ([`in_own_task`]), for a part of the first
/// screen. Outside a browser it is true at once.
pub fn soon() -> Signal<bool> {
    turns_true(in_own_task)
}

/// A signal that turns true in a task of its own once the first plan is drawn
/// ([`after_first_plan`]), for parts of the page its first plan need not wait for: building the
/// whole page in one task held the main thread for one long task (BENCHMARKS.md, first load).
/// Outside a browser it is true at once.
pub fn later() -> Signal<bool> {
    turns_true(after_first_plan)
}

/// A signal that turns true when `schedule` runs the work it is given.
fn turns_true(schedule: impl FnOnce(Box<dyn FnOnce()>)) -> Signal<bool> {
    let shown = RwSignal::new(false);
    schedule(Box::new(move || shown.set(true)));
    shown.into()
}

/// Work queued for a task of its own.
#[cfg(target_arch = "wasm32")]
type Task = Box<dyn FnOnce()>;

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// What waits for the first plan, in the order asked; `None` once it is drawn.
    static AFTER_FIRST_PLAN: std::cell::RefCell<Option<Vec<Task>>> =
        std::cell::RefCell::new(Some(Vec::new()));
}

/// Runs `work` in a task of its own once the first plan is drawn (at once if it has been), after
/// the work asked for before it. Outside a browser, at once.
pub fn after_first_plan(work: impl FnOnce() + 'static) {
    #[cfg(not(target_arch = "wasm32"))]
    work();
    #[cfg(target_arch = "wasm32")]
    {
        let work: Task = Box::new(work);
        let now = AFTER_FIRST_PLAN.with(|queue| match queue.borrow_mut().as_mut() {
            Some(waiting) => {
                waiting.push(work);
                None
            }
            None => Some(work),
        });
        if let Some(work) = now {
            in_own_task(work);
        }
    }
}

/// Says the first plan is drawn: what waits for it is queued, a task each, in order.
pub fn first_plan_drawn() {
    #[cfg(target_arch = "wasm32")]
    for work in AFTER_FIRST_PLAN
        .with(|queue| queue.borrow_mut().take())
        .unwrap_or_default()
    {
        in_own_task(work);
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
    use wasm_bindgen::prelude::*;

    pub fn after_edits(edits: impl Fn() -> usize + Send + Sync + 'static) -> Signal<u64> {
        let settled = RwSignal::new(0_u64);
        let pending: StoredValue<Option<TimeoutHandle>, LocalStorage> =
            StoredValue::new_local(None);
        // How long the last edit's plan took to make and draw: its task's script, not style,
        // layout or paint, which the browser does for every edit whether the page re-plans or
        // not. None until an edit that kept the number of asks has been planned: a plan that
        // added or removed asks (a list loaded) also built or dropped their rows, which says
        // nothing of what the next edit costs (a thousand asks' load took about twice an edit's
        // time), so the edit after it is planned at once and timed.
        let last_ms: StoredValue<Option<f64>> = StoredValue::new(None);
        let planned_asks = StoredValue::new(0_usize);
        let changed = dom_changes();
        Effect::new(move |first: Option<()>| {
            let asks = edits();
            // The first run is the page's first plan, made when it was first read.
            if first.is_none() {
                planned_asks.set_value(asks);
                return;
            }
            if let Some(handle) = pending.get_value() {
                handle.clear();
            }
            let tick = move || {
                pending.set_value(None);
                let start = js_sys::Date::now();
                let same_rows = planned_asks.get_value() == asks;
                planned_asks.set_value(asks);
                settled.update(|n| *n += 1);
                // The plan is made and drawn by effects of this task, which end at the last
                // change they make to the page. An animation frame's callbacks run after them
                // and before the frame's style, layout and paint, but only once a frame is due:
                // up to a frame later (plans of 24-35 ms at 1,000 asks, 4x CPU throttle, were timed
                // at 47-58 ms to their frame). A plan that changed nothing ended by then.
                request_animation_frame(move || {
                    let last_change = changed.get_value();
                    let end = if last_change >= start {
                        last_change
                    } else {
                        js_sys::Date::now()
                    };
                    last_ms.set_value(same_rows.then_some(end - start));
                });
            };
            if asks <= SMALL || last_ms.get_value().is_none_or(|ms| ms <= QUICK_MS) {
                tick();
            } else {
                let wait = Duration::from_millis(PAUSE_MS);
                pending.set_value(set_timeout_with_handle(tick, wait).ok());
            }
        });
        settled.into()
    }

    /// When the page's DOM last changed (`Date.now()`; 0 before any change, and always without a
    /// body or an observer). A MutationObserver's records are delivered in a microtask after the
    /// script that made them, so this is where that script's changes ended.
    fn dom_changes() -> StoredValue<f64> {
        let changed = StoredValue::new(0.0_f64);
        let on_change = Closure::<dyn Fn()>::new(move || changed.set_value(js_sys::Date::now()));
        let body = web_sys::window().and_then(|w| w.document()?.body());
        let observer = web_sys::MutationObserver::new(on_change.as_ref().unchecked_ref());
        if let (Some(body), Ok(observer)) = (body, observer) {
            let init = web_sys::MutationObserverInit::new();
            init.set_subtree(true);
            init.set_child_list(true);
            init.set_attributes(true);
            init.set_character_data(true);
            // Ignored if it fails: the plan is then timed to its frame.
            let _ = observer.observe_with_options(&body, &init);
        }
        // The page's state lives as long as the page, and so does the observer's callback.
        on_change.forget();
        changed
    }
}
