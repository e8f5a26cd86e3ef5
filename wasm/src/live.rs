//! `fit` and `repartition`: MIG GPUs as they are (`nvidia-smi mig -lgi` text) in, one core call, the
//! answer out; errors name this package's arguments (`current`, `options.gpuModel`, `options.free[i]`).

use super::{asks_of, detect_inputs, input_or_default, js, output, JsResult};
use gpu_share_core::api::{self, Error, Hint, Input};
use wasm_bindgen::prelude::*;

/// `fit`'s options: `{gpuModel: "A100-SXM4-80GB"}`.
#[derive(serde::Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct FitOptionsJs {
    gpu_model: Option<String>,
}

/// What can still be created on MIG GPUs as they are (`nvidia-smi mig -lgi` output, one string or
/// an array, one per machine), what is stranded, and where `asks` go without moving an instance.
#[wasm_bindgen]
pub fn fit(current: JsValue, asks: JsValue, options: JsValue) -> JsResult {
    js((|| {
        let options: FitOptionsJs = input_or_default(options, "options")?;
        let asks = if asks.is_undefined() || asks.is_null() {
            Vec::new()
        } else {
            asks_of(asks)?
        };
        let request = api::FitRequest {
            inputs: detect_inputs(current).map_err(|e| rename_field(e, "inputs", "current"))?,
            gpu_model: options.gpu_model,
            asks,
        };
        output(&api::fit(&request).map_err(js_fields)?)
    })())
}

/// `repartition`'s options: `{gpuModel, free: [{gpu, gpuInstanceId, node}]}`.
#[derive(serde::Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct RepartitionOptionsJs {
    gpu_model: Option<String>,
    free: Vec<FreeJs>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FreeJs {
    #[serde(default)]
    node: Option<String>,
    gpu: u64,
    gpu_instance_id: u32,
}

/// The fewest GPU instances moved that let `asks` into the MIG layouts of `current` (`nvidia-smi
/// mig -lgi` output): the end state, the ordered steps and commands, what to drain.
#[wasm_bindgen]
pub fn repartition(current: JsValue, asks: JsValue, options: JsValue) -> JsResult {
    js((|| {
        let options: RepartitionOptionsJs = input_or_default(options, "options")?;
        let request = api::RepartitionRequest {
            inputs: detect_inputs(current).map_err(|e| rename_field(e, "inputs", "current"))?,
            gpu_model: options.gpu_model,
            free: options
                .free
                .into_iter()
                .map(|f| api::FreeInstance {
                    node: f.node,
                    gpu: f.gpu,
                    gpu_instance_id: f.gpu_instance_id,
                })
                .collect(),
            asks: asks_of(asks)?,
        };
        output(&api::repartition(&request).map_err(js_fields)?)
    })())
}

/// The core's fields as this package's arguments name them (`current`, `options.gpuModel`,
/// `options.free[0]`); the hint to give the model points at `options.gpuModel`.
fn js_fields(e: Error) -> Error {
    let give = matches!(
        e.hint,
        Some(Hint::Give {
            input: Input::GpuModel
        })
    );
    let e = rename_field(e, "inputs", "current");
    let e = rename_field(e, "gpu_model", "options.gpuModel");
    let e = rename_field(e, "free", "options.free");
    match e.field {
        None if give => e.in_field("options.gpuModel"),
        _ => e,
    }
}

/// An error's field with its first segment `from` renamed `to` (`inputs[0]` → `current[0]`).
fn rename_field(e: Error, from: &str, to: &str) -> Error {
    let field = e.field.as_deref().map(|f| {
        f.strip_prefix(from)
            .map_or(f.to_string(), |rest| format!("{to}{rest}"))
    });
    Error { field, ..e }
}
