//! The packer's state while placing asks, and the `PackResult` it hands back.

use super::bounds::l2;
use super::gpu_layout::{GpuLayout, SharedSlot};
use super::mig::{layout, Counts, FitCache};
use super::tree::{Combine, FirstFitTree};
use super::MPS_CLIENTS_PER_GPU;
use crate::caps::{ResolvedCaps, MAX_GPU_COUNT};
use crate::catalog::{GpuModel, ProfileClass};
use crate::memory::mib_text;
use crate::nodes::NodeLayout;
use crate::plan::{Choice, Mechanism};
use crate::units::Share;

/// The packing of a set of asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackResult {
    /// Physical GPUs in use.
    pub gpus_used: u64,
    /// No packing of these asks with these mechanisms uses fewer GPUs (all asks, placed or not).
    pub lower_bound: u64,
    /// The GPU limit packed against, if any.
    pub gpu_count: Option<u64>,
    pub gpu_model: Option<String>,
    /// One entry per GPU in use, in index order.
    pub gpus: Vec<GpuLayout>,
    /// Asks that found no room, with the reason, in input order.
    pub unplaced: Vec<Unplaced>,
    /// The mechanism choice for every ask, in input order.
    pub choices: Vec<Choice>,
    pub notes: Vec<String>,
    /// The nodes, when the cluster has them: each one's role and GPUs.
    pub nodes: Vec<NodeLayout>,
}

/// An ask the packer could not place.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Unplaced {
    pub name: String,
    pub mechanism: Mechanism,
    pub reason: String,
}

impl PackResult {
    /// The GPU model the result was packed for, when the catalogue knows it (the model whose
    /// memory budgets shared GPUs).
    pub fn memory_model(&self) -> Option<&'static GpuModel> {
        self.gpu_model
            .as_deref()
            .and_then(crate::catalog::find_model)
    }

    /// How much of the GPUs in use the asks actually asked for, as a share of one GPU (≤ 1): per
    /// GPU, the requested shares on it (an ask on several whole GPUs spreads over them), capped
    /// at what the GPU has taken; then the mean over GPUs.
    pub fn utilisation(&self) -> Share {
        if self.gpus_used == 0 {
            return Share::ZERO;
        }
        // A hash map: a tree of a million names cost more than the packing (BENCHMARKS.md).
        let choices: std::collections::HashMap<&str, &Choice> =
            self.choices.iter().map(|c| (c.name.as_str(), c)).collect();
        let total: u128 = self
            .gpus
            .iter()
            .map(|g| {
                let requested: u128 = g
                    .asks()
                    .filter_map(|a| choices.get(a))
                    .map(|c| u128::from(c.requested_fraction.units()) / u128::from(c.gpus.max(1)))
                    .sum();
                requested.min(u128::from(g.used_fraction().units()))
            })
            .sum();
        Share::from_units((total / u128::from(self.gpus_used)) as u64)
    }
}

#[cfg(feature = "serde")]
impl PackResult {
    /// The fields of the seed's JSON: `unplaced` lists names; `unplaced_reasons` says why. (Also
    /// the first fields of a pack response, which adds its own after them.)
    pub(crate) fn serialize_fields<M: serde::ser::SerializeStruct>(
        &self,
        st: &mut M,
    ) -> Result<(), M::Error> {
        let names: Vec<&str> = self.unplaced.iter().map(|u| u.name.as_str()).collect();
        st.serialize_field("gpus_used", &self.gpus_used)?;
        st.serialize_field("lower_bound", &self.lower_bound)?;
        st.serialize_field("gpu_count", &self.gpu_count)?;
        st.serialize_field("gpu_model", &self.gpu_model)?;
        st.serialize_field("utilisation", &self.utilisation())?;
        st.serialize_field("unplaced", &names)?;
        st.serialize_field("unplaced_reasons", &self.unplaced)?;
        st.serialize_field("gpus", &self.gpus)?;
        st.serialize_field("choices", &self.choices)?;
        st.serialize_field("notes", &self.notes)?;
        if !self.nodes.is_empty() {
            st.serialize_field("nodes", &self.nodes)?;
        }
        Ok(())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for PackResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("PackResult", 11)?;
        self.serialize_fields(&mut st)?;
        st.end()
    }
}

/// A GPU while packing.
struct Gpu {
    mechanism: Mechanism,
    members: Vec<usize>,
    used: Share,
    /// MiB held by its tenants that asked for memory.
    memory: u64,
    counts: Counts,
}

/// A shared GPU's room: free compute units and free memory MiB (`u64::MAX` when the model, and
/// so the memory, is unknown). Inner tree nodes hold the largest of each, which only bounds
/// their GPUs, so the search backtracks (`FirstFitTree::first_leaf`).
type Room = (u64, u64);

/// Each of two rooms' larger part, for a node over shared GPUs.
struct Larger;

impl Combine<Room> for Larger {
    fn combine(a: Room, b: Room) -> Room {
        (a.0.max(b.0), a.1.max(b.1))
    }
}

/// The profiles any of two MIG GPUs can still place, for a node over MIG GPUs.
struct Union;

impl Combine<u32> for Union {
    fn combine(a: u32, b: u32) -> u32 {
        a | b
    }
}

/// GPUs of one mechanism, with the tree that finds the first one with room.
struct Pool<T, C> {
    tree: FirstFitTree<T, C>,
    /// Global GPU index of each of the pool's GPUs, in opening order.
    gpus: Vec<usize>,
}

pub(super) struct Builder {
    choices: Vec<Choice>,
    model: Option<&'static GpuModel>,
    limit: Option<u64>,
    gpus: Vec<Gpu>,
    unplaced: Vec<(usize, String)>,
    fits: Option<FitCache<'static>>,
    mig: Pool<u32, Union>,
    mps: Pool<Room, Larger>,
    timeslice: Pool<Room, Larger>,
    /// What one GPU offers its tenants with memory, when the model is known.
    memory_budget: Option<u64>,
    memory_model: Option<&'static GpuModel>,
}

impl Builder {
    pub(super) fn new(choices: Vec<Choice>, caps: &ResolvedCaps) -> Self {
        let count = |m: Mechanism| choices.iter().filter(|c| c.mechanism == m).count();
        let shared = |m: Mechanism| Pool {
            tree: FirstFitTree::new(count(m), (0, 0)),
            gpus: Vec::new(),
        };
        let mig = Pool {
            tree: FirstFitTree::new(count(Mechanism::Mig), 0),
            gpus: Vec::new(),
        };
        let (mps, timeslice) = (shared(Mechanism::Mps), shared(Mechanism::Timeslice));
        let model = caps.model.filter(|m| m.is_mig_capable());
        Builder {
            choices,
            model,
            limit: caps.gpu_count,
            gpus: Vec::new(),
            unplaced: Vec::new(),
            fits: model.map(FitCache::new),
            mig,
            mps,
            timeslice,
            memory_budget: caps.model.map(|m| m.usable_memory().mib),
            memory_model: caps.model,
        }
    }

    /// Places choice `i` on the first GPU of its mechanism with room, or a new GPU, or nowhere.
    pub(super) fn place(&mut self, i: usize) {
        let c = &self.choices[i];
        match c.mechanism {
            Mechanism::Whole => self.place_whole(i, c.gpus),
            Mechanism::Mig => self.place_mig(i),
            Mechanism::Mps | Mechanism::Timeslice => self.place_shared(i),
        }
    }

    /// Without a GPU count, the planner still stops at [`MAX_GPU_COUNT`] GPUs, so that an absurd
    /// input ends in unplaced asks instead of exhausting memory.
    fn room_for(&self, n: u64) -> bool {
        self.gpus.len() as u64 + n <= self.limit.unwrap_or(MAX_GPU_COUNT)
    }

    fn left(&self) -> String {
        let used = self.gpus.len() as u64;
        match self.limit {
            Some(limit) => format!("{} of {limit} GPUs free", limit.saturating_sub(used)),
            None => format!(
                "{} GPUs free below the planner's limit of {MAX_GPU_COUNT}",
                MAX_GPU_COUNT.saturating_sub(used)
            ),
        }
    }

    fn open(&mut self, mechanism: Mechanism, counts: Counts) -> usize {
        self.gpus.push(Gpu {
            mechanism,
            members: Vec::new(),
            used: Share::ZERO,
            memory: 0,
            counts,
        });
        self.gpus.len() - 1
    }

    fn place_whole(&mut self, i: usize, n: u64) {
        if !self.room_for(n) {
            let plural = if n == 1 { "" } else { "s" };
            self.unplaced
                .push((i, format!("needs {n} whole GPU{plural}; {}", self.left())));
            return;
        }
        for _ in 0..n {
            let g = self.open(Mechanism::Whole, Vec::new());
            self.gpus[g].members.push(i);
            self.gpus[g].used = Share::ONE;
        }
    }

    fn place_mig(&mut self, i: usize) {
        let Some(model) = self.model else {
            self.unplaced.push((i, "no MIG-capable GPU model".into()));
            return;
        };
        let profile_name = self.choices[i].mig_profile.as_deref().unwrap_or_default();
        let Some(p) = model.profiles.iter().position(|p| p.name == profile_name) else {
            self.unplaced
                .push((i, format!("{} has no profile {profile_name}", model.name)));
            return;
        };
        let bit = 1u32 << p;
        let opened = self.mig.gpus.len();
        let local = match self.mig.tree.first(|m| m & bit != 0) {
            Some(local) if local < opened => local,
            _ if self.room_for(1) => {
                let g = self.open(Mechanism::Mig, vec![0; model.profiles.len()]);
                self.mig.gpus.push(g);
                opened
            }
            _ => {
                let reason = format!(
                    "no MIG GPU in use has a free placement for {profile_name}; {}",
                    self.left()
                );
                self.unplaced.push((i, reason));
                return;
            }
        };
        let gpu = &mut self.gpus[self.mig.gpus[local]];
        gpu.counts[p] += 1;
        gpu.members.push(i);
        if let Some(fits) = self.fits.as_mut() {
            self.mig.tree.set(local, fits.fits(&gpu.counts));
        }
    }

    fn pool(&mut self, mechanism: Mechanism) -> &mut Pool<Room, Larger> {
        if mechanism == Mechanism::Mps {
            &mut self.mps
        } else {
            &mut self.timeslice
        }
    }

    fn place_shared(&mut self, i: usize) {
        let c = &self.choices[i];
        let (mechanism, share) = (c.mechanism, c.allocated_fraction);
        let (size, memory) = (share.units(), c.held_memory_mib.unwrap_or(0));
        let fits = move |room: Room| room.0 >= size && room.1 >= memory;
        let pool = self.pool(mechanism);
        let opened = pool.gpus.len();
        let local = match pool.tree.first_leaf(fits, fits) {
            Some(local) if local < opened => local,
            _ if self.room_for(1) => {
                let g = self.open(mechanism, Vec::new());
                self.pool(mechanism).gpus.push(g);
                opened
            }
            _ => {
                let reason = self.no_room(i);
                self.unplaced.push((i, reason));
                return;
            }
        };
        let budget = self.memory_budget;
        let g = self.pool(mechanism).gpus[local];
        let gpu = &mut self.gpus[g];
        gpu.members.push(i);
        gpu.used = Share::from_units(gpu.used.units() + size);
        gpu.memory += memory;
        let full = mechanism == Mechanism::Mps && gpu.members.len() as u32 >= MPS_CLIENTS_PER_GPU;
        let room = if full {
            (0, 0)
        } else {
            (
                Share::ONE.units() - gpu.used.units(),
                budget.map_or(u64::MAX, |b| b.saturating_sub(gpu.memory)),
            )
        };
        self.pool(mechanism).tree.set(local, room);
    }

    /// Why shared ask `i` found no GPU: the dimension that ran out, with what is left.
    fn no_room(&self, i: usize) -> String {
        let left = self.left();
        let budget = self.memory_budget.unwrap_or(0);
        let c = &self.choices[i];
        let (mechanism, share) = (c.mechanism, c.allocated_fraction);
        let pool = if mechanism == Mechanism::Mps {
            &self.mps
        } else {
            &self.timeslice
        };
        let (compute, memory) = pool.tree.root();
        let mut out = Vec::new();
        if let (Some(asked), Some(held)) = (c.memory_mib, c.held_memory_mib) {
            if memory < held {
                let most = pool.tree.first(|room| room.1 >= memory).unwrap_or(0);
                let gpu = pool.gpus.get(most).copied().unwrap_or(0);
                out.push(format!(
                    "memory: {} asked ({} with its CUDA context), {} left on GPU {gpu} (the most on any {mechanism} GPU in use)",
                    mib_text(asked),
                    mib_text(held),
                    mib_text(memory.min(budget))
                ));
            }
        }
        // Memory that no GPU has left is reason enough; compute is named when it alone ran out.
        if out.is_empty() && compute < share.units() {
            // Named as a dimension only when memory is the other one.
            let dimension = if c.memory_mib.is_some() {
                "compute: "
            } else {
                ""
            };
            out.push(format!(
                "{dimension}no {mechanism} GPU in use has {share} free"
            ));
        }
        if out.is_empty() {
            // Each dimension has room somewhere, never on one GPU.
            out.push(format!(
                "no {mechanism} GPU in use has both {share} and {} free",
                mib_text(c.held_memory_mib.unwrap_or(0))
            ));
        }
        format!("{}; {left}", out.join("; "))
    }

    pub(super) fn finish(self) -> PackResult {
        let (model, choices, budget) = (self.model, self.choices, self.memory_budget);
        let memory_model = self.memory_model;
        let gpus: Vec<GpuLayout> = self
            .gpus
            .iter()
            .enumerate()
            .map(|(index, gpu)| describe(index as u64, gpu, &choices, model, budget))
            .collect();
        let mut unplaced = self.unplaced;
        crate::sort::sort_by_key(&mut unplaced, |(i, _)| *i);
        PackResult {
            gpus_used: gpus.len() as u64,
            lower_bound: lower_bound(&choices, model, memory_model),
            gpu_count: self.limit,
            gpu_model: choices.iter().find_map(|c| c.gpu_model.clone()),
            gpus,
            unplaced: unplaced
                .into_iter()
                .map(|(i, reason)| Unplaced {
                    name: choices[i].name.clone(),
                    mechanism: choices[i].mechanism,
                    reason,
                })
                .collect(),
            choices,
            notes: Vec::new(),
            nodes: Vec::new(),
        }
    }
}

fn describe(
    index: u64,
    gpu: &Gpu,
    choices: &[Choice],
    model: Option<&GpuModel>,
    memory_budget: Option<u64>,
) -> GpuLayout {
    let name = |i: usize| choices[i].name.clone();
    match (gpu.mechanism, model) {
        (Mechanism::Mig, Some(model)) => {
            // The packer only ever adds an instance the fit cache proved placeable.
            let placed = layout(model, &gpu.counts).unwrap_or_default();
            let mut asks_of: Vec<Vec<String>> = vec![Vec::new(); model.profiles.len()];
            for &i in gpu.members.iter().rev() {
                let profile = choices[i].mig_profile.as_deref().unwrap_or_default();
                if let Some(p) = model.profiles.iter().position(|p| p.name == profile) {
                    asks_of[p].push(name(i));
                }
            }
            GpuLayout::mig(index, model, placed, asks_of)
        }
        (Mechanism::Mps | Mechanism::Timeslice, _) => {
            let slots = gpu
                .members
                .iter()
                .map(|&i| {
                    let c = &choices[i];
                    SharedSlot::new(name(i), c.allocated_fraction, c.held_memory_mib)
                })
                .collect();
            GpuLayout::shared(index, gpu.mechanism, slots, memory_budget)
        }
        // A whole GPU has one member; MIG without a model is never opened.
        _ => GpuLayout::whole(
            index,
            gpu.members.first().map(|&i| name(i)).unwrap_or_default(),
        ),
    }
}

/// The bound for the asks of one shared mechanism (MPS or time-slicing): the larger of L2 of
/// their shares and L2 of the memory they hold (each dimension alone must fit), and for MPS the
/// client limit per GPU.
pub(crate) fn shared_bound(
    choices: &[Choice],
    mechanism: Mechanism,
    model: Option<&GpuModel>,
) -> u64 {
    let of = || choices.iter().filter(|c| c.mechanism == mechanism);
    let sizes: Vec<u64> = of().map(|c| c.allocated_fraction.units()).collect();
    let by_size = l2(&sizes, Share::ONE.units());
    let by_memory = match model.map(|m| m.usable_memory().mib) {
        Some(budget) if budget > 0 => {
            let held: Vec<u64> = of().filter_map(|c| c.held_memory_mib).collect();
            l2(&held, budget)
        }
        _ => 0,
    };
    let bound = by_size.max(by_memory);
    match mechanism {
        Mechanism::Mps => bound.max((sizes.len() as u64).div_ceil(MPS_CLIENTS_PER_GPU.into())),
        _ => bound,
    }
}

/// A bound per mechanism (GPUs are never shared across mechanisms), summed.
fn lower_bound(
    choices: &[Choice],
    model: Option<&GpuModel>,
    memory_model: Option<&GpuModel>,
) -> u64 {
    let of = |m: Mechanism| choices.iter().filter(move |c| c.mechanism == m);
    let whole: u64 = of(Mechanism::Whole).map(|c| c.gpus).sum();
    let timeslice = shared_bound(choices, Mechanism::Timeslice, memory_model);
    let mps = shared_bound(choices, Mechanism::Mps, memory_model);
    let mig = match model.and_then(|m| m.mig.map(|g| (m, g))) {
        Some((model, g)) => {
            let mut counts = vec![0u64; model.profiles.len()];
            for c in of(Mechanism::Mig) {
                if let Some(p) = model
                    .profiles
                    .iter()
                    .position(|p| Some(p.name) == c.mig_profile.as_deref())
                {
                    counts[p] += 1;
                }
            }
            let sum = |f: fn(&crate::catalog::MigProfile) -> u8| -> u64 {
                model
                    .profiles
                    .iter()
                    .zip(&counts)
                    .map(|(p, &n)| u64::from(f(p)) * n)
                    .sum()
            };
            let media: u64 = model
                .profiles
                .iter()
                .zip(&counts)
                .filter(|(p, _)| {
                    matches!(
                        p.class,
                        ProfileClass::MediaExtensions | ProfileClass::AllMediaEngines
                    )
                })
                .map(|(_, &n)| n)
                .sum();
            let per_profile = model
                .profiles
                .iter()
                .zip(&counts)
                .map(|(p, &n)| n.div_ceil(p.max_count.into()))
                .max()
                .unwrap_or(0);
            sum(|p| p.compute_slices)
                .div_ceil(g.compute_slices.into())
                .max(sum(|p| p.memory_slices).div_ceil(g.memory_slices.into()))
                .max(per_profile)
                .max(media)
        }
        None => 0,
    };
    whole + timeslice + mps + mig
}
