//! Typed reads of config.json fields, each refusing what is missing, of the wrong type or beyond
//! its limit with an error naming the field (`num_key_value_heads`; the caller adds `config.`).

use crate::error::{Error, ErrorKind, Result};
use serde_json::{Map, Value};

/// One JSON object of a config.json (the file itself, or its `quantization_config`).
pub(crate) struct Fields<'a> {
    map: &'a Map<String, Value>,
    /// The path of this object inside the config (`""` or `quantization_config.`).
    prefix: &'static str,
}

impl<'a> Fields<'a> {
    pub fn new(map: &'a Map<String, Value>, prefix: &'static str) -> Self {
        Fields { map, prefix }
    }

    /// The value of `key`; JSON `null` counts as absent, as transformers reads it.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// An error about `key`, its field named as a path (`quantization_config.bits`).
    pub fn error(&self, key: &str, kind: ErrorKind, message: impl Into<String>) -> Error {
        Error::new(kind, message).in_field(format!("{}{key}", self.prefix))
    }

    /// A required whole number in `1..=max`; `why` says what it is needed for.
    pub fn count(&self, key: &str, max: u64, why: &str) -> Result<u64> {
        self.optional_count(key, max)?
            .ok_or_else(|| self.error(key, ErrorKind::Syntax, format!("missing: {why}")))
    }

    /// An optional whole number in `1..=max`.
    pub fn optional_count(&self, key: &str, max: u64) -> Result<Option<u64>> {
        self.whole(key, 1, max)
    }

    /// An optional whole number in `min..=max`.
    pub fn whole(&self, key: &str, min: u64, max: u64) -> Result<Option<u64>> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let n = value.as_u64().ok_or_else(|| {
            let kind = if value.is_number() {
                ErrorKind::OutOfRange
            } else {
                ErrorKind::Syntax
            };
            self.error(key, kind, format!("must be a whole number, got {value}"))
        })?;
        if !(min..=max).contains(&n) {
            return Err(self.error(
                key,
                ErrorKind::OutOfRange,
                format!("must be from {min} to {max}, got {n}"),
            ));
        }
        Ok(Some(n))
    }

    /// An optional `true`/`false`, `default` when absent.
    pub fn flag(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(self.error(
                key,
                ErrorKind::Syntax,
                format!("must be true or false, got {other}"),
            )),
        }
    }

    /// An optional string.
    pub fn text(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.error(
                key,
                ErrorKind::Syntax,
                format!("must be a string, got {other}"),
            )),
        }
    }

    /// An optional list of whole numbers in `0..max` (layer indices).
    pub fn indices(&self, key: &str, max: u64) -> Result<Vec<u64>> {
        let Some(value) = self.get(key) else {
            return Ok(Vec::new());
        };
        let bad = || {
            self.error(
                key,
                ErrorKind::Syntax,
                format!("must be a list of layer indices below {max}"),
            )
        };
        let list = value.as_array().ok_or_else(bad)?;
        list.iter()
            .map(|v| v.as_u64().filter(|&n| n < max).ok_or_else(bad))
            .collect()
    }

    /// The object at `key`, if there is one.
    pub fn object(&self, key: &str) -> Result<Option<&'a Map<String, Value>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(_) => Err(self.error(key, ErrorKind::Syntax, "must be an object")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str) -> Map<String, Value> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn refuses_what_is_not_a_count() {
        let m = map(r#"{"a": 4096, "b": "4096", "c": -1, "d": 1.5, "e": 0, "n": null}"#);
        let f = Fields::new(&m, "");
        assert_eq!(f.count("a", 1 << 20, "x").unwrap(), 4096);
        assert_eq!(f.count("b", 9, "x").unwrap_err().kind, ErrorKind::Syntax);
        assert_eq!(
            f.count("c", 9, "x").unwrap_err().kind,
            ErrorKind::OutOfRange
        );
        assert_eq!(
            f.count("d", 9, "x").unwrap_err().kind,
            ErrorKind::OutOfRange
        );
        assert_eq!(
            f.count("e", 9, "x").unwrap_err().kind,
            ErrorKind::OutOfRange
        );
        assert_eq!(
            f.count("a", 9, "x").unwrap_err().kind,
            ErrorKind::OutOfRange
        );
        let missing = f.count("n", 9, "the layers").unwrap_err();
        assert_eq!(missing.field.as_deref(), Some("n"));
        assert_eq!(missing.message, "missing: the layers");
    }

    #[test]
    fn names_the_path_inside_an_inner_object() {
        let m = map(r#"{"bits": "four"}"#);
        let f = Fields::new(&m, "quantization_config.");
        let e = f.count("bits", 8, "x").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("quantization_config.bits"));
    }
}
