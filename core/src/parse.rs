//! Reading ask lists (CSV or JSON) and durations: the text every front end hands the core.

use crate::ask::FractionalAsk;
use crate::error::{Error, ErrorKind, Result};
use crate::pack::MAX_ASKS;

mod listed;
pub use listed::{AskList, ListedModel};

/// The largest text any reader of the core accepts, in bytes (64 MiB): ask lists, discovery
/// output, ledger imports, scenario queries. Front ends read at most this much (plus one byte) of
/// a file. (The CLI's own JSON Lines ledger may grow to
/// [`MAX_LEDGER_BYTES`](crate::account::MAX_LEDGER_BYTES).)
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// `TooLarge` when `text` is longer than [`MAX_INPUT_BYTES`]; `what` names it (`the ask list`).
/// Every text reader calls this first, before doing any work.
///
/// # Errors
/// `TooLarge`, saying the size and the limit.
pub fn check_size(text: &str, what: &str) -> Result<()> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(too_large(what, Oversize::Bytes(text.len() as u64)));
    }
    Ok(())
}

/// What a front end knew of an input it refused for its size before reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Oversize {
    /// Only that it went past the limit (a pipe read up to the limit and one byte more).
    Unknown,
    /// Its length in UTF-16 characters (a JavaScript string; its UTF-8 is at least as long).
    Characters(u64),
    /// Its size in bytes, exactly (a text the core read).
    Bytes(u64),
    /// Its size in bytes, said in megabytes (a file a page user picked: refused, not read).
    File(u64),
}

/// The error for an input over [`MAX_INPUT_BYTES`]: every front end's words for the limit, from
/// the constant (`64 MiB (67108864 bytes)`).
pub fn too_large(what: &str, size: Oversize) -> Error {
    let mib = crate::memory::mib_text((MAX_INPUT_BYTES >> 20) as u64);
    let bytes = MAX_INPUT_BYTES;
    let message = match size {
        Oversize::Unknown => {
            format!("{what} is larger than {mib} ({bytes} bytes), the most gpu-share reads")
        }
        Oversize::Characters(n) => {
            format!("{what} is {n} characters; the limit is {bytes} bytes ({mib})")
        }
        Oversize::Bytes(n) => format!("{what} is {n} bytes; the limit is {bytes} bytes ({mib})"),
        Oversize::File(n) => format!(
            "{what} is {} MB; the limit is {mib} ({bytes} bytes), so it was not read",
            (n + 500_000) / 1_000_000
        ),
    };
    Error::new(ErrorKind::TooLarge, message)
}

/// The error for a list of more than [`MAX_ASKS`] asks, raised as soon as ask `MAX_ASKS + 1` is
/// seen: the rest is never read.
pub fn too_many_asks() -> Error {
    Error::new(
        ErrorKind::TooLarge,
        format!("more than {MAX_ASKS} asks; the limit is {MAX_ASKS}"),
    )
}

/// The longest duration accepted: ten years, in seconds.
pub const MAX_SECONDS: u64 = 10 * 366 * 24 * 3600;

/// An ask with the duration it runs for, when the list gives one (for accounting).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct AskEntry {
    pub ask: FractionalAsk,
    pub seconds: Option<u64>,
}

impl From<FractionalAsk> for AskEntry {
    /// The ask without a duration.
    fn from(ask: FractionalAsk) -> AskEntry {
        AskEntry { ask, seconds: None }
    }
}

/// An entry in JSON: the ask itself (`{"name": "a", "fraction": 0.5}`), or the shape it is
/// written in, `{"ask": {…}, "seconds": 7200}`. (A front end with many asks reads them with
/// [`AskReader`](crate::ask::AskReader), which builds no value per ask.)
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for AskEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = serde_json::Value::deserialize(d)?;
        let entry = value.get("ask").map(|ask| (ask, value.get("seconds")));
        match entry {
            Some((ask, seconds)) => {
                if let Some(key) = value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k)
                    .find(|k| !matches!(k.as_str(), "ask" | "seconds"))
                {
                    return Err(D::Error::custom(format!(
                        "unknown field {key:?}; expected ask and seconds"
                    )));
                }
                Ok(AskEntry {
                    ask: FractionalAsk::from_json(ask).map_err(D::Error::custom)?,
                    seconds: match seconds {
                        None | Some(serde_json::Value::Null) => None,
                        Some(s) => Some(u64::deserialize(s).map_err(D::Error::custom)?),
                    },
                })
            }
            None => Ok(AskEntry {
                ask: FractionalAsk::from_json(&value).map_err(D::Error::custom)?,
                seconds: None,
            }),
        }
    }
}

/// Reads hours (`2`, `0.5`) into whole seconds, rounded to the nearest second.
///
/// # Errors
/// `Syntax` or `OutOfRange` for text that is not a duration from 0 to ten years.
pub fn parse_hours(text: &str) -> Result<u64> {
    let t = text.trim();
    let hours: f64 = t
        .parse()
        .ok()
        .filter(|h: &f64| {
            h.is_finite()
                && !t.starts_with(['+', '-'])
                && t.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        })
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Syntax,
                format!("expected hours such as 2 or 0.5, got {text:?}"),
            )
        })?;
    seconds_in_range((hours * 3600.0).round(), text)
}

/// Seconds as the hours [`parse_hours`] reads back to the same second: `7200` → `2`, `5400` →
/// `1.5`, `1` → `0.0002778` (seven decimals keep the error under a tenth of a second).
pub fn hours_text(seconds: u64) -> String {
    let whole = seconds / 3600;
    let rest = seconds % 3600;
    // rest/3600 to seven decimals, rounded half up, in integers (no float formatting).
    let mut frac = (u128::from(rest) * 10_000_000 * 2 + 3600) / (3600 * 2);
    let mut whole = u128::from(whole);
    if frac >= 10_000_000 {
        whole += 1;
        frac -= 10_000_000;
    }
    let text = format!("{whole}.{frac:07}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Reads whole seconds.
///
/// # Errors
/// `Syntax` or `OutOfRange` for text that is not a whole number of seconds up to ten years.
pub fn parse_seconds(text: &str) -> Result<u64> {
    let t = text.trim();
    let s: u64 = t.parse().map_err(|_| {
        Error::new(
            ErrorKind::Syntax,
            format!("expected whole seconds such as 7200, got {text:?}"),
        )
    })?;
    seconds_in_range(s as f64, text)
}

fn seconds_in_range(seconds: f64, text: &str) -> Result<u64> {
    if !(0.0..=MAX_SECONDS as f64).contains(&seconds) {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            format!("{text:?} is longer than ten years"),
        ));
    }
    Ok(seconds as u64)
}

/// Reads an ask list: JSON (an array of asks, or `{"asks": [...]}`) when it starts with `[` or
/// `{`, else CSV with columns `name,size[,hours]`, where size is a fraction, a MIG profile or
/// memory with its unit (a header row naming `name`, `fraction`, `mig_profile`, `size`,
/// `memory`, `hours` or `seconds` is optional). Lines starting with `#` are comments.
///
/// # Errors
/// The first bad row, with its line (CSV) or its position (JSON) and field; `TooLarge` above
/// [`MAX_INPUT_BYTES`] (before reading anything) or at ask [`MAX_ASKS`]` + 1` (before reading on).
pub fn parse_asks(text: &str) -> Result<Vec<AskEntry>> {
    let list = parse_ask_list(text)?;
    match list.models.first() {
        Some(m) => Err(listed::not_here(m)),
        None => Ok(list.asks),
    }
}

/// [`parse_asks`], with CSV rows that name a model to serve (a `model` column: the path of its
/// config.json, with optional `context` and `concurrency` columns) kept apart, for a front end
/// that reads their files.
///
/// # Errors
/// As [`parse_asks`]; a model row that also gives a size, or a count that is not one.
pub fn parse_ask_list(text: &str) -> Result<AskList> {
    check_size(text, "the ask list")?;
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with(['[', '{']) {
        parse_json(trimmed).map(|asks| AskList {
            asks,
            models: Vec::new(),
        })
    } else {
        parse_csv(trimmed)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Column {
    Name,
    Size,
    Memory,
    Hours,
    Seconds,
    /// A model to serve: its config.json's path (`listed.rs`).
    Model,
    Context,
    Concurrency,
    Ignored,
}

fn header(cells: &[String]) -> Option<Vec<Column>> {
    let cols: Vec<Column> = cells
        .iter()
        .map(|c| match c.trim().to_ascii_lowercase().as_str() {
            "name" | "ask" => Column::Name,
            "fraction" | "size" | "mig_profile" | "profile" | "share" => Column::Size,
            "memory" | "gpu_memory" => Column::Memory,
            "hours" => Column::Hours,
            "seconds" => Column::Seconds,
            "model" | "config" => Column::Model,
            "context" => Column::Context,
            "concurrency" => Column::Concurrency,
            _ => Column::Ignored,
        })
        .collect();
    let sized = [Column::Size, Column::Memory, Column::Model];
    (cols.contains(&Column::Name) && sized.iter().any(|c| cols.contains(c))).then_some(cols)
}

fn parse_csv(text: &str) -> Result<AskList> {
    let mut columns: Option<Vec<Column>> = None;
    let mut list = AskList::default();
    let mut first_row = true;
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells = split_csv_line(line).map_err(|e| e.at_line(line_no))?;
        if first_row {
            first_row = false;
            if let Some(h) = header(&cells) {
                columns = Some(h);
                continue;
            }
        }
        let cols = columns
            .clone()
            .unwrap_or_else(|| vec![Column::Name, Column::Size, Column::Hours]);
        if list.asks.len() + list.models.len() == MAX_ASKS {
            return Err(too_many_asks().at_line(line_no));
        }
        match csv_row(&cells, &cols, line_no).map_err(|e| e.at_line(line_no))? {
            Row::Ask(entry) => list.asks.push(entry),
            Row::Model(model) => list.models.push(model),
        }
    }
    Ok(list)
}

/// One CSV row: an ask, or a model to serve when its model cell is given.
enum Row {
    Ask(AskEntry),
    Model(ListedModel),
}

fn csv_row(cells: &[String], cols: &[Column], line: usize) -> Result<Row> {
    let get = |c: Column| {
        cols.iter()
            .position(|&x| x == c)
            .and_then(|i| cells.get(i))
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
    };
    let name = get(Column::Name).unwrap_or("");
    if let Some(config) = get(Column::Model) {
        let sized = get(Column::Size).or(get(Column::Memory)).is_some();
        return listed::model_row(
            name,
            config,
            sized,
            [get(Column::Context), get(Column::Concurrency)],
            line,
        )
        .map(Row::Model);
    }
    let ask = FractionalAsk::from_cells(name, get(Column::Size), get(Column::Memory))?;
    let seconds = match (get(Column::Hours), get(Column::Seconds)) {
        (Some(h), _) => Some(parse_hours(h).map_err(|e| e.in_field("hours"))?),
        (None, Some(s)) => Some(parse_seconds(s).map_err(|e| e.in_field("seconds"))?),
        (None, None) => None,
    };
    Ok(Row::Ask(AskEntry { ask, seconds }))
}

/// Splits one CSV line, honouring double quotes (`"a,b"`, `""` for a quote).
fn split_csv_line(line: &str) -> Result<Vec<String>> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if cell.trim().is_empty() => {
                cell.clear();
                quoted = true;
            }
            (',', false) => cells.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    if quoted {
        return Err(Error::new(ErrorKind::Syntax, "a quoted cell is not closed"));
    }
    cells.push(cell);
    Ok(cells)
}

/// Reads a JSON ask list element by element (an array, or the array under `"asks"`), so a list
/// of more than [`MAX_ASKS`] asks is refused at ask `MAX_ASKS + 1`, before the rest is read.
#[cfg(feature = "serde")]
fn parse_json(text: &str) -> Result<Vec<AskEntry>> {
    use serde::de::Deserializer as _;
    let mut failed: Option<Error> = None;
    let mut de = serde_json::Deserializer::from_str(text);
    let read = de
        .deserialize_any(json_list::ListOrObject {
            failed: &mut failed,
        })
        .and_then(|entries| de.end().map(|()| entries));
    match (read, failed) {
        (_, Some(e)) => Err(e),
        (Ok(entries), None) => Ok(entries),
        (Err(e), None) => {
            Err(Error::new(ErrorKind::Syntax, format!("invalid JSON: {e}"))
                .at_line(e.line().max(1)))
        }
    }
}

/// Serde visitors for [`parse_json`]: the core's own errors travel in `failed` (serde's error
/// type cannot hold them), and any error stops the reading at once.
#[cfg(feature = "serde")]
mod json_list {
    use super::{json_entry, too_many_asks, AskEntry, MAX_ASKS};
    use crate::error::{Error, ErrorKind};
    use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use std::fmt;

    fn fail<E: de::Error>(failed: &mut Option<Error>, e: Error) -> E {
        *failed = Some(e);
        E::custom("ask list refused")
    }

    fn shape(m: &str) -> Error {
        Error::new(ErrorKind::Syntax, m.to_string())
    }

    /// The whole document: an array of asks or `{"asks": [...]}`.
    pub(super) struct ListOrObject<'a> {
        pub(super) failed: &'a mut Option<Error>,
    }

    impl<'de> Visitor<'de> for ListOrObject<'_> {
        type Value = Vec<AskEntry>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array of asks")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            List {
                failed: self.failed,
            }
            .visit_seq(seq)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut asks = None;
            while let Some(key) = map.next_key::<String>()? {
                if key == "asks" {
                    asks = Some(map.next_value_seed(List {
                        failed: &mut *self.failed,
                    })?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            asks.ok_or_else(|| {
                fail(
                    self.failed,
                    shape("expected an array of asks or {\"asks\": [...]}"),
                )
            })
        }
    }

    /// The array of asks itself.
    struct List<'a> {
        failed: &'a mut Option<Error>,
    }

    impl<'de> DeserializeSeed<'de> for List<'_> {
        type Value = Vec<AskEntry>;

        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for List<'_> {
        type Value = Vec<AskEntry>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array of asks")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut entries = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
            while let Some(item) = seq.next_element::<serde_json::Value>()? {
                if entries.len() == MAX_ASKS {
                    return Err(fail(self.failed, too_many_asks()));
                }
                let i = entries.len();
                match json_entry(item) {
                    Ok(entry) => entries.push(entry),
                    Err(e) => return Err(fail(self.failed, e.in_field(format!("asks[{i}]")))),
                }
            }
            Ok(entries)
        }
    }
}

#[cfg(feature = "serde")]
fn json_entry(item: serde_json::Value) -> Result<AskEntry> {
    use serde_json::Value;
    let Value::Object(mut map) = item else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "each ask must be an object such as {\"name\": \"a\", \"fraction\": 0.5}",
        ));
    };
    let hours = map.remove("hours");
    let seconds = map.remove("seconds");
    let seconds = match (hours, seconds) {
        (Some(Value::Number(h)), _) => Some(parse_hours(&h.to_string())?),
        (Some(Value::String(h)), _) => Some(parse_hours(&h)?),
        (None | Some(Value::Null), Some(Value::Number(s))) => Some(parse_seconds(&s.to_string())?),
        (None | Some(Value::Null), None | Some(Value::Null)) => None,
        _ => return Err(Error::new(ErrorKind::Syntax, "hours must be a number").in_field("hours")),
    };
    let ask: FractionalAsk = serde_json::from_value(Value::Object(map))
        .map_err(|e| Error::new(ErrorKind::Syntax, e.to_string()))?;
    Ok(AskEntry { ask, seconds })
}

#[cfg(not(feature = "serde"))]
fn parse_json(_text: &str) -> Result<Vec<AskEntry>> {
    Err(Error::new(
        ErrorKind::Syntax,
        "JSON ask lists need the core's `serde` feature",
    ))
}

#[cfg(test)]
mod tests;
