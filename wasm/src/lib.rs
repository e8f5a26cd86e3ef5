//! The npm package's WebAssembly exports: each deserializes its input, calls one core function, serializes the result
//! (`renderSvg`, in `svg.rs`, draws with the SVG renderer crate).
//!
//! JavaScript sees camelCase keys (`supportsMig`, `allocatedFraction`); the core's serde names are
//! snake_case, and `case` converts keys both ways — values are untouched. Every export returns
//! `Result`, so bad input becomes a thrown `Error`/`RangeError`/`TypeError` and the module stays usable.

#[cfg(target_arch = "wasm32")]
mod alloc;
mod asks;
mod bench;
mod case;
mod columns;
mod error;
mod ledger_undo;
mod live;
mod replay;
mod size;
mod svg;
mod transfer;

use error::{shape, to_js};
use gpu_share_core::api::{
    self, AskEntry, Choice, Cluster, ClusterGpuCaps, DetectInput, Error, ErrorKind, ExportFormat,
    ExportOptions, ExportRequest, FractionalAsk, LedgerEntry, PackRequest, PlanRequest, Rates,
    Recording, Scenario, Share, SummaryRequest, UsageRecord, DEFAULT_OPTIMIZE_MS, MAX_INPUT_BYTES,
    MAX_SECONDS,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
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

/// Text from JavaScript, refused by its length before it is copied into WebAssembly memory when
/// it is surely above [`MAX_INPUT_BYTES`] (its UTF-8 is at least as long as its UTF-16 length);
/// the core checks the exact byte count of the rest.
fn text_of(value: &JsValue, what: &str) -> Result<String, Error> {
    let Some(text) = value.dyn_ref::<js_sys::JsString>() else {
        return Err(Error::new(ErrorKind::Syntax, "must be a string").in_field(what));
    };
    let length = text.length() as usize;
    if length > MAX_INPUT_BYTES {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("{what} is {length} characters; the limit is {MAX_INPUT_BYTES} bytes (64 MiB)"),
        )
        .in_field(what));
    }
    Ok(String::from(text))
}

/// An array longer than [`MAX_ASKS`](api::MAX_ASKS), refused before it is converted.
fn check_length(value: &JsValue, what: &str) -> Result<(), Error> {
    if let Some(array) = value.dyn_ref::<js_sys::Array>() {
        let length = array.length() as usize;
        if length > api::MAX_ASKS {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!("{what} has {length} items; the limit is {}", api::MAX_ASKS),
            )
            .in_field(what));
        }
    }
    Ok(())
}

/// The longest JSON text one input may be: every ask of a list of [`MAX_ASKS`](api::MAX_ASKS)
/// with a long name, well below V8's longest string (2²⁹ characters).
const MAX_JSON_CHARS: u32 = 256 << 20;

/// JavaScript input as the JSON `JSON.stringify` makes of it, read by the core's JSON reader:
/// what JSON cannot say (`undefined`, `NaN`, a function) reads as JSON says it, and a value that
/// contains itself or nests too deeply is an error, never a stack overflow in WebAssembly.
/// (Converting the same input value by value through serde-wasm-bindgen took a third of a
/// 100,000-ask `binPack`: BENCHMARKS.md.)
fn json_of(value: JsValue, what: &str) -> Result<Value, Error> {
    match json_text(value, what)? {
        None => Ok(Value::Null),
        Some(text) => serde_json::from_str(&text).map_err(|e| too_deep(what, &e)),
    }
}

/// The JSON text of `value` (`None` for `undefined` and `null`), as [`json_of`] reads it.
fn json_text(value: JsValue, what: &str) -> Result<Option<String>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    check_length(&value, what)?;
    let text = js_sys::JSON::stringify(&value).map_err(|e| {
        let reason = e.dyn_ref::<js_sys::Error>().map_or_else(
            || "it is not plain data".to_string(),
            |e| String::from(e.message()),
        );
        Error::new(
            ErrorKind::Syntax,
            format!("cannot be read as JSON: {reason}"),
        )
        .in_field(what)
    })?;
    if text.is_undefined() {
        return Err(Error::new(
            ErrorKind::Syntax,
            "must be plain data (objects, arrays, strings, numbers, booleans), not a function or symbol",
        )
        .in_field(what));
    }
    if text.length() > MAX_JSON_CHARS {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "is {} characters as JSON; the limit is {MAX_JSON_CHARS}",
                text.length()
            ),
        )
        .in_field(what));
    }
    // Checked as UTF-8 (quick for ASCII) so the reader is serde_json's for text, as everywhere
    // else: its reader of bytes would be a second copy of the parser in the package.
    String::from_utf8(utf8(&text))
        .map(Some)
        .map_err(|_| Error::new(ErrorKind::Syntax, "is not valid text").in_field(what))
}

/// `JSON.stringify` writes valid JSON, so only serde_json's nesting limit (128) can refuse it.
fn too_deep(what: &str, e: &serde_json::Error) -> Error {
    Error::new(
        ErrorKind::Syntax,
        format!("is nested too deeply to read ({e})"),
    )
    .in_field(what)
}

fn input<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, Error> {
    let json = json_of(value, what)?;
    if json.is_null() {
        return Err(Error::new(ErrorKind::Syntax, format!("{what} is missing")).in_field(what));
    }
    serde_json::from_value(case::to_snake(json)).map_err(|e| shape(what, e).in_field(what))
}

fn input_or_default<T: DeserializeOwned + Default>(value: JsValue, what: &str) -> Result<T, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    input(value, what)
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

/// A whole number from JavaScript (a count, Unix seconds) in `min..=max`.
fn whole(value: f64, what: &str, min: f64, max: f64) -> Result<f64, Error> {
    if value.is_finite() && value.fract() == 0.0 && (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(Error::new(
            ErrorKind::OutOfRange,
            format!("must be a whole number from {min} to {max}, got {value}"),
        )
        .in_field(what))
    }
}

const MAX_UNIX_SECONDS: f64 = 1e11;

/// An ask from JavaScript, with the core's own error kinds (so `fraction: 0` is a `RangeError`).
fn ask_of(value: JsValue) -> Result<FractionalAsk, Error> {
    let json = case::to_snake(json_of(value, "ask")?);
    if json.is_null() {
        return Err(Error::new(ErrorKind::Syntax, "ask is missing").in_field("ask"));
    }
    FractionalAsk::from_json(&json)
}

fn asks_of(value: JsValue) -> Result<Vec<FractionalAsk>, Error> {
    check_length(&value, "asks")?;
    if let Some(asks) = asks::fraction_list(&value) {
        return Ok(asks);
    }
    asks::read(json_text(value, "asks")?.as_deref())
}

/// Checks an ask (`{name, fraction}` or `{name, migProfile}`) and returns it normalised.
#[wasm_bindgen(js_name = checkAsk)]
pub fn check_ask(ask: JsValue) -> JsResult {
    js(ask_of(ask).and_then(|a| output(&a)))
}

/// Checks cluster capabilities against the catalogue and returns them as given.
#[wasm_bindgen(js_name = checkCaps)]
pub fn check_caps(caps: JsValue) -> JsResult {
    js(
        input_or_default::<ClusterGpuCaps>(caps, "caps").and_then(|c| {
            c.resolve(&[])?;
            output(&c)
        }),
    )
}

#[wasm_bindgen(js_name = selectMechanism)]
pub fn select_mechanism(ask: JsValue, caps: JsValue) -> JsResult {
    js((|| {
        let request = PlanRequest {
            ask: ask_of(ask)?,
            cluster: Cluster::Given(input_or_default(caps, "caps")?),
        };
        output(&api::plan(&request)?)
    })())
}

#[wasm_bindgen(js_name = binPack)]
pub fn bin_pack(asks: JsValue, gpu_count: JsValue, caps: JsValue, options: JsValue) -> JsResult {
    js((|| {
        let options: PackOptionsJs = input_or_default(options, "options")?;
        output(&api::pack(&pack_request(asks, gpu_count, caps, &options)?)?)
    })())
}

/// `binPack` for many asks: columns of typed arrays in and out (`columns.rs`).
#[wasm_bindgen(js_name = binPackColumns)]
pub fn bin_pack_columns(
    columns: JsValue,
    gpu_count: JsValue,
    caps: JsValue,
    options: JsValue,
) -> JsResult {
    js((|| {
        let options: PackOptionsJs = input_or_default(options, "options")?;
        let request = api::PackColumnsRequest {
            asks: columns::ask_columns(&columns)?,
            cluster: Cluster::Given(caps_with_limit(gpu_count, caps)?),
            optimize_ms: options.optimize_ms(),
        };
        columns::render(&api::pack_columns(&request)?)
    })())
}

/// The request `binPack` and `exportPlan` pack: the asks, the caps with the GPU limit (when
/// given, it overrides the caps' `gpuCount`) and the optimizer's budget.
fn pack_request(
    asks: JsValue,
    gpu_count: JsValue,
    caps: JsValue,
    options: &PackOptionsJs,
) -> Result<PackRequest, Error> {
    let asks = asks_of(asks)?;
    let caps = caps_with_limit(gpu_count, caps)?;
    Ok(PackRequest {
        asks: asks
            .into_iter()
            .map(|ask| AskEntry { ask, seconds: None })
            .collect(),
        cluster: Cluster::Given(caps),
        optimize_ms: options.optimize_ms(),
    })
}

/// The caps, with the GPU limit when one is given (it overrides the caps' `gpuCount`).
fn caps_with_limit(gpu_count: JsValue, caps: JsValue) -> Result<ClusterGpuCaps, Error> {
    let gpu_count = gpu_count_of(gpu_count)?;
    let mut caps: ClusterGpuCaps = input_or_default(caps, "caps")?;
    caps.gpu_count = gpu_count.or(caps.gpu_count);
    Ok(caps)
}

/// A GPU limit from JavaScript: a whole number, or null/undefined for as many as needed.
fn gpu_count_of(gpu_count: JsValue) -> Result<Option<u64>, Error> {
    Ok(match gpu_count.as_f64() {
        Some(n) => Some(whole(
            n,
            "gpuCount",
            1.0,
            gpu_share_core::api::MAX_GPU_COUNT as f64,
        )? as u64),
        None if gpu_count.is_undefined() || gpu_count.is_null() => None,
        None => {
            return Err(
                Error::new(ErrorKind::Syntax, "must be a number or null").in_field("gpuCount")
            )
        }
    })
}

/// `binPack`'s options: `{optimize: true, timeLimitMs: 200}`.
#[derive(serde::Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct PackOptionsJs {
    optimize: bool,
    time_limit_ms: Option<f64>,
}

impl PackOptionsJs {
    /// The budget in whole milliseconds (the core caps it at its maximum).
    fn optimize_ms(&self) -> Option<u64> {
        self.optimize.then(|| {
            self.time_limit_ms.map_or(DEFAULT_OPTIMIZE_MS, |ms| {
                ms.clamp(0.0, u64::MAX as f64) as u64
            })
        })
    }
}

/// Packs the asks like `binPack` and writes the plan as `format` (`k8s`, `kserve`,
/// `device-plugin`, `mig-parted`, `mig-commands`, `slurm`): YAML or text.
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
        // The packing's options (`optimize`, `timeLimitMs`) and the export's (`migStrategy`,
        // `namespace`, `image`, `configName`) share one object; each part rejects unknown keys.
        let mut export_part: serde_json::Map<String, Value> = input_or_default(options, "options")?;
        let mut pack_part = serde_json::Map::new();
        for key in ["optimize", "time_limit_ms"] {
            if let Some(v) = export_part.remove(key) {
                pack_part.insert(key.into(), v);
            }
        }
        let pack_options = serde_json::from_value::<PackOptionsJs>(Value::Object(pack_part))
            .map_err(|e| shape("options", e).in_field("options"))?;
        let options: ExportOptions = serde_json::from_value(Value::Object(export_part))
            .map_err(|e| shape("options", e).in_field("options"))?;
        // Option errors name the option as JavaScript spells it (`options.configName`).
        options.validate().map_err(|e| {
            let field = e.field.as_deref().map(case::camel).unwrap_or_default();
            Error { field: None, ..e }.in_field(format!("options.{field}"))
        })?;
        let request = ExportRequest {
            format,
            pack: pack_request(asks, gpu_count, caps, &pack_options)?,
            options,
        };
        Ok(api::export(&request)?.text)
    })())
}

/// Reads `nvidia-smi` (`-q -x`, `--query-gpu` CSV, `-L`, the summary table, `mig -lgip`) or
/// `kubectl get nodes -o json` output — one string or an array merged — into
/// `{gpus, nodes, migProfiles, sources, notes, caps}`.
#[wasm_bindgen]
pub fn detect(inputs: JsValue) -> JsResult {
    js((|| output(&api::detect(&detect_inputs(inputs)?)?))())
}

/// Discovery texts from JavaScript: one string, or an array of strings (one per machine).
fn detect_inputs(inputs: JsValue) -> Result<Vec<DetectInput>, Error> {
    if inputs.is_string() {
        return Ok(vec![DetectInput {
            label: "inputs".into(),
            text: text_of(&inputs, "inputs")?,
        }]);
    }
    if let Some(list) = inputs.dyn_ref::<js_sys::Array>() {
        check_length(&inputs, "inputs")?;
        for (i, item) in list.iter().enumerate() {
            if item.is_string() {
                text_of(&item, "inputs").map_err(|e| Error {
                    field: Some(format!("inputs[{i}]")),
                    ..e
                })?;
            }
        }
    }
    let texts: Vec<String> = input(inputs, "inputs")?;
    Ok(texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| DetectInput {
            label: format!("inputs[{i}]"),
            text,
        })
        .collect())
}

/// Checks a set of MIG instances (`["3g.20gb", "2g.10gb"]` or `"3g.20gb,2g.10gb"`) on one GPU
/// of `model`: `{valid, reason, placements, commands, …}`.
#[wasm_bindgen(js_name = validateMig)]
pub fn validate_mig(model: JsValue, profiles: JsValue) -> JsResult {
    js((|| {
        let request = api::ValidateMigRequest {
            model: text_of(&model, "model")?,
            profiles: match profiles.is_string() {
                true => vec![text_of(&profiles, "profiles")?],
                false => input(profiles, "profiles")?,
            },
        };
        output(&api::validate_mig(&request)?)
    })())
}

/// `fraction × seconds / 3600`, exactly; `fraction` is a number or a string (`"1/3"`, `"25%"`).
#[wasm_bindgen(js_name = fractionalGpuHours)]
pub fn fractional_gpu_hours(fraction: JsValue, seconds: f64) -> Result<f64, JsValue> {
    js((|| {
        let fraction = Share::from_json(&json_of(fraction, "fraction")?)
            .map_err(|e| e.in_field("fraction"))?;
        let seconds = whole(seconds, "seconds", 0.0, MAX_SECONDS as f64)? as u64;
        Ok(api::fractional_gpu_hours(fraction, seconds).to_f64())
    })())
}

#[wasm_bindgen(js_name = gpuModels)]
pub fn gpu_models() -> JsResult {
    js(output(api::models()))
}

/// Reads a CSV or JSON ask list into `[{ask, seconds}]`.
#[wasm_bindgen(js_name = parseAsks)]
pub fn parse_asks(text: JsValue) -> JsResult {
    js(text_of(&text, "text")
        .and_then(|t| gpu_share_core::api::parse_asks(&t))
        .and_then(|a| output(&a)))
}

/// Reads `ask=a:0.5&gpus=2&timeslice` into `{asks, caps}`.
#[wasm_bindgen(js_name = parseScenario)]
pub fn parse_scenario(query: JsValue) -> JsResult {
    js(text_of(&query, "query")
        .and_then(|q| Scenario::from_query(&q))
        .and_then(|s| output(&s)))
}

#[wasm_bindgen(js_name = scenarioToQuery)]
pub fn scenario_to_query(scenario: JsValue) -> Result<String, JsValue> {
    js(input::<Scenario>(scenario, "scenario").map(|s| s.to_query()))
}

/// The ledger entry of a choice (from `selectMechanism`) recorded at `now` (Unix seconds): a run
/// of `seconds` that has just finished, or, when `seconds` is null, a use open until released.
#[wasm_bindgen(js_name = usageRecord)]
pub fn usage_record(choice: JsValue, now: f64, seconds: JsValue) -> JsResult {
    js((|| {
        let choice: Choice = input(choice, "choice")?;
        gpu_share_core::api::validate_name(&choice.name).map_err(|e| e.in_field("choice"))?;
        let now = whole(now, "now", -MAX_UNIX_SECONDS, MAX_UNIX_SECONDS)? as i64;
        let seconds = match seconds.as_f64() {
            Some(s) => Some(whole(s, "seconds", 0.0, MAX_SECONDS as f64)? as u64),
            None => None,
        };
        output(&api::record_plan(&choice, Recording::new(now, seconds)?))
    })())
}

/// The entry that releases `ask`'s latest open use at `now`; an error when it has none.
#[wasm_bindgen(js_name = releaseEntry)]
pub fn release_entry(list: JsValue, ask: JsValue, now: f64) -> JsResult {
    js((|| {
        let now = whole(now, "now", -MAX_UNIX_SECONDS, MAX_UNIX_SECONDS)? as i64;
        let ask = text_of(&ask, "ask")?;
        output(&api::release(&entries(list)?, &ask, now)?)
    })())
}

/// Merges a ledger text (JSON Lines or the JSON document) into `list`: `{entries, added,
/// alreadyPresent}`; an entry already there is not added twice.
#[wasm_bindgen(js_name = importLedger)]
pub fn import_ledger(list: JsValue, text: JsValue, now: f64) -> JsResult {
    js((|| {
        let now = whole(now, "now", -MAX_UNIX_SECONDS, MAX_UNIX_SECONDS)? as i64;
        let text = text_of(&text, "text")?;
        output(&api::import(&entries(list)?, &text, now)?)
    })())
}

fn entries(value: JsValue) -> Result<Vec<LedgerEntry>, Error> {
    let list: Vec<LedgerEntry> = input(value, "entries")?;
    for (i, e) in list.iter().enumerate() {
        let (LedgerEntry::Usage(UsageRecord { ask, .. }) | LedgerEntry::Release { ask, .. }) = e;
        gpu_share_core::api::validate_name(ask)
            .map_err(|e| e.in_field(format!("entries[{i}].ask")))?;
    }
    Ok(list)
}

/// The ledger settled and added up at `now` with `rates` (validated by the core's `Rates::new`).
fn summary(list: JsValue, now: f64, rates: JsValue) -> Result<api::SummaryResponse, Error> {
    let now = whole(now, "now", -MAX_UNIX_SECONDS, MAX_UNIX_SECONDS)? as i64;
    let rates: Rates = input_or_default(rates, "rates")?;
    api::summarise(&SummaryRequest {
        entries: &entries(list)?,
        now,
        rates,
    })
}

/// Adds ledger entries up at `now`: `{totals, byWorkload, byMechanism, rates}`.
#[wasm_bindgen(js_name = summarizeLedger)]
pub fn summarize_ledger(list: JsValue, now: f64, rates_: JsValue) -> JsResult {
    js(summary(list, now, rates_).and_then(|s| output(&s.summary)))
}

#[wasm_bindgen(js_name = ledgerSummaryCsv)]
pub fn ledger_summary_csv(list: JsValue, now: f64, rates_: JsValue) -> Result<String, JsValue> {
    js(summary(list, now, rates_).map(|s| api::summary_csv(&s.summary)))
}

#[wasm_bindgen(js_name = ledgerCsv)]
pub fn ledger_csv(list: JsValue, now: f64) -> Result<String, JsValue> {
    js(summary(list, now, JsValue::NULL).map(|s| api::ledger_csv(&s.records)))
}

/// The entries as JSON Lines, the format of the CLI's ledger file.
#[wasm_bindgen(js_name = ledgerToJsonLines)]
pub fn ledger_to_json_lines(list: JsValue) -> Result<String, JsValue> {
    js(entries(list).map(|l| l.iter().map(|e| api::format_entry(e) + "\n").collect()))
}

/// Reads a ledger: JSON Lines (the CLI's file) or the JSON document of `ledgerDocument`; an
/// error names the line or the entry.
#[wasm_bindgen(js_name = parseLedger)]
pub fn parse_ledger(text: JsValue) -> JsResult {
    js(text_of(&text, "text")
        .and_then(|t| api::parse_ledger_any(&t))
        .and_then(|l| output(&l)))
}

/// The entries and their summary at `now` as one JSON document, which `parseLedger` reads back.
#[wasm_bindgen(js_name = ledgerDocument)]
pub fn ledger_document(list: JsValue, now: f64, rates_: JsValue) -> Result<String, JsValue> {
    js((|| {
        let entries = entries(list.clone())?;
        let response = summary(list, now, rates_)?;
        Ok(api::ledger_document(&entries, Some(&response.summary)))
    })())
}
