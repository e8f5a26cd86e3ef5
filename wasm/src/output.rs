//! JSON text made into JavaScript values by the engine's own `JSON.parse`, in pieces when the text
//! is longer than one JavaScript string may be (V8: 2²⁹ − 24 characters; the response to a
//! million fraction asks is about 690 MB, 1.3 times that).

use gpu_share_core::{Error, ErrorKind};
use wasm_bindgen::JsValue;

/// The longest text given to `JSON.parse` at once: half V8's string limit, so that responses up to
/// a quarter of a million asks (about 67 MB at 100,000) are read in one call. Splitting costs a
/// scan of the text and a push per array item: at 64 MiB it took 120 ms of a 100,000-ask
/// `binPack`, whose response is just above that (BENCHMARKS.md, speed where users call it).
const CHUNK: usize = 256 << 20;

/// `text` (compact JSON, as serde_json writes it) as a JavaScript value.
pub fn parse(text: &str) -> Result<JsValue, Error> {
    parse_chunked(text, CHUNK)
}

pub(crate) fn parse_chunked(text: &str, chunk: usize) -> Result<JsValue, Error> {
    if text.len() <= chunk {
        return js_sys::JSON::parse(text).map_err(|_| unreadable());
    }
    match text.as_bytes().first() {
        Some(b'[') => array(&text[1..text.len() - 1], chunk),
        Some(b'{') => object(&text[1..text.len() - 1], chunk),
        // A string or number cannot be split (and is longer than any result has).
        _ => js_sys::JSON::parse(text).map_err(|_| unreadable()),
    }
}

fn unreadable() -> Error {
    Error::new(ErrorKind::TooLarge, "the result could not be read as JSON")
}

/// An array's items read a group at a time, each group at most `chunk` long (an item longer than
/// that alone, in pieces itself).
fn array(inner: &str, chunk: usize) -> Result<JsValue, Error> {
    let out = js_sys::Array::new();
    let items = top_level(inner, b',');
    let mut i = 0;
    while i < items.len() {
        let start = items[i].0;
        if items[i].1 - start > chunk {
            out.push(&parse_chunked(&inner[start..items[i].1], chunk)?);
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < items.len() && items[j + 1].1 - start <= chunk {
            j += 1;
        }
        let part = js_sys::JSON::parse(&format!("[{}]", &inner[start..items[j].1]))
            .map_err(|_| unreadable())?;
        for item in js_sys::Array::from(&part).iter() {
            out.push(&item);
        }
        i = j + 1;
    }
    Ok(out.into())
}

/// An object's members, each value read on its own (in pieces when it is longer than `chunk`).
fn object(inner: &str, chunk: usize) -> Result<JsValue, Error> {
    let out = js_sys::Object::new();
    for (start, end) in top_level(inner, b',') {
        let member = &inner[start..end];
        let colon = top_level(member, b':').first().map_or(0, |&(_, e)| e);
        let key: String = serde_json::from_str(&member[..colon]).map_err(|_| unreadable())?;
        let value = parse_chunked(&member[colon + 1..], chunk)?;
        define(&out, &key, &value)?;
    }
    Ok(out.into())
}

/// Gives `object` the own property `key`, as `JSON.parse` would: defined, not assigned, so a key
/// such as `__proto__` is a property and not the object's prototype.
fn define(object: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), Error> {
    let descriptor = js_sys::Object::new();
    for (name, v) in [
        ("value", value.clone()),
        ("writable", JsValue::TRUE),
        ("enumerable", JsValue::TRUE),
        ("configurable", JsValue::TRUE),
    ] {
        js_sys::Reflect::set(&descriptor, &JsValue::from_str(name), &v)
            .map_err(|_| unreadable())?;
    }
    js_sys::Object::define_property(object, &JsValue::from_str(key), &descriptor);
    Ok(())
}

/// The `(start, end)` byte ranges of `text` between the `separator`s outside strings and brackets.
/// (Searching for the next byte that matters, rather than matching every byte, is what makes a
/// pass over half a gigabyte take a second rather than several.)
fn top_level(text: &str, separator: u8) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    fn find(bytes: &[u8], from: usize, wanted: impl Fn(u8) -> bool) -> Option<usize> {
        let rest = bytes.get(from..)?;
        rest.iter().position(|&b| wanted(b)).map(|at| from + at)
    }
    let matters = |b: u8| matches!(b, b'"' | b'[' | b'{' | b']' | b'}') || b == separator;
    let (mut out, mut start, mut depth) = (Vec::new(), 0, 0usize);
    let mut at = find(bytes, 0, matters);
    while let Some(i) = at {
        let mut end = i;
        match bytes[i] {
            b'"' => {
                // Past the string: its closing quote is the first one not escaped.
                end += 1;
                while let Some(j) = find(bytes, end, |b| b == b'"' || b == b'\\') {
                    if bytes[j] == b'"' {
                        end = j;
                        break;
                    }
                    end = j + 2;
                }
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
        at = find(bytes, end + 1, matters);
    }
    if start < bytes.len() {
        out.push((start, bytes.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_top_level_separators_only() {
        let text = r#"{"a,b":[1,{"c":"]"}]},"x\"y",[[],[2,3]],4"#;
        let parts: Vec<&str> = top_level(text, b',')
            .iter()
            .map(|&(s, e)| &text[s..e])
            .collect();
        assert_eq!(
            parts,
            [r#"{"a,b":[1,{"c":"]"}]}"#, r#""x\"y""#, "[[],[2,3]]", "4"]
        );
        let member = r#""k:\"":{"a":1}"#;
        assert_eq!(top_level(member, b':')[0], (0, 6));
    }
}
