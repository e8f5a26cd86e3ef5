//! What the DRA export needs to know about the cluster: its Kubernetes version (which `resource.k8s.io` API to write), how the driver manages MIG, the time-slice interval, and whether the driver publishes memory as consumable capacity.
//!
//! Versions (docs/hardware-facts.md §13): `resource.k8s.io/v1` is served from Kubernetes 1.34
//! (DRA GA); `v1beta1` from 1.32 (beta, off by default in 1.32 and 1.33), whose requests carry
//! their fields flat; 1.31 has only the alpha `v1alpha3` and 1.30 and older no structured
//! parameters that this export could use: an error, with nothing written.

use crate::error::{Error, ErrorKind, Result};
use std::fmt;

/// The Kubernetes version written for when none is given: the first with DRA GA.
pub const DEFAULT_KUBERNETES_VERSION: &str = "1.34";

/// Choices for the DRA export (`ExportOptions::dra`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct DraOptions {
    /// The cluster's Kubernetes version, `1.34`, `v1.32.4`, …; default [`DEFAULT_KUBERNETES_VERSION`].
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub kubernetes_version: String,
    /// Whether MIG devices exist before allocation (static, the driver's default) or the
    /// driver creates them on allocation (its alpha `DynamicMIG` gate).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub mig: MigManagement,
    /// The time-slice of time-sliced GPUs' `GpuConfig`.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub time_slice_interval: TimeSliceInterval,
    /// The driver publishes GPU memory as consumable capacity (its alpha `ConsumableShares` gate
    /// and Kubernetes' `DRAConsumableCapacity`): shared claims then ask for the memory their
    /// tenants need (`capacity.requests.memory`). Off unless the user says the driver has it.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub consumable_memory: bool,
}

impl Default for DraOptions {
    fn default() -> Self {
        DraOptions {
            kubernetes_version: DEFAULT_KUBERNETES_VERSION.to_string(),
            mig: MigManagement::Static,
            time_slice_interval: TimeSliceInterval::Default,
            consumable_memory: false,
        }
    }
}

/// How the NVIDIA DRA driver gets its MIG devices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "lowercase"))]
pub enum MigManagement {
    /// The MIG devices are created beforehand (mig-parted, the GPU Operator's MIG manager) and
    /// the driver publishes those that exist.
    #[default]
    Static,
    /// The driver's `DynamicMIG` gate: it publishes every placement and creates the device when a
    /// claim is allocated.
    Dynamic,
}

/// `TimeSlicingConfig.interval` of the driver's `GpuConfig` (docs/hardware-facts.md §13).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum TimeSliceInterval {
    #[default]
    Default,
    Short,
    Medium,
    Long,
}

impl TimeSliceInterval {
    pub const ALL: [TimeSliceInterval; 4] = [
        TimeSliceInterval::Default,
        TimeSliceInterval::Short,
        TimeSliceInterval::Medium,
        TimeSliceInterval::Long,
    ];

    /// The value the driver's validation accepts (case matters).
    pub fn as_str(self) -> &'static str {
        match self {
            TimeSliceInterval::Default => "Default",
            TimeSliceInterval::Short => "Short",
            TimeSliceInterval::Medium => "Medium",
            TimeSliceInterval::Long => "Long",
        }
    }
}

impl fmt::Display for TimeSliceInterval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::str::FromStr for TimeSliceInterval {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        TimeSliceInterval::ALL
            .into_iter()
            .find(|i| i.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Syntax,
                    format!("unknown time-slice interval {s:?}; expected Default, Short, Medium or Long"),
                )
                .in_field("dra.time_slice_interval")
            })
    }
}

/// Which `resource.k8s.io` version the manifests are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum ResourceApi {
    /// `resource.k8s.io/v1` (Kubernetes 1.34 and later): request fields under `exactly`.
    V1,
    /// `resource.k8s.io/v1beta1` (1.32 and 1.33): request fields on the request itself.
    V1beta1,
}

impl ResourceApi {
    pub fn api_version(self) -> &'static str {
        match self {
            ResourceApi::V1 => "resource.k8s.io/v1",
            ResourceApi::V1beta1 => "resource.k8s.io/v1beta1",
        }
    }
}

/// A Kubernetes `major.minor` version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubernetesVersion {
    pub major: u32,
    pub minor: u32,
}

impl KubernetesVersion {
    /// Reads `1.34`, `v1.34`, `1.34.2` or `v1.33.0-gke.1`.
    ///
    /// # Errors
    /// `Syntax` (field `dra.kubernetes_version`) for anything else.
    pub fn parse(text: &str) -> Result<KubernetesVersion> {
        let bad = || {
            Error::new(
                ErrorKind::Syntax,
                format!("{text:?} is not a Kubernetes version; expected major.minor, e.g. 1.34"),
            )
            .in_field("dra.kubernetes_version")
        };
        let t = text.trim();
        let t = t.strip_prefix(['v', 'V']).unwrap_or(t);
        let mut parts = t.split(['.', '-', '+']);
        let major = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let minor = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        Ok(KubernetesVersion { major, minor })
    }

    /// The `resource.k8s.io` version to write for this Kubernetes.
    ///
    /// # Errors
    /// `OutOfRange` (field `dra.kubernetes_version`) before 1.32: 1.31 serves only the alpha
    /// `v1alpha3`, 1.30 and older no structured parameters this export can use.
    pub fn resource_api(self) -> Result<ResourceApi> {
        match (self.major, self.minor) {
            (1, m) if m >= 34 => Ok(ResourceApi::V1),
            (1, 32 | 33) => Ok(ResourceApi::V1beta1),
            (1, 31) => Err(self.too_old(
                "serves DRA only as the alpha resource.k8s.io/v1alpha3 (feature gate DynamicResourceAllocation, off by default), and the NVIDIA DRA driver needs 1.32 or later",
            )),
            (1, _) => Err(self.too_old(
                "serves DRA only as the alpha resource.k8s.io/v1alpha2 (classic DRA; structured parameters only as an alpha in 1.30), and the NVIDIA DRA driver needs 1.32 or later",
            )),
            _ => Err(self.too_old("is not a Kubernetes 1.x release")),
        }
    }

    fn too_old(self, why: &str) -> Error {
        Error::new(
            ErrorKind::OutOfRange,
            format!(
                "Kubernetes {self} {why}; DRA claims need 1.32 or later (resource.k8s.io/v1beta1, beta and off by default in 1.32 and 1.33) or 1.34 and later (resource.k8s.io/v1, GA). Nothing written."
            ),
        )
        .in_field("dra.kubernetes_version")
    }
}

impl fmt::Display for KubernetesVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl DraOptions {
    /// The version and API these options write for.
    ///
    /// # Errors
    /// As [`KubernetesVersion::parse`] and [`KubernetesVersion::resource_api`]; `OutOfRange`
    /// (field `dra.consumable_memory`) for consumable memory before Kubernetes 1.34, which has no
    /// `capacity` in a request (`DRAConsumableCapacity` is alpha from 1.34).
    pub fn resolve(&self) -> Result<(KubernetesVersion, ResourceApi)> {
        let version = KubernetesVersion::parse(&self.kubernetes_version)?;
        let api = version.resource_api()?;
        if self.consumable_memory && api != ResourceApi::V1 {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("consumable memory (capacity.requests) needs Kubernetes 1.34 or later (DRAConsumableCapacity, alpha); Kubernetes {version} has none. Nothing written."),
            )
            .in_field("dra.consumable_memory"));
        }
        Ok((version, api))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_the_api_they_serve() {
        let api = |v: &str| KubernetesVersion::parse(v).unwrap().resource_api();
        assert_eq!(api("1.34").unwrap(), ResourceApi::V1);
        assert_eq!(api("v1.36.1").unwrap(), ResourceApi::V1);
        assert_eq!(api("1.33.0-gke.100").unwrap(), ResourceApi::V1beta1);
        assert_eq!(api("1.32").unwrap(), ResourceApi::V1beta1);
        for old in ["1.31", "1.30", "1.26", "1.9", "2.0"] {
            let e = api(old).unwrap_err();
            assert_eq!(e.kind, ErrorKind::OutOfRange, "{old}");
            assert_eq!(e.field.as_deref(), Some("dra.kubernetes_version"));
            assert!(e.message.contains("Nothing written"), "{}", e.message);
        }
        for bad in ["", "one", "1", "1.x", "v"] {
            assert_eq!(
                KubernetesVersion::parse(bad).unwrap_err().kind,
                ErrorKind::Syntax,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn consumable_memory_needs_the_v1_api() {
        let mut o = DraOptions {
            consumable_memory: true,
            ..DraOptions::default()
        };
        assert!(o.resolve().is_ok());
        o.kubernetes_version = "1.33".into();
        assert_eq!(
            o.resolve().unwrap_err().field.as_deref(),
            Some("dra.consumable_memory")
        );
    }

    #[test]
    fn intervals_read_back() {
        for i in TimeSliceInterval::ALL {
            assert_eq!(i.as_str().parse::<TimeSliceInterval>().unwrap(), i);
        }
        assert!("often".parse::<TimeSliceInterval>().is_err());
    }
}
