//! A scenario (asks + cluster caps) in the CLI's grammar as a URL query: `ask=a:0.5&gpus=2&timeslice`.

use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::error::{Error, ErrorKind, Result};

/// The asks and caps a plan or pack is made from, as the web page's URL and the CLI's flags say them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Scenario {
    pub asks: Vec<FractionalAsk>,
    pub caps: ClusterGpuCaps,
    /// Pack with `--optimize` (search for fewer GPUs than first-fit-decreasing).
    #[cfg_attr(feature = "serde", serde(default))]
    pub optimize: bool,
    /// How long each ask runs, in seconds, by position (`None` or past the end: an open use);
    /// for recording. `hours=2,,1.5` in the query.
    #[cfg_attr(feature = "serde", serde(default))]
    pub seconds: Vec<Option<u64>>,
}

/// Query keys a scenario understands; any other key (say `embed`) is left to the page.
pub const SCENARIO_KEYS: [&str; 12] = [
    "ask",
    "hours",
    "gpus",
    "nodes",
    "timeslice",
    "mig-capable",
    "mps",
    "gpu-model",
    "mig-profiles",
    "optimize",
    "context-overhead",
    "driver",
];

impl Scenario {
    /// Reads `ask=a:0.5&ask=x:3g.20gb&ask=m:0.25:12GiB&gpus=2&timeslice&mig-capable&mps&gpu-model=h100&mig-profiles=1g.10gb,2g.20gb`
    /// (and `nodes=4x8` or `nodes=gpu-a:8,gpu-b:4`, `context-overhead=300MiB`, `driver=590.48.01`)
    /// (a leading `?` is allowed; `+` and `%XX` are decoded; unknown keys are ignored). A flag may
    /// be given bare or as `=true`/`=1`; `=false`/`=0` turns it off.
    ///
    /// # Errors
    /// The first bad parameter, named in the error's field (`ask[2]`, `gpus`, …); `TooLarge` for a
    /// query above [`MAX_INPUT_BYTES`](crate::parse::MAX_INPUT_BYTES) (before reading it) or with
    /// more than [`MAX_ASKS`](crate::pack::MAX_ASKS) asks (at the first one too many).
    pub fn from_query(query: &str) -> Result<Scenario> {
        let mut s = Scenario::default();
        for pair in pairs(query)? {
            s.apply(pair)?;
        }
        s.trim_seconds();
        Ok(s)
    }

    /// Reads what it can of a query: a bad parameter is dropped with its error (in query order)
    /// and the rest kept, so a link with one bad ask still opens its other asks.
    ///
    /// # Errors
    /// Only a query above [`MAX_INPUT_BYTES`](crate::parse::MAX_INPUT_BYTES), unread.
    pub fn from_query_lenient(query: &str) -> Result<(Scenario, Vec<Error>)> {
        let mut s = Scenario::default();
        let mut dropped = Vec::new();
        for pair in pairs(query)? {
            if let Err(e) = s.apply(pair) {
                dropped.push(e);
            }
        }
        s.trim_seconds();
        Ok((s, dropped))
    }

    /// Applies one `key=value` (or bare `key`) of the query.
    fn apply(&mut self, pair: &str) -> Result<()> {
        let (key, value) = match pair.split_once('=') {
            Some((k, v)) => (decode(k)?, Some(decode(v)?)),
            None => (decode(pair)?, None),
        };
        let flag = |field: &str| parse_flag(value.as_deref()).map_err(|e| e.in_field(field));
        let caps = &mut self.caps;
        match key.as_str() {
            "ask" => {
                if self.asks.len() == crate::pack::MAX_ASKS {
                    return Err(crate::parse::too_many_asks().in_field("ask"));
                }
                let field = format!("ask[{}]", self.asks.len());
                let ask = FractionalAsk::parse_spec(value.as_deref().unwrap_or(""))
                    .map_err(|e| e.in_field(field))?;
                self.asks.push(ask);
            }
            "hours" => self.seconds = parse_hours_list(value.as_deref().unwrap_or(""))?,
            "gpus" => caps.gpu_count = parse_gpus(value.as_deref().unwrap_or(""))?,
            "nodes" => {
                let v = value.as_deref().unwrap_or("").trim();
                caps.nodes = if v.is_empty() {
                    None
                } else {
                    Some(crate::caps::nodes::parse_nodes(v)?)
                };
            }
            "timeslice" => caps.supports_timeslicing = flag("timeslice")?,
            "mig-capable" => caps.supports_mig = flag("mig-capable")?,
            "mps" => caps.supports_mps = flag("mps")?,
            "optimize" => self.optimize = flag("optimize")?,
            "gpu-model" => caps.gpu_model = value.filter(|v| !v.trim().is_empty()),
            "driver" => caps.driver = value.filter(|v| !v.trim().is_empty()),
            "context-overhead" => {
                let v = value.as_deref().unwrap_or("").trim();
                caps.context_overhead_mib = if v.is_empty() {
                    None
                } else {
                    Some(
                        crate::memory::parse_overhead_mib(v)
                            .map_err(|e| e.in_field("context-overhead"))?,
                    )
                };
            }
            "mig-profiles" => {
                let list: Vec<String> = value
                    .unwrap_or_default()
                    .split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect();
                caps.mig_profiles = (!list.is_empty()).then_some(list);
            }
            _ => {}
        }
        Ok(())
    }

    /// Durations say only what they add: none past the last ask, and no open uses at the end (so
    /// a scenario reads back exactly from its own query).
    fn trim_seconds(&mut self) {
        self.seconds.truncate(self.asks.len());
        while self.seconds.last() == Some(&None) {
            self.seconds.pop();
        }
    }

    /// The duration of ask `i`, when the scenario gives one.
    pub fn seconds_of(&self, i: usize) -> Option<u64> {
        self.seconds.get(i).copied().flatten()
    }

    /// The query [`Scenario::from_query`] reads back (without `?`), in a fixed order.
    pub fn to_query(&self) -> String {
        let mut parts: Vec<String> = self
            .asks
            .iter()
            .map(|a| format!("ask={}", encode(&a.to_spec())))
            .collect();
        let mut seconds = &self.seconds[..self.seconds.len().min(self.asks.len())];
        while let [rest @ .., None] = seconds {
            seconds = rest;
        }
        if !seconds.is_empty() {
            let hours: Vec<String> = seconds
                .iter()
                .map(|s| s.map(crate::parse::hours_text).unwrap_or_default())
                .collect();
            parts.push(format!("hours={}", hours.join(",")));
        }
        if let Some(n) = self.caps.gpu_count {
            parts.push(format!("gpus={n}"));
        }
        if let Some(nodes) = &self.caps.nodes {
            parts.push(format!(
                "nodes={}",
                encode(&crate::caps::nodes::nodes_to_text(nodes))
            ));
        }
        for (on, key) in [
            (self.caps.supports_mig, "mig-capable"),
            (self.caps.supports_mps, "mps"),
            (self.caps.supports_timeslicing, "timeslice"),
            (self.optimize, "optimize"),
        ] {
            if on {
                parts.push(key.to_string());
            }
        }
        if let Some(m) = &self.caps.gpu_model {
            parts.push(format!("gpu-model={}", encode(m)));
        }
        if let Some(p) = &self.caps.mig_profiles {
            parts.push(format!("mig-profiles={}", encode(&p.join(","))));
        }
        if let Some(mib) = self.caps.context_overhead_mib {
            parts.push(format!(
                "context-overhead={}",
                crate::memory::overhead_text(mib)
            ));
        }
        if let Some(d) = &self.caps.driver {
            parts.push(format!("driver={}", encode(d)));
        }
        parts.join("&")
    }
}

/// The query's `&`-separated pairs (a leading `?` allowed), after the size check.
fn pairs(query: &str) -> Result<impl Iterator<Item = &str>> {
    crate::parse::check_size(query, "the query")?;
    let query = query.strip_prefix('?').unwrap_or(query);
    Ok(query.split('&').filter(|p| !p.is_empty()))
}

fn parse_gpus(v: &str) -> Result<Option<u64>> {
    let v = v.trim();
    if v.is_empty() || v == "unlimited" {
        return Ok(None);
    }
    v.parse().map(Some).map_err(|_| {
        Error::new(
            ErrorKind::Syntax,
            format!("expected a whole number of GPUs, got {v:?}"),
        )
        .in_field("gpus")
    })
}

/// `2,,1.5`: each ask's hours in order, blank for an open use.
fn parse_hours_list(v: &str) -> Result<Vec<Option<u64>>> {
    if v.len() > crate::pack::MAX_ASKS * 24 {
        return Err(
            Error::new(ErrorKind::TooLarge, "the hours list is too long").in_field("hours"),
        );
    }
    v.split(',')
        .enumerate()
        .map(|(i, h)| {
            if h.trim().is_empty() {
                Ok(None)
            } else {
                crate::parse::parse_hours(h)
                    .map(Some)
                    .map_err(|e| e.in_field(format!("hours[{i}]")))
            }
        })
        .collect()
}

fn parse_flag(value: Option<&str>) -> Result<bool> {
    match value.map(str::trim) {
        None | Some("" | "1" | "true" | "on" | "yes") => Ok(true),
        Some("0" | "false" | "off" | "no") => Ok(false),
        Some(v) => Err(Error::new(
            ErrorKind::Syntax,
            format!("expected true or false, got {v:?}"),
        )),
    }
}

/// Percent-decoding as browsers encode queries (`+` is a space).
fn decode(text: &str) -> Result<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| {
                        Error::new(ErrorKind::Syntax, format!("bad percent-escape in {text:?}"))
                    })?;
                out.push(byte);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| {
        Error::new(
            ErrorKind::Syntax,
            format!("{text:?} does not decode to UTF-8"),
        )
    })
}

/// Percent-encoding of everything but unreserved characters and the grammar's `:` `,` `/` `%`-free set.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'~'
            | b':'
            | b','
            | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_seed_link() {
        let s = Scenario::from_query("?ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice").unwrap();
        assert_eq!(s.asks.len(), 3);
        assert_eq!(s.caps.gpu_count, Some(2));
        assert!(s.caps.supports_timeslicing && !s.caps.supports_mig);
        assert_eq!(
            s.to_query(),
            "ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice"
        );
    }

    #[test]
    fn round_trips_odd_names_and_every_key() {
        let q = "ask=%3Cimg%20src%3Dx%3E:25%25&ask=x:3g.20gb&mig-capable&optimize&mps=false&gpu-model=NVIDIA+A100-SXM4-40GB&mig-profiles=1g.5gb,3g.20gb&embed";
        let s = Scenario::from_query(q).unwrap();
        assert_eq!(s.asks[0].name(), "<img src=x>");
        assert_eq!(s.caps.gpu_model.as_deref(), Some("NVIDIA A100-SXM4-40GB"));
        assert!(!s.caps.supports_mps);
        assert_eq!(Scenario::from_query(&s.to_query()).unwrap(), s);
    }

    #[test]
    fn the_driver_rides_in_the_link() {
        let s = Scenario::from_query("ask=m:9GiB&mig-capable&driver=580.126.09").unwrap();
        assert_eq!(s.caps.driver.as_deref(), Some("580.126.09"));
        assert_eq!(s.to_query(), "ask=m:9GiB&mig-capable&driver=580.126.09");
        let blank = Scenario::from_query("driver=").unwrap();
        assert_eq!(blank.caps.driver, None);
    }

    #[test]
    fn memory_asks_and_the_context_overhead_ride_in_the_link() {
        let q =
            "ask=m:12GiB&ask=b:0.25:22649242112B&gpu-model=A10&timeslice&context-overhead=300MiB";
        let s = Scenario::from_query(q).unwrap();
        assert_eq!(s.asks[0].memory().map(|m| m.bytes()), Some(12 << 30));
        assert_eq!(s.caps.context_overhead_mib, Some(300));
        assert_eq!(
            s.to_query(),
            "ask=m:12GiB&ask=b:0.25:22649242112B&timeslice&gpu-model=A10&context-overhead=300MiB"
        );
        assert_eq!(Scenario::from_query(&s.to_query()).unwrap(), s);
        let none = Scenario::from_query("context-overhead=0").unwrap();
        assert_eq!(none.caps.context_overhead_mib, Some(0));
        assert_eq!(none.to_query(), "context-overhead=0");
        let bad = Scenario::from_query("context-overhead=lots").unwrap_err();
        assert_eq!(bad.field.as_deref(), Some("context-overhead"));
        let bad = Scenario::from_query("ask=m:12XB").unwrap_err();
        assert_eq!(bad.field.as_deref(), Some("ask[0].memory"));
    }

    #[test]
    fn hours_ride_along_with_the_asks() {
        let s = Scenario::from_query("ask=a:0.5&ask=b:0.3&ask=c:0.4&hours=2,,1.5").unwrap();
        assert_eq!(s.seconds, [Some(7200), None, Some(5400)]);
        assert_eq!(
            (s.seconds_of(1), s.seconds_of(2), s.seconds_of(9)),
            (None, Some(5400), None)
        );
        assert_eq!(s.to_query(), "ask=a:0.5&ask=b:0.3&ask=c:0.4&hours=2,,1.5");
        let open_last = Scenario {
            seconds: vec![Some(7200), None, None],
            ..s.clone()
        };
        assert_eq!(
            open_last.to_query(),
            "ask=a:0.5&ask=b:0.3&ask=c:0.4&hours=2"
        );
        assert_eq!(Scenario::from_query(&s.to_query()).unwrap(), s);
        // Only what the durations add: none past the last ask, no open uses at the end.
        let s = Scenario::from_query("hours=1,,,&ask=a:0.5").unwrap();
        assert_eq!(s.seconds, [Some(3600)]);
        let s = Scenario::from_query("ask=a:0.5&hours=,,5").unwrap();
        assert!(s.seconds.is_empty());
        assert_eq!(Scenario::from_query(&s.to_query()).unwrap(), s);
        let e = Scenario::from_query("ask=a:0.5&hours=-1").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("hours[0]"));
    }

    #[test]
    fn a_lenient_read_drops_only_the_bad_parameters() {
        let (s, dropped) = Scenario::from_query_lenient(
            "ask=a:0.5&ask=b:zero&ask=c:0.25&gpus=two&timeslice&ask=%ZZ",
        )
        .unwrap();
        let names: Vec<&str> = s.asks.iter().map(|a| a.name()).collect();
        assert_eq!(names, ["a", "c"]);
        assert!(s.caps.supports_timeslicing);
        assert_eq!(s.caps.gpu_count, None);
        let fields: Vec<Option<&str>> = dropped.iter().map(|e| e.field.as_deref()).collect();
        assert_eq!(fields, [Some("ask[1].fraction"), Some("gpus"), None]);
        // A good query reads the same either way.
        let q = "ask=a:0.5&ask=x:3g.20gb&mig-capable&gpus=3";
        assert_eq!(
            Scenario::from_query_lenient(q).unwrap(),
            (Scenario::from_query(q).unwrap(), Vec::new())
        );
        let huge = "a".repeat(crate::parse::MAX_INPUT_BYTES + 1);
        assert!(Scenario::from_query_lenient(&huge).is_err());
    }

    #[test]
    fn errors_name_the_parameter() {
        assert_eq!(
            Scenario::from_query("ask=a:0.5&ask=b:x")
                .unwrap_err()
                .field
                .as_deref(),
            Some("ask[1].fraction")
        );
        assert_eq!(
            Scenario::from_query("gpus=two")
                .unwrap_err()
                .field
                .as_deref(),
            Some("gpus")
        );
        assert_eq!(
            Scenario::from_query("ask=:0.5")
                .unwrap_err()
                .field
                .as_deref(),
            Some("ask[0].name")
        );
        assert!(Scenario::from_query("ask=%ZZ").is_err());
        assert!(Scenario::from_query("timeslice=maybe").is_err());
    }
}
