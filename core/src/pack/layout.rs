//! The packer's state while placing asks, and the `PackResult` it hands back.

use super::bounds::l2;
use super::gpu_layout::{GpuLayout, SharedSlot};
use super::mig::{layout, Counts, FitCache};
use super::tree::FirstFitTree;
use super::MPS_CLIENTS_PER_GPU;
use crate::caps::{ResolvedCaps, MAX_GPU_COUNT};
use crate::catalog::{GpuModel, ProfileClass};
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
    /// How much of the GPUs in use the asks actually asked for, as a share of one GPU (≤ 1): per
    /// GPU, the requested shares on it (an ask on several whole GPUs spreads over them), capped
    /// at what the GPU has taken; then the mean over GPUs.
    pub fn utilisation(&self) -> Share {
        if self.gpus_used == 0 {
            return Share::ZERO;
        }
        let choices: std::collections::BTreeMap<&str, &Choice> =
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
impl serde::Serialize for PackResult {
    /// The seed's JSON: `unplaced` lists names; `unplaced_reasons` says why.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let names: Vec<&str> = self.unplaced.iter().map(|u| u.name.as_str()).collect();
        let mut st = s.serialize_struct("PackResult", 11)?;
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
        st.end()
    }
}

/// A GPU while packing.
struct Gpu {
    mechanism: Mechanism,
    members: Vec<usize>,
    used: Share,
    counts: Counts,
}

/// GPUs of one mechanism, with the tree that finds the first one with room.
struct Pool<T> {
    tree: FirstFitTree<T>,
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
    mig: Pool<u32>,
    mps: Pool<u64>,
    timeslice: Pool<u64>,
}

impl Builder {
    pub(super) fn new(choices: Vec<Choice>, caps: &ResolvedCaps) -> Self {
        let count = |m: Mechanism| choices.iter().filter(|c| c.mechanism == m).count();
        let shared = |m: Mechanism| Pool {
            tree: FirstFitTree::new(count(m), 0u64, u64::max),
            gpus: Vec::new(),
        };
        let mig = Pool {
            tree: FirstFitTree::new(count(Mechanism::Mig), 0u32, |a, b| a | b),
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

    fn pool(&mut self, mechanism: Mechanism) -> &mut Pool<u64> {
        if mechanism == Mechanism::Mps {
            &mut self.mps
        } else {
            &mut self.timeslice
        }
    }

    fn place_shared(&mut self, i: usize) {
        let c = &self.choices[i];
        let (mechanism, share) = (c.mechanism, c.allocated_fraction);
        let size = share.units();
        let pool = self.pool(mechanism);
        let opened = pool.gpus.len();
        let local = match pool.tree.first(|free| free >= size) {
            Some(local) if local < opened => local,
            _ if self.room_for(1) => {
                let g = self.open(mechanism, Vec::new());
                self.pool(mechanism).gpus.push(g);
                opened
            }
            _ => {
                let reason = format!(
                    "no {mechanism} GPU in use has {share} free; {}",
                    self.left()
                );
                self.unplaced.push((i, reason));
                return;
            }
        };
        let g = self.pool(mechanism).gpus[local];
        let gpu = &mut self.gpus[g];
        gpu.members.push(i);
        gpu.used = Share::from_units(gpu.used.units() + size);
        let full = mechanism == Mechanism::Mps && gpu.members.len() as u32 >= MPS_CLIENTS_PER_GPU;
        let free = if full {
            0
        } else {
            Share::ONE.units() - gpu.used.units()
        };
        self.pool(mechanism).tree.set(local, free);
    }

    pub(super) fn finish(self) -> PackResult {
        let (model, choices) = (self.model, self.choices);
        let gpus: Vec<GpuLayout> = self
            .gpus
            .iter()
            .enumerate()
            .map(|(index, gpu)| describe(index as u64, gpu, &choices, model))
            .collect();
        let mut unplaced = self.unplaced;
        unplaced.sort_by_key(|(i, _)| *i);
        PackResult {
            gpus_used: gpus.len() as u64,
            lower_bound: lower_bound(&choices, model),
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

fn describe(index: u64, gpu: &Gpu, choices: &[Choice], model: Option<&GpuModel>) -> GpuLayout {
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
                .map(|&i| SharedSlot {
                    ask: name(i),
                    share: choices[i].allocated_fraction,
                })
                .collect();
            GpuLayout::shared(index, gpu.mechanism, slots)
        }
        // A whole GPU has one member; MIG without a model is never opened.
        _ => GpuLayout::whole(
            index,
            gpu.members.first().map(|&i| name(i)).unwrap_or_default(),
        ),
    }
}

/// The bound for the asks of one shared mechanism (MPS or time-slicing): L2 of their shares, and
/// for MPS the client limit per GPU.
pub(crate) fn shared_bound(choices: &[Choice], mechanism: Mechanism) -> u64 {
    let sizes: Vec<u64> = choices
        .iter()
        .filter(|c| c.mechanism == mechanism)
        .map(|c| c.allocated_fraction.units())
        .collect();
    let by_size = l2(&sizes, Share::ONE.units());
    match mechanism {
        Mechanism::Mps => by_size.max((sizes.len() as u64).div_ceil(MPS_CLIENTS_PER_GPU.into())),
        _ => by_size,
    }
}

/// A bound per mechanism (GPUs are never shared across mechanisms), summed.
fn lower_bound(choices: &[Choice], model: Option<&GpuModel>) -> u64 {
    let of = |m: Mechanism| choices.iter().filter(move |c| c.mechanism == m);
    let whole: u64 = of(Mechanism::Whole).map(|c| c.gpus).sum();
    let timeslice = shared_bound(choices, Mechanism::Timeslice);
    let mps = shared_bound(choices, Mechanism::Mps);
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
