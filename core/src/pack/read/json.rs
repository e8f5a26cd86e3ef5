//! Small readers of JSON values for `read.rs`: each says what it expected, and every error names
//! its field as a path (`gpus[2].slots[0].share`).

use crate::error::{Error, ErrorKind, Result};
use crate::units::Share;
use serde_json::{Map, Value};

/// A value of the wrong shape.
pub(super) fn syntax(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Syntax, message)
}

/// A value of the right shape that breaks a rule.
pub(super) fn range(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::OutOfRange, message)
}

pub(super) fn object<'v>(v: &'v Value, what: &str) -> Result<&'v Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| syntax(format!("{what} must be an object")))
}

/// Refuses any key not in `allowed`, naming it.
pub(super) fn keys(map: &Map<String, Value>, allowed: &[&str]) -> Result<()> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(syntax(format!(
            "unknown field {key:?}; expected {}",
            allowed.join(", ")
        ))
        .in_field(key.as_str())),
        None => Ok(()),
    }
}

/// The value at `key`, which must be there.
pub(super) fn get<'v>(map: &'v Map<String, Value>, key: &str) -> Result<&'v Value> {
    map.get(key)
        .ok_or_else(|| syntax("is missing").in_field(key))
}

/// The value at `key` unless it is missing or null.
pub(super) fn opt<'v>(map: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    map.get(key).filter(|v| !v.is_null())
}

pub(super) fn string(v: &Value) -> Result<&str> {
    v.as_str().ok_or_else(|| syntax("must be a string"))
}

/// A whole number from 0.
pub(super) fn count(v: &Value) -> Result<u64> {
    v.as_u64()
        .ok_or_else(|| syntax(format!("must be a whole number from 0, got {v}")))
}

/// A share of a GPU, exactly as the core wrote it (see [`Share::from_json`]).
pub(super) fn share(v: &Value) -> Result<Share> {
    Share::from_json(v)
}

/// The array at one key, at most `max` items long.
pub(super) struct Fields<'v> {
    key: &'v str,
    items: &'v [Value],
}

impl<'v> Fields<'v> {
    pub(super) fn at(map: &'v Map<String, Value>, key: &'v str, max: usize) -> Result<Self> {
        let items = get(map, key)?
            .as_array()
            .ok_or_else(|| syntax("must be an array").in_field(key))?;
        if items.len() > max {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!("has {} items; the limit is {max}", items.len()),
            )
            .in_field(key));
        }
        Ok(Fields { key, items })
    }

    /// Each item read by `f`, an error naming the item (`gpus[3]`).
    pub(super) fn read<T>(&self, f: impl Fn(&Value) -> Result<T>) -> Result<Vec<T>> {
        self.items
            .iter()
            .enumerate()
            .map(|(i, v)| f(v).map_err(|e| e.in_field(format!("{}[{i}]", self.key))))
            .collect()
    }
}
