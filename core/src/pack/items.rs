//! What first-fit-decreasing reads of each choice, copied out once into a small array.
//!
//! A `Choice` is about 230 bytes with its strings elsewhere on the heap; a million of them do not
//! fit any cache, and each pass over them (counting, ordering, placing, bounding) was a pass over
//! memory — the part of a million-ask pack that grew faster than the asks (BENCHMARKS.md, MIG
//! growth). An `Item` is 40 bytes, and a MIG profile is looked up by name once per ask here rather
//! than in every step that needs it.

use super::ffd;
use crate::catalog::GpuModel;
use crate::plan::{Choice, Mechanism};

/// One choice as the packer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Item {
    pub mechanism: Mechanism,
    /// The index of a MIG choice's profile in the model's catalogue (`None`: not MIG, no model,
    /// or a profile the model lacks).
    pub profile: Option<u8>,
    /// Share units the ask denies to others.
    pub size: u64,
    /// MiB held on a shared GPU, when the ask asked for memory.
    pub held_mib: Option<u64>,
    /// Whole GPUs, for a whole ask.
    pub gpus: u64,
}

/// The items of `choices`, in order; MIG profiles are indices into `model.profiles`.
pub(super) fn items(choices: &[Choice], model: Option<&GpuModel>) -> Vec<Item> {
    choices
        .iter()
        .map(|c| Item {
            mechanism: c.mechanism,
            profile: profile_index(c, model),
            size: c.allocated_fraction.units(),
            held_mib: c.held_memory_mib,
            gpus: c.gpus,
        })
        .collect()
}

fn profile_index(c: &Choice, model: Option<&GpuModel>) -> Option<u8> {
    let name = c
        .mig_profile
        .as_deref()
        .filter(|_| c.mechanism == Mechanism::Mig)?;
    let p = model?.profiles.iter().position(|p| p.name == name)?;
    u8::try_from(p).ok()
}

/// The placing order: whole asks by GPU count, then shares, largest first; ties keep input order.
/// (Sorting the indices by a look-up into the choices was a tenth of packing a million asks.)
pub(super) fn order(items: &[Item]) -> Vec<usize> {
    let sizes: Vec<u64> = items.iter().map(|c| c.size).collect();
    let (whole, shared): (Vec<usize>, Vec<usize>) =
        (0..items.len()).partition(|&i| items[i].mechanism == Mechanism::Whole);
    let mut order = ffd::largest_first(&whole, &sizes);
    order.extend(ffd::largest_first(&shared, &sizes));
    order
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_item_is_forty_bytes() {
        // The module's reason to be: far smaller than a choice.
        assert_eq!(std::mem::size_of::<super::Item>(), 40);
        assert!(std::mem::size_of::<crate::plan::Choice>() > 200);
    }
}
