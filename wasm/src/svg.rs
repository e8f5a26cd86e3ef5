//! `renderSvg`: a pack result as `binPack` returns it (camelCase keys) read back by the core's
//! checking reader, then drawn by the SVG renderer, so npm draws exactly what `gpu-share pack
//! --svg` draws. A result edited into a state the packer never makes is a thrown error naming its
//! field as JavaScript spells it (`result.gpus[0].usedFraction`), never a panic.

use crate::read::{arg_or_default, json_of, whole};
use crate::{case, js};
use gpu_share_core::api::{Error, ErrorKind, PackResult, MAX_GPU_COUNT};
use gpu_share_svg::{
    SvgOptions, SvgOptionsInput, DEFAULT_ID_PREFIX, DEFAULT_MAX_GPUS, DEFAULT_WIDTH, MAX_WIDTH,
    MIN_WIDTH,
};
use wasm_bindgen::prelude::*;

/// The renderer's options of those given, each checked (the renderer would clamp; npm says so
/// instead).
fn checked(given: SvgOptionsInput) -> Result<SvgOptions, Error> {
    let max_gpus = match given.max_gpus {
        Some(n) => whole(n, "options.maxGpus", 0.0, MAX_GPU_COUNT as f64)? as usize,
        None => DEFAULT_MAX_GPUS,
    };
    let first_gpu = match given.first_gpu {
        Some(n) => whole(n, "options.firstGpu", 0.0, MAX_GPU_COUNT as f64)? as usize,
        None => 0,
    };
    let width = match given.width {
        Some(w) => whole(w, "options.width", MIN_WIDTH.into(), MAX_WIDTH.into())? as u32,
        None => DEFAULT_WIDTH,
    };
    let id_prefix = given
        .id_prefix
        .unwrap_or_else(|| DEFAULT_ID_PREFIX.to_string());
    if !gpu_share_svg::valid_id_prefix(&id_prefix) {
        return Err(Error::new(
            ErrorKind::Syntax,
            "must be ASCII letters, digits, - and _, starting with a letter",
        )
        .in_field("options.idPrefix"));
    }
    Ok(SvgOptions {
        title: given.title,
        max_gpus,
        first_gpu,
        width,
        id_prefix,
    })
}

/// The packing diagram of `result` (what `binPack` returned) as a standalone SVG document.
#[wasm_bindgen(js_name = renderSvg)]
pub fn render_svg(result: JsValue, options: JsValue) -> Result<String, JsValue> {
    js((|| {
        // A value of the wrong shape names the options as a whole, as it always has; values
        // of the right shape that are out of range name their own field (`options.width`).
        let given = arg_or_default::<SvgOptionsInput>(options, "options").map_err(|mut e| {
            e.field = Some("options".into());
            e
        })?;
        let options = checked(given)?;
        let json = case::to_snake(json_of(result, "result")?);
        if json.is_null() {
            return Err(Error::new(ErrorKind::Syntax, "result is missing").in_field("result"));
        }
        let result = PackResult::from_json(&json).map_err(|e| e.in_field("result"))?;
        Ok(gpu_share_svg::render(&result, &options))
    })())
}
