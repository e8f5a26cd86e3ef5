//! A record of named text fields as JSON (`{"pue":"1.2","cost":""}`): how the page keeps what the
//! user typed in a form between visits (its accounting rates and export choices, in localStorage).
//! What each field says is checked by the core's use case it belongs to, as if typed.

use gpu_share_core::api::{Error, ErrorKind, Result};
use serde_json::{Map, Value};

/// The longest record read back: anything longer was not written as one.
pub const MAX_RECORD_BYTES: usize = 4096;

/// The record of these fields, in their order.
pub fn write_fields(fields: &[(&str, &str)]) -> String {
    let object: Map<String, Value> = fields
        .iter()
        .map(|&(key, text)| (key.to_string(), Value::String(text.to_string())))
        .collect();
    Value::Object(object).to_string()
}

/// The text of each of `keys` in a record (`None` where the record has no such field); fields
/// not asked for are ignored.
///
/// # Errors
/// `TooLarge` past [`MAX_RECORD_BYTES`]; `Syntax` for text that is not a JSON object, or a field
/// asked for whose value is not text (in that field).
pub fn read_fields<const N: usize>(text: &str, keys: [&str; N]) -> Result<[Option<String>; N]> {
    if text.len() > MAX_RECORD_BYTES {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("longer than {MAX_RECORD_BYTES} bytes"),
        ));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Error::new(ErrorKind::Syntax, format!("not JSON: {e}")))?;
    let object = value
        .as_object()
        .ok_or_else(|| Error::new(ErrorKind::Syntax, "not a JSON object"))?;
    let mut out = [const { None }; N];
    for (slot, key) in out.iter_mut().zip(keys) {
        *slot = match object.get(key) {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                return Err(
                    Error::new(ErrorKind::Syntax, format!("{key} is not text")).in_field(key)
                )
            }
        };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written() {
        let text = write_fields(&[("pue", "1.2"), ("cost", ""), ("name", "a \"b\"\n")]);
        let [pue, cost, name, missing] =
            read_fields(&text, ["pue", "cost", "name", "grid"]).unwrap();
        assert_eq!(pue.as_deref(), Some("1.2"));
        assert_eq!(cost.as_deref(), Some(""));
        assert_eq!(name.as_deref(), Some("a \"b\"\n"));
        assert_eq!(missing, None);
    }

    #[test]
    fn what_is_not_a_record_of_text_is_refused() {
        let [a, b] = read_fields(r#"{"a":"1","z":5}"#, ["a", "b"]).unwrap();
        assert_eq!((a.as_deref(), b), (Some("1"), None));
        let e = read_fields(r#"{"a":1}"#, ["a"]).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.field.as_deref()),
            ("a is not text", Some("a"))
        );
        assert_eq!(
            read_fields("\"a\"", ["a"]).unwrap_err().message,
            "not a JSON object"
        );
        assert!(read_fields("{", ["a"])
            .unwrap_err()
            .message
            .starts_with("not JSON: "));
        let long = write_fields(&[("a", &"x".repeat(MAX_RECORD_BYTES))]);
        assert_eq!(
            read_fields(&long, ["a"]).unwrap_err().kind,
            ErrorKind::TooLarge
        );
    }
}
