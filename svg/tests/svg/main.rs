//! The renderer end to end, in one test binary: documents the real packer's results produce,
//! parsed by an independent XML parser (roxmltree) and checked by their structure.

mod common;

mod hostile;
mod properties;
mod render;
