//! The pack use case: many asks onto GPUs, optionally optimised, with where the caps came from.

use super::cluster::{CapsFrom, Cluster};
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::error::Result;
use crate::pack::PackResult;
use crate::pack::{self, bin_pack_with, optimize::Budget};
use crate::parse::AskEntry;
use crate::plan::{warning_groups, WarningGroup};

/// The optimizer's default budget: 1,000 ms of a native release build, counted in search steps.
pub const DEFAULT_OPTIMIZE_MS: u64 = 1000;

/// The longest optimizer budget a request may ask for: ten minutes.
pub const MAX_OPTIMIZE_MS: u64 = 600_000;

/// Asks to pack onto a cluster: npm `binPack(asks, gpuCount, caps, options)`, `gpu-share pack`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct PackRequest {
    /// The asks, each with the duration it runs for when one was given (for recording).
    pub asks: Vec<AskEntry>,
    /// How many GPUs there are, overriding the cluster's own count (`caps.gpu_count`, or the
    /// count discovery found). `None`: as many as the cluster has, or as many as needed.
    #[cfg_attr(feature = "serde", serde(default))]
    pub gpu_count: Option<u64>,
    /// What the cluster supports: caps given, or read from discovery output.
    #[cfg_attr(feature = "serde", serde(default, rename = "caps"))]
    pub cluster: Cluster,
    #[cfg_attr(feature = "serde", serde(default))]
    pub options: PackOptions,
}

/// The keys of [`PackOptions`] as written, for the requests that read them beside their own
/// options in one object (export, the DRA simulation).
pub(super) const PACK_OPTION_KEYS: [&str; 4] = ["optimize", "time_limit_ms", "models", "engine"];

/// How hard to try: first-fit-decreasing alone, or a search for fewer GPUs after it; and models
/// to serve beside the asks, with the engine that serves them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct PackOptions {
    /// Search for a packing on fewer GPUs than first-fit-decreasing, up to a proven optimum.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub optimize: bool,
    /// The search's deterministic work budget, calibrated to milliseconds of a native release
    /// build: [`DEFAULT_OPTIMIZE_MS`] when not given; above [`MAX_OPTIMIZE_MS`], that.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub time_limit_ms: Option<u64>,
    /// Models to serve, each packed as an ask of the memory it needs (`api::serve`).
    #[cfg(feature = "serde")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub models: Vec<super::ModelAsk>,
    /// The engine serving `models`: each model's ask is its engine's footprint, and the engines
    /// on one device are planned together, with the order to start them in.
    #[cfg(feature = "serde")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub engine: Option<super::EngineOptions>,
}

impl PackOptions {
    /// The optimizer's budget in milliseconds, or `None` for first-fit-decreasing alone.
    pub fn optimize_ms(&self) -> Option<u64> {
        self.optimize.then(|| {
            self.time_limit_ms
                .unwrap_or(DEFAULT_OPTIMIZE_MS)
                .min(MAX_OPTIMIZE_MS)
        })
    }
}

impl PackRequest {
    /// A request for `asks` without durations.
    pub fn new(asks: Vec<FractionalAsk>, cluster: impl Into<Cluster>) -> Self {
        PackRequest {
            asks: asks
                .into_iter()
                .map(|ask| AskEntry { ask, seconds: None })
                .collect(),
            cluster: cluster.into(),
            ..PackRequest::default()
        }
    }

    /// The asks alone, in order.
    pub fn ask_list(&self) -> Vec<FractionalAsk> {
        self.asks.iter().map(|e| e.ask.clone()).collect()
    }
}

/// How `optimize` did: GPUs against the proven lower bound and against first-fit-decreasing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct OptimizeReport {
    /// Every ask placed on exactly `lower_bound` GPUs: no packing uses fewer.
    pub proven_optimal: bool,
    pub lower_bound: u64,
    /// GPUs above the lower bound (0 when proven optimal).
    pub gap: u64,
    /// GPUs first-fit-decreasing used for the same asks.
    pub ffd_gpus: u64,
}

/// A packing and what was learnt on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackResponse {
    pub result: PackResult,
    /// With `optimize_ms`: how the optimizer did.
    pub optimize: Option<OptimizeReport>,
    /// With detected caps: the inputs, the caps read and the notes.
    pub caps_from: Option<CapsFrom>,
    /// Asks left out of the packing with their errors ([`super::pack_leaving_out`]; empty from
    /// [`pack`], which refuses them instead).
    pub left_out: Vec<super::LeftOut>,
    /// The choices' warnings, each text once with the asks it concerns, in order of first
    /// appearance (each choice's own warnings are in `result.choices`, which is what the JSON
    /// carries).
    pub warnings: Vec<WarningGroup>,
    /// With `options.models` and an engine: the engines on each device that holds one.
    #[cfg(feature = "serde")]
    pub engines: Vec<super::DeviceEngines>,
}

impl PackResponse {
    /// The response with its warnings grouped: what [`pack`] and [`super::pack_leaving_out`]
    /// return (the columns' own summary counts them instead).
    pub(super) fn grouped(mut self) -> PackResponse {
        self.warnings = warning_groups(&self.result.choices);
        self
    }
}

impl PackResponse {
    /// Whether every ask found a place.
    pub fn all_placed(&self) -> bool {
        self.result.unplaced.is_empty()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for PackResponse {
    /// The result's fields, then `caps_from`, `left_out` and `optimize` when there are any: the
    /// JSON of `gpu-share pack --json`, npm `binPack` (camelCase) and the page's plan. Written
    /// field by field: building it as a `serde_json::Value` first took longer than the packing.
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("PackResponse", 14)?;
        self.result.serialize_fields(&mut st)?;
        if let Some(from) = &self.caps_from {
            st.serialize_field("caps_from", from)?;
        }
        if !self.left_out.is_empty() {
            st.serialize_field("left_out", &self.left_out)?;
        }
        if let Some(report) = &self.optimize {
            st.serialize_field("optimize", report)?;
        }
        if !self.engines.is_empty() {
            st.serialize_field("engines", &self.engines)?;
        }
        st.end()
    }
}

/// Packs the request's asks: first-fit-decreasing, then the optimizer when asked.
///
/// # Errors
/// Caps the catalogue refuses, discovery errors, duplicate names, too many asks.
pub fn pack(request: &PackRequest) -> Result<PackResponse> {
    let (caps, caps_from) = request.cluster.caps_with(request.gpu_count)?;
    let asks = request.ask_list();
    #[cfg(feature = "serde")]
    if !request.options.models.is_empty() {
        return super::serve::pack_models(&asks, &request.options, &caps, caps_from)
            .map(PackResponse::grouped);
    }
    pack_on(&asks, &request.options, &caps, caps_from).map(PackResponse::grouped)
}

/// Refuses `models` on a path that packs asks alone (columns, rows left out): only [`pack`]
/// plans engines, so that the page's plan, which serves none, does not carry the engine model.
pub(super) fn no_models(options: &PackOptions) -> Result<()> {
    #[cfg(feature = "serde")]
    if !options.models.is_empty() {
        return Err(crate::error::Error::new(
            crate::error::ErrorKind::Syntax,
            "models are packed by pack (npm binPack), not with asks as columns or rows left out",
        )
        .in_field("options.models"));
    }
    let _ = options;
    Ok(())
}

/// [`pack`] of `asks` alone on caps already read (`caps_from` says from what, if detected).
pub(super) fn pack_on(
    asks: &[FractionalAsk],
    options: &PackOptions,
    caps: &ClusterGpuCaps,
    caps_from: Option<CapsFrom>,
) -> Result<PackResponse> {
    let options = pack::PackOptions {
        optimize: options.optimize_ms().map(Budget::from_millis),
    };
    let packed = bin_pack_with(asks, caps, &options)?;
    let optimize = options.optimize.map(|_| OptimizeReport {
        proven_optimal: packed.proven_optimal,
        lower_bound: packed.lower_bound,
        gap: packed.gap(),
        ffd_gpus: packed.ffd_gpus,
    });
    Ok(PackResponse {
        warnings: Vec::new(),
        result: packed.result,
        optimize,
        caps_from,
        left_out: Vec::new(),
        #[cfg(feature = "serde")]
        engines: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::ClusterGpuCaps;

    fn asks(specs: &[&str]) -> Vec<FractionalAsk> {
        specs
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect()
    }

    #[test]
    fn the_gpu_count_comes_from_the_caps() {
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            gpu_count: Some(1),
            ..Default::default()
        };
        let r = pack(&PackRequest::new(asks(&["a:0.5", "b:0.6"]), caps)).unwrap();
        assert_eq!(r.result.gpus_used, 1);
        assert_eq!(r.result.unplaced.len(), 1);
        assert!(!r.all_placed());
        assert_eq!(r.optimize, None);
    }

    #[test]
    fn optimize_reports_against_ffd() {
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            ..Default::default()
        };
        let mut request = PackRequest::new(
            asks(&["a:0.35", "b:0.35", "c:0.35", "d:0.35", "e:0.35"]),
            caps,
        );
        request.options = PackOptions {
            optimize: true,
            time_limit_ms: Some(50),
            ..PackOptions::default()
        };
        let r = pack(&request).unwrap();
        let report = r.optimize.unwrap();
        assert!(report.proven_optimal);
        assert_eq!(report.gap, 0);
        assert_eq!(r.result.gpus_used, 3);
    }
}
