//! `replay` and `replaySvg`: a node list and a pod list (CSV text in the Alibaba 2023 GPU trace's
//! form) and options `{policies, seeds, tune}` in, one core call (`api::replay`), the replay out —
//! or, for `replaySvg`, its chart as `gpu-share replay --svg` draws it. Errors name the request's
//! parts (`nodes`, `pods.gpu_milli`, `options.policies[1]`).

use crate::read::{arg_or_default, text_of};
use crate::{js, output, JsResult};
use gpu_share_core::api::{self, Error, ReplayRequest};
use wasm_bindgen::prelude::*;

fn request(nodes: &JsValue, pods: &JsValue, options: JsValue) -> Result<ReplayRequest, Error> {
    Ok(ReplayRequest {
        nodes_csv: text_of(nodes, "nodes")?,
        pods_csv: text_of(pods, "pods")?,
        options: arg_or_default(options, "options")?,
    })
}

/// Replays the pod list on the nodes under each policy and seed: the allocation and
/// fragmentation at every percent of arrived demand, failed pods, and the bound.
#[wasm_bindgen]
pub fn replay(nodes: JsValue, pods: JsValue, options: JsValue) -> JsResult {
    js((|| {
        output(&api::replay(&request(&nodes, &pods, options)?)?)
    })())
}

/// The same replay's chart, as a standalone SVG document.
#[wasm_bindgen(js_name = replaySvg)]
pub fn replay_svg(nodes: JsValue, pods: JsValue, options: JsValue) -> Result<String, JsValue> {
    js((|| {
        let replay = api::replay(&request(&nodes, &pods, options)?)?;
        Ok(gpu_share_svg::render_replay(
            &replay,
            &gpu_share_svg::SvgOptions::default(),
        ))
    })())
}
