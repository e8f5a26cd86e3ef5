//! Core errors as JavaScript errors: `RangeError` for out-of-range values, `TypeError` for unreadable input.

use gpu_share_core::api::{Error, ErrorKind};
use wasm_bindgen::JsValue;

/// A JS error whose message is the core's (`field "fraction": must be greater than 0`), with `kind`,
/// `field` and `line` properties for programs.
pub fn to_js(e: &Error) -> JsValue {
    // The field as JavaScript spells it, in the message too (`field "gpuCount": …`).
    let e = &Error {
        field: e.field.as_deref().map(crate::case::camel_path),
        ..e.clone()
    };
    let message = e.to_string();
    let error: js_sys::Error = match e.kind {
        ErrorKind::OutOfRange | ErrorKind::TooLarge => js_sys::RangeError::new(&message).into(),
        ErrorKind::Syntax => js_sys::TypeError::new(&message).into(),
        _ => js_sys::Error::new(&message),
    };
    let kind = serde_json::to_value(e.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let set = |key: &str, value: JsValue| {
        let _ = js_sys::Reflect::set(&error, &JsValue::from_str(key), &value);
    };
    set("kind", JsValue::from_str(&kind));
    set(
        "field",
        e.field.as_deref().map_or(JsValue::NULL, JsValue::from_str),
    );
    set(
        "line",
        e.line
            .map_or(JsValue::NULL, |l| JsValue::from_f64(l as f64)),
    );
    error.into()
}

/// `JSON.stringify` writes valid JSON, so only serde_json's nesting limit (128) can refuse it.
pub fn too_deep(what: &str, e: &serde_json::Error) -> Error {
    Error::new(
        ErrorKind::Syntax,
        format!("is nested too deeply to read ({e})"),
    )
    .in_field(what)
}
