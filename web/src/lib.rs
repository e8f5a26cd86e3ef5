//! The gpu-share planner page: Leptos (client-side rendering) components over the pure core; this
//! crate only presents, stores and downloads. Every action turns the page's input into a request
//! of the core's use-case layer (`gpu_share_core::api`), makes one call, and renders the response.

pub mod app;
pub mod clipboard;
pub mod components;
pub mod download;
pub mod file_input;
pub mod format;
pub mod in_view;
pub mod png;
pub mod settle;
pub mod state;
pub mod storage;
pub mod url;
pub mod words;

/// Installs the panic hook and mounts the page on `<body>`.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
