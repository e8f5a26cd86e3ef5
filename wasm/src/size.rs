//! `sizeModel`: a model's config.json (the parsed object or its text) and options in, one core
//! call (`api::size`), the sizing out; errors name this package's arguments (`config.vocab_size`,
//! `options.kvDtype`, `options.fit.gpuModel`).

use super::{case, input_or_default, js, json_of, output, text_of, whole, JsResult};
use gpu_share_core::api::{self, Dtype, Error, ErrorKind, FitTarget, Memory, SizeRequest};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The largest whole number a JavaScript number holds exactly.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// `sizeModel`'s options: `{dtype, kvDtype, context, concurrency, fit}`.
#[derive(serde::Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct SizeOptionsJs {
    dtype: Option<String>,
    kv_dtype: Option<String>,
    context: Option<f64>,
    concurrency: Option<f64>,
    /// Bytes (a number), memory text (`"40GiB"`) or `{gpuModel, profile}`.
    fit: Option<Value>,
    /// `{name, caps}`: plan the model on those caps as an ask of its memory.
    plan: Option<PlanJs>,
}

/// `plan: {name, caps}`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanJs {
    name: String,
    #[serde(default)]
    caps: gpu_share_core::api::ClusterGpuCaps,
}

/// `fit: {gpuModel, profile}`; without a profile, the whole GPU.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FitJs {
    gpu_model: String,
    #[serde(default)]
    profile: Option<String>,
}

/// The GPU memory a model needs, from its Hugging Face config.json: parameters, weights, KV cache
/// and overheads, each explained; with `options.fit`, whether it fits and how far it stretches;
/// with `options.plan`, the model planned on those caps as an ask of its memory.
#[wasm_bindgen(js_name = sizeModel)]
pub fn size_model(config: JsValue, options: JsValue) -> JsResult {
    js((|| {
        let config_json = if config.is_string() {
            text_of(&config, "config")?
        } else {
            // Keys of the config are its own (snake_case): not converted.
            match json_of(config, "config")? {
                Value::Null => {
                    return Err(
                        Error::new(ErrorKind::Syntax, "config is missing").in_field("config")
                    )
                }
                v => v.to_string(),
            }
        };
        let options: SizeOptionsJs = input_or_default(options, "options")?;
        let dtype = |text: Option<String>, field: &str| {
            text.map(|t| Dtype::parse(&t).map_err(|e| e.in_field(field)))
                .transpose()
        };
        let count = |n: Option<f64>, field: &str| {
            n.map(|n| whole(n, field, 0.0, MAX_SAFE).map(|n| n as u64))
                .transpose()
        };
        let request = SizeRequest {
            config_json,
            dtype: dtype(options.dtype, "options.dtype")?,
            kv_dtype: dtype(options.kv_dtype, "options.kvDtype")?,
            context: count(options.context, "options.context")?,
            concurrency: count(options.concurrency, "options.concurrency")?,
            fit: options.fit.map(fit_of).transpose()?,
            plan: options.plan.map(|p| api::SizePlan {
                name: p.name,
                cluster: api::Cluster::Given(p.caps),
            }),
        };
        output(&api::size(&request).map_err(js_fields)?)
    })())
}

fn fit_of(value: Value) -> Result<FitTarget, Error> {
    let field = "options.fit";
    match value {
        Value::Number(n) => {
            let bytes = n.as_f64().unwrap_or(-1.0);
            Ok(FitTarget::Bytes(whole(bytes, field, 0.0, MAX_SAFE)? as u64))
        }
        Value::String(s) => Ok(FitTarget::Bytes(
            Memory::parse(&s).map_err(|e| e.in_field(field))?.bytes(),
        )),
        Value::Object(_) => {
            let f: FitJs = serde_json::from_value(value)
                .map_err(|e| super::error::shape(field, e).in_field(field))?;
            Ok(match f.profile {
                Some(profile) => FitTarget::Profile {
                    gpu_model: f.gpu_model,
                    profile,
                },
                None => FitTarget::Gpu {
                    gpu_model: f.gpu_model,
                },
            })
        }
        _ => Err(Error::new(
            ErrorKind::Syntax,
            "must be bytes, memory such as \"40GiB\", or {gpuModel, profile}",
        )
        .in_field(field)),
    }
}

/// The core's fields as this package's arguments name them; the config's own keys stay.
fn js_fields(e: Error) -> Error {
    let field = e.field.as_deref().map(|f| {
        if f == "config" || f.starts_with("config.") {
            f.to_string()
        } else {
            format!("options.{}", case::camel(f))
        }
    });
    Error { field, ..e }
}
