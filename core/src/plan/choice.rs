//! What a plan is: the mechanism, its isolation, MPS limits, and the choice for one ask.

use crate::units::Share;
use std::borrow::Cow;
use std::fmt;

/// How a GPU is shared, strongest isolation first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Mechanism {
    /// Multi-Instance GPU: hardware partitions.
    Mig,
    /// Multi-Process Service: thread-percentage and pinned-memory limits per client.
    Mps,
    /// Time-slicing: turns on the whole GPU, nothing enforced.
    Timeslice,
    /// The GPU (or several) for this ask alone.
    Whole,
}

/// What a mechanism protects a workload from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Isolation {
    Hardware,
    Partial,
    Soft,
    Exclusive,
}

impl Mechanism {
    pub const ALL: [Mechanism; 4] = [
        Mechanism::Mig,
        Mechanism::Mps,
        Mechanism::Timeslice,
        Mechanism::Whole,
    ];

    pub fn isolation(self) -> Isolation {
        match self {
            Mechanism::Mig => Isolation::Hardware,
            Mechanism::Mps => Isolation::Partial,
            Mechanism::Timeslice => Isolation::Soft,
            Mechanism::Whole => Isolation::Exclusive,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mechanism::Mig => "mig",
            Mechanism::Mps => "mps",
            Mechanism::Timeslice => "timeslice",
            Mechanism::Whole => "whole",
        }
    }
}

impl Isolation {
    pub fn as_str(self) -> &'static str {
        match self {
            Isolation::Hardware => "hardware",
            Isolation::Partial => "partial",
            Isolation::Soft => "soft",
            Isolation::Exclusive => "exclusive",
        }
    }

    /// One line on what this isolation does and does not give.
    pub fn explain(self) -> &'static str {
        match self {
            Isolation::Hardware => {
                "own SMs, memory and memory bandwidth; faults stay inside the instance"
            }
            Isolation::Partial => {
                "a thread-percentage ceiling (not a reservation) and a pinned-memory limit per client; no error isolation between clients"
            }
            Isolation::Soft => {
                "own CUDA contexts, taking turns on the whole GPU; no memory limit, compute share or fault isolation"
            }
            Isolation::Exclusive => "the whole GPU for this workload alone",
        }
    }
}

impl fmt::Display for Mechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The limits the MPS control daemon would set for this client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct MpsLimits {
    /// `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE`: the fraction as a whole percentage, rounded up.
    pub active_thread_percentage: u8,
    /// `CUDA_MPS_PINNED_DEVICE_MEM_LIMIT` in MiB, when the GPU model (and so its memory) is known.
    pub pinned_memory_mib: Option<u64>,
}

/// An ask of a MIG profile as a share of a GPU with memory, for a cluster that shares GPUs
/// without MIG: texts the ask grammar reads back exactly.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct ShareInstead {
    /// The profile's share of the GPU (`0.5`, `3/7`).
    pub fraction: String,
    /// The instance's memory less the CUDA context the plan adds back (`39692MiB`).
    pub memory: String,
}

/// The planner's answer for one ask. (Readable from JSON so that a front end can hand back a
/// choice it was given, to record it.)
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Choice {
    pub name: String,
    pub mechanism: Mechanism,
    pub isolation: Isolation,
    /// What was asked, as a share of one GPU (a named profile: its share on the model).
    pub requested_fraction: Share,
    /// What the ask denies to others: the MIG instance's share, the fraction, or whole GPUs.
    pub allocated_fraction: Share,
    /// `allocated_fraction − requested_fraction`.
    pub wasted_fraction: Share,
    /// Physical GPUs the ask occupies or shares: ⌈fraction⌉ for `whole`, else 1.
    pub gpus: u64,
    pub mig_profile: Option<String>,
    /// The catalogue's name of the GPU model the choice was made for, when known.
    pub gpu_model: Option<String>,
    pub mps: Option<MpsLimits>,
    /// The GPU memory asked, in MiB rounded up (asks with memory only).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub memory_mib: Option<u64>,
    /// What the ask holds on a GPU: the memory asked plus one CUDA context, in MiB.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub held_memory_mib: Option<u64>,
    /// The memory the mechanism gives the ask, in MiB: a MIG instance's, MPS's pinned-memory
    /// limit, a whole GPU's less the driver's reserve (time-slicing gives none of its own).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub allocated_memory_mib: Option<u64>,
    /// A MIG profile asked for on a cluster without MIG that shares GPUs otherwise: the same
    /// share and memory as a fraction with memory, which time-slicing or MPS can place beside
    /// other asks (the whole-GPU fallback is what was planned).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub share_instead: Option<ShareInstead>,
    /// How the choice was made.
    pub notes: Vec<String>,
    /// What the user must know: lost capacity, missing isolation, uncertain facts. A warning
    /// every choice of a kind carries (time-slicing's) is borrowed, not copied into each: a
    /// million time-sliced asks held 280 MB of one sentence.
    pub warnings: Vec<Cow<'static, str>>,
}

impl Choice {
    /// Adds a warning: text of the program's own is borrowed, a formatted one kept.
    pub(crate) fn warn(&mut self, text: impl Into<Cow<'static, str>>) {
        self.warnings.push(text.into());
    }
}
