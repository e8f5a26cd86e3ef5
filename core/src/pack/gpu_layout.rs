//! One physical GPU of a packing and who runs on it: MIG instances, shared slots or one whole-GPU
//! ask — an enum, so a GPU can never hold two kinds at once and readers never guess which is filled.

use super::mig::Placed;
use crate::catalog::GpuModel;
use crate::plan::Mechanism;
use crate::units::Share;

/// One physical GPU and what runs on it. Built only by the packer; `used_fraction` always agrees
/// with the tenants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuLayout {
    /// The GPU's position in the packing, from 0.
    pub index: u64,
    /// The node it is on, when the cluster has nodes.
    pub node: Option<String>,
    tenants: Tenants,
    used_fraction: Share,
    memory: Option<MemoryUse>,
}

/// A shared GPU's memory, when some of its tenants asked for memory: what they hold (each with
/// its CUDA context) and what the GPU offers (its total less the driver's reserve).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct MemoryUse {
    pub used_mib: u64,
    pub budget_mib: u64,
}

/// Who runs on one GPU, by mechanism.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tenants {
    /// MIG instances at their placements, by start.
    Mig(Vec<MigInstance>),
    /// MPS clients, each with its share.
    Mps(Vec<SharedSlot>),
    /// Time-sliced tenants, each with its share.
    Timeslice(Vec<SharedSlot>),
    /// One ask holding the whole GPU (one of several GPUs for a multi-GPU ask).
    Whole(String),
}

/// An ask's share of a shared or whole GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct SharedSlot {
    pub ask: String,
    pub share: Share,
    /// The memory the ask holds here (asked plus its CUDA context), when it asked for memory.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub memory_mib: Option<u64>,
}

impl SharedSlot {
    /// A slot of `share` holding `memory_mib` (asks with memory) or memory unknown (`None`).
    pub fn new(ask: String, share: Share, memory_mib: Option<u64>) -> Self {
        SharedSlot {
            ask,
            share,
            memory_mib,
        }
    }
}

/// A MIG instance at a valid placement: memory slices `[start, start + memory_slices)`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct MigInstance {
    pub ask: String,
    /// The catalogue's name of the profile (borrowed: a copy per instance was a million small
    /// allocations in a large packing).
    pub profile: &'static str,
    pub start: u8,
    pub memory_slices: u8,
    pub compute_slices: u8,
}

impl GpuLayout {
    /// A MIG GPU of `model` with instances at `placed` (placements the fit cache proved valid,
    /// by start), each given to the first of `asks` (profile index, name; in the order placed)
    /// of its profile not yet given one. Its use is the larger of compute and memory slices.
    pub(crate) fn mig(
        index: u64,
        model: &GpuModel,
        placed: &[Placed],
        mut asks: Vec<(usize, String)>,
    ) -> Self {
        let (mut compute, mut memory) = (0u64, 0u64);
        let mut instances = Vec::with_capacity(placed.len());
        for slot in placed {
            let profile = &model.profiles[slot.profile];
            let Some(k) = asks.iter().position(|(p, _)| *p == slot.profile) else {
                continue;
            };
            let (_, ask) = asks.remove(k);
            compute += u64::from(profile.compute_slices);
            memory += u64::from(profile.memory_slices);
            instances.push(MigInstance {
                ask,
                profile: profile.name,
                start: slot.start,
                memory_slices: profile.memory_slices,
                compute_slices: profile.compute_slices,
            });
        }
        GpuLayout {
            index,
            node: None,
            tenants: Tenants::Mig(instances),
            used_fraction: mig_use(model, compute, memory),
            memory: None,
        }
    }

    /// A GPU read back from a pack result's JSON (`read.rs`), whose tenants that reader has checked
    /// against every rule the packer keeps; its use is computed here as the packer computes it.
    #[cfg(feature = "serde")]
    pub(super) fn checked(
        index: u64,
        node: Option<String>,
        tenants: Tenants,
        model: Option<&GpuModel>,
        memory_budget_mib: Option<u64>,
    ) -> Self {
        let used_fraction = match (&tenants, model) {
            (Tenants::Mig(instances), Some(model)) => {
                let sum =
                    |f: fn(&MigInstance) -> u8| instances.iter().map(|i| u64::from(f(i))).sum();
                mig_use(model, sum(|i| i.compute_slices), sum(|i| i.memory_slices))
            }
            (Tenants::Mps(slots) | Tenants::Timeslice(slots), _) => {
                slots.iter().map(|s| s.share).sum()
            }
            _ => Share::ONE,
        };
        let memory = memory_use(tenants_slots(&tenants), memory_budget_mib);
        GpuLayout {
            index,
            node,
            tenants,
            used_fraction,
            memory,
        }
    }

    /// An MPS or time-sliced GPU (`mechanism` says which) with these slots; its use is their sum.
    /// `memory_budget_mib` is what the GPU offers, known when the model is.
    pub(crate) fn shared(
        index: u64,
        mechanism: Mechanism,
        slots: Vec<SharedSlot>,
        memory_budget_mib: Option<u64>,
    ) -> Self {
        debug_assert!(matches!(mechanism, Mechanism::Mps | Mechanism::Timeslice));
        let used = slots.iter().map(|s| s.share.units()).sum();
        let memory = memory_use(&slots, memory_budget_mib);
        let tenants = match mechanism {
            Mechanism::Mps => Tenants::Mps(slots),
            _ => Tenants::Timeslice(slots),
        };
        GpuLayout {
            index,
            node: None,
            tenants,
            used_fraction: Share::from_units(used),
            memory,
        }
    }

    /// A shared GPU's memory, when some of its tenants asked for memory and the model is known.
    pub fn memory(&self) -> Option<MemoryUse> {
        self.memory
    }

    /// A GPU given whole to `ask`.
    pub(crate) fn whole(index: u64, ask: String) -> Self {
        GpuLayout {
            index,
            node: None,
            tenants: Tenants::Whole(ask),
            used_fraction: Share::ONE,
            memory: None,
        }
    }

    /// Who runs on this GPU.
    pub fn tenants(&self) -> &Tenants {
        &self.tenants
    }

    pub fn mechanism(&self) -> Mechanism {
        match self.tenants {
            Tenants::Mig(_) => Mechanism::Mig,
            Tenants::Mps(_) => Mechanism::Mps,
            Tenants::Timeslice(_) => Mechanism::Timeslice,
            Tenants::Whole(_) => Mechanism::Whole,
        }
    }

    /// The share of this GPU taken (for MIG, the larger of compute and memory slices in use).
    pub fn used_fraction(&self) -> Share {
        self.used_fraction
    }

    /// Names of the asks on this GPU, in placement order.
    pub fn asks(&self) -> impl Iterator<Item = &str> {
        let (instances, slots, whole) = self.parts();
        instances
            .iter()
            .map(|i| i.ask.as_str())
            .chain(slots.iter().map(|s| s.ask.as_str()))
            .chain(whole)
    }

    /// How many asks run on this GPU.
    pub fn ask_count(&self) -> usize {
        match &self.tenants {
            Tenants::Mig(i) => i.len(),
            Tenants::Mps(s) | Tenants::Timeslice(s) => s.len(),
            Tenants::Whole(_) => 1,
        }
    }

    /// MIG GPUs: each instance at its placement; empty for other GPUs.
    pub fn instances(&self) -> &[MigInstance] {
        self.parts().0
    }

    /// MPS and time-sliced GPUs: each ask's share; empty for other GPUs.
    pub fn slots(&self) -> &[SharedSlot] {
        self.parts().1
    }

    /// Adds a slot to an MPS or time-sliced GPU, keeping its use the sum of its slots.
    pub(crate) fn push_slot(&mut self, slot: SharedSlot, memory_budget_mib: Option<u64>) {
        if let Tenants::Mps(slots) | Tenants::Timeslice(slots) = &mut self.tenants {
            self.used_fraction = Share::from_units(self.used_fraction.units() + slot.share.units());
            slots.push(slot);
            self.memory = memory_use(
                slots,
                memory_budget_mib.or(self.memory.map(|m| m.budget_mib)),
            );
        }
    }

    /// Whether a shared GPU has room for `share` and `memory_mib` more (memory unknown: `None`).
    pub(crate) fn has_room(
        &self,
        share: Share,
        memory_mib: Option<u64>,
        budget: Option<u64>,
    ) -> bool {
        let compute = self.used_fraction.units() + share.units() <= Share::ONE.units();
        let used = self.memory.map_or(0, |m| m.used_mib);
        let memory = match (memory_mib, budget) {
            (Some(m), Some(b)) => used + m <= b,
            _ => true,
        };
        compute && memory
    }

    fn parts(&self) -> (&[MigInstance], &[SharedSlot], Option<&str>) {
        match &self.tenants {
            Tenants::Mig(i) => (i, &[], None),
            Tenants::Mps(s) | Tenants::Timeslice(s) => (&[], s, None),
            Tenants::Whole(a) => (&[], &[], Some(a)),
        }
    }

    /// A test's way to break the packer's invariants, to prove that the exports refuse the result.
    #[cfg(test)]
    pub(crate) fn instances_mut(&mut self) -> &mut Vec<MigInstance> {
        match &mut self.tenants {
            Tenants::Mig(i) => i,
            _ => panic!("not a MIG GPU"),
        }
    }
}

/// The shared slots of `tenants` (none for MIG and whole GPUs); used by [`GpuLayout::checked`].
#[cfg(feature = "serde")]
fn tenants_slots(tenants: &Tenants) -> &[SharedSlot] {
    match tenants {
        Tenants::Mps(s) | Tenants::Timeslice(s) => s,
        _ => &[],
    }
}

/// What the slots with memory hold, against the budget; `None` when no slot has memory or the
/// budget is unknown. The sum saturates: the packer never comes near `u64::MAX`, and a result
/// read back with larger memory is refused as holding more than the GPU offers (`read.rs`).
fn memory_use(slots: &[SharedSlot], budget_mib: Option<u64>) -> Option<MemoryUse> {
    let budget_mib = budget_mib?;
    let held: Vec<u64> = slots.iter().filter_map(|s| s.memory_mib).collect();
    (!held.is_empty()).then(|| MemoryUse {
        used_mib: held.iter().fold(0, |sum, &mib| sum.saturating_add(mib)),
        budget_mib,
    })
}

/// A MIG GPU's use: the larger of its compute and memory slices in use, as shares of the board's.
fn mig_use(model: &GpuModel, compute: u64, memory: u64) -> Share {
    model.mig.map_or(Share::ONE, |g| {
        let c = Share::ratio(compute, g.compute_slices.into()).unwrap_or(Share::ONE);
        let m = Share::ratio(memory, g.memory_slices.into()).unwrap_or(Share::ONE);
        c.max(m)
    })
}

/// The JSON every version has written: `index`, `mechanism`, `asks`, `used_fraction`, then
/// `slots` (shared and whole GPUs; a whole GPU's one slot has share 1) or `instances` (MIG), and
/// `node` when the cluster has nodes.
#[cfg(feature = "serde")]
impl serde::Serialize for GpuLayout {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let asks: Vec<&str> = self.asks().collect();
        let mut st = s.serialize_struct("GpuLayout", 6)?;
        st.serialize_field("index", &self.index)?;
        if let Some(node) = &self.node {
            st.serialize_field("node", node)?;
        }
        st.serialize_field("mechanism", &self.mechanism())?;
        st.serialize_field("asks", &asks)?;
        st.serialize_field("used_fraction", &self.used_fraction)?;
        if let Some(memory) = &self.memory {
            st.serialize_field("memory_used_mib", &memory.used_mib)?;
            st.serialize_field("memory_budget_mib", &memory.budget_mib)?;
        }
        match &self.tenants {
            Tenants::Mig(instances) => st.serialize_field("instances", instances)?,
            Tenants::Mps(slots) | Tenants::Timeslice(slots) => {
                st.serialize_field("slots", slots)?
            }
            Tenants::Whole(ask) => {
                st.serialize_field("slots", &[SharedSlot::new(ask.clone(), Share::ONE, None)])?
            }
        }
        st.end()
    }
}
