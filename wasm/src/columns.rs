//! `binPackColumns`: many asks as typed arrays in, the packing as typed arrays out (the core's
//! `api::pack_columns`). A million asks as objects made `binPack` spend more time building and
//! reading objects than packing; here a column crosses as one copy of its numbers.
//!
//! In: `{fractions?, memory?, names?}` — a `Float64Array` (any numeric typed array, or an array of
//! numbers) of fractions and one of memory in bytes (0: not given for that ask), and names as an
//! array of strings (read as JSON text, as `binPack` reads asks). Out: the summary as `binPack`
//! returns objects, with `asks` and `gpus` objects of typed arrays beside it; `-1` is "none".

use gpu_share_core::api::{AskColumns, Error, ErrorKind, Mechanism, PackColumns, MAX_ASKS};
use js_sys::{
    Array, Float64Array, Int32Array, Int8Array, Object, Reflect, Uint32Array, Uint8Array,
};
use wasm_bindgen::{JsCast, JsValue};

/// The columns an input object may have.
const COLUMNS: [&str; 3] = ["fractions", "memory", "names"];

/// Reads the columns of `value`.
pub fn ask_columns(value: &JsValue) -> Result<AskColumns, Error> {
    let not_columns = |why: &str| {
        Err(Error::new(
            ErrorKind::Syntax,
            format!("must be an object of columns, {{fractions, memory, names}}{why}"),
        )
        .in_field("columns"))
    };
    if js_sys::ArrayBuffer::is_view(value) {
        return not_columns(": a typed array of fractions goes in fractions");
    }
    if Array::is_array(value) {
        return not_columns(" (an array of asks as objects goes to binPack)");
    }
    if !value.is_object() {
        return not_columns("");
    }
    for key in Object::keys(value.unchecked_ref::<Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if !COLUMNS.contains(&key.as_str()) {
            return Err(Error::new(
                ErrorKind::Syntax,
                "is not a column; the columns are fractions, memory and names",
            )
            .in_field(key));
        }
    }
    let get =
        |key: &str| Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
    let fractions = numbers(&get("fractions"), "fractions")?;
    let memory = numbers(&get("memory"), "memory")?;
    let names = names(get("names"))?;
    AskColumns::new(names, fractions.as_deref(), memory.as_deref())
}

/// A column of numbers (`None`: not given), its length checked before it is copied.
fn numbers(value: &JsValue, what: &str) -> Result<Option<Vec<f64>>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let too_long = |n: u32| {
        Error::new(
            ErrorKind::TooLarge,
            format!("has {n} values; the limit is {MAX_ASKS}"),
        )
        .in_field(what)
    };
    if let Some(array) = value.dyn_ref::<Float64Array>() {
        if array.length() as usize > MAX_ASKS {
            return Err(too_long(array.length()));
        }
        return Ok(Some(array.to_vec()));
    }
    if let Some(array) = value.dyn_ref::<Array>() {
        if array.length() as usize > MAX_ASKS {
            return Err(too_long(array.length()));
        }
        return array
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_f64().ok_or_else(|| {
                    Error::new(ErrorKind::Syntax, "must be a number")
                        .in_field(format!("{what}[{i}]"))
                })
            })
            .collect::<Result<Vec<f64>, Error>>()
            .map(Some);
    }
    if let Some(length) = numeric_typed_array_length(value) {
        if length as usize > MAX_ASKS {
            return Err(too_long(length));
        }
        return Ok(Some(Float64Array::new(value).to_vec()));
    }
    Err(Error::new(
        ErrorKind::Syntax,
        "must be a Float64Array (or another typed array of numbers, or an array of numbers)",
    )
    .in_field(what))
}

/// The length of a typed array whose values convert to `f64` (not a `BigInt64Array`).
fn numeric_typed_array_length(value: &JsValue) -> Option<u32> {
    macro_rules! length_of {
        ($($ty:ty),*) => {
            $(if let Some(a) = value.dyn_ref::<$ty>() { return Some(a.length()); })*
        };
    }
    length_of!(
        js_sys::Float32Array,
        Int32Array,
        Uint32Array,
        js_sys::Int16Array,
        js_sys::Uint16Array,
        Int8Array,
        Uint8Array,
        js_sys::Uint8ClampedArray
    );
    None
}

/// The names (`None`: not given): an array of strings.
fn names(value: JsValue) -> Result<Option<Vec<String>>, Error> {
    let Some(text) = crate::read::json_text(value, "names")? else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|_| Error::new(ErrorKind::Syntax, "must be an array of strings").in_field("names"))
}

/// `columns` as JavaScript: the summary as objects, the columns as typed arrays.
pub fn render(columns: &PackColumns) -> Result<JsValue, Error> {
    let out = crate::output(&columns.summary)?;
    let asks = &columns.asks;
    let gpu: Vec<i32> = asks
        .gpu
        .iter()
        .map(|g| g.map_or(-1, |g| g as i32))
        .collect();
    let profile: Vec<i8> = asks
        .mig_profile
        .iter()
        .map(|p| p.map_or(-1, |p| p as i8))
        .collect();
    let start: Vec<i8> = asks
        .mig_start
        .iter()
        .map(|s| s.map_or(-1, |s| s as i8))
        .collect();
    let allocated: Vec<f64> = asks.allocated.iter().map(|s| s.to_f64()).collect();
    set(
        &out,
        "asks",
        &object(&[
            ("gpu", Int32Array::from(&gpu[..]).into()),
            ("mechanism", codes(&asks.mechanism)),
            ("allocated", Float64Array::from(&allocated[..]).into()),
            ("migProfile", Int8Array::from(&profile[..]).into()),
            ("migStart", Int8Array::from(&start[..]).into()),
        ]),
    );
    let gpus = &columns.gpus;
    let used: Vec<f64> = gpus.used.iter().map(|s| s.to_f64()).collect();
    set(
        &out,
        "gpus",
        &object(&[
            ("mechanism", codes(&gpus.mechanism)),
            ("used", Float64Array::from(&used[..]).into()),
            ("asks", Uint32Array::from(&gpus.asks[..]).into()),
            ("askStart", Uint32Array::from(&gpus.ask_start[..]).into()),
        ]),
    );
    Ok(out)
}

/// Mechanisms as codes of the summary's `mechanisms` legend ([`Mechanism::ALL`]).
fn codes(mechanisms: &[Mechanism]) -> JsValue {
    let codes: Vec<u8> = mechanisms
        .iter()
        .map(|m| {
            Mechanism::ALL
                .iter()
                .position(|a| a == m)
                .unwrap_or_default() as u8
        })
        .collect();
    Uint8Array::from(&codes[..]).into()
}

fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let o: JsValue = Object::new().into();
    for (key, value) in fields {
        set(&o, key, value);
    }
    o
}

fn set(target: &JsValue, key: &str, value: &JsValue) {
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}
