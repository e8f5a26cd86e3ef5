//! The gpu-share planner page: Leptos (client-side rendering) components over the pure core; this crate only presents, stores and downloads.

pub mod app;
pub mod clipboard;
pub mod colour;
pub mod components;
pub mod download;
pub mod file_input;
pub mod format;
pub mod layout;
pub mod state;
pub mod storage;
pub mod url;

/// Installs the panic hook and mounts the page on `<body>`.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
