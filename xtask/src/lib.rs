//! The task runner's building blocks, shared with the bench (`bench/`): running commands at the
//! workspace root, installing the tools a command needs, and the page's split WebAssembly.

pub mod setup;
pub mod shell;
pub mod split;
