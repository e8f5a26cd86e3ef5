//! The npm package's WebAssembly exports: each reads its arguments as the parts of one core
//! request (`read.rs`), makes one call through `gpu_share_core::api`, and writes the response
//! (`transfer.rs`); `renderSvg` and `replaySvg` draw with the SVG renderer crate (`svg.rs`).
//!
//! JavaScript sees camelCase keys (`supportsMig`, `allocatedFraction`); the core's serde names are
//! snake_case, and `case` converts keys both ways — values are untouched — and errors' fields too.
//! Every export returns `Result`, so bad input becomes a thrown `Error`/`RangeError`/`TypeError`
//! and the module stays usable.

#[cfg(target_arch = "wasm32")]
mod alloc;
mod asks;
mod bench;
mod case;
mod columns;
mod error;
mod ledger;
mod live;
mod read;
mod replay;
mod size;
mod svg;
mod transfer;

use error::to_js;
use gpu_share_core::api::{
    self, Cluster, ClusterGpuCaps, DetectInput, Error, ErrorKind, ExportFormat, ExportRequest,
    ExportSettings, PackColumnsRequest, PackOptions, PackRequest, PlanRequest, Scenario, Share,
    ValidateMigRequest, MAX_SECONDS,
};
use read::{arg, arg_or_default, ask_of, asks_of, gpu_count_of, text_of, whole};
use serde::Serialize;
use wasm_bindgen::prelude::*;

type JsResult = Result<JsValue, JsValue>;

/// Reports a panic (a bug: no input should cause one) on the console before the module aborts.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("gpu-share: internal error, please report it: {info}");
        web_console_error(&message);
    }));
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn web_console_error(message: &str);
}

/// `value` as the JavaScript value `JSON.parse` would make of the core's JSON, keys in camelCase:
/// written as flat arrays and a table of strings and built into objects by
/// `js/transfer.js` (JSON text of a large result cost more than the planning: `transfer.rs`).
fn output<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, Error> {
    let encoded =
        transfer::encode(value).map_err(|e| Error::new(ErrorKind::TooLarge, e.to_string()))?;
    Ok(build(
        &encoded.ops,
        &encoded.numbers,
        &encoded.strings,
        &encoded.offsets,
    ))
}

#[wasm_bindgen(module = "/js/transfer.js")]
extern "C" {
    /// Reads views of WebAssembly memory, which stay valid as it allocates none.
    fn build(ops: &[u32], numbers: &[f64], strings: &str, offsets: &[u32]) -> JsValue;

    /// `text` in UTF-8 by the engine's `TextEncoder`: wasm-bindgen's own copy of a string goes
    /// a character at a time in JavaScript (a million asks' JSON, 39 MB, took longer to copy in
    /// than to read).
    fn utf8(text: &js_sys::JsString) -> Vec<u8>;
}

fn js<T>(result: Result<T, Error>) -> Result<T, JsValue> {
    result.map_err(|e| to_js(&e))
}

/// Checks an ask (`{name, fraction}` or `{name, migProfile}`) and returns it normalised.
#[wasm_bindgen(js_name = checkAsk)]
pub fn check_ask(ask: JsValue) -> JsResult {
    js(ask_of(ask).and_then(|a| output(&a)))
}

/// `checkAsk` of `{name, fraction}` alone, for the constructor's common case (`asks.rs`).
#[wasm_bindgen(js_name = checkFraction)]
pub fn check_fraction(name: String, fraction: f64) -> Option<f64> {
    asks::checked_fraction(name, fraction)
}

/// Checks cluster capabilities against the catalogue and returns them as given.
#[wasm_bindgen(js_name = checkCaps)]
pub fn check_caps(caps: JsValue) -> JsResult {
    js((|| {
        let caps: ClusterGpuCaps = arg_or_default(caps, "caps")?;
        api::check_caps(&caps)?;
        output(&caps)
    })())
}

/// The mechanism that serves one ask: `api::plan`.
#[wasm_bindgen(js_name = selectMechanism)]
pub fn select_mechanism(ask: JsValue, caps: JsValue) -> JsResult {
    js((|| {
        let request = PlanRequest {
            ask: ask_of(ask)?,
            cluster: Cluster::Given(arg_or_default(caps, "caps")?),
        };
        output(&api::plan(&request)?)
    })())
}

/// Many asks onto GPUs: `api::pack`.
#[wasm_bindgen(js_name = binPack)]
pub fn bin_pack(asks: JsValue, gpu_count: JsValue, caps: JsValue, options: JsValue) -> JsResult {
    js((|| {
        let request = PackRequest {
            asks: asks_of(asks)?.into_iter().map(Into::into).collect(),
            gpu_count: gpu_count_of(&gpu_count)?,
            cluster: Cluster::Given(arg_or_default(caps, "caps")?),
            options: arg_or_default(options, "options")?,
        };
        output(&api::pack(&request)?)
    })())
}

/// `binPack` for many asks: columns of typed arrays in and out (`columns.rs`, `api::pack_columns`).
#[wasm_bindgen(js_name = binPackColumns)]
pub fn bin_pack_columns(
    columns: JsValue,
    gpu_count: JsValue,
    caps: JsValue,
    options: JsValue,
) -> JsResult {
    js((|| {
        let request = PackColumnsRequest {
            asks: columns::ask_columns(&columns)?,
            gpu_count: gpu_count_of(&gpu_count)?,
            cluster: Cluster::Given(arg_or_default(caps, "caps")?),
            options: arg_or_default::<PackOptions>(options, "options")?,
        };
        columns::render(&api::pack_columns(&request)?)
    })())
}

/// Packs the asks like `binPack` and writes the plan as `format` (`k8s`, `kserve`,
/// `device-plugin`, `mig-parted`, `mig-commands`, `slurm`, `dra`): YAML or text (`api::export`).
#[wasm_bindgen(js_name = exportPlan)]
pub fn export_plan(
    format: JsValue,
    asks: JsValue,
    gpu_count: JsValue,
    caps: JsValue,
    options: JsValue,
) -> Result<String, JsValue> {
    js((|| {
        let format: ExportFormat = text_of(&format, "format")?.parse()?;
        let options: ExportSettings = arg_or_default(options, "options")?;
        let request = ExportRequest {
            format,
            pack: PackRequest {
                asks: asks_of(asks)?.into_iter().map(Into::into).collect(),
                gpu_count: gpu_count_of(&gpu_count)?,
                cluster: Cluster::Given(arg_or_default(caps, "caps")?),
                options: options.pack,
            },
            options: options.export,
        };
        Ok(api::export(&request)?.text)
    })())
}

/// The Kubernetes DRA allocator's first fit of the plan's claims (a template per workload, and
/// gpu-share's) on ResourceSlices, beside gpu-share's placement (`api::simulate_dra`).
#[wasm_bindgen(js_name = simulateDra)]
pub fn simulate_dra(
    slices: JsValue,
    asks: JsValue,
    gpu_count: JsValue,
    caps: JsValue,
    options: JsValue,
) -> JsResult {
    js((|| {
        let options: api::SimulateDraSettings = arg_or_default(options, "options")?;
        let request = api::SimulateDraRequest {
            slices: texts(slices, "slices")?,
            pack: PackRequest {
                asks: asks_of(asks)?.into_iter().map(Into::into).collect(),
                gpu_count: gpu_count_of(&gpu_count)?,
                cluster: Cluster::Given(arg_or_default(caps, "caps")?),
                options: options.pack,
            },
            options: options.simulate,
        };
        output(&api::simulate_dra(&request)?)
    })())
}

/// Reads `nvidia-smi` (`-q -x`, `--query-gpu` CSV, `-L`, the summary table, `mig -lgip`),
/// `kubectl get nodes -o json` or ResourceSlice output — one string or an array merged — into
/// `{gpus, nodes, migProfiles, sources, notes, caps}` (`api::detect`).
#[wasm_bindgen]
pub fn detect(inputs: JsValue) -> JsResult {
    js((|| {
        output(&api::detect(&api::DetectRequest {
            inputs: texts(inputs, "inputs")?,
        })?)
    })())
}

/// Discovery texts from JavaScript: one string, or an array of strings (one per machine), each
/// refused by its length before it is copied; the core names them by their place.
fn texts(value: JsValue, what: &str) -> Result<Vec<DetectInput>, Error> {
    let text = |text| DetectInput {
        label: String::new(),
        text,
    };
    if value.is_string() {
        return Ok(vec![text(text_of(&value, what)?)]);
    }
    if let Some(list) = value.dyn_ref::<js_sys::Array>() {
        read::check_length(&value, what)?;
        for (i, item) in list.iter().enumerate().filter(|(_, item)| item.is_string()) {
            text_of(&item, &format!("{what}[{i}]"))?;
        }
    }
    let list: Vec<String> = arg(value, what)?;
    Ok(list.into_iter().map(text).collect())
}

/// Checks a set of MIG instances (`["3g.20gb", "2g.10gb"]` or `"3g.20gb,2g.10gb"`) on one GPU
/// of `model`: `{valid, reason, placements, commands, …}` (`api::validate_mig`).
#[wasm_bindgen(js_name = validateMig)]
pub fn validate_mig(model: JsValue, profiles: JsValue) -> JsResult {
    js((|| {
        let request = ValidateMigRequest {
            model: text_of(&model, "model")?,
            profiles: match profiles.is_string() {
                true => vec![text_of(&profiles, "profiles")?],
                false => arg(profiles, "profiles")?,
            },
        };
        output(&api::validate_mig(&request)?)
    })())
}

/// `fraction × seconds / 3600`, exactly; `fraction` is a number or a string (`"1/3"`, `"25%"`).
#[wasm_bindgen(js_name = fractionalGpuHours)]
pub fn fractional_gpu_hours(fraction: JsValue, seconds: f64) -> Result<f64, JsValue> {
    js((|| {
        let fraction: Share = arg(fraction, "fraction")?;
        let seconds = whole(seconds, "seconds", 0.0, MAX_SECONDS as f64)? as u64;
        Ok(api::fractional_gpu_hours(fraction, seconds).to_f64())
    })())
}

/// The GPU catalogue (`api::models`).
#[wasm_bindgen(js_name = gpuModels)]
pub fn gpu_models() -> JsResult {
    js(output(api::models()))
}

/// Reads a CSV or JSON ask list into `[{ask, seconds}]` (`api::parse_asks`).
#[wasm_bindgen(js_name = parseAsks)]
pub fn parse_asks(text: JsValue) -> JsResult {
    js(text_of(&text, "text")
        .and_then(|t| api::parse_asks(&t))
        .and_then(|a| output(&a)))
}

/// Reads `ask=a:0.5&gpus=2&timeslice` into `{asks, caps}` (`api::Scenario`).
#[wasm_bindgen(js_name = parseScenario)]
pub fn parse_scenario(query: JsValue) -> JsResult {
    js(text_of(&query, "query")
        .and_then(|q| Scenario::from_query(&q))
        .and_then(|s| output(&s)))
}

/// A scenario as the page's address writes it.
#[wasm_bindgen(js_name = scenarioToQuery)]
pub fn scenario_to_query(scenario: JsValue) -> Result<String, JsValue> {
    js(arg::<Scenario>(scenario, "scenario").map(|s| s.to_query()))
}
