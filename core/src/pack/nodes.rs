//! The GPUs of a packing put on nodes so that no node needs two sharing configurations.
//!
//! The NVIDIA device plugin applies one configuration per node, chosen by the node label
//! `nvidia.com/device-plugin.config`: time-slicing and MPS exclude each other and apply to every
//! whole GPU of the node, and MPS is not offered on MIG-enabled GPUs (docs/hardware-facts.md §2).
//! A time-sliced node's whole GPUs are all shared, so an exclusive whole GPU cannot sit there. So a
//! node is *exclusive* (whole GPUs and MIG GPUs, the mixed MIG strategy), *time-slicing* or *MPS*.
//! A pod asking for several whole GPUs gets them on one node, so a multi-GPU ask stays on one node.

use crate::ask::FractionalAsk;
use crate::caps::nodes::NodeSpec;
use crate::error::Result;
use crate::pack::{GpuLayout, PackResult, Tenants, Unplaced};
use crate::plan::Choice;
use crate::plan::Mechanism;
use std::collections::{BTreeSet, HashMap};

/// The sharing configuration a node gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "kebab-case"))]
pub enum NodeRole {
    /// No sharing: whole GPUs, and MIG GPUs under the mixed strategy.
    Exclusive,
    /// The device plugin's time-slicing.
    TimeSlicing,
    /// The device plugin's MPS.
    Mps,
}

impl NodeRole {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeRole::Exclusive => "exclusive",
            NodeRole::TimeSlicing => "time-slicing",
            NodeRole::Mps => "mps",
        }
    }

    /// The role the GPUs of `mechanism` need.
    pub fn of(mechanism: Mechanism) -> NodeRole {
        match mechanism {
            Mechanism::Mps => NodeRole::Mps,
            Mechanism::Timeslice => NodeRole::TimeSlicing,
            Mechanism::Mig | Mechanism::Whole => NodeRole::Exclusive,
        }
    }
}

impl std::fmt::Display for NodeRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// A node of the packing, with the GPUs on it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct NodeLayout {
    pub name: String,
    /// `None` for a node the packing leaves empty.
    pub role: Option<NodeRole>,
    /// GPUs of the node.
    pub capacity: u64,
    /// Indices of the packing's GPUs on it.
    pub gpus: Vec<u64>,
}

/// A group of GPUs that must share a node: one GPU, or every GPU of a multi-GPU whole ask.
struct Group {
    role: NodeRole,
    gpus: Vec<usize>,
}

/// How often [`pack_on_nodes`] packs again after asks lost their GPU to the node rules.
const REPACKS: usize = 8;

/// Packs `asks` with `pack` and puts the GPUs on `nodes`. Asks whose GPU finds no node are
/// unplaced, and the others are packed again without them (their room may serve others), until
/// every GPU has a node or [`REPACKS`] passes are made. The lower bound stays the one of all asks.
pub(crate) fn pack_on_nodes<F>(
    asks: &[FractionalAsk],
    nodes: &[NodeSpec],
    mut pack: F,
) -> Result<(PackResult, u64)>
where
    F: FnMut(&[FractionalAsk]) -> Result<(PackResult, u64)>,
{
    let mut rest: Vec<FractionalAsk> = asks.to_vec();
    let mut lost: Vec<(Choice, Unplaced)> = Vec::new();
    let mut lower_bound = None;
    let mut passes = 0;
    loop {
        passes += 1;
        let (mut r, ffd_gpus) = pack(&rest)?;
        let bound = *lower_bound.get_or_insert(r.lower_bound);
        let homeless = assign(&mut r, nodes);
        if homeless.is_empty() || passes == REPACKS {
            for (c, u) in lost {
                r.choices.push(c);
                r.unplaced.push(u);
            }
            let position: std::collections::HashMap<&str, usize> = asks
                .iter()
                .enumerate()
                .map(|(i, a)| (a.name(), i))
                .collect();
            crate::sort::sort_by_key(&mut r.choices, |c| position.get(c.name.as_str()).copied());
            crate::sort::sort_by_key(&mut r.unplaced, |u| position.get(u.name.as_str()).copied());
            r.lower_bound = bound;
            return Ok((r, ffd_gpus));
        }
        let (gone, kept): (Vec<Choice>, Vec<Choice>) = r
            .choices
            .into_iter()
            .partition(|c| homeless.contains(&c.name));
        let (mut why, still): (Vec<Unplaced>, Vec<Unplaced>) = r
            .unplaced
            .into_iter()
            .partition(|u| homeless.contains(&u.name));
        drop((kept, still)); // packed again without the homeless asks
        crate::sort::sort_by(&mut why, |a, b| a.name.cmp(&b.name));
        for c in gone {
            if let Ok(k) = why.binary_search_by(|u| u.name.as_str().cmp(&c.name)) {
                lost.push((c, why[k].clone()));
            }
        }
        rest.retain(|a| !homeless.contains(a.name()));
    }
}

/// Puts `result`'s GPUs on `nodes`, largest groups first: each on the fullest node of its role
/// with room, else on a free node — the smallest that holds what its role still has to place, or
/// failing that the largest. Greedy: optimal for nodes of one size, not proven for mixed sizes.
/// GPUs that find no node are taken out and their asks reported unplaced, with why (returned by
/// name); the rest are renumbered.
pub(crate) fn assign(result: &mut PackResult, nodes: &[NodeSpec]) -> BTreeSet<String> {
    let groups = groups(&result.gpus);
    let mut role: Vec<Option<NodeRole>> = vec![None; nodes.len()];
    let mut used: Vec<u64> = vec![0; nodes.len()];
    let mut node_of: Vec<Option<usize>> = vec![None; result.gpus.len()];
    // Free nodes by (GPUs, position); per role, its nodes with room by (room left, position).
    let mut free: BTreeSet<(u64, usize)> =
        nodes.iter().enumerate().map(|(n, s)| (s.gpus, n)).collect();
    let mut open: [BTreeSet<(u64, usize)>; 3] = Default::default();
    // GPUs of each role still to place.
    let mut remaining = [0u64; 3];
    for g in &groups {
        remaining[g.role as usize] += g.gpus.len() as u64;
    }
    let mut sorted: Vec<&Group> = groups.iter().collect();
    // Largest groups first (a multi-GPU ask needs one node with room); among equals, the roles
    // that cannot share a node before the exclusive GPUs, which fill in.
    crate::sort::sort_by_key(&mut sorted, |g| {
        (
            std::cmp::Reverse(g.gpus.len()),
            g.role == NodeRole::Exclusive,
        )
    });
    for g in sorted {
        let size = g.gpus.len() as u64;
        let r = g.role as usize;
        // A node of its role with room, fullest first; else a free node: the smallest that holds
        // everything of this role still to place, or failing that the largest.
        let mine = open[r].range((size, 0)..).next().map(|&(_, n)| n);
        let need = remaining[r].max(size);
        let fresh = || {
            free.range((need, 0)..)
                .next()
                .or_else(|| free.iter().next_back().filter(|&&(cap, _)| cap >= size))
                .map(|&(_, n)| n)
        };
        remaining[r] -= size;
        let Some(n) = mine.or_else(fresh) else {
            continue;
        };
        if role[n].is_none() {
            free.remove(&(nodes[n].gpus, n));
            role[n] = Some(g.role);
        } else {
            open[r].remove(&(nodes[n].gpus - used[n], n));
        }
        used[n] += size;
        if used[n] < nodes[n].gpus {
            open[r].insert((nodes[n].gpus - used[n], n));
        }
        for &gpu in &g.gpus {
            node_of[gpu] = Some(n);
        }
    }
    let (homeless, on) = drop_homeless(result, &node_of, nodes);
    let mut layouts: Vec<NodeLayout> = nodes
        .iter()
        .zip(&role)
        .map(|(n, &role)| NodeLayout {
            name: n.name.clone(),
            role,
            capacity: n.gpus,
            gpus: Vec::new(),
        })
        .collect();
    for (gpu, n) in result.gpus.iter().zip(on) {
        layouts[n].gpus.push(gpu.index);
    }
    result.nodes = layouts;
    homeless
}

/// Each GPU on its own, except the GPUs of one multi-GPU whole ask, which go together.
fn groups(gpus: &[GpuLayout]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    let mut of_ask: HashMap<&str, usize> = HashMap::new();
    for (i, g) in gpus.iter().enumerate() {
        if let Tenants::Whole(ask) = g.tenants() {
            if let Some(&k) = of_ask.get(ask.as_str()) {
                out[k].gpus.push(i);
                continue;
            }
            of_ask.insert(ask, out.len());
        }
        out.push(Group {
            role: NodeRole::of(g.mechanism()),
            gpus: vec![i],
        });
    }
    out
}

/// Takes out the GPUs without a node (and every GPU of an ask that lost one), reports their asks
/// unplaced, and renumbers the rest.
fn drop_homeless(
    result: &mut PackResult,
    node_of: &[Option<usize>],
    nodes: &[NodeSpec],
) -> (BTreeSet<String>, Vec<usize>) {
    let homeless: BTreeSet<String> = result
        .gpus
        .iter()
        .zip(node_of)
        .filter(|(_, n)| n.is_none())
        .flat_map(|(g, _)| g.asks().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let total: u64 = nodes.iter().map(|n| n.gpus).sum();
    let mut kept = Vec::with_capacity(result.gpus.len());
    let mut on = Vec::with_capacity(result.gpus.len());
    for (mut g, n) in std::mem::take(&mut result.gpus).into_iter().zip(node_of) {
        // A GPU keeps its node unless one of its asks lost a GPU elsewhere.
        let Some(n) = n.filter(|_| !g.asks().any(|a| homeless.contains(a))) else {
            continue;
        };
        g.node = Some(nodes[n].name.clone());
        kept.push(g);
        on.push(n);
    }
    for (index, g) in kept.iter_mut().enumerate() {
        g.index = index as u64;
    }
    result.gpus = kept;
    result.gpus_used = result.gpus.len() as u64;
    let largest = nodes.iter().map(|n| n.gpus).max().unwrap_or(0);
    for c in result.choices.iter().filter(|c| homeless.contains(&c.name)) {
        let reason = match c.gpus {
            n if n > largest && c.mechanism == Mechanism::Whole => format!(
                "needs {n} whole GPUs on one node (a pod's GPUs are on one node), and the largest node has {largest}"
            ),
            n if n > 1 && c.mechanism == Mechanism::Whole => format!(
                "needs {n} whole GPUs on one node, and no node has that many left beside the others' sharing configurations"
            ),
            _ => format!(
                "needs a GPU on a node of its kind ({}): each node has one sharing configuration (the device plugin's), and the {} nodes ({total} GPUs) have no such room left",
                NodeRole::of(c.mechanism).as_str(),
                nodes.len()
            ),
        };
        result.unplaced.push(Unplaced {
            name: c.name.clone(),
            mechanism: c.mechanism,
            reason,
        });
    }
    let position: HashMap<&str, usize> = result
        .choices
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    crate::sort::sort_by_key(&mut result.unplaced, |u| {
        position.get(u.name.as_str()).copied()
    });
    (homeless, on)
}

#[cfg(test)]
mod tests;
