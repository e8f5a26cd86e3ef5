//! A MIG profile: its compute and memory slices, how many fit on one GPU, and where it may start.

use super::Certainty;

/// Extra engines a profile reserves, which change what else may share the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ProfileClass {
    /// An ordinary profile (`3g.20gb`).
    Plain,
    /// `+me`: includes the media extensions; at most one per GPU.
    MediaExtensions,
    /// `+me.all`: takes every media engine; only `-me` profiles may share the GPU with it.
    AllMediaEngines,
    /// `-me`: no media engines.
    NoMediaEngines,
    /// `+gfx`: graphics-capable.
    Graphics,
}

/// One MIG GPU-instance profile on one GPU model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct MigProfile {
    /// The name nvidia-smi and the device plugin use (`2g.10gb`, `1g.5gb+me`).
    pub name: &'static str,
    pub compute_slices: u8,
    /// Memory slices occupied: the placement size (a power of two; `7g` occupies all 8).
    pub memory_slices: u8,
    /// The most instances of this profile one GPU can hold.
    pub max_count: u8,
    /// Valid first memory slices (NVML placements `{starts}:memory_slices`).
    pub starts: &'static [u8],
    pub class: ProfileClass,
    pub certainty: Certainty,
}

impl MigProfile {
    /// Whether an instance at `start` is a valid NVML placement for this profile.
    pub fn valid_start(&self, start: u8) -> bool {
        self.starts.contains(&start)
    }

    /// The memory-slice bitmap an instance at `start` occupies.
    pub fn mask_at(&self, start: u8) -> u16 {
        (((1u32 << self.memory_slices) - 1) << start) as u16
    }

    /// Whether the planner may choose this profile on its own. Profiles with reserved engines are
    /// used only when named, because they lock out others (`+me` is limited to one per GPU).
    pub fn is_plain(&self) -> bool {
        self.class == ProfileClass::Plain
    }
}

/// Placements of an 8-memory-slice board (A100, H100, H200, B200 …), docs/hardware-facts.md §1.2.
pub(super) mod eight {
    pub const S1: &[u8] = &[0, 1, 2, 3, 4, 5, 6];
    pub const S2: &[u8] = &[0, 2, 4, 6];
    pub const S2G: &[u8] = &[0, 2, 4];
    pub const S4: &[u8] = &[0, 4];
    pub const S0: &[u8] = &[0];
}

/// Placements of a 4-memory-slice board (A30, RTX PRO 6000), docs/hardware-facts.md §1.4.
pub(super) mod four {
    pub const S1: &[u8] = &[0, 1, 2, 3];
    pub const S2: &[u8] = &[0, 2];
    pub const S0: &[u8] = &[0];
}

const fn profile(
    name: &'static str,
    compute_slices: u8,
    memory_slices: u8,
    max_count: u8,
    starts: &'static [u8],
    class: ProfileClass,
    certainty: Certainty,
) -> MigProfile {
    MigProfile {
        name,
        compute_slices,
        memory_slices,
        max_count,
        starts,
        class,
        certainty,
    }
}

/// The seven profile classes of an 8-slice board, named per model:
/// `[1g.M, 1g.M+me, 1g.2M, 2g.2M, 3g.4M, 4g.4M, 7g.8M]` (docs/hardware-facts.md §1.2–1.3).
pub(super) const fn eight_slice(
    names: [&'static str; 7],
    placements: Certainty,
) -> [MigProfile; 7] {
    use eight::*;
    use ProfileClass::*;
    [
        profile(names[0], 1, 1, 7, S1, Plain, placements),
        profile(names[1], 1, 1, 1, S1, MediaExtensions, placements),
        profile(names[2], 1, 2, 4, S2, Plain, placements),
        profile(names[3], 2, 2, 3, S2G, Plain, placements),
        profile(names[4], 3, 4, 2, S4, Plain, placements),
        profile(names[5], 4, 4, 1, S0, Plain, placements),
        profile(names[6], 7, 8, 1, S0, Plain, placements),
    ]
}

pub(super) const fn four_slice(
    name: &'static str,
    compute_slices: u8,
    max_count: u8,
    class: ProfileClass,
    certainty: Certainty,
) -> MigProfile {
    let starts = match compute_slices {
        1 => four::S1,
        2 => four::S2,
        _ => four::S0,
    };
    profile(
        name,
        compute_slices,
        compute_slices,
        max_count,
        starts,
        class,
        certainty,
    )
}
