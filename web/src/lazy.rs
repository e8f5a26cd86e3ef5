//! The panels the first plan does not need — sizing, discovery, fit, export, the ledger and the
//! replay — each built by an async function. In the page's build (feature `split`, which
//! `index.html` asks Trunk for) each function is a split point: `cargo xtask dist` cuts the code
//! only it reaches out into WebAssembly of its own (`xtask/src/split.rs`), fetched when the panel
//! is first built, after the first plan is drawn (`settle::later`), so the first load's
//! WebAssembly holds what the first plan needs (BENCHMARKS.md, first load). Without the feature
//! (the tests, native builds) they are plain async functions.

use std::cell::{Cell, RefCell};
use std::future::Future;

use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;

use crate::components::{
    detect::DetectBox, export::ExportPanel, fit::FitBox, ledger::Ledger, replay::ReplayBox,
    size::SizeBox,
};

/// A panel built by `$name`, split out of the first load in the page's build.
macro_rules! panel {
    ($name:ident, $panel:ident) => {
        #[cfg(feature = "split")]
        #[leptos::wasm_split::wasm_split($name, wasm_split_path = ::leptos::wasm_split, fallible)]
        pub fn $name() -> Result<AnyView, SplitLoaderError> {
            Ok(view! { <$panel /> }.into_any())
        }

        #[cfg(not(feature = "split"))]
        pub async fn $name() -> Result<AnyView, SplitLoaderError> {
            Ok(view! { <$panel /> }.into_any())
        }
    };
}

panel!(size_box, SizeBox);
panel!(detect_box, DetectBox);
panel!(fit_box, FitBox);
panel!(export_panel, ExportPanel);
panel!(ledger, Ledger);
panel!(replay_box, ReplayBox);

/// The panel `load` builds, once its code is there; if that code cannot be fetched (the network
/// went away), a card saying so in its place, named by `title`, and the rest of the page goes on.
pub fn panel(
    title: &'static str,
    load: impl Future<Output = Result<AnyView, SplitLoaderError>> + 'static,
) -> impl IntoView {
    PENDING.with(|p| p.set(p.get() + 1));
    let load = send_wrapper::SendWrapper::new(load);
    Suspend::new(async move {
        let view = load.await.unwrap_or_else(|_| {
            view! {
                <section class="card" aria-label=title>
                    <h2>{title}</h2>
                    <p class="error" role="alert">
                        "This panel could not be loaded: its code did not arrive. Reload the page to try again."
                    </p>
                </section>
            }
            .into_any()
        });
        PENDING.with(|p| p.set(p.get() - 1));
        if PENDING.with(Cell::get) == 0 {
            if let Some(ready) = ON_BUILT.with(|f| f.borrow_mut().take()) {
                ready();
            }
        }
        view
    })
}

thread_local! {
    /// Panels asked for and not built yet.
    static PENDING: Cell<usize> = const { Cell::new(0) };
    /// What runs once none is pending (`when_built`).
    static ON_BUILT: RefCell<Option<Box<dyn FnOnce()>>> = const { RefCell::new(None) };
}

/// Runs `f` once every panel asked for so far is built: now if none is pending.
pub fn when_built(f: impl FnOnce() + 'static) {
    if PENDING.with(Cell::get) == 0 {
        f();
    } else {
        ON_BUILT.with(|slot| *slot.borrow_mut() = Some(Box::new(f)));
    }
}
