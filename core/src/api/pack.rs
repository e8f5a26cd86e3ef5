//! The pack use case: many asks onto GPUs, optionally optimised, with where the caps came from.

use super::cluster::{CapsFrom, Cluster};
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::error::Result;
use crate::pack::PackResult;
use crate::pack::{bin_pack_with, optimize::Budget, PackOptions};
use crate::parse::AskEntry;

/// The optimizer's default budget: 1,000 ms of a native release build, counted in search steps.
pub const DEFAULT_OPTIMIZE_MS: u64 = 1000;

/// The longest optimizer budget a request may ask for: ten minutes.
pub const MAX_OPTIMIZE_MS: u64 = 600_000;

/// Asks to pack onto a cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackRequest {
    /// The asks, each with the duration it runs for when one was given (for recording).
    pub asks: Vec<AskEntry>,
    pub cluster: Cluster,
    /// Search for a packing on fewer GPUs for at most this many milliseconds' work (`None`:
    /// first-fit-decreasing only). Budgets above [`MAX_OPTIMIZE_MS`] are capped there.
    pub optimize_ms: Option<u64>,
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
            optimize_ms: None,
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
        st.end()
    }
}

/// Packs the request's asks: first-fit-decreasing, then the optimizer when asked.
///
/// # Errors
/// Caps the catalogue refuses, discovery errors, duplicate names, too many asks.
pub fn pack(request: &PackRequest) -> Result<PackResponse> {
    let (caps, caps_from) = request.cluster.caps()?;
    pack_on(&request.ask_list(), request.optimize_ms, &caps, caps_from)
}

/// [`pack`] of `asks` on caps already read (`caps_from` says from what, if detected).
pub(super) fn pack_on(
    asks: &[FractionalAsk],
    optimize_ms: Option<u64>,
    caps: &ClusterGpuCaps,
    caps_from: Option<CapsFrom>,
) -> Result<PackResponse> {
    let options = PackOptions {
        optimize: optimize_ms.map(|ms| Budget::from_millis(ms.min(MAX_OPTIMIZE_MS))),
    };
    let packed = bin_pack_with(asks, caps, &options)?;
    let optimize = options.optimize.map(|_| OptimizeReport {
        proven_optimal: packed.proven_optimal,
        lower_bound: packed.lower_bound,
        gap: packed.gap(),
        ffd_gpus: packed.ffd_gpus,
    });
    Ok(PackResponse {
        result: packed.result,
        optimize,
        caps_from,
        left_out: Vec::new(),
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
        request.optimize_ms = Some(50);
        let r = pack(&request).unwrap();
        let report = r.optimize.unwrap();
        assert!(report.proven_optimal);
        assert_eq!(report.gap, 0);
        assert_eq!(r.result.gpus_used, 3);
    }
}
