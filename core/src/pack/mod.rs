//! `bin_pack`: first-fit-decreasing of many asks onto GPUs, one mechanism per GPU, MIG at real placements.

mod bounds;
#[cfg(test)]
mod brute_force;
mod fallback;
mod ffd;
pub(crate) mod fit_cache;
mod gpu_layout;
mod items;
mod layout;
pub(crate) mod mig;
mod names;
mod nodes;
pub mod optimize;
mod options;
#[cfg(feature = "serde")]
mod read;
mod reference;
mod size_order;
mod tree;

pub use bounds::{dff_l2, l1, l2};
pub use ffd::{bins_used, decreasing_order, first_fit_decreasing, largest_first};
pub use gpu_layout::{GpuLayout, MigInstance, SharedSlot, Tenants};
pub use layout::{PackResult, Unplaced};
pub use nodes::{NodeLayout, NodeRole};
pub use options::{bin_pack_with, OptimizedPack, PackOptions};
pub use reference::reference_ffd;

use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::error::{Error, ErrorKind, Result};
use std::collections::BTreeSet;

/// The most asks one call packs.
pub const MAX_ASKS: usize = 2_000_000;

/// The most MPS clients one GPU serves (Volta and later, docs/hardware-facts.md §3).
pub const MPS_CLIENTS_PER_GPU: u32 = 48;

/// Packs `asks` onto at most `caps.gpu_count` GPUs (`None`: as many as needed, and report how
/// many). The caps are the one place that holds the GPU count.
///
/// Each ask gets its mechanism from [`select_mechanism`](crate::plan::select_mechanism); the largest
/// asks are placed first, each on the first GPU of its mechanism with room, or on a new GPU. When
/// the GPU limit leaves asks unplaced, asks move to a weaker mechanism the cluster also offers
/// where that places more (`fallback.rs`; the result's notes name them). Asks that still do not
/// fit are returned in `unplaced` with the reason, never dropped. With nodes in the caps, the GPUs
/// are then put on nodes, one sharing configuration per node (`nodes.rs`).
///
/// # Errors
/// Invalid caps or profiles (naming the ask), duplicate ask names, more than [`MAX_ASKS`] asks,
/// or a GPU count of 0.
pub fn bin_pack(asks: &[FractionalAsk], caps: &ClusterGpuCaps) -> Result<PackResult> {
    bin_pack_with(asks, caps, &PackOptions::default()).map(|p| p.result)
}

/// [`bin_pack`] without nodes: first-fit-decreasing and the fallback to weaker mechanisms.
pub(crate) fn first_fit(asks: &[FractionalAsk], caps: &ClusterGpuCaps) -> Result<PackResult> {
    if asks.len() > MAX_ASKS {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "{} asks is more than the {MAX_ASKS} one pack accepts",
                asks.len()
            ),
        ));
    }
    check_unique_names(asks)?;
    let asked = distinct_profiles(asks);
    let resolved = caps.resolve(&asked)?;
    crate::plan::memory::check(asks, &resolved)?;
    let mut result = fallback::pack(asks, &resolved);
    if let Some(note) = resolved.model_note {
        result.notes.push(note);
    }
    Ok(result)
}

/// The MIG profiles the asks name, each once, in order. Inserted one at a time: a million asks
/// name a handful of profiles, and collecting them all to sort (as `BTreeSet`'s `collect` also
/// does) was a sixth of packing a million MIG asks.
fn distinct_profiles(asks: &[FractionalAsk]) -> Vec<&str> {
    let mut set = BTreeSet::new();
    let mut last = None;
    for profile in asks.iter().filter_map(FractionalAsk::mig_profile) {
        if last != Some(profile) {
            set.insert(profile);
            last = Some(profile);
        }
    }
    set.into_iter().collect()
}

pub(crate) fn check_unique_names(asks: &[FractionalAsk]) -> Result<()> {
    let names = names::sorted(asks.iter().map(FractionalAsk::name).zip(0..));
    for pair in names.windows(2) {
        if pair[0].1 == pair[1].1 {
            return Err(Error::new(
                ErrorKind::DuplicateName,
                format!(
                    "asks {} and {} are both named {:?}; names must be unique",
                    pair[0].2 + 1,
                    pair[1].2 + 1,
                    pair[0].1
                ),
            )
            .in_field("name"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod memory_tests;
#[cfg(test)]
mod tests;
