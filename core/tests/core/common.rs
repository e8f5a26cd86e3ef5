//! The one set of helpers of the core's tests: files of the repository (the fixtures under
//! `tests/fixtures/`), asks from specs, caps, the one GPU of a capture, and the exports read back
//! (YAML streams as JSON values, comments with wrapped lines joined).

use gpu_share_core::internals::discover::{detect, DiscoveredGpu};
use gpu_share_core::internals::export::{export, ExportFormat, ExportOptions};
use gpu_share_core::internals::{ClusterGpuCaps, FractionalAsk, PackResult};

/// A file of the repository by its path from the repository's root; a missing one fails the test
/// with its path.
pub fn repo_file(path: &str) -> String {
    let path = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A fixture by its path under `tests/fixtures/` (each folder's README names the sources), such as
/// `nvidia-smi/qx-a100.xml`.
pub fn fixture(path: &str) -> String {
    repo_file(&format!("tests/fixtures/{path}"))
}

/// Asks from their specs (such as `a:0.5` or `m:3g.20gb`); each must parse.
pub fn asks(specs: &[&str]) -> Vec<FractionalAsk> {
    specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect()
}

/// Caps of `model` GPUs on which the mechanisms whose flag is set are allowed.
pub fn caps(mig: bool, mps: bool, timeslice: bool, model: &str) -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mig: mig,
        supports_mps: mps,
        supports_timeslicing: timeslice,
        gpu_model: Some(model.into()),
        ..Default::default()
    }
}

/// The one GPU that `text` describes; any other count fails the test.
pub fn only_gpu(text: &str) -> DiscoveredGpu {
    let inv = detect(text).unwrap();
    assert_eq!(inv.gpus.len(), 1, "{:?}", inv.gpus);
    inv.gpus.into_iter().next().unwrap()
}

/// Every YAML document of a stream, as JSON values.
#[cfg(feature = "serde")]
pub fn documents(text: &str) -> Vec<serde_json::Value> {
    use serde::Deserialize;
    serde_norway::Deserializer::from_str(text)
        .map(|d| serde_json::Value::deserialize(d).unwrap_or_else(|e| panic!("{e}\n{text}")))
        .filter(|v| !v.is_null())
        .collect()
}

/// Comment text with wrapped lines joined again, for phrase checks.
pub fn unwrapped(text: &str) -> String {
    text.replace("\n# ", " ")
        .replace("\n      # ", " ")
        .replace("\n          # ", " ")
}

/// `result` exported as `format`, with the default options.
pub fn run(result: &PackResult, format: ExportFormat) -> String {
    export(result, format, &ExportOptions::default()).unwrap()
}
