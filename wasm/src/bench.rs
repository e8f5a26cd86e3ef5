//! Exports used only by `cargo xtask bench` to time the packer through the npm package, and by
//! the package's tests.
//!
//! Not part of the package's documented API: they take raw integer sizes so the bench can feed the
//! WebAssembly build exactly the inputs it times natively.

use gpu_share_core::api;
use wasm_bindgen::prelude::*;

/// First-fit-decreasing (the packer's O(n log n) tree) of `sizes` into bins of `capacity`; the bins used.
#[wasm_bindgen(js_name = benchFfd)]
pub fn bench_ffd(sizes: &[u32], capacity: u32) -> Result<u32, JsValue> {
    let sizes: Vec<u64> = sizes.iter().map(|&s| u64::from(s)).collect();
    api::first_fit_decreasing_bins(&sizes, u64::from(capacity))
        .map(|bins| bins as u32)
        .map_err(|e| crate::error::to_js(&e))
}

/// The JSON `text` as the package returns a result (`transfer.rs` and `js/transfer.js`), so the
/// tests can hold it to `JSON.parse` of [`test_camel_json`]'s text.
#[wasm_bindgen(js_name = testOutput)]
pub fn test_output(text: &str) -> Result<JsValue, JsValue> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    crate::output(&value).map_err(|e| crate::error::to_js(&e))
}

/// The JSON `text` with its keys renamed to camelCase, as JSON text.
#[wasm_bindgen(js_name = testCamelJson)]
pub fn test_camel_json(text: &str) -> Result<String, JsValue> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(crate::case::to_camel(value).to_string())
}
