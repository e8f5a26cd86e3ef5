//! Asks in JSON: `{"name": "a", "fraction": 0.5}`, with `"memory"` or as `"mig_profile"`, read
//! from a `serde_json::Value` ([`FractionalAsk::from_json`]) or straight from a JSON reader
//! ([`AskReader`]), with the same rules and errors either way.

use super::{AskSize, FractionalAsk};
use crate::error::{Error, ErrorKind, Result};
use crate::memory::Memory;
use crate::units::Share;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// An ask's fields as JSON values, keys as the core names them; `None` for a key not given.
#[derive(Clone, Copy, Default)]
pub struct JsonAskFields<'a> {
    pub name: Option<&'a Value>,
    pub fraction: Option<&'a Value>,
    pub memory: Option<&'a Value>,
    pub mig_profile: Option<&'a Value>,
    /// `profile`, read as `mig_profile` when that is not given.
    pub profile: Option<&'a Value>,
}

fn shape(message: &str) -> Error {
    Error::new(ErrorKind::Syntax, message.to_string())
}

fn not_an_object() -> Error {
    shape("an ask must be an object such as {\"name\": \"a\", \"fraction\": 0.5}")
}

/// The error for the key `key` no ask has.
fn unknown_key(key: &str) -> Error {
    shape(&format!(
        "unknown field {key:?}; expected name, fraction, memory or mig_profile"
    ))
    .in_field(key)
}

fn is_ask_key(key: &str) -> bool {
    matches!(
        key,
        "name" | "fraction" | "memory" | "mig_profile" | "profile"
    )
}

impl FractionalAsk {
    /// Reads the JSON shape `{"name": "a", "fraction": 0.5}` (a number, or text such as `"1/3"`),
    /// with or without `"memory": "12GiB"` (text with a unit, or a whole number of bytes), or
    /// `{"name": "x", "mig_profile": "3g.20gb"}`, keeping the core's error kinds and fields.
    ///
    /// # Errors
    /// `Syntax` for a wrong shape or unknown key (the first in sorted order); the constructors'
    /// errors otherwise.
    pub fn from_json(value: &Value) -> Result<Self> {
        let Value::Object(map) = value else {
            return Err(not_an_object());
        };
        if let Some(key) = map.keys().find(|k| !is_ask_key(k)) {
            return Err(unknown_key(key));
        }
        FractionalAsk::from_json_fields(JsonAskFields {
            name: map.get("name"),
            fraction: map.get("fraction"),
            memory: map.get("memory"),
            mig_profile: map.get("mig_profile"),
            profile: map.get("profile"),
        })
    }

    /// The ask of `fields` (see [`from_json`](FractionalAsk::from_json); a `null` is a key not
    /// given).
    ///
    /// # Errors
    /// As [`from_json`](FractionalAsk::from_json), but for unknown keys, which have no field here.
    pub fn from_json_fields(fields: JsonAskFields<'_>) -> Result<Self> {
        let name = match fields.name {
            Some(Value::String(n)) => n.as_str(),
            None | Some(Value::Null) => "",
            Some(_) => return Err(shape("must be a string").in_field("name")),
        };
        let fraction = given(fields.fraction);
        let profile = given(fields.mig_profile.or(fields.profile));
        let memory = match given(fields.memory) {
            None => None,
            Some(v) => Some(memory_from_json(v).map_err(|e| e.in_field("memory"))?),
        };
        let share = |f: &Value| Share::from_json(f).map_err(|e| e.in_field("fraction"));
        match (fraction, profile, memory) {
            (Some(f), None, None) => FractionalAsk::fraction(name, share(f)?),
            (Some(f), None, Some(m)) => FractionalAsk::fraction_and_memory(name, share(f)?, m),
            (None, None, Some(m)) => FractionalAsk::memory_only(name, m),
            (None, Some(_), Some(_)) => Err(shape(&format!(
                "ask {name:?} gives memory and a MIG profile; a profile brings its own memory"
            ))
            .in_field("memory")),
            (None, Some(Value::String(p)), None) => FractionalAsk::mig(name, p),
            (None, Some(_), None) => {
                Err(shape("must be a string such as \"3g.20gb\"").in_field("mig_profile"))
            }
            (Some(_), Some(_), _) => Err(shape(&format!(
                "ask {name:?} gives both a fraction and a MIG profile; give one"
            ))),
            (None, None, None) => Err(shape(&format!(
                "ask {name:?} needs a fraction, memory or a mig_profile"
            ))),
        }
    }
}

/// A value given: a key with `null` is not.
fn given(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| !v.is_null())
}

/// Memory in JSON: text with a unit (`"12GiB"`) or a whole number of bytes.
fn memory_from_json(value: &Value) -> Result<Memory> {
    match value {
        Value::String(t) => Memory::parse(t),
        Value::Number(n) => match n.as_u64() {
            Some(bytes) => Memory::from_bytes(bytes),
            None => Err(Error::new(
                ErrorKind::OutOfRange,
                format!("{n} is not a whole number of bytes"),
            )),
        },
        _ => Err(shape(
            "must be text such as \"12GiB\" or a whole number of bytes",
        )),
    }
}

/// Reads one ask straight from a JSON reader, as [`FractionalAsk::from_json`] reads it from a
/// `Value`, without building a map of its keys (a million-ask list read through `Value` spent
/// more time allocating maps than packing: BENCHMARKS.md). `rename` gives a key's core name when
/// the caller's JSON names it otherwise (`None`: as it is). What the JSON says wrongly is the
/// inner `Err`; the outer one is the reader's own (not JSON, nested too deeply).
pub struct AskReader<R> {
    pub rename: R,
}

impl<'de, R: Fn(&str) -> Option<String>> DeserializeSeed<'de> for AskReader<R> {
    type Value = Result<FractionalAsk>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, R: Fn(&str) -> Option<String>> Visitor<'de> for AskReader<R> {
    type Value = Result<FractionalAsk>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an ask")
    }

    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let (mut name, mut fraction, mut memory, mut mig_profile, mut profile) =
            (None, None, None, None, None);
        // The first unknown key in sorted order, as `from_json` names it.
        let mut unknown: Option<String> = None;
        while let Some(Key(key)) = map.next_key()? {
            let key = (self.rename)(&key).map_or(key, Cow::Owned);
            let slot = match key.as_ref() {
                "name" => &mut name,
                "fraction" => &mut fraction,
                "memory" => &mut memory,
                "mig_profile" => &mut mig_profile,
                "profile" => &mut profile,
                other => {
                    if unknown.as_deref().is_none_or(|u| other < u) {
                        unknown = Some(other.to_string());
                    }
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value::<Value>()?);
        }
        if let Some(key) = unknown {
            return Ok(Err(unknown_key(&key)));
        }
        Ok(FractionalAsk::from_json_fields(JsonAskFields {
            name: name.as_ref(),
            fraction: fraction.as_ref(),
            memory: memory.as_ref(),
            mig_profile: mig_profile.as_ref(),
            profile: profile.as_ref(),
        }))
    }

    fn visit_seq<A: SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Err(not_an_object()))
    }

    fn visit_bool<E>(self, _: bool) -> std::result::Result<Self::Value, E> {
        Ok(Err(not_an_object()))
    }

    fn visit_i64<E>(self, _: i64) -> std::result::Result<Self::Value, E> {
        Ok(Err(not_an_object()))
    }

    fn visit_u64<E>(self, _: u64) -> std::result::Result<Self::Value, E> {
        Ok(Err(not_an_object()))
    }

    fn visit_f64<E>(self, _: f64) -> std::result::Result<Self::Value, E> {
        Ok(Err(not_an_object()))
    }

    fn visit_str<E>(self, _: &str) -> std::result::Result<Self::Value, E> {
        Ok(Err(not_an_object()))
    }

    fn visit_unit<E>(self) -> std::result::Result<Self::Value, E> {
        Ok(Err(not_an_object()))
    }
}

/// An object key, borrowed from the JSON text when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl Serialize for FractionalAsk {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("FractionalAsk", 3)?;
        st.serialize_field("name", &self.name)?;
        match &self.size {
            AskSize::Fraction(f) => st.serialize_field("fraction", f)?,
            AskSize::MigProfile(p) => st.serialize_field("mig_profile", p)?,
            AskSize::Memory(m) => st.serialize_field("memory", &m.to_exact_text())?,
            AskSize::FractionAndMemory(f, m) => {
                st.serialize_field("fraction", f)?;
                st.serialize_field("memory", &m.to_exact_text())?;
            }
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for FractionalAsk {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        AskReader {
            rename: |_: &str| None,
        }
        .deserialize(d)?
        .map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// What `AskReader` reads from `value`'s text.
    fn streamed(value: &Value) -> Result<FractionalAsk> {
        let text = value.to_string();
        let mut reader = serde_json::Deserializer::from_str(&text);
        AskReader {
            rename: |_: &str| None,
        }
        .deserialize(&mut reader)
        .expect("the text is JSON")
    }

    fn field_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            Just(json!("a")),
            Just(json!(" b ")),
            Just(json!("")),
            Just(json!("1/3")),
            Just(json!("0")),
            Just(json!("12GiB")),
            Just(json!("lots")),
            Just(json!("3g.20gb")),
            Just(json!("1g.5gb+me")),
            Just(json!(0.25)),
            Just(json!(2)),
            Just(json!(-1)),
            Just(json!(12_884_901_888u64)),
            Just(json!(true)),
            Just(json!([1, {"x": null}])),
            Just(json!({"name": "n"})),
        ]
    }

    fn ask_value() -> impl Strategy<Value = Value> {
        let key = prop_oneof![
            Just("name"),
            Just("fraction"),
            Just("memory"),
            Just("mig_profile"),
            Just("profile"),
            Just("zeta"),
            Just("alpha"),
            Just("Name"),
        ];
        prop_oneof![
            4 => prop::collection::btree_map(key, field_value(), 0..5)
                .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
            1 => field_value(),
        ]
    }

    proptest! {
        /// Streaming and reading a `Value` accept the same asks and refuse the rest alike.
        #[test]
        fn the_reader_agrees_with_from_json(value in ask_value()) {
            prop_assert_eq!(streamed(&value), FractionalAsk::from_json(&value), "{}", value);
        }
    }

    #[test]
    fn the_reader_renames_keys_and_names_the_first_unknown_one() {
        let text = r#"{"zz": 1, "Fraction": 0.5, "name": "a", "b": 2}"#;
        let read = |rename: fn(&str) -> Option<String>| {
            let mut reader = serde_json::Deserializer::from_str(text);
            AskReader { rename }.deserialize(&mut reader).unwrap()
        };
        let unknown = read(|_| None).unwrap_err();
        assert_eq!(unknown.field.as_deref(), Some("Fraction"), "{unknown}");
        let renamed = read(|k| Some(k.to_ascii_lowercase())).unwrap_err();
        assert_eq!(renamed.field.as_deref(), Some("b"), "{renamed}");
    }
}
