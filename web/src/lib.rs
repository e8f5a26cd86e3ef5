//! The gpu-share planner page: Leptos components over the pure core.
pub fn start() {}
