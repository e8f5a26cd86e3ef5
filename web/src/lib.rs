//! The gpu-share planner page: Leptos (client-side rendering) components over the pure core; this
//! crate only presents, stores and downloads. Every action turns the page's input into a request
//! of the core's use-case layer (`gpu_share_core::api`), makes one call, and renders the response.

// Native builds render the shell (`shell`) with Leptos's `ssr`, whose nested view types need it.
#![recursion_limit = "256"]

pub mod app;
pub mod clipboard;
pub mod components;
pub mod download;
pub mod file_input;
pub mod format;
pub mod in_view;
pub mod lazy;
pub mod png;
pub mod settle;
#[cfg(not(target_arch = "wasm32"))]
pub mod shell;
pub mod state;
pub mod storage;
pub mod url;
pub mod words;

/// Installs the panic hook and mounts the page on `<body>` in place of the static shell
/// `index.html` shows while the WebAssembly loads (`shell`; `boot.js` starts the app once the
/// shell has been painted). Once the panels built after the first plan are in
/// (`settle::later`), `<html>` gets `data-ready`: the page answers input from then on.
pub fn start() {
    console_error_panic_hook::set_once();
    let document = leptos::prelude::document();
    // The shell shown (the page's, or the embed's in its place) and the embed's template.
    for id in ["shell", "shell-embed"] {
        if let Some(part) = document.get_element_by_id(id) {
            part.remove();
        }
    }
    leptos::mount::mount_to_body(app::App);
    // Queued after `settle::later`'s tasks, so those panels have been asked for; the ones loaded
    // from WebAssembly of their own (`lazy`) may come later still.
    leptos::prelude::set_timeout(
        move || {
            lazy::when_built(move || {
                if let Some(html) = document.document_element() {
                    let _ = html.set_attribute("data-ready", "");
                }
            });
        },
        std::time::Duration::ZERO,
    );
}
