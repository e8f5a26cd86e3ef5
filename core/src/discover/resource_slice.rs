//! `kubectl get resourceslices -o json|yaml`: the devices a DRA driver publishes, read as they are.
//!
//! A ResourceSlice (`resource.k8s.io`, docs/hardware-facts.md §13) lists devices of one driver's
//! pool: each with a name, typed attributes (`string`, `int`, `bool`, `version`), capacities
//! (quantities) and, for partitionable devices, the counters it consumes from the pool's shared
//! counter sets. `v1` and `v1beta2` put those fields on the device; `v1beta1` under `basic`.
//! Attribute and capacity names are kept fully qualified: a name without a domain belongs to the
//! driver's (`productName` of driver `gpu.nvidia.com` is `gpu.nvidia.com/productName`), as the
//! scheduler reads them.
//!
//! [`read_resource_slices`] gives the slices themselves (the first-fit simulation,
//! `export::dra::allocator`, runs on them); `inventory` turns the NVIDIA driver's into the
//! discovery [`Inventory`](super::Inventory): boards, MIG devices with their profiles, placements
//! and parent GPUs, whole GPUs.

#[cfg(feature = "serde")]
pub(super) mod inventory;
pub mod quantity;
#[cfg(feature = "serde")]
mod read;

#[cfg(feature = "serde")]
pub use read::{read_resource_slices, resource_slices_from_value};

use std::collections::BTreeMap;

/// The NVIDIA DRA driver's name, which is also the domain of its attributes.
pub const NVIDIA_DRIVER: &str = "gpu.nvidia.com";

/// Most devices read from one input, a guard against absurd lists (a node with 8 GPUs and dynamic
/// MIG publishes a few hundred).
pub const MAX_DEVICES: usize = 100_000;

/// The slices read, in the order given, and what was skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ResourceSlices {
    pub slices: Vec<ResourceSlice>,
    /// Objects that were not ResourceSlices, and similar, one sentence each.
    pub notes: Vec<String>,
}

/// One ResourceSlice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ResourceSlice {
    /// `metadata.name`.
    pub name: String,
    /// `spec.driver`.
    pub driver: String,
    /// `spec.pool.name`.
    pub pool: String,
    /// `spec.pool.generation`: only a pool's newest slices count.
    pub generation: i64,
    /// `spec.pool.resourceSliceCount`: a pool with fewer slices is incomplete.
    pub slice_count: i64,
    /// `spec.nodeName`, for node-local devices.
    pub node: Option<String>,
    pub devices: Vec<SliceDevice>,
    /// `spec.sharedCounters`: counter sets partitionable devices consume from.
    pub counter_sets: Vec<CounterSet>,
}

/// One device of a slice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SliceDevice {
    pub name: String,
    /// By fully qualified name (`gpu.nvidia.com/profile`).
    pub attributes: BTreeMap<String, Attribute>,
    /// By fully qualified name (`gpu.nvidia.com/memory`).
    pub capacity: BTreeMap<String, Capacity>,
    /// `consumesCounters`: what allocating the device takes from the pool's counter sets.
    pub consumes: Vec<CounterUse>,
}

/// A typed attribute value.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Attribute {
    String(String),
    Int(i64),
    Bool(bool),
    /// A semantic version (`580.95.5`).
    Version(String),
}

/// A capacity: the quantity as written, and its value when it is a whole number.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Capacity {
    pub text: String,
    pub value: Option<u128>,
}

/// A named set of counters (`gpu-0-counter-set`: `memory-slice-0: 1`, `multiprocessors: 98`, …).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CounterSet {
    pub name: String,
    pub counters: BTreeMap<String, u128>,
}

/// What a device takes from one counter set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CounterUse {
    pub counter_set: String,
    pub counters: BTreeMap<String, u128>,
}

impl SliceDevice {
    /// A string attribute of the NVIDIA driver's domain (`type`, `productName`, `uuid`, …).
    pub fn nvidia(&self, name: &str) -> Option<&str> {
        match self.attributes.get(&format!("{NVIDIA_DRIVER}/{name}")) {
            Some(Attribute::String(s)) => Some(s),
            _ => None,
        }
    }

    /// A string attribute by fully qualified name.
    pub fn string(&self, qualified: &str) -> Option<&str> {
        match self.attributes.get(qualified) {
            Some(Attribute::String(s)) => Some(s),
            _ => None,
        }
    }

    /// A whole-number capacity of the NVIDIA driver's domain (`memory`, `multiprocessors`).
    pub fn nvidia_capacity(&self, name: &str) -> Option<u128> {
        self.capacity
            .get(&format!("{NVIDIA_DRIVER}/{name}"))
            .and_then(|c| c.value)
    }

    /// The memory slices the device occupies, lowest first: from its `memorySliceN` capacities
    /// (static MIG devices) or the `memory-slice-N` counters it consumes (dynamic MIG), else empty.
    pub fn memory_slices(&self) -> Vec<u8> {
        let prefix = format!("{NVIDIA_DRIVER}/memorySlice");
        let mut slices: Vec<u8> = self
            .capacity
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix)?.parse().ok())
            .collect();
        if slices.is_empty() {
            slices = self
                .consumes
                .iter()
                .flat_map(|c| c.counters.keys())
                .filter_map(|k| k.strip_prefix("memory-slice-")?.parse().ok())
                .collect();
        }
        slices.sort_unstable();
        slices.dedup();
        slices
    }
}
