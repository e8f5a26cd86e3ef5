//! Helpers shared by the export tests: asks from specs, caps, YAML streams read back as JSON values.

use gpu_share_core::internals::export::{export, ExportFormat, ExportOptions};
use gpu_share_core::internals::{ClusterGpuCaps, FractionalAsk, PackResult};
use serde::Deserialize;
use serde_json::Value;

pub fn asks(specs: &[&str]) -> Vec<FractionalAsk> {
    specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect()
}

pub fn caps(mig: bool, mps: bool, timeslice: bool, model: &str) -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mig: mig,
        supports_mps: mps,
        supports_timeslicing: timeslice,
        gpu_model: Some(model.into()),
        ..Default::default()
    }
}

/// Every YAML document of a stream, as JSON values.
pub fn documents(text: &str) -> Vec<Value> {
    serde_norway::Deserializer::from_str(text)
        .map(|d| Value::deserialize(d).unwrap_or_else(|e| panic!("{e}\n{text}")))
        .filter(|v| !v.is_null())
        .collect()
}

/// Comment text with wrapped lines joined again, for phrase checks.
pub fn unwrapped(text: &str) -> String {
    text.replace("\n# ", " ")
        .replace("\n      # ", " ")
        .replace("\n          # ", " ")
}

pub fn run(result: &PackResult, format: ExportFormat) -> String {
    export(result, format, &ExportOptions::default()).unwrap()
}
