//! Memory a workload can use: each MIG instance's MiB from real listings (the smallest where drivers differ)
//! or an estimate at or below all of them, and what the driver keeps of a whole GPU.

use super::listings::{ListedMemory, MigMemoryListing, LISTINGS};
use super::{Certainty, GpuModel, MigProfile};
use std::collections::HashMap;

/// FB memory "Reserved" (MiB) of whole GPUs in real `nvidia-smi -q` captures kept in
/// `tests/fixtures/nvidia-smi/` (docs/hardware-facts.md §10): memory the driver keeps, which no
/// process can allocate.
const RESERVED_MIB: &[(&str, u64)] = &[
    ("T4", 448),
    ("A100-SXM4-40GB", 518),
    ("H100-80GB-HBM3", 480),
    ("L40S", 609),
];

/// For a board without a capture: the most any captured board keeps (L40S), so a plan errs on
/// the side of room (docs/hardware-facts.md §10).
pub const RESERVED_MIB_UNCAPTURED: u64 = 609;

/// Why an instance's memory is estimated (docs/hardware-facts.md §1.6).
pub const ESTIMATED: &str = "estimated: no real nvidia-smi mig -lgip listing of this board and instance size is known, so it is taken as the least any listed instance of the same share of memory offers on any board, scaled to this board's memory";

/// One real listing of an instance size on a board, and the MiB it counts for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListedInstance {
    pub listing: &'static MigMemoryListing,
    /// As the listing shows it.
    pub listed: ListedMemory,
    /// The MiB the catalogue counts it for (see [`GpuModel::instance_listings`]).
    pub mib: u64,
}

/// `memory_slices` of `model` in eighths of its memory (a 4-slice board's slice is two eighths).
fn eighths(model: &GpuModel, memory_slices: u8) -> Option<u32> {
    let g = model.mig?;
    let total = u32::from(g.memory_slices);
    let k = u32::from(memory_slices) * 8;
    (total > 0 && k % total == 0).then_some(k / total)
}

/// The MiB a listed value counts for on `model` at `memory_slices`: exact MiB as shown; a printed
/// `-lgip` GiB figure as the smallest exact MiB listed for the same board and size that prints as it
/// (the figure then says nothing lower), else rounded down ([`ListedMemory::floor_mib`]).
fn counted_mib(model: &str, memory_slices: u8, listed: ListedMemory) -> u64 {
    LISTINGS
        .iter()
        .filter(|l| l.model == model)
        .filter_map(|l| match l.of(memory_slices)? {
            ListedMemory::Mib(e) if listed.prints(e) => Some(e),
            _ => None,
        })
        .min()
        .unwrap_or_else(|| listed.floor_mib())
}

/// The smallest listing of `model` at `memory_slices` and the MiB it counts for (ties: the first).
fn smallest_of(model: &str, memory_slices: u8) -> Option<(&'static MigMemoryListing, u64)> {
    LISTINGS
        .iter()
        .filter(|l| l.model == model)
        .filter_map(|l| Some((l, counted_mib(model, memory_slices, l.of(memory_slices)?))))
        .min_by_key(|&(_, mib)| mib)
}

/// Of every listing of an instance holding `share` eighths of its board's memory: the one with the
/// least MiB per MiB of its board, as (counted MiB, board MiB). Computed once: it depends on the
/// static tables alone.
fn least_ratio(share: u32) -> Option<(u64, u64)> {
    static LEAST: std::sync::OnceLock<[Option<(u64, u64)>; 9]> = std::sync::OnceLock::new();
    let table = LEAST.get_or_init(|| {
        let mut least: [Option<(u64, u64)>; 9] = [None; 9];
        for l in LISTINGS {
            let Some(board) = super::models().iter().find(|m| m.name == l.model) else {
                continue;
            };
            for &(k, listed) in l.sizes {
                let Some(e) = eighths(board, k).filter(|&e| e <= 8) else {
                    continue;
                };
                let here = (counted_mib(board.name, k, listed), board.memory_mib.max(1));
                let slot = &mut least[e as usize];
                // a/b < c/d exactly, as a·d < c·b.
                let smaller = slot.is_none_or(|(c, d)| {
                    u128::from(here.0) * u128::from(d) < u128::from(c) * u128::from(here.1)
                });
                if smaller {
                    *slot = Some(here);
                }
            }
        }
        least
    });
    table.get(share as usize).copied().flatten()
}

/// How much memory an instance or a GPU offers, and how sure the catalogue is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UsableMemory {
    pub mib: u64,
    pub certainty: Certainty,
}

impl GpuModel {
    /// The real listings of an instance of `memory_slices` on this board, smallest first, each
    /// with the MiB it counts for (see `counted_mib`), docs/hardware-facts.md §1.6.
    pub fn instance_listings(&self, memory_slices: u8) -> Vec<ListedInstance> {
        let mut out: Vec<ListedInstance> = LISTINGS
            .iter()
            .filter(|l| l.model == self.name)
            .filter_map(|listing| {
                let listed = listing.of(memory_slices)?;
                Some(ListedInstance {
                    listing,
                    listed,
                    mib: counted_mib(self.name, memory_slices, listed),
                })
            })
            .collect();
        crate::sort::sort_by_key(&mut out, |l| l.mib);
        out
    }

    /// The smallest real listing of an instance of `memory_slices` on this board and the MiB it
    /// counts for, if any listing shows one: a plan must hold on every driver it may meet.
    /// (Planning asks this for every profile of every memory ask, so the answers are worked out
    /// once, from the static tables alone.)
    pub fn smallest_listing(&self, memory_slices: u8) -> Option<(&'static MigMemoryListing, u64)> {
        type Smallest = Option<(&'static MigMemoryListing, u64)>;
        static SMALLEST: std::sync::OnceLock<HashMap<(&'static str, u8), Smallest>> =
            std::sync::OnceLock::new();
        let table = SMALLEST.get_or_init(|| {
            let mut table = HashMap::new();
            for l in LISTINGS {
                for &(k, _) in l.sizes {
                    table
                        .entry((l.model, k))
                        .or_insert_with(|| smallest_of(l.model, k));
                }
            }
            table
        });
        table.get(&(self.name, memory_slices)).copied().flatten()
    }

    /// The smallest real MiB listed for an instance of `memory_slices` on this board, if any.
    pub fn real_instance_mib(&self, memory_slices: u8) -> Option<u64> {
        self.smallest_listing(memory_slices).map(|(_, mib)| mib)
    }

    /// For a size this board has no listing of: the least any listed instance of the same share of
    /// memory offers on any board, scaled to this board's memory and rounded down, so it is at or
    /// below every listing of that share, this board's own included (docs/hardware-facts.md §1.6).
    /// `None` for a board without MIG or a share no listing shows.
    pub fn estimated_instance_mib(&self, memory_slices: u8) -> Option<u64> {
        let share = eighths(self, memory_slices)?;
        let (mib, board_mib) = least_ratio(share)?;
        Some((u128::from(mib) * u128::from(self.memory_mib) / u128::from(board_mib.max(1))) as u64)
    }

    /// The memory a process in an instance of `profile` can use: the smallest real listing of this
    /// board and size; else the estimate of [`GpuModel::estimated_instance_mib`], marked uncertain.
    pub fn profile_memory(&self, profile: &MigProfile) -> UsableMemory {
        if let Some((listing, mib)) = self.smallest_listing(profile.memory_slices) {
            return UsableMemory {
                mib,
                certainty: listing.certainty,
            };
        }
        UsableMemory {
            mib: self
                .estimated_instance_mib(profile.memory_slices)
                .unwrap_or(0),
            certainty: Certainty::Uncertain(ESTIMATED),
        }
    }

    /// The memory of an instance of `profile` on `driver` when the user names one: that driver's
    /// real listing of this board and size, when one is known; else [`GpuModel::profile_memory`]
    /// (the smallest listing, or the estimate).
    pub fn profile_memory_on(&self, profile: &MigProfile, driver: Option<&str>) -> UsableMemory {
        match self.driver_listing(profile.memory_slices, driver) {
            Some(l) => UsableMemory {
                mib: l.mib,
                certainty: l.listing.certainty,
            },
            None => self.profile_memory(profile),
        }
    }

    /// The listing of an instance of `memory_slices` on this board that `driver` printed, if any.
    pub fn driver_listing(
        &self,
        memory_slices: u8,
        driver: Option<&str>,
    ) -> Option<ListedInstance> {
        let driver = driver?;
        self.instance_listings(memory_slices)
            .into_iter()
            .find(|l| l.listing.driver == Some(driver))
    }

    /// What the driver keeps of a whole GPU (FB memory "Reserved" in a real capture), or
    /// [`RESERVED_MIB_UNCAPTURED`] marked uncertain.
    pub fn reserved_memory(&self) -> UsableMemory {
        match RESERVED_MIB.iter().find(|(m, _)| *m == self.name) {
            Some(&(_, mib)) => UsableMemory {
                mib,
                certainty: Certainty::Known,
            },
            None => UsableMemory {
                mib: RESERVED_MIB_UNCAPTURED,
                certainty: Certainty::Uncertain(
                    "no real nvidia-smi -q capture for this board: the driver's reserved memory taken as the most any captured board keeps (609 MiB)",
                ),
            },
        }
    }

    /// Memory processes can allocate on the whole GPU: the total less what the driver keeps.
    pub fn usable_memory(&self) -> UsableMemory {
        let reserved = self.reserved_memory();
        UsableMemory {
            mib: self.memory_mib.saturating_sub(reserved.mib),
            certainty: reserved.certainty,
        }
    }
}

/// The smallest catalogued GPU whose usable memory holds `mib` (ties: fewer MiB, then catalogue
/// order), to name in an error.
pub fn smallest_gpu_holding(mib: u64) -> Option<&'static GpuModel> {
    super::models()
        .iter()
        .filter(|m| m.usable_memory().mib >= mib)
        .min_by_key(|m| m.usable_memory().mib)
}

/// The catalogued GPU with the most usable memory.
pub fn largest_gpu() -> Option<&'static GpuModel> {
    super::models().iter().max_by_key(|m| m.usable_memory().mib)
}
