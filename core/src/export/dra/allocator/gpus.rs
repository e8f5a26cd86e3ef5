//! Each GPU after a simulation: what is allocated on it, which memory slices are free, which are stranded, and the largest profile still possible.
//!
//! Stranded (as in `fit`): a free memory slice of a partly allocated dynamic-MIG GPU that lies in no placement of
//! the profiles asked that could still be created next to what is allocated, by the catalogue's
//! placement rules (docs/hardware-facts.md §1.1–1.2, checked by `pack::mig::verify`). On a
//! static-MIG GPU the layout was made beforehand; its unallocated MIG devices are listed instead.

use super::NodeView;
use crate::catalog::{self, GpuModel};
use crate::pack::mig::{starts_for, Placed};
use std::collections::BTreeSet;

/// One GPU after the simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct GpuOutcome {
    pub node: String,
    pub uuid: String,
    pub product_name: Option<String>,
    /// The catalogue model, when known.
    pub model: Option<String>,
    /// MIG devices made on demand (the driver's DynamicMIG gate).
    pub dynamic_mig: bool,
    /// The devices allocated on it, by name.
    pub allocated: Vec<String>,
    /// Nothing allocated and no MIG device made: it can still be given whole.
    pub free_whole: bool,
    pub free_memory_slices: Vec<u8>,
    pub stranded_memory_slices: Vec<u8>,
    /// The largest profile (most memory slices) that could still be created on it.
    pub largest_creatable: Option<String>,
    /// Static MIG devices nobody was given.
    pub idle_devices: Vec<String>,
}

/// The GPUs of `views`, each with what the simulation left on it.
pub(super) fn outcomes(views: &[NodeView], asked: &BTreeSet<&str>) -> Vec<GpuOutcome> {
    let mut out = Vec::new();
    for view in views {
        let mut uuids: Vec<&str> = Vec::new();
        for c in &view.candidates {
            let uuid = match c.device.nvidia("type") {
                Some("gpu") => c.device.nvidia("uuid"),
                Some("mig") => c.device.nvidia("parentUUID"),
                _ => None,
            };
            if let Some(u) = uuid.filter(|u| !uuids.contains(u)) {
                uuids.push(u);
            }
        }
        for uuid in uuids {
            out.push(outcome(view, uuid, asked));
        }
    }
    out
}

fn outcome(view: &NodeView, uuid: &str, asked: &BTreeSet<&str>) -> GpuOutcome {
    let on_gpu: Vec<usize> = (0..view.candidates.len())
        .filter(|&i| {
            let d = view.candidates[i].device;
            d.nvidia("uuid") == Some(uuid) && d.nvidia("type") == Some("gpu")
                || d.nvidia("parentUUID") == Some(uuid)
        })
        .collect();
    let device = |i: usize| view.candidates[i].device;
    let product = on_gpu.iter().find_map(|&i| device(i).nvidia("productName"));
    let model = product.and_then(catalog::find_model);
    let mig = |i: &usize| device(*i).nvidia("type") == Some("mig");
    let dynamic_mig = on_gpu
        .iter()
        .any(|i| mig(i) && !device(*i).consumes.is_empty());
    let static_devices: Vec<usize> = on_gpu
        .iter()
        .copied()
        .filter(|i| mig(i) && device(*i).consumes.is_empty())
        .collect();
    let allocated: Vec<usize> = on_gpu
        .iter()
        .copied()
        .filter(|i| view.in_use.contains(i))
        .collect();
    let whole_taken = allocated
        .iter()
        .any(|&i| device(i).nvidia("type") == Some("gpu"));
    let mut placed: Vec<Placed> = Vec::new();
    let mut used: BTreeSet<u8> = BTreeSet::new();
    let total = model.and_then(|m| m.mig).map_or(0, |g| g.memory_slices);
    for &i in allocated.iter().filter(|i| mig(i)) {
        let d = device(i);
        // Only the slices the board has (the input names them).
        let slices: Vec<u8> = d
            .memory_slices()
            .into_iter()
            .filter(|&s| s < total)
            .collect();
        used.extend(slices.iter().copied());
        let profile = d
            .nvidia("profile")
            .and_then(|p| model?.profiles.iter().position(|q| q.name == p));
        if let (Some(profile), Some(&start)) = (profile, slices.first()) {
            placed.push(Placed { profile, start });
        }
    }
    let free: Vec<u8> = if whole_taken {
        Vec::new()
    } else if dynamic_mig {
        (0..total).filter(|s| !used.contains(s)).collect()
    } else {
        static_devices
            .iter()
            .filter(|i| !view.in_use.contains(i))
            .flat_map(|&i| device(i).memory_slices())
            .collect()
    };
    let (stranded, largest) = match model.filter(|_| dynamic_mig && !whole_taken) {
        // A GPU nothing was allocated on strands nothing: it can still be given whole.
        Some(m) if allocated.is_empty() => (Vec::new(), largest(m, &placed)),
        Some(m) => (stranded(m, &placed, &free, asked), largest(m, &placed)),
        None => (Vec::new(), None),
    };
    GpuOutcome {
        node: view.name.clone(),
        uuid: uuid.to_string(),
        product_name: product.map(str::to_string),
        model: model.map(|m| m.name.to_string()),
        dynamic_mig,
        allocated: allocated.iter().map(|&i| device(i).name.clone()).collect(),
        free_whole: allocated.is_empty() && static_devices.is_empty(),
        free_memory_slices: free,
        stranded_memory_slices: stranded,
        largest_creatable: largest,
        idle_devices: static_devices
            .iter()
            .filter(|i| !view.in_use.contains(i))
            .map(|&i| device(i).name.clone())
            .collect(),
    }
}

/// Free slices in no creatable placement of the `asked` profiles.
pub(crate) fn stranded(
    model: &GpuModel,
    placed: &[Placed],
    free: &[u8],
    asked: &BTreeSet<&str>,
) -> Vec<u8> {
    let mut usable = 0u16;
    for (p, profile) in model.profiles.iter().enumerate() {
        if !asked.contains(profile.name) {
            continue;
        }
        for start in starts_for(model, placed, p) {
            usable |= profile.mask_at(start);
        }
    }
    free.iter()
        .copied()
        .filter(|s| usable & (1 << s) == 0)
        .collect()
}

/// The profile with the most memory slices (then compute slices) creatable next to `placed`.
fn largest(model: &GpuModel, placed: &[Placed]) -> Option<String> {
    model
        .profiles
        .iter()
        .enumerate()
        .filter(|(p, _)| !starts_for(model, placed, *p).is_empty())
        .max_by_key(|(_, profile)| (profile.memory_slices, profile.compute_slices))
        .map(|(_, profile)| profile.name.to_string())
}
