//! From the search's optimum to what a person runs: each GPU's end state (kept, moved, new), the
//! steps in order, the nvidia-smi commands, what to drain, and a mig-parted config of the end state.

use super::search::{Choice, Existing, Solution};
use super::{id_at, InstanceStatus, MovedFrom, PlannedInstance, RepartitionGpu, Step, Wanted};
use crate::api::fit::{gpu_name, Target};
use crate::catalog::GpuModel;
use crate::export::yaml::{Map, Value};
use crate::pack::mig::{creation_order_from, Placed};

/// Turns the search's layouts into the end state and the steps, and assigns the new instances to
/// the moved instances (same GPU first) and the asks (in input order).
pub(super) struct Planner<'a> {
    model: &'static GpuModel,
    targets: &'a [Target<'a>],
    gpus: &'a [Vec<Existing>],
    solution: &'a Solution,
    wanted: &'a [Wanted<'a>],
}

impl<'a> Planner<'a> {
    pub(super) fn new(
        model: &'static GpuModel,
        targets: &'a [Target<'a>],
        gpus: &'a [Vec<Existing>],
        solution: &'a Solution,
        wanted: &'a [Wanted<'a>],
    ) -> Self {
        Planner {
            model,
            targets,
            gpus,
            solution,
            wanted,
        }
    }

    pub(super) fn build(&self) -> (Vec<RepartitionGpu>, Vec<Step>, Vec<String>) {
        let mut work = Work {
            out: vec![Vec::new(); self.gpus.len()],
            open: Vec::new(),
            reused: Vec::new(),
            moved: Vec::new(),
            creates: vec![Vec::new(); self.gpus.len()],
            steps: Vec::new(),
            drain: Vec::new(),
        };
        for (g, choice) in self.solution.choices.iter().enumerate() {
            self.keep_or_open(g, choice, &mut work);
            self.destroy_the_rest(g, choice, &mut work);
        }
        // Asks take freed instances of their profile first, then new places; moved instances the
        // rest of the new places, on their own GPU where one is left. The last asks of each
        // profile are the unplaced ones.
        for w in placed_asks(self.wanted, &self.solution.unplaced) {
            self.place_ask(w, &mut work);
        }
        for (from, e) in std::mem::take(&mut work.moved) {
            self.place_moved(from, e, &mut work);
        }
        for g in 0..work.creates.len() {
            self.push_creates(g, &mut work);
        }
        for list in &mut work.out {
            crate::sort::sort_by_key(list, |i| i.start);
        }
        let gpus = work
            .out
            .into_iter()
            .enumerate()
            .map(|(g, instances)| RepartitionGpu {
                node: self.node(g),
                index: self.index(g),
                instances,
            })
            .collect();
        (gpus, work.steps, work.drain)
    }

    fn name(&self, p: usize) -> String {
        self.model.profiles[p].name.to_string()
    }

    fn node(&self, g: usize) -> Option<String> {
        self.targets[g].source.node.clone()
    }

    fn index(&self, g: usize) -> u64 {
        self.targets[g].source.index
    }

    /// GPU `g`'s end layout: an existing instance at a place stays (and, freed and not left
    /// over, may serve an ask); every other place is opened for a new instance.
    fn keep_or_open(&self, g: usize, choice: &Choice, work: &mut Work) {
        for (k, p) in choice.layout.iter().enumerate() {
            let current = self.gpus[g].iter().find(|e| e.placed == *p);
            match current {
                Some(e) => {
                    work.out[g].push(PlannedInstance {
                        profile: self.name(p.profile),
                        start: p.start,
                        gpu_instance_id: id_at(&self.targets[g], p.start),
                        ask: None,
                        status: InstanceStatus::Kept,
                        moved_from: None,
                    });
                    if !e.in_use && !choice.leftover[k] {
                        work.reused.push((g, work.out[g].len() - 1));
                    }
                }
                None => work.open.push((g, p.profile, p.start)),
            }
        }
    }

    /// Destroys GPU `g`'s instances the end layout does not keep; those in use move, so what
    /// runs on them is drained first.
    fn destroy_the_rest(&self, g: usize, choice: &Choice, work: &mut Work) {
        for e in &self.gpus[g] {
            if choice.layout.contains(&e.placed) {
                continue;
            }
            let id = id_at(&self.targets[g], e.placed.start);
            if e.in_use {
                work.moved.push((g, *e));
                let what = match id {
                    Some(id) => format!("GPU instance {id}"),
                    None => format!("the instance at slice {}", e.placed.start),
                };
                work.drain.push(format!(
                    "{}: stop what runs on {what} ({}) — it moves",
                    gpu_name(self.node(g).as_deref(), self.index(g)),
                    self.name(e.placed.profile)
                ));
            }
            work.steps.push(Step::Destroy {
                node: self.node(g),
                gpu: self.index(g),
                gpu_instance_id: id,
                profile: self.name(e.placed.profile),
                start: e.placed.start,
            });
        }
    }

    /// An ask takes a freed instance of its profile, else a new place of it.
    fn place_ask(&self, w: &Wanted, work: &mut Work) {
        if let Some(at) = work
            .reused
            .iter()
            .position(|&(g, slot)| work.out[g][slot].profile == self.name(w.profile))
        {
            let (g, slot) = work.reused.remove(at);
            work.out[g][slot].ask = Some(w.name.to_string());
            return;
        }
        if let Some(at) = work.open.iter().position(|&(_, p, _)| p == w.profile) {
            let (g, p, start) = work.open.remove(at);
            work.out[g].push(PlannedInstance {
                profile: self.name(p),
                start,
                gpu_instance_id: None,
                ask: Some(w.name.to_string()),
                status: InstanceStatus::New,
                moved_from: None,
            });
            work.creates[g].push((p, start, w.name.to_string()));
        }
    }

    /// An instance in use on GPU `from` moves to a new place of its profile (its own GPU first),
    /// else to a freed instance of its profile left over.
    fn place_moved(&self, from: usize, e: Existing, work: &mut Work) {
        let pick = work
            .open
            .iter()
            .position(|&(g, p, _)| g == from && p == e.placed.profile)
            .or_else(|| {
                work.open
                    .iter()
                    .position(|&(_, p, _)| p == e.placed.profile)
            });
        let id = id_at(&self.targets[from], e.placed.start);
        let moved_from = MovedFrom {
            node: self.node(from),
            gpu: self.index(from),
            gpu_instance_id: id,
            start: e.placed.start,
        };
        let Some(at) = pick else {
            // A freed instance of the profile left over takes it instead (the search counted it).
            if let Some(r) = work
                .reused
                .iter()
                .position(|&(g, slot)| work.out[g][slot].profile == self.name(e.placed.profile))
            {
                let (g, slot) = work.reused.remove(r);
                work.out[g][slot].status = InstanceStatus::Moved;
                work.out[g][slot].moved_from = Some(moved_from);
            }
            return;
        };
        let (g, p, start) = work.open.remove(at);
        let from_gpu = gpu_name(self.node(from).as_deref(), self.index(from));
        let label = match id {
            Some(id) => format!("{from_gpu} instance {id}"),
            None => format!("{from_gpu} slice {}", e.placed.start),
        };
        work.out[g].push(PlannedInstance {
            profile: self.name(p),
            start,
            gpu_instance_id: None,
            ask: None,
            status: InstanceStatus::Moved,
            moved_from: Some(moved_from),
        });
        work.creates[g].push((p, start, label));
    }

    /// GPU `g`'s create steps, in an order that succeeds beside the instances that exist.
    fn push_creates(&self, g: usize, work: &mut Work) {
        let list = &work.creates[g];
        let kept: Vec<Placed> = work.out[g]
            .iter()
            .filter(|i| i.gpu_instance_id.is_some() || i.status == InstanceStatus::Kept)
            .filter_map(|i| {
                Some(Placed {
                    profile: self
                        .model
                        .profiles
                        .iter()
                        .position(|p| p.name == i.profile)?,
                    start: i.start,
                })
            })
            .collect();
        let new: Vec<Placed> = list
            .iter()
            .map(|&(profile, start, _)| Placed { profile, start })
            .collect();
        let (order, _) = creation_order_from(self.model, &new, occupied(self.model, &kept));
        for k in order {
            let (p, start, for_) = &list[k];
            work.steps.push(Step::Create {
                node: self.node(g),
                gpu: self.index(g),
                profile: self.name(*p),
                start: *start,
                for_: for_.clone(),
            });
        }
    }
}

/// The end state and the steps, as [`Planner::build`] makes them.
struct Work {
    /// Per GPU, the instances of its end state.
    out: Vec<Vec<PlannedInstance>>,
    /// New places not yet taken: (gpu, profile, start).
    open: Vec<(usize, usize, u8)>,
    /// Freed instances that may serve an ask: (gpu, slot in `out`).
    reused: Vec<(usize, usize)>,
    /// Instances in use that are destroyed, to be made again: (gpu, instance).
    moved: Vec<(usize, Existing)>,
    /// Per GPU, the instances to create: (profile, start, what for).
    creates: Vec<Vec<(usize, u8, String)>>,
    steps: Vec<Step>,
    drain: Vec<String>,
}

/// The asks the search placed: all but the last `unplaced[p]` of each profile `p`.
pub(super) fn placed_asks<'w>(wanted: &'w [Wanted<'w>], unplaced: &[u32]) -> Vec<&'w Wanted<'w>> {
    let mut left = unplaced.to_vec();
    let mut out: Vec<&Wanted> = Vec::new();
    for w in wanted.iter().rev() {
        if left[w.profile] > 0 {
            left[w.profile] -= 1;
        } else {
            out.push(w);
        }
    }
    out.reverse();
    out
}

fn occupied(model: &GpuModel, placed: &[Placed]) -> u16 {
    placed
        .iter()
        .fold(0, |m, p| m | model.profiles[p.profile].mask_at(p.start))
}

/// The steps as nvidia-smi commands: destroys by GPU instance ID, then per GPU one `-cgi` in an
/// order that works whatever free placement the driver picks where one exists (else the planned
/// placements are stated: nvidia-smi's `-cgi` takes no placement, docs/hardware-facts.md §1.1).
pub(super) fn commands(
    model: &GpuModel,
    targets: &[Target],
    gpus: &[Vec<Existing>],
    solution: &Solution,
    steps: &[Step],
) -> Vec<String> {
    let mut out = Vec::new();
    for s in steps {
        if let Step::Destroy {
            gpu,
            gpu_instance_id: Some(id),
            profile,
            start,
            ..
        } = s
        {
            out.push(format!("nvidia-smi mig -dci -i {gpu} -gi {id}   # {profile} at slice {start}: its compute instances"));
            out.push(format!("nvidia-smi mig -dgi -i {gpu} -gi {id}"));
        } else if let Step::Destroy {
            gpu,
            profile,
            start,
            ..
        } = s
        {
            out.push(format!("# GPU {gpu}: destroy the {profile} at slice {start} (its GPU instance ID was not in the input)"));
        }
    }
    for (g, t) in targets.iter().enumerate() {
        let creates: Vec<(&str, u8)> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Create {
                    gpu,
                    node,
                    profile,
                    start,
                    ..
                } if *gpu == t.source.index && *node == t.source.node => {
                    Some((profile.as_str(), *start))
                }
                _ => None,
            })
            .collect();
        if creates.is_empty() {
            continue;
        }
        let kept: Vec<Placed> = solution.choices[g]
            .layout
            .iter()
            .copied()
            .filter(|p| gpus[g].iter().any(|e| e.placed == *p))
            .collect();
        let new: Vec<Placed> = creates
            .iter()
            .filter_map(|&(name, start)| {
                Some(Placed {
                    profile: model.profiles.iter().position(|p| p.name == name)?,
                    start,
                })
            })
            .collect();
        let (_, any_choice) = creation_order_from(model, &new, occupied(model, &kept));
        let names: Vec<&str> = creates.iter().map(|c| c.0).collect();
        let at: Vec<String> = creates.iter().map(|c| format!("{}:{}", c.0, c.1)).collect();
        let how = if any_choice {
            "this order succeeds whatever free placement the driver picks".to_string()
        } else {
            format!(
                "works if the driver picks the planned placements {}",
                at.join(", ")
            )
        };
        out.push(format!(
            "nvidia-smi mig -i {} -cgi {} -C   # {how}",
            t.source.index,
            names.join(",")
        ));
    }
    out
}

/// A mig-parted config of the end state for the GPUs touched: one config per node (device indices
/// are the node's own), named `gpu-share-repartition` or, for several nodes, `…-1`, `…-2`. mig-parted
/// applies a whole layout, destroying and re-creating every instance of the GPUs it configures
/// (NVIDIA/mig-parted#119, docs/hardware-facts.md §1.1), so the comment says to drain them all first.
pub(super) fn mig_parted(targets: &[Target], solution: &Solution, model: &GpuModel) -> String {
    let mut by_node: Vec<(Option<&str>, Vec<Value>)> = Vec::new();
    for (g, t) in targets.iter().enumerate() {
        let layout = &solution.choices[g].layout;
        let same =
            layout.len() == t.live.placed.len() && layout.iter().all(|p| t.live.placed.contains(p));
        if same {
            continue;
        }
        let node = t.source.node.as_deref();
        let at = match by_node.iter().position(|(n, _)| *n == node) {
            Some(at) => at,
            None => {
                by_node.push((node, Vec::new()));
                by_node.len() - 1
            }
        };
        by_node[at].1.push(entry(t, layout, model));
    }
    let name = |k: usize| {
        if by_node.len() == 1 {
            "gpu-share-repartition".to_string()
        } else {
            format!("gpu-share-repartition-{}", k + 1)
        }
    };
    let mut configs = Map::new();
    for (k, (node, entries)) in by_node.iter().enumerate() {
        if let Some(node) = node {
            configs.comment(format!(
                "the GPUs of {node}: label its node nvidia.com/mig.config={}",
                name(k)
            ));
        }
        configs.insert(name(k), Value::from(entries.clone()));
    }
    let mut doc = Map::new();
    doc.comment(
        "The end state of the GPUs the plan touches. mig-parted re-creates every instance of a GPU it configures \
         (NVIDIA/mig-parted#119): drain each GPU listed first, or apply the steps instead, which keep the instances marked kept.",
    );
    doc.insert("version", Value::from("v1"));
    doc.insert("mig-configs", Value::from(configs));
    crate::export::yaml::document(&doc)
}

/// One GPU's mig-parted entry: its index on its node, MIG on, the instance counts of `layout`.
fn entry(t: &Target, layout: &[Placed], model: &GpuModel) -> Value {
    let mut counts = Map::new();
    let mut names: Vec<&str> = layout
        .iter()
        .map(|p| model.profiles[p.profile].name)
        .collect();
    names.sort_unstable();
    names.dedup();
    for n in names {
        let c = layout
            .iter()
            .filter(|p| model.profiles[p.profile].name == n)
            .count();
        counts.insert(n, Value::from(c as u64));
    }
    let mut entry = Map::new();
    entry.comment(format!(
        "{} ({})",
        gpu_name(t.source.node.as_deref(), t.source.index),
        model.name
    ));
    entry.insert("devices", Value::FlowSeq(vec![Value::from(t.source.index)]));
    entry.insert("mig-enabled", Value::from(true));
    entry.insert("mig-devices", Value::from(counts));
    Value::from(entry)
}
