//! `replay` and `replaySvg`: a node list and a pod list (CSV text in the Alibaba 2023 GPU trace's
//! form) and options `{policies, seeds, tune}` in, one core call (`api::replay`), the replay out —
//! or, for `replaySvg`, its chart as `gpu-share replay --svg` draws it. Errors name this
//! package's arguments (`nodes`, `pods`, `options.policies[1]`).

use super::{case, input_or_default, js, output, text_of, whole, JsResult};
use gpu_share_core::api::{self, Error, ErrorKind, Policy, ReplayRequest, Tune};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The largest whole number a JavaScript number holds exactly.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// `{policies, seeds, tune}`, each optional. Errors reading them already name this package's
/// arguments; the core's are renamed by `js_fields`.
#[derive(serde::Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct ReplayOptionsJs {
    policies: Option<Vec<String>>,
    seeds: Option<Vec<f64>>,
    /// A ratio (`1.3`) or text (`"130%"`).
    tune: Option<Value>,
}

fn request(nodes: &JsValue, pods: &JsValue, options: JsValue) -> Result<ReplayRequest, Error> {
    let options: ReplayOptionsJs = input_or_default(options, "options")?;
    let policies = options
        .policies
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, p)| Policy::parse(p).map_err(|e| e.in_field(format!("options.policies[{i}]"))))
        .collect::<Result<_, _>>()?;
    let seeds = options
        .seeds
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, &s)| whole(s, &format!("options.seeds[{i}]"), 0.0, MAX_SAFE).map(|s| s as u64))
        .collect::<Result<_, _>>()?;
    let tune = match options.tune {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(Tune::parse(&s).map_err(|e| e.in_field("options"))?),
        Some(Value::Number(n)) => {
            Some(Tune::parse(&n.to_string()).map_err(|e| e.in_field("options"))?)
        }
        Some(_) => {
            return Err(Error::new(
                ErrorKind::Syntax,
                "must be a number such as 1.3 or text such as \"130%\"",
            )
            .in_field("options.tune"))
        }
    };
    Ok(ReplayRequest {
        nodes_csv: text_of(nodes, "nodes")?,
        pods_csv: text_of(pods, "pods")?,
        policies,
        seeds,
        tune,
    })
}

/// The core's fields as this package names them: the lists stay, the rest are options.
fn js_fields(e: Error) -> Error {
    let field = e.field.as_deref().map(|f| {
        if f == "nodes" || f == "pods" || f.starts_with("nodes.") || f.starts_with("pods.") {
            f.to_string()
        } else {
            format!("options.{}", case::camel(f))
        }
    });
    Error { field, ..e }
}

/// Replays the pod list on the nodes under each policy and seed: the allocation and
/// fragmentation at every percent of arrived demand, failed pods, and the bound.
#[wasm_bindgen]
pub fn replay(nodes: JsValue, pods: JsValue, options: JsValue) -> JsResult {
    js((|| {
        let request = request(&nodes, &pods, options)?;
        output(&api::replay(&request).map_err(js_fields)?)
    })())
}

/// The same replay's chart, as a standalone SVG document.
#[wasm_bindgen(js_name = replaySvg)]
pub fn replay_svg(nodes: JsValue, pods: JsValue, options: JsValue) -> Result<String, JsValue> {
    js((|| {
        let request = request(&nodes, &pods, options)?;
        let replay = api::replay(&request).map_err(js_fields)?;
        Ok(gpu_share_svg::render_replay(
            &replay,
            &gpu_share_svg::SvgOptions::default(),
        ))
    })())
}
