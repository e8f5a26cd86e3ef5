//! Core errors as JavaScript errors: `RangeError` for out-of-range values, `TypeError` for unreadable input.

use gpu_share_core::api::{Error, ErrorKind};
use wasm_bindgen::JsValue;

/// A JS error whose message is the core's (`field "fraction": must be greater than 0`), with `kind`,
/// `field` and `line` properties for programs.
pub fn to_js(e: &Error) -> JsValue {
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

/// An input that does not have the expected shape (a missing field, a string where a number goes).
pub fn shape(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Syntax, format!("invalid {what}: {e}"))
}
