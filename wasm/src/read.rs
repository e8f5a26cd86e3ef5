//! JavaScript arguments read as parts of the core's requests: text refused by its length before it
//! is copied, values through `JSON.stringify` (what JSON cannot say reads as JSON says it; a value
//! that contains itself or nests too deeply is an error, never a stack overflow in WebAssembly),
//! their keys made snake_case and read by the request type's own serde reader; an error names the
//! place of the value (`options.context`). Whole numbers that JavaScript holds as floats (a GPU
//! count, Unix seconds) are checked as whole numbers here, against the core's limits.

use crate::error::too_deep;
use crate::{asks, case, utf8};
use gpu_share_core::api::{self, Error, ErrorKind, FractionalAsk, MAX_ASKS, MAX_INPUT_BYTES};
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::Segment;
use wasm_bindgen::{JsCast, JsValue};

/// The longest JSON text one input may be: every ask of a list of [`MAX_ASKS`] with a long name,
/// well below V8's longest string (2²⁹ characters).
const MAX_JSON_CHARS: u32 = 256 << 20;

/// Text from JavaScript, refused by its length before it is copied into WebAssembly memory when
/// it is surely above [`MAX_INPUT_BYTES`] (its UTF-8 is at least as long as its UTF-16 length);
/// the core checks the exact byte count of the rest.
pub fn text_of(value: &JsValue, what: &str) -> Result<String, Error> {
    let Some(text) = value.dyn_ref::<js_sys::JsString>() else {
        return Err(Error::new(ErrorKind::Syntax, "must be a string").in_field(what));
    };
    let length = text.length() as usize;
    if length > MAX_INPUT_BYTES {
        return Err(api::too_large(what, api::Oversize::Characters(length as u64)).in_field(what));
    }
    Ok(String::from(text))
}

/// An array longer than [`MAX_ASKS`], refused before it is converted.
pub fn check_length(value: &JsValue, what: &str) -> Result<(), Error> {
    if let Some(array) = value.dyn_ref::<js_sys::Array>() {
        let length = array.length() as usize;
        if length > MAX_ASKS {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!("{what} has {length} items; the limit is {MAX_ASKS}"),
            )
            .in_field(what));
        }
    }
    Ok(())
}

/// `value` as JSON (`null` for `undefined` and `null`).
pub fn json_of(value: JsValue, what: &str) -> Result<Value, Error> {
    match json_text(value, what)? {
        None => Ok(Value::Null),
        Some(text) => serde_json::from_str(&text).map_err(|e| too_deep(what, &e)),
    }
}

/// The JSON text of `value` (`None` for `undefined` and `null`), as [`json_of`] reads it.
pub fn json_text(value: JsValue, what: &str) -> Result<Option<String>, Error> {
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

/// Argument `what`, which must be given, read as the request's part `T`.
pub fn arg<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, Error> {
    match json_of(value, what)? {
        Value::Null => {
            Err(Error::new(ErrorKind::Syntax, format!("{what} is missing")).in_field(what))
        }
        json => read(case::to_snake(json), what),
    }
}

/// Argument `what` read as `T`, or `T`'s default when it is not given.
pub fn arg_or_default<T: DeserializeOwned + Default>(
    value: JsValue,
    what: &str,
) -> Result<T, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    arg(value, what)
}

/// `json` read as `T`; a value of the wrong shape is named by its place in `what`.
pub fn read<T: DeserializeOwned>(json: Value, what: &str) -> Result<T, Error> {
    serde_path_to_error::deserialize(json).map_err(|e| {
        let message = e.inner().to_string();
        let mut segments: Vec<_> = e.path().iter().collect();
        // An unknown key's path ends at the key; the error is the object's, which holds it.
        if message.starts_with("unknown field") {
            segments.pop();
        }
        let mut field = what.to_string();
        for segment in segments {
            match segment {
                Segment::Seq { index } => field.push_str(&format!("[{index}]")),
                Segment::Map { key } => field.push_str(&format!(".{key}")),
                Segment::Enum { variant } => field.push_str(&format!(".{variant}")),
                Segment::Unknown => field.push_str(".?"),
            }
        }
        Error::new(ErrorKind::Syntax, format!("invalid {what}: {message}")).in_field(field)
    })
}

/// An ask from JavaScript, with the core's own error kinds (so `fraction: 0` is a `RangeError`).
pub fn ask_of(value: JsValue) -> Result<FractionalAsk, Error> {
    let json = case::to_snake(json_of(value, "ask")?);
    if json.is_null() {
        return Err(Error::new(ErrorKind::Syntax, "ask is missing").in_field("ask"));
    }
    FractionalAsk::from_json(&json)
}

/// A list of asks: plain `{name, fraction}` objects as two columns, any other list ask by ask from
/// its JSON (`asks.rs`).
pub fn asks_of(value: JsValue) -> Result<Vec<FractionalAsk>, Error> {
    check_length(&value, "asks")?;
    if let Some(asks) = asks::fraction_list(&value) {
        return Ok(asks);
    }
    asks::read(json_text(value, "asks")?.as_deref())
}

/// A whole number from JavaScript (a count, Unix seconds) in `min..=max`: JavaScript holds it
/// as a float.
pub fn whole(value: f64, what: &str, min: f64, max: f64) -> Result<f64, Error> {
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

/// Unix seconds from JavaScript, within the ledger's ±[`api::MAX_UNIX_SECONDS`].
pub fn unix(value: f64, what: &str) -> Result<i64, Error> {
    let max = api::MAX_UNIX_SECONDS as f64;
    whole(value, what, -max, max).map(|s| s as i64)
}

/// A GPU limit from JavaScript: a whole number, or null/undefined for as many as needed.
pub fn gpu_count_of(gpu_count: &JsValue) -> Result<Option<u64>, Error> {
    Ok(match gpu_count.as_f64() {
        Some(n) => Some(whole(n, "gpuCount", 1.0, api::MAX_GPU_COUNT as f64)? as u64),
        None if gpu_count.is_undefined() || gpu_count.is_null() => None,
        None => {
            return Err(
                Error::new(ErrorKind::Syntax, "must be a number or null").in_field("gpuCount")
            )
        }
    })
}
