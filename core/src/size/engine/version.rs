//! The engines and versions this model knows: vLLM 0.19.0 and 0.19.1 (the same memory code:
//! 0.19.1 changed none of `gpu_worker.py`, `gpu_model_runner.py` or `kv_cache_utils.py`'s
//! sizing, per the facts document §14). Another engine or version is an error naming these.

use crate::error::{Error, ErrorKind, Result};

/// (engine, versions) known.
pub const KNOWN: [(&str, &[&str]); 1] = [("vllm", &["0.19.0", "0.19.1"])];

/// Checks `engine` `version` (case-insensitive engine name; a leading `v` allowed).
///
/// # Errors
/// `UnknownModel` naming the field and every engine and version known.
pub fn check(engine: &str, version: &str) -> Result<()> {
    let known = || {
        KNOWN
            .iter()
            .map(|(e, v)| format!("{e} {}", v.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let Some((_, versions)) = KNOWN
        .iter()
        .find(|(e, _)| e.eq_ignore_ascii_case(engine.trim()))
    else {
        return Err(Error::new(
            ErrorKind::UnknownModel,
            format!(
                "gpu-share does not model the engine {engine:?}; known: {}",
                known()
            ),
        )
        .in_field("engine"));
    };
    let v = version.trim().trim_start_matches('v');
    if versions.contains(&v) {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::UnknownModel,
            format!(
                "gpu-share models {engine} only at the versions it was calibrated for, not {version:?}; known: {}",
                known()
            ),
        )
        .in_field("version"))
    }
}
