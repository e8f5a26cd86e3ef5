//! The GPU catalogue: models, their memory and power, and each MIG profile's slices, limits and placements.
//!
//! Data lives in [`models`] as static tables, each fact beside its source in
//! `docs/hardware-facts.md`. Facts that source tags uncertain carry an [`Certainty::Uncertain`]
//! note, so front ends can say so instead of pretending.

mod listings;
mod memory;
mod models;
mod profile;

pub use listings::{ListedMemory, MigMemoryListing};
pub use memory::{
    largest_gpu, smallest_gpu_holding, ListedInstance, UsableMemory, ESTIMATED,
    RESERVED_MIB_UNCAPTURED,
};
pub use profile::{MigProfile, ProfileClass};

use crate::error::{Error, ErrorKind, Result};
use crate::units::Share;

/// How sure the catalogue is of a fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(
    feature = "serde",
    serde(rename_all = "snake_case", tag = "certainty", content = "why")
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Certainty {
    /// From a primary source or a real capture.
    Known,
    /// Inferred or secondary; the note says what is in doubt.
    Uncertain(&'static str),
}

/// One GPU model as the planner knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct GpuModel {
    /// Canonical name: nvidia-smi's product name without `NVIDIA `, spaces as `-` (`A100-SXM4-40GB`).
    pub name: &'static str,
    /// Names nvidia-smi prints for this board (`NVIDIA A100-SXM4-40GB`). A model is one board: a
    /// PCIe or NVL board with other power or SMs is a model of its own (`A100-PCIE-40GB`).
    pub smi_names: &'static [&'static str],
    /// Short names users type (`a100-40gb`).
    pub aliases: &'static [&'static str],
    /// Total framebuffer as nvidia-smi reports it, in MiB.
    pub memory_mib: u64,
    /// Default board power limit in watts, where a source gives one (named in `source`).
    pub power_limit_w: Option<u32>,
    /// Compute slices (7 or 4) and memory slices (8 or 4); `None` for boards without MIG.
    pub mig: Option<MigGeometry>,
    pub profiles: &'static [MigProfile],
    pub certainty: Certainty,
    /// Where the facts come from.
    pub source: &'static str,
}

/// The slice counts of a MIG-capable board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct MigGeometry {
    pub compute_slices: u8,
    pub memory_slices: u8,
}

/// The multiprocessors (SMs) of each GPU-instance profile on one board, from the SM column of a real
/// `nvidia-smi mig -lgip` on it (docs/hardware-facts.md §1.3). Boards of one catalogue model can differ
/// (an H100 SXM's 1g profile has 16 SMs, an H100 PCIe's 14), so the table is keyed by the product name
/// nvidia-smi prints, not by model. Discovery uses it to name a MIG device shown only by memory and SMs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MigMultiprocessors {
    /// The product name nvidia-smi prints for the board (`NVIDIA H100 80GB HBM3`).
    pub board: &'static str,
    /// (profile, SMs) for each profile a source shows; a profile left out is not known.
    pub profiles: &'static [(&'static str, u32)],
    pub certainty: Certainty,
    /// Where the counts come from.
    pub source: &'static str,
}

/// A profile's SMs on one board (from [`GpuModel::profile_sms`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProfileSms {
    /// The profile's SMs.
    pub sms: u32,
    /// The SMs of the board's full-GPU instance (7g or 4g), where a source shows them.
    pub gpu: Option<u32>,
    /// How sure the board's SM table is.
    pub certainty: Certainty,
}

impl ProfileSms {
    /// Whether these SMs are less than `fraction` of the full-GPU instance's (exact, in integers);
    /// `None` when the full-GPU count is not known.
    pub fn below(&self, fraction: Share) -> Option<bool> {
        let gpu = self.gpu?;
        Some(
            u128::from(self.sms) * u128::from(Share::ONE.units())
                < u128::from(fraction.units()) * u128::from(gpu),
        )
    }
}

impl MigMultiprocessors {
    /// The SMs of `profile` on this board, if known.
    pub fn of(&self, profile: &str) -> Option<u32> {
        self.profiles
            .iter()
            .find(|(p, _)| p.eq_ignore_ascii_case(profile.trim()))
            .map(|&(_, n)| n)
    }
}

/// The per-profile SM counts of the board nvidia-smi names `product_name` (compared like
/// [`find_model`]: ignoring case, spaces, `-`, `_` and a leading `NVIDIA`), where a source gives them.
pub fn mig_multiprocessors(product_name: &str) -> Option<&'static MigMultiprocessors> {
    // Planning calls this once per MIG ask, with the catalogue's own spelling: allocating two
    // normalised strings per board was a tenth of packing a million asks. Boards' normalised
    // names are distinct (tests.rs), so an exact match is the one match.
    if let Some(t) = models::MIG_MULTIPROCESSORS
        .iter()
        .find(|t| t.board == product_name)
    {
        return Some(t);
    }
    let key = without_vendor(normalised(product_name));
    key.clone().next()?;
    models::MIG_MULTIPROCESSORS
        .iter()
        .find(|t| without_vendor(normalised(t.board)).eq(key.clone()))
}

/// `name` lower-cased without spaces, `-` and `_`, as characters.
fn normalised(name: &str) -> impl Iterator<Item = char> + Clone + '_ {
    name.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
}

/// A normalised name without a leading `nvidia`.
fn without_vendor<I: Iterator<Item = char> + Clone>(name: I) -> std::iter::Skip<I> {
    let vendor = name.clone().take(6).eq("nvidia".chars());
    name.skip(if vendor { 6 } else { 0 })
}

/// The model assumed when MIG is asked for and neither a model nor telling profile names are given.
pub const DEFAULT_MIG_MODEL: &str = "A100-SXM4-40GB";

/// Every model the planner knows, MIG-capable first.
pub fn models() -> &'static [GpuModel] {
    models::ALL
}

/// Finds a model by canonical name, nvidia-smi name or alias, ignoring case, spaces, `-` and `_`.
pub fn find_model(name: &str) -> Option<&'static GpuModel> {
    let key = normalise(name);
    if key.is_empty() {
        return None;
    }
    let stripped = key.strip_prefix("nvidia").unwrap_or(&key);
    models().iter().find(|m| {
        std::iter::once(m.name)
            .chain(m.smi_names.iter().copied())
            .chain(m.aliases.iter().copied())
            .any(|n| {
                let n = normalise(n);
                n == key || n.strip_prefix("nvidia").unwrap_or(&n) == stripped
            })
    })
}

/// Like [`find_model`], but an unknown name is an error listing the known ones.
///
/// # Errors
/// `UnknownModel` when no model matches.
pub fn require_model(name: &str) -> Result<&'static GpuModel> {
    find_model(name).ok_or_else(|| {
        let known: Vec<&str> = models().iter().map(|m| m.name).collect();
        Error::new(
            ErrorKind::UnknownModel,
            format!(
                "unknown GPU model {name:?}; known models: {}",
                known.join(", ")
            ),
        )
    })
}

impl GpuModel {
    pub fn is_mig_capable(&self) -> bool {
        self.mig.is_some()
    }

    /// This board's per-profile SM counts, from a real `nvidia-smi mig -lgip` on it, where one was
    /// seen (docs/hardware-facts.md §1.3). A model's nvidia-smi names are one board's, so at most
    /// one table matches.
    pub fn multiprocessors(&self) -> Option<&'static MigMultiprocessors> {
        self.smi_names.iter().find_map(|n| mig_multiprocessors(n))
    }

    /// The SMs of `profile` on this board and, where known, those of its full-GPU instance (the
    /// profile with every compute slice: 7g, or 4g on 4-slice boards), the unit of an SM share
    /// (docs/hardware-facts.md §1.3).
    pub fn profile_sms(&self, profile: &MigProfile) -> Option<ProfileSms> {
        let table = self.multiprocessors()?;
        let sms = table.of(profile.name)?;
        let g = self.mig?;
        let gpu = self
            .profiles
            .iter()
            .filter(|p| p.is_plain() && p.compute_slices == g.compute_slices)
            .find_map(|p| table.of(p.name));
        Some(ProfileSms {
            sms,
            gpu,
            certainty: table.certainty,
        })
    }

    /// The profile with this name (case-insensitive), if the model offers it.
    pub fn profile(&self, name: &str) -> Option<&'static MigProfile> {
        let name = name.trim();
        self.profiles
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Like [`GpuModel::profile`], but an unknown name is an error listing the valid ones.
    ///
    /// # Errors
    /// `UnknownProfile` when the model has no such profile (or no MIG at all).
    pub fn require_profile(&self, name: &str) -> Result<&'static MigProfile> {
        self.profile(name).ok_or_else(|| {
            let valid: Vec<&str> = self.profiles.iter().map(|p| p.name).collect();
            let message = if valid.is_empty() {
                format!("{} has no MIG, so it has no profile {name:?}", self.name)
            } else {
                format!(
                    "{} has no MIG profile {name:?}; valid profiles: {}",
                    self.name,
                    valid.join(", ")
                )
            };
            Error::new(ErrorKind::UnknownProfile, message)
        })
    }

    /// The profile of this model nearest to `name` (a profile of any board, `<g>g.<m>gb` with an
    /// optional `+me`-style tail): the same tail, then the same compute slices or else the
    /// closest (more before fewer), then the closest memory in the name (more before less).
    /// `None` for a name of another shape or a model without a profile of that tail.
    pub fn nearest_profile(&self, name: &str) -> Option<&'static MigProfile> {
        let (g, gb, tail) = profile_name_parts(name)?;
        self.profiles
            .iter()
            .filter(|p| profile_name_parts(p.name).is_some_and(|(_, _, t)| t == tail))
            .min_by_key(|p| {
                let (pg, pgb, _) = profile_name_parts(p.name).unwrap_or((0, 0, ""));
                (pg.abs_diff(g), pg < g, pgb.abs_diff(gb), pgb < gb)
            })
    }

    /// A profile's share of this GPU: what it denies to others, the larger of its compute and memory shares.
    pub fn profile_share(&self, profile: &MigProfile) -> Share {
        match self.mig {
            Some(g) => {
                let compute = Share::ratio(profile.compute_slices.into(), g.compute_slices.into());
                let memory = Share::ratio(profile.memory_slices.into(), g.memory_slices.into());
                // Slice counts are tiny and non-zero, so both ratios exist.
                compute
                    .unwrap_or(Share::ONE)
                    .max(memory.unwrap_or(Share::ONE))
            }
            None => Share::ONE,
        }
    }

    /// Whether `other` has this model's MIG geometry and profile table (an SXM board and its PCIe
    /// or NVL sibling: profile names alone cannot tell them apart).
    pub fn same_profiles(&self, other: &GpuModel) -> bool {
        self.mig == other.mig && self.profiles == other.profiles
    }

    /// Whether a profile's compute slices cover `fraction` of the GPU.
    pub fn profile_compute_covers(&self, profile: &MigProfile, fraction: Share) -> bool {
        let Some(g) = self.mig else { return false };
        Share::ratio(profile.compute_slices.into(), g.compute_slices.into())
            .is_ok_and(|c| c >= fraction)
    }

    /// Whether a profile covers `fraction` of the GPU in both compute and memory.
    pub fn profile_covers(&self, profile: &MigProfile, fraction: Share) -> bool {
        let Some(g) = self.mig else { return false };
        let compute = Share::ratio(profile.compute_slices.into(), g.compute_slices.into());
        let memory = Share::ratio(profile.memory_slices.into(), g.memory_slices.into());
        matches!((compute, memory), (Ok(c), Ok(m)) if c >= fraction && m >= fraction)
    }
}

/// Models whose profile names include all of `profiles`, in catalogue order.
pub fn models_with_profiles<'a>(
    profiles: impl IntoIterator<Item = &'a str> + Clone,
) -> Vec<&'static GpuModel> {
    models()
        .iter()
        .filter(|m| m.is_mig_capable())
        .filter(|m| profiles.clone().into_iter().all(|p| m.profile(p).is_some()))
        .collect()
}

fn normalise(name: &str) -> String {
    normalised(name).collect()
}

/// `3g.40gb+me` as (3, 40, "+me"), lower-cased; `None` for a name of another shape.
fn profile_name_parts(name: &str) -> Option<(u32, u32, &str)> {
    let name = name.trim();
    let (g, rest) = name.split_once("g.")?;
    let gb_end = rest.find("gb")?;
    let g = g.parse().ok()?;
    let gb = rest[..gb_end].parse().ok()?;
    Some((g, gb, &rest[gb_end + 2..]))
}

#[cfg(test)]
mod tests;
