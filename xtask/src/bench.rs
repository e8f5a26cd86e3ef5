//! `cargo xtask bench`: packing quality against known optima and packing speed (being written).

pub fn run(_args: &[String]) -> Result<(), String> {
    Err("the benchmark is not written yet".into())
}
