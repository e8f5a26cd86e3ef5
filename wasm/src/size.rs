//! `sizeModel`: a model's config.json (the parsed object or its text) and options in, one core
//! call (`api::size`), the sizing out; errors name the request's parts (`config.vocab_size`,
//! `options.kvDtype`, `options.fit.gpuModel`).

use crate::read::{arg_or_default, json_of, text_of};
use crate::{js, output, JsResult};
use gpu_share_core::api::{self, Error, ErrorKind, SizeRequest};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The GPU memory a model needs, from its Hugging Face config.json: parameters, weights, KV cache
/// and overheads, each explained; with `options.fit`, whether it fits and how far it stretches;
/// with `options.plan`, the model planned on those caps as an ask of its memory.
#[wasm_bindgen(js_name = sizeModel)]
pub fn size_model(config: JsValue, options: JsValue) -> JsResult {
    js((|| {
        let request = SizeRequest {
            config_json: config_text(config)?,
            options: arg_or_default(options, "options")?,
        };
        output(&api::size(&request)?)
    })())
}

/// The config's text: given as text, or the object's JSON (its keys are its own: not renamed).
fn config_text(config: JsValue) -> Result<String, Error> {
    if config.is_string() {
        return text_of(&config, "config");
    }
    match json_of(config, "config")? {
        Value::Null => Err(Error::new(ErrorKind::Syntax, "config is missing").in_field("config")),
        v => Ok(v.to_string()),
    }
}
