//! A list of asks read straight from its JSON text by the core's [`AskReader`], keys renamed from
//! camelCase as they are met: reading it into a `serde_json::Value` first built a map for every
//! ask, and a million asks spent more time allocating those than packing (BENCHMARKS.md, speed
//! where users call it). The errors are those of the core's `FractionalAsk::from_json`, in field
//! `asks[i]`. A list of plain `{name, fraction}` objects, the common shape, skips the JSON: it
//! crosses as two columns ([`fraction_list`]).

use crate::case;
use gpu_share_core::api::{AskColumns, AskReader, Error, ErrorKind, FractionalAsk, Share};
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/transfer.js")]
extern "C" {
    /// A list's names and fractions when every ask is a plain `{name, fraction}`.
    type FractionColumns;

    #[wasm_bindgen(js_name = fractionColumns)]
    fn fraction_columns(asks: &JsValue) -> Option<FractionColumns>;

    /// The names as a JSON array.
    #[wasm_bindgen(method, getter)]
    fn names(this: &FractionColumns) -> js_sys::JsString;

    #[wasm_bindgen(method, getter)]
    fn fractions(this: &FractionColumns) -> Vec<f64>;
}

/// The asks of a list of plain `{name, fraction}` objects, read as columns (the core's
/// [`AskColumns`], which makes each ask as the JSON reader would: `FractionalAsk::fraction` of
/// the name and `Share::from_f64` of the number); `None` for any other list and for one with an
/// ask that is wrong, which [`read`] then reads from its JSON and whose error it names as for
/// any list.
pub fn fraction_list(asks: &JsValue) -> Option<Vec<FractionalAsk>> {
    let columns = fraction_columns(asks)?;
    let names = String::from_utf8(crate::utf8(&columns.names())).ok()?;
    let names: Vec<String> = serde_json::from_str(&names).ok()?;
    let fractions = columns.fractions();
    AskColumns::new(Some(names), Some(&fractions), None)
        .ok()
        .map(AskColumns::into_asks)
}

/// The asks of `text`, the JSON of the `asks` argument (`None`: not given).
pub fn read(text: Option<&str>) -> Result<Vec<FractionalAsk>, Error> {
    let mut failed = None;
    let read = match text {
        None => Ok(Err(missing())),
        Some(text) => {
            let mut json = serde_json::Deserializer::from_str(text);
            de::Deserializer::deserialize_any(
                &mut json,
                List {
                    failed: &mut failed,
                },
            )
        }
    };
    match (failed, read) {
        (Some(e), _) => Err(e),
        (None, Ok(asks)) => asks,
        (None, Err(e)) => Err(crate::error::too_deep("asks", &e)),
    }
}

fn missing() -> Error {
    Error::new(ErrorKind::Syntax, "asks is missing").in_field("asks")
}

fn not_a_list() -> Error {
    Error::new(ErrorKind::Syntax, "must be an array of asks").in_field("asks")
}

/// A key as the core names it: `migProfile` → `mig_profile`.
fn snake_key(key: &str) -> Option<String> {
    key.bytes()
        .any(|b| b.is_ascii_uppercase())
        .then(|| case::snake(key))
}

/// The list; an ask's error is kept in `failed` and stops the reading.
struct List<'a> {
    failed: &'a mut Option<Error>,
}

impl<'de> Visitor<'de> for List<'_> {
    type Value = Result<Vec<FractionalAsk>, Error>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of asks")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut asks = Vec::new();
        while let Some(ask) = seq.next_element_seed(AskReader { rename: snake_key })? {
            match ask {
                Ok(ask) => asks.push(ask),
                Err(e) => {
                    *self.failed = Some(e.in_field(format!("asks[{}]", asks.len())));
                    return Err(de::Error::custom("an ask is wrong"));
                }
            }
        }
        Ok(Ok(asks))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Err(not_a_list()))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err(missing()))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err(not_a_list()))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err(not_a_list()))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err(not_a_list()))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err(not_a_list()))
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err(not_a_list()))
    }
}

/// The check of `new FractionalAsk(name, {fraction})`, the README's shape, without a round trip
/// through objects: the fraction as the core holds it (made by [`AskColumns`], as the JSON reader
/// makes it), or `None` when the ask is refused or would not keep its name as given (the
/// constructor then takes the general path, which throws the core's own error).
pub fn checked_fraction(name: String, fraction: f64) -> Option<f64> {
    let asks = AskColumns::new(Some(vec![name.clone()]), Some(&[fraction]), None)
        .ok()?
        .into_asks();
    let ask = asks.first().filter(|a| a.name() == name)?;
    // What `checkAsk` returns as `fraction`: the share as it serialises.
    ask.requested_fraction().map(Share::to_f64)
}
