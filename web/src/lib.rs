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

/// Installs the panic hook and mounts the page on `<body>`, under the static shell `index.html`
/// shows while the WebAssembly loads (`shell`; `boot.js` starts the app once the shell has been
/// painted), which the first plan replaces (`app::FirstPlan`). Once the panels built after the
/// first plan are in (`settle::later`), `<html>` gets `data-ready`: the page answers input from
/// then on.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
    // Asked for after the panels that wait for the first plan (`settle::later`), so those have
    // been built or asked for; the ones loaded from WebAssembly of their own (`lazy`) may come
    // later still.
    #[cfg(target_arch = "wasm32")]
    settle::after_first_plan(|| {
        lazy::when_built(|| {
            if let Some(html) = leptos::prelude::document().document_element() {
                let _ = html.set_attribute("data-ready", "");
            }
        });
    });
}

/// Takes the static shell away (the page's or the embed's shown, and the embed's template): the
/// app under it is shown from then on (`web/style.css`). Outside a browser there is none.
pub fn remove_shell() {
    #[cfg(target_arch = "wasm32")]
    for id in ["shell", "shell-embed"] {
        if let Some(part) = leptos::prelude::document().get_element_by_id(id) {
            part.remove();
        }
    }
}
