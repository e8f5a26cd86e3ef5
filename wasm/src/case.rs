//! Key-case conversion between JavaScript (`supportsMig`) and the core's serde names (`supports_mig`).

use serde::Serialize;
use serde_json::ser::{CharEscape, CompactFormatter, Formatter};
use serde_json::{Map, Value};
use std::io::{self, Write};

/// Renames every object key from camelCase to snake_case, recursively.
pub fn to_snake(value: Value) -> Value {
    rename(value, &snake)
}

/// Renames every object key from snake_case to camelCase, recursively: the tree form of
/// [`camel_json`], which the tests hold it to.
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

/// `value`'s JSON text with every object key renamed as [`camel`] renames it, written in one
/// pass: the keys are renamed as `serde_json` writes them, with no tree and no second pass over
/// the text (the output side of every export, where either cost more than the planning for large
/// results).
pub fn camel_json<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(4096);
    value.serialize(&mut serde_json::Serializer::with_formatter(
        &mut out,
        CamelKeys::default(),
    ))?;
    // serde_json writes UTF-8, and the formatter changes ASCII bytes only.
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// Compact JSON with object keys in camelCase: `_` dropped, the letter after it upper-cased. A key
/// reaches the formatter in fragments split at escapes; an escape stands for one character, which
/// [`camel`] would not change (serde_json escapes only quotes, backslashes and control characters)
/// but which ends the `_` before it.
#[derive(Default)]
struct CamelKeys {
    in_key: bool,
    upper: bool,
}

impl Formatter for CamelKeys {
    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.in_key = true;
        self.upper = false;
        CompactFormatter.begin_object_key(writer, first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.in_key = false;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !self.in_key {
            return writer.write_all(fragment.as_bytes());
        }
        // The runs between underscores, each one's first byte upper-cased after an underscore.
        for (i, run) in fragment.as_bytes().split(|&b| b == b'_').enumerate() {
            self.upper |= i > 0;
            if let Some((&first, rest)) = run.split_first() {
                let first = if self.upper {
                    first.to_ascii_uppercase()
                } else {
                    first
                };
                writer.write_all(&[first])?;
                writer.write_all(rest)?;
                self.upper = false;
            }
        }
        Ok(())
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        char_escape: CharEscape,
    ) -> io::Result<()> {
        self.upper = false;
        CompactFormatter.write_char_escape(writer, char_escape)
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
    fn renaming_while_writing_equals_renaming_the_tree() {
        let cases = [
            json!({"supports_mig": true, "a__b_": 1, "_x": [{"gpu_count": 2, "name": "a_b: \"q\"_z"}]}),
            json!([{"k_\"_q": "v_w", "k_\n_é_ü": {"deep_er": null}}, "plain_string", 1.5, -3]),
            json!({"ünï_cödé_ß": {"x_y": "\u{1}_a"}, "": {"_": "_"}}),
        ];
        for v in cases {
            let text = camel_json(&v).unwrap();
            let renamed: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(renamed, to_camel(v.clone()), "{text}");
        }
    }

    #[test]
    fn every_short_key_is_renamed_as_the_tree_renames_it() {
        // Every key of up to four characters over letters, underscores, escaped and non-ASCII
        // characters: the fragments serde_json splits a key into meet every case.
        let alphabet = ['a', 'Z', '_', '"', '\n', '\\', 'é', '1'];
        let mut keys = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = keys
                .iter()
                .filter(|k| k.chars().count() == keys.last().map_or(0, |l| l.chars().count()))
                .flat_map(|k| alphabet.iter().map(move |c| format!("{k}{c}")))
                .collect();
            keys.extend(longer);
        }
        assert_eq!(keys.len(), 1 + 8 + 64 + 512 + 4096);
        for key in keys {
            let value = json!({ key.clone(): { key.clone(): key.clone() } });
            let written: Value = serde_json::from_str(&camel_json(&value).unwrap()).unwrap();
            assert_eq!(written, to_camel(value), "{key:?}");
        }
    }
}
