//! The packer's state while placing asks, and the `PackResult` it hands back.

use super::bounds::lower_bound;
use super::fit_cache::FitCache;
use super::gpu_layout::{GpuLayout, SharedSlot};
use super::items::{items, order, Item};
use super::names;
use super::tree::{Combine, FirstFitTree};
use super::MPS_CLIENTS_PER_GPU;
use crate::caps::{ResolvedCaps, MAX_GPU_COUNT};
use crate::catalog::GpuModel;
use crate::memory::mib_text;
use crate::pack::NodeLayout;
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
    /// How much of the GPUs in use the asks actually asked for, as a share of one GPU (≤ 1),
    /// measured once when the packing is done (`PackResult::measure_utilisation`).
    pub utilisation: Share,
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
    /// at what the GPU has taken; then the mean over GPUs. The packer stores it in
    /// [`PackResult::utilisation`] once the packing is final.
    pub(crate) fn measure_utilisation(&self) -> Share {
        if self.gpus_used == 0 {
            return Share::ZERO;
        }
        // Each GPU's asks found among the choices by a merge of both lists sorted by name.
        let choices = names::sorted(self.choices.iter().map(|c| c.name.as_str()).zip(0..));
        let held = names::sorted(
            (self.gpus.iter().enumerate()).flat_map(|(g, gpu)| gpu.asks().map(move |a| (a, g))),
        );
        let mut requested = vec![0u128; self.gpus.len()];
        let mut j = 0;
        for &(key, name, g) in &held {
            while choices.get(j).is_some_and(|c| (c.0, c.1) < (key, name)) {
                j += 1;
            }
            if let Some(&(_, found, i)) = choices.get(j).filter(|c| (c.0, c.1) == (key, name)) {
                debug_assert_eq!(found, name);
                let c = &self.choices[i];
                requested[g] +=
                    u128::from(c.requested_fraction.units()) / u128::from(c.gpus.max(1));
            }
        }
        let total: u128 = (self.gpus.iter().zip(requested))
            .map(|(g, r)| r.min(u128::from(g.used_fraction().units())))
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
        st.serialize_field("utilisation", &self.utilisation)?;
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

/// A GPU while packing. (Its tenants are in `Builder::placements`: a vector per GPU was two heap
/// allocations per GPU, hundreds of thousands of them in a large packing.)
struct Gpu {
    mechanism: Mechanism,
    /// How many tenants it has.
    tenants: u32,
    used: Share,
    /// MiB held by its tenants that asked for memory.
    memory: u64,
    /// A MIG GPU's set of instances, by its id in the `FitCache`.
    state: u32,
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
    /// What placing reads of each choice (`items.rs`).
    items: Vec<Item>,
    model: Option<&'static GpuModel>,
    limit: Option<u64>,
    gpus: Vec<Gpu>,
    /// The choices in placing order, with their items (`place_all`).
    ordered: Vec<(usize, Item)>,
    /// `(GPU, k)` for each ask placed, in the order placed, `k` its position in `ordered` (an ask
    /// on n whole GPUs n times).
    placements: Vec<(u32, u32)>,
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
        let model = caps.model.filter(|m| m.is_mig_capable());
        let items = items(&choices, model);
        let count = |m: Mechanism| items.iter().filter(|c| c.mechanism == m).count();
        let shared = |m: Mechanism| Pool {
            tree: FirstFitTree::new(count(m), (0, 0)),
            gpus: Vec::new(),
        };
        let mig = Pool {
            tree: FirstFitTree::new(count(Mechanism::Mig), 0),
            gpus: Vec::new(),
        };
        let (mps, timeslice) = (shared(Mechanism::Mps), shared(Mechanism::Timeslice));
        let placements = Vec::with_capacity(items.len());
        Builder {
            choices,
            items,
            model,
            limit: caps.gpu_count,
            gpus: Vec::new(),
            ordered: Vec::new(),
            placements,
            unplaced: Vec::new(),
            fits: model.map(FitCache::new),
            mig,
            mps,
            timeslice,
            memory_budget: caps.model.map(|m| m.usable_memory().mib),
            memory_model: caps.model,
        }
    }

    /// Places every choice, largest first ([`order`]).
    pub(super) fn place_all(&mut self) {
        // Gathered in that order first: read one at a time between placements, a million items
        // at scattered places cost a cache miss each (the most sampled instruction of placing).
        self.ordered = order(&self.items)
            .into_iter()
            .map(|i| (i, self.items[i]))
            .collect();
        for k in 0..self.ordered.len() {
            self.place(k);
        }
    }

    /// Places the `k`th choice in placing order on the first GPU of its mechanism with room, or
    /// a new GPU, or nowhere.
    fn place(&mut self, k: usize) {
        let item = self.ordered[k].1;
        match item.mechanism {
            Mechanism::Whole => self.place_whole(k, item.gpus),
            Mechanism::Mig => self.place_mig(k, item.profile),
            Mechanism::Mps | Mechanism::Timeslice => self.place_shared(k, item),
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

    fn open(&mut self, mechanism: Mechanism) -> usize {
        self.gpus.push(Gpu {
            mechanism,
            tenants: 0,
            used: Share::ZERO,
            memory: 0,
            state: FitCache::EMPTY,
        });
        self.gpus.len() - 1
    }

    /// Puts the `k`th choice in placing order on GPU `g`. (GPUs stop at [`MAX_GPU_COUNT`] and
    /// asks at `MAX_ASKS`, so both fit in 32 bits.)
    fn add(&mut self, g: usize, k: usize) -> &mut Gpu {
        self.placements.push((g as u32, k as u32));
        let gpu = &mut self.gpus[g];
        gpu.tenants += 1;
        gpu
    }

    fn place_whole(&mut self, k: usize, n: u64) {
        let i = self.ordered[k].0;
        if !self.room_for(n) {
            let plural = if n == 1 { "" } else { "s" };
            self.unplaced
                .push((i, format!("needs {n} whole GPU{plural}; {}", self.left())));
            return;
        }
        for _ in 0..n {
            let g = self.open(Mechanism::Whole);
            self.add(g, k).used = Share::ONE;
        }
    }

    fn place_mig(&mut self, k: usize, profile: Option<u8>) {
        let i = self.ordered[k].0;
        let Some(model) = self.model else {
            self.unplaced.push((i, "no MIG-capable GPU model".into()));
            return;
        };
        let profile_name = || self.choices[i].mig_profile.as_deref().unwrap_or_default();
        let Some(p) = profile.map(usize::from) else {
            let reason = format!("{} has no profile {}", model.name, profile_name());
            self.unplaced.push((i, reason));
            return;
        };
        let bit = 1u32 << p;
        let opened = self.mig.gpus.len();
        let local = match self.mig.tree.first(|m| m & bit != 0) {
            Some(local) if local < opened => local,
            _ if self.room_for(1) => {
                let g = self.open(Mechanism::Mig);
                self.mig.gpus.push(g);
                opened
            }
            _ => {
                let reason = format!(
                    "no MIG GPU in use has a free placement for {}; {}",
                    profile_name(),
                    self.left()
                );
                self.unplaced.push((i, reason));
                return;
            }
        };
        let g = self.mig.gpus[local];
        let state = self.add(g, k).state;
        if let Some(fits) = self.fits.as_mut() {
            let state = fits.add(state, p);
            self.gpus[g].state = state;
            self.mig.tree.set(local, fits.fits_state(state));
        }
    }

    fn pool(&mut self, mechanism: Mechanism) -> &mut Pool<Room, Larger> {
        if mechanism == Mechanism::Mps {
            &mut self.mps
        } else {
            &mut self.timeslice
        }
    }

    fn place_shared(&mut self, k: usize, c: Item) {
        let i = self.ordered[k].0;
        let (mechanism, size, memory) = (c.mechanism, c.size, c.held_mib.unwrap_or(0));
        let fits = move |room: Room| room.0 >= size && room.1 >= memory;
        let pool = self.pool(mechanism);
        let opened = pool.gpus.len();
        let local = match pool.tree.first_leaf(fits, fits) {
            Some(local) if local < opened => local,
            _ if self.room_for(1) => {
                let g = self.open(mechanism);
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
        let gpu = self.add(g, k);
        gpu.used = Share::from_units(gpu.used.units() + size);
        gpu.memory += memory;
        let full = mechanism == Mechanism::Mps && gpu.tenants >= MPS_CLIENTS_PER_GPU;
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

    pub(super) fn finish(mut self) -> PackResult {
        let (model, choices, budget) = (self.model, self.choices, self.memory_budget);
        let (items, memory_model) = (self.items, self.memory_model);
        let (starts, members) = by_gpu(&self.placements, self.gpus.len());
        // The names copied in one pass over the choices: copied GPU by GPU, each read a choice
        // at random (cache misses, a million of them in a large packing).
        let mut names: Vec<String> = choices.iter().map(|c| c.name.clone()).collect();
        let gpus: Vec<GpuLayout> = self
            .gpus
            .iter()
            .enumerate()
            .map(|(g, gpu)| {
                let on = Members {
                    members: &members[starts[g]..starts[g + 1]],
                    items: &self.ordered,
                    names: &mut names,
                };
                describe(g as u64, gpu, on, model.zip(self.fits.as_mut()), budget)
            })
            .collect();
        let lb = lower_bound(&items, model, memory_model);
        let mut unplaced = self.unplaced;
        crate::sort::sort_by_key(&mut unplaced, |(i, _)| *i);
        PackResult {
            gpus_used: gpus.len() as u64,
            lower_bound: lb,
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
            // Measured once the packing is final (`bin_pack_with`): nodes and the optimizer change it.
            utilisation: Share::ZERO,
        }
    }
}

/// Each GPU's tenants in the order they were placed, by a counting sort of the placements:
/// GPU `g`'s are `members[starts[g]..starts[g + 1]]`.
fn by_gpu(placements: &[(u32, u32)], gpus: usize) -> (Vec<usize>, Vec<usize>) {
    let mut starts = vec![0usize; gpus + 1];
    for &(g, _) in placements {
        starts[g as usize + 1] += 1;
    }
    for g in 0..gpus {
        starts[g + 1] += starts[g];
    }
    let mut next = starts.clone();
    let mut members = vec![0usize; placements.len()];
    for &(g, i) in placements {
        members[next[g as usize]] = i as usize;
        next[g as usize] += 1;
    }
    (starts, members)
}

/// One GPU's tenants (positions in placing order, in the order placed), with the choices in
/// placing order (index and item) and their names.
struct Members<'a> {
    members: &'a [usize],
    items: &'a [(usize, Item)],
    names: &'a mut [String],
}

impl Members<'_> {
    /// The name of tenant `k`, moved out: only whole asks are on several GPUs.
    fn take_name(&mut self, k: usize) -> String {
        match self.items[k].1.mechanism {
            Mechanism::Whole => self.names[self.items[k].0].clone(),
            _ => std::mem::take(&mut self.names[self.items[k].0]),
        }
    }
}

fn describe(
    index: u64,
    gpu: &Gpu,
    mut on: Members<'_>,
    mig: Option<(&GpuModel, &mut FitCache<'_>)>,
    memory_budget: Option<u64>,
) -> GpuLayout {
    let members = on.members;
    match (gpu.mechanism, mig) {
        (Mechanism::Mig, Some((model, fits))) => {
            // The packer only ever adds an instance the fit cache proved placeable.
            let placed = fits.placed(gpu.state).unwrap_or_default();
            let asks = members
                .iter()
                .filter_map(|&k| Some((usize::from(on.items[k].1.profile?), on.take_name(k))))
                .collect();
            GpuLayout::mig(index, model, placed, asks)
        }
        (Mechanism::Mps | Mechanism::Timeslice, _) => {
            let slots = members
                .iter()
                .map(|&k| {
                    let item = on.items[k].1;
                    let share = Share::from_units(item.size);
                    SharedSlot::new(on.take_name(k), share, item.held_mib)
                })
                .collect();
            GpuLayout::shared(index, gpu.mechanism, slots, memory_budget)
        }
        // A whole GPU has one member; MIG without a model is never opened.
        _ => GpuLayout::whole(
            index,
            members
                .first()
                .map(|&k| on.take_name(k))
                .unwrap_or_default(),
        ),
    }
}
