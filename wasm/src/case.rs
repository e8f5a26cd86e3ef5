//! Key-case conversion between JavaScript (`supportsMig`) and the core's serde names (`supports_mig`).

use serde_json::{Map, Value};

/// Renames every object key from camelCase to snake_case, recursively.
pub fn to_snake(value: Value) -> Value {
    rename(value, &snake)
}

/// Renames every object key from snake_case to camelCase, recursively: the tree form of
/// [`camel_json_keys`], which the tests hold it to.
#[cfg(test)]
pub fn to_camel(value: Value) -> Value {
    rename(value, &camel)
}

/// `timeLimitMs` → `time_limit_ms`.
pub fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `config_name` → `configName`.
pub fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        match (c, upper) {
            ('_', _) => upper = true,
            (c, true) => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            (c, false) => out.push(c),
        }
    }
    out
}

/// The JSON text `serde_json` wrote, with every object key renamed as [`camel`] renames it: one
/// pass over the text, no tree (the output side of every export, where a tree per call cost more
/// than the planning for large results). Keys are the strings followed by `:`; `_` is never
/// escaped and [`camel`] only changes ASCII, so renaming the escaped text equals renaming the key.
pub fn camel_json_keys(json: &str) -> String {
    let bytes = json.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let end = string_end(bytes, i);
        let is_key = bytes.get(end + 1) == Some(&b':');
        if is_key {
            camel_bytes(&bytes[i..=end], &mut out);
        } else {
            out.extend_from_slice(&bytes[i..=end]);
        }
        i = end + 1;
    }
    // Only ASCII bytes were changed, so the text is still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// The index of the closing quote of the string starting at `start` (or the last byte).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut j = start + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'"' => return j,
            _ => j += 1,
        }
    }
    bytes.len().saturating_sub(1)
}

/// A quoted key, escapes and all, in camelCase: `_` dropped, the ASCII letter after it upper-cased.
fn camel_bytes(key: &[u8], out: &mut Vec<u8>) {
    let mut upper = false;
    let mut j = 0;
    while j < key.len() {
        let b = key[j];
        match b {
            b'_' => upper = true,
            b'\\' => {
                // An escape stands for one character; `camel` would not change it (not ASCII
                // alphanumeric: serde_json escapes only quotes, backslashes and control characters).
                out.extend_from_slice(&key[j..(j + 2).min(key.len())]);
                upper = false;
                j += 2;
                continue;
            }
            _ => {
                out.push(if upper { b.to_ascii_uppercase() } else { b });
                upper = false;
            }
        }
        j += 1;
    }
}

fn rename(value: Value, f: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (f(&k), rename(v, f)))
                .collect::<Map<_, _>>(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| rename(v, f)).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_keys_not_values() {
        let js = json!({"supportsMig": true, "migProfiles": ["1g.5gb"], "nested": [{"gpuCount": 2, "name": "a_b"}]});
        let snake = to_snake(js.clone());
        assert_eq!(
            snake,
            json!({"supports_mig": true, "mig_profiles": ["1g.5gb"], "nested": [{"gpu_count": 2, "name": "a_b"}]})
        );
        assert_eq!(to_camel(snake), js);
    }

    #[test]
    fn renaming_the_text_equals_renaming_the_tree() {
        let cases = [
            json!({"supports_mig": true, "a__b_": 1, "_x": [{"gpu_count": 2, "name": "a_b: \"q\"_z"}]}),
            json!([{"k_\"_q": "v_w", "k_\n_é_ü": {"deep_er": null}}, "plain_string", 1.5, -3]),
            json!({"ünï_cödé_ß": {"x_y": "\u{1}_a"}, "": {"_": "_"}}),
        ];
        for v in cases {
            let text = serde_json::to_string(&v).unwrap();
            let renamed: Value = serde_json::from_str(&camel_json_keys(&text)).unwrap();
            assert_eq!(renamed, to_camel(v.clone()), "{text}");
        }
    }
}
