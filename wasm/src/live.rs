//! `fit` and `repartition`: MIG GPUs as they are (`nvidia-smi mig -lgi` text) in, one core call
//! (`api::fit`, `api::repartition`), the answer out. Errors name the request's parts as the
//! core does (`current`, `options.gpuModel`, `options.free[i]`).

use crate::read::{arg_or_default, asks_of};
use crate::{js, output, texts, JsResult};
use gpu_share_core::api::{self, FitRequest, RepartitionRequest};
use wasm_bindgen::prelude::*;

/// What can still be created on MIG GPUs as they are (`nvidia-smi mig -lgi` output, one string or
/// an array, one per machine), what is stranded, and where `asks` go without moving an instance.
#[wasm_bindgen]
pub fn fit(current: JsValue, asks: JsValue, options: JsValue) -> JsResult {
    js((|| {
        let request = FitRequest {
            current: texts(current, "current")?,
            asks: match asks.is_undefined() || asks.is_null() {
                true => Vec::new(),
                false => asks_of(asks)?,
            },
            options: arg_or_default(options, "options")?,
        };
        output(&api::fit(&request)?)
    })())
}

/// The fewest GPU instances moved that let `asks` into the MIG layouts of `current` (`nvidia-smi
/// mig -lgi` output): the end state, the ordered steps and commands, what to drain.
#[wasm_bindgen]
pub fn repartition(current: JsValue, asks: JsValue, options: JsValue) -> JsResult {
    js((|| {
        let request = RepartitionRequest {
            current: texts(current, "current")?,
            asks: asks_of(asks)?,
            options: arg_or_default(options, "options")?,
        };
        output(&api::repartition(&request)?)
    })())
}
