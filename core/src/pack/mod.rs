//! `bin_pack`: first-fit-decreasing of many asks onto GPUs, one mechanism per GPU, MIG at real placements.

mod bounds;
#[cfg(test)]
mod brute_force;
mod fallback;
mod ffd;
mod gpu_layout;
mod layout;
pub(crate) mod mig;
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
pub use options::{bin_pack_with, OptimizedPack, PackOptions};
pub use reference::reference_ffd;

use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::error::{Error, ErrorKind, Result};
use crate::plan::{Choice, Mechanism};

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
/// are then put on nodes, one sharing configuration per node (`crate::nodes`).
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
    let mut asked: Vec<&str> = asks.iter().filter_map(|a| a.mig_profile()).collect();
    asked.sort_unstable();
    asked.dedup();
    let resolved = caps.resolve(&asked)?;
    crate::plan::memory::check(asks, &resolved)?;
    let mut result = fallback::pack(asks, &resolved);
    if let Some(note) = resolved.model_note {
        result.notes.push(note);
    }
    Ok(result)
}

/// Largest first: whole asks by GPU count, then shares; ties keep input order. (Sorting the
/// indices by a look-up into the choices was a tenth of packing a million asks.)
fn order(choices: &[Choice]) -> Vec<usize> {
    let sizes: Vec<u64> = choices
        .iter()
        .map(|c| c.allocated_fraction.units())
        .collect();
    let (whole, shared): (Vec<usize>, Vec<usize>) =
        (0..choices.len()).partition(|&i| choices[i].mechanism == Mechanism::Whole);
    let mut order = ffd::largest_first(&whole, &sizes);
    order.extend(ffd::largest_first(&shared, &sizes));
    order
}

pub(crate) fn check_unique_names(asks: &[FractionalAsk]) -> Result<()> {
    let mut names: Vec<(&str, usize)> = asks
        .iter()
        .enumerate()
        .map(|(i, a)| (a.name(), i))
        .collect();
    names.sort_unstable();
    for pair in names.windows(2) {
        if pair[0].0 == pair[1].0 {
            return Err(Error::new(
                ErrorKind::DuplicateName,
                format!(
                    "asks {} and {} are both named {:?}; names must be unique",
                    pair[0].1 + 1,
                    pair[1].1 + 1,
                    pair[0].0
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
