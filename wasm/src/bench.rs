//! Exports used only by `cargo xtask bench` to time the packer through the npm package (filled in by the bench work).
