//! The pack result as every generator reads it: the placed asks with their GPUs, the asks left
//! unplaced, each MIG GPU's layout re-checked against the catalogue before anything is written,
//! and GPU index lists as people read them.

use crate::catalog::{find_model, GpuModel};
use crate::error::{Error, ErrorKind, Result};
use crate::pack::{GpuLayout, MigInstance, PackResult};
use crate::plan::{Choice, Mechanism};
use crate::validate_mig::{validate_placements, MigValidation};
use std::collections::BTreeMap;

use super::yaml;

static NO_ENGINES: BTreeMap<String, super::ServedEngine> = BTreeMap::new();

/// A placed ask, with where the plan put it.
pub(crate) struct PlacedAsk<'a> {
    /// Its position in the asks given, as in the result's choices (for error fields `asks[i]`).
    pub index: usize,
    pub name: &'a str,
    pub choice: &'a Choice,
    /// The GPUs it is on (several for a multi-GPU whole ask).
    pub gpus: Vec<u64>,
    pub instance: Option<&'a MigInstance>,
}

/// An ask the plan could not place.
pub(crate) struct MissingAsk<'a> {
    pub name: &'a str,
    pub mechanism: Mechanism,
    pub reason: &'a str,
}

/// A MIG GPU whose layout passed the catalogue's rules.
pub(crate) struct MigGpu {
    pub index: u64,
    /// Placements in creation order, the commands, and whether the order is safe.
    pub validation: MigValidation,
}

impl MigGpu {
    /// The profiles on this GPU, each once, sorted (the single MIG strategy allows one).
    pub fn distinct_profiles(&self) -> Vec<&str> {
        let mut profiles: Vec<&str> = self
            .validation
            .placements
            .iter()
            .map(|p| p.profile.as_str())
            .collect();
        profiles.sort_unstable();
        profiles.dedup();
        profiles
    }
}

/// A pack result digested for the generators.
pub(crate) struct Plan<'a> {
    pub result: &'a PackResult,
    pub model: Option<&'static GpuModel>,
    /// Placed asks, in the order of the asks given.
    pub placed: Vec<PlacedAsk<'a>>,
    pub missing: Vec<MissingAsk<'a>>,
    pub mig_gpus: Vec<MigGpu>,
    /// The engines some asks run, by ask name (none unless the use case planned engines).
    pub engines: &'a BTreeMap<String, super::ServedEngine>,
}

impl<'a> Plan<'a> {
    /// Digests `result`: its choices are the asks, in the order given, so the plan cannot
    /// disagree with them. MIG layouts are checked once more against the catalogue.
    pub(crate) fn new(result: &'a PackResult) -> Result<Self> {
        let mut on: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        let mut instances: BTreeMap<&str, &MigInstance> = BTreeMap::new();
        for g in &result.gpus {
            for a in g.asks() {
                on.entry(a).or_default().push(g.index);
            }
            for m in g.instances() {
                instances.insert(m.ask.as_str(), m);
            }
        }
        let unplaced: BTreeMap<&str, &crate::pack::Unplaced> = result
            .unplaced
            .iter()
            .map(|u| (u.name.as_str(), u))
            .collect();
        let mut placed = Vec::new();
        let mut missing = Vec::new();
        for (index, choice) in result.choices.iter().enumerate() {
            let name = choice.name.as_str();
            match (on.get(name), unplaced.get(name)) {
                (Some(gpus), None) => placed.push(PlacedAsk {
                    index,
                    name,
                    choice,
                    gpus: gpus.clone(),
                    instance: instances.get(name).copied(),
                }),
                (_, u) => missing.push(MissingAsk {
                    name,
                    mechanism: u.map_or(choice.mechanism, |u| u.mechanism),
                    reason: u.map_or("on no GPU of the pack result", |u| &u.reason),
                }),
            }
        }
        let named = result.gpu_model.as_deref().map(|n| (n, find_model(n)));
        let model = named.and_then(|(_, m)| m);
        let mut mig_gpus = Vec::new();
        for (k, g) in result.gpus.iter().enumerate() {
            if g.mechanism() != Mechanism::Mig {
                continue;
            }
            let Some(m) = model.filter(|m| m.is_mig_capable()) else {
                let what = match named {
                    Some((n, _)) => format!("{n:?}, not a MIG-capable model of the catalogue"),
                    None => "no GPU model".to_string(),
                };
                return Err(Error::new(
                    ErrorKind::UnknownModel,
                    format!(
                        "GPU {} is a MIG GPU but the pack result has {what}",
                        g.index
                    ),
                )
                .in_field(format!("gpus[{k}]")));
            };
            mig_gpus.push(MigGpu {
                index: g.index,
                validation: checked_layout(m, g, k)?,
            });
        }
        Ok(Plan {
            result,
            model,
            placed,
            missing,
            mig_gpus,
            engines: &NO_ENGINES,
        })
    }

    /// The node a GPU of the plan is on and its index there (nodes count GPUs from 0), when the
    /// cluster has nodes.
    pub fn place_of(&self, gpu: u64) -> Option<(&'a str, u64)> {
        self.result.nodes.iter().find_map(|n| {
            let local = n.gpus.iter().position(|&g| g == gpu)?;
            Some((n.name.as_str(), local as u64))
        })
    }

    /// `kubectl label node` commands giving each node of `gpus` the `label=value`: one per node,
    /// in the nodes' order (none without nodes).
    pub fn label_commands(&self, gpus: &[u64], label: &str, value: &str) -> Vec<String> {
        self.result
            .nodes
            .iter()
            .filter(|n| n.gpus.iter().any(|g| gpus.contains(g)))
            .map(|n| format!("kubectl label node {} {label}={value} --overwrite", n.name))
            .collect()
    }

    /// Indices of the GPUs of one mechanism, in order.
    pub fn gpus_of(&self, mechanism: Mechanism) -> Vec<u64> {
        self.result
            .gpus
            .iter()
            .filter(|g| g.mechanism() == mechanism)
            .map(|g| g.index)
            .collect()
    }

    /// The comment lines every format starts with: what was exported and what was left out.
    pub fn header(&self, what: &str) -> String {
        let r = self.result;
        let model = r
            .gpu_model
            .as_deref()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default();
        let plural = |n: usize, w: &str| {
            if n == 1 {
                format!("{n} {w}")
            } else {
                format!("{n} {w}s")
            }
        };
        let mut text = format!(
            "gpu-share export {what}: {} on {}{model}",
            plural(self.placed.len(), "ask"),
            plural(r.gpus.len(), "GPU"),
        );
        if self.missing.is_empty() {
            text.push_str(", none unplaced.");
        } else {
            text.push_str(&format!("; {} unplaced, not exported:", self.missing.len()));
            for m in &self.missing {
                text.push_str(&format!(
                    "\n  {} ({}): {}",
                    yaml::quoted(m.name),
                    m.mechanism,
                    m.reason
                ));
            }
        }
        let mut out = String::new();
        yaml::write_comment(&mut out, 0, &text);
        out
    }
}

/// GPU `k`'s MIG layout, re-checked against `model`'s placement rules: the packer only makes valid
/// ones, so this guards the one thing a caller can still change, the result's GPU model.
fn checked_layout(model: &GpuModel, g: &GpuLayout, k: usize) -> Result<MigValidation> {
    let layout: Vec<(&str, u8)> = g.instances().iter().map(|i| (i.profile, i.start)).collect();
    let validation = validate_placements(model, &layout)
        .map_err(|e| e.in_field(format!("gpus[{k}].instances")))?;
    if !validation.valid {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            format!(
                "GPU {}'s MIG layout is impossible on {}: {}; nothing exported",
                g.index,
                model.name,
                validation.reason.as_deref().unwrap_or("invalid")
            ),
        )
        .in_field(format!("gpus[{k}].instances")));
    }
    Ok(validation)
}

/// `GPU 3` or `GPUs 0, 2-4`.
pub(crate) fn gpu_list(indices: &[u64]) -> String {
    if indices.len() == 1 {
        format!("GPU {}", indices[0])
    } else {
        format!("GPUs {}", ranges(indices))
    }
}

/// `0, 2-4, 7` for a sorted list of GPU indices.
pub fn ranges(indices: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        parts.push(if j > i + 1 {
            format!("{}-{}", indices[i], indices[j])
        } else if j == i + 1 {
            format!("{}, {}", indices[i], indices[j])
        } else {
            indices[i].to_string()
        });
        i = j + 1;
    }
    parts.join(", ")
}
