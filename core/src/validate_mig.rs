//! `validate_mig`: whether a set of MIG profiles fits on one GPU, at which placements, and how to create it.
//!
//! The rules are the packer's own ([`crate::pack`]'s MIG geometry): per-profile maximum counts,
//! compute and memory slices, media-engine rules, valid starts and no overlap. Creation commands
//! come in an order that succeeds whatever placement the driver picks when such an order exists;
//! otherwise largest memory footprint first, with the placements the plan expects.

use crate::catalog::{Certainty, GpuModel, MigProfile};
use crate::error::{Error, ErrorKind, Result};
use crate::pack::mig::{creation_order, diagnose, verify, Placed, Violation};

/// One MIG instance at its placement: memory slices `[start, start + memory_slices)`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct MigPlacement {
    pub profile: String,
    pub start: u8,
    pub memory_slices: u8,
}

/// Whether a set of MIG instances can share one GPU of a model.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct MigValidation {
    /// The catalogue's name of the GPU model.
    pub model: String,
    /// The profiles checked, by their catalogue names, in the order given.
    pub profiles: Vec<String>,
    pub valid: bool,
    /// Why not, when not valid.
    pub reason: Option<String>,
    /// Where each instance goes, in creation order (empty when not valid).
    pub placements: Vec<MigPlacement>,
    /// `nvidia-smi` commands creating the instances (and their compute instances) in that order,
    /// for GPU 0; change `-i` for another GPU. Empty when not valid or nothing to create.
    pub commands: Vec<String>,
    /// The creation order succeeds whatever free valid placement the driver picks at each step
    /// (under the catalogue's placement rules). When false, it succeeds if the driver picks the
    /// placements listed; which placement nvidia-smi/NVML picks is not documented.
    pub order_works_for_any_placement: bool,
    /// What is uncertain: the model's or the profiles' geometry, driver versions needed.
    pub warnings: Vec<String>,
}

/// Checks whether `profiles` (one entry per instance, e.g. `["3g.20gb", "2g.10gb", "2g.10gb"]`)
/// can share one GPU of `model`, and if so where each goes and how to create them.
///
/// # Errors
/// `OutOfRange` for a model without MIG; `UnknownProfile` for a profile the model does not offer
/// (field `profiles[i]`). An impossible combination is not an error: it is `valid: false` with the
/// reason.
pub fn validate_mig(model: &GpuModel, profiles: &[&str]) -> Result<MigValidation> {
    require_mig(model)?;
    let mut counts = vec![0usize; model.profiles.len()];
    let mut names = Vec::with_capacity(profiles.len());
    for (i, name) in profiles.iter().enumerate() {
        let p = model
            .require_profile(name)
            .map_err(|e| e.in_field(format!("profiles[{i}]")))?;
        let index = profile_index(model, p);
        counts[index] += 1;
        names.push(p.name.to_string());
    }
    Ok(validate_counts(model, &counts, names))
}

/// Checks instances at given placements (profile name, first memory slice) against every rule:
/// the counts, each start valid for its profile, no overlap.
///
/// # Errors
/// As [`validate_mig`].
pub fn validate_placements(model: &GpuModel, instances: &[(&str, u8)]) -> Result<MigValidation> {
    require_mig(model)?;
    let mut placed = Vec::with_capacity(instances.len());
    for (i, (name, start)) in instances.iter().enumerate() {
        let p = model
            .require_profile(name)
            .map_err(|e| e.in_field(format!("instances[{i}].profile")))?;
        placed.push(Placed {
            profile: profile_index(model, p),
            start: *start,
        });
    }
    let names = placed
        .iter()
        .map(|p| model.profiles[p.profile].name.to_string())
        .collect();
    let mut out = empty(model, names);
    match verify(model, &placed) {
        Ok(()) => finish(model, &placed, &mut out),
        Err(v) => {
            let counts = counts_of(model, &placed);
            out.reason = Some(explain(model, &counts, &placed, v));
        }
    }
    Ok(out)
}

/// The command creating GPU instances of `profiles` (in this order) on GPU `gpu_index`, each with
/// its default compute instance (`-C`). Profiles are named, not numbered: nvidia-smi's profile IDs
/// differ between boards (docs/hardware-facts.md §1.1).
pub fn create_command(gpu_index: u64, profiles: &[&str]) -> String {
    format!(
        "nvidia-smi mig -i {gpu_index} -cgi {} -C",
        profiles.join(",")
    )
}

/// A warning when the instances need a driver newer than R510 (4g beside 3g, docs/hardware-facts.md §1.1).
pub(crate) fn driver_warning(model: &GpuModel, profiles: &[&str]) -> Option<String> {
    let find = |compute: u8| {
        profiles
            .iter()
            .filter_map(|n| model.profile(n))
            .find(|p| p.compute_slices == compute && p.memory_slices == 4)
    };
    match (model.mig, find(4), find(3)) {
        (Some(g), Some(four), Some(three)) if g.memory_slices == 8 => Some(format!(
            "{} beside {} needs NVIDIA driver R510 or later (the combination was unsupported before R510: NVIDIA MIG User Guide)",
            four.name, three.name
        )),
        _ => None,
    }
}

fn require_mig(model: &GpuModel) -> Result<()> {
    if model.is_mig_capable() {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::OutOfRange,
            format!("{} does not support MIG", model.name),
        )
        .in_field("gpu_model"))
    }
}

fn profile_index(model: &GpuModel, p: &MigProfile) -> usize {
    model
        .profiles
        .iter()
        .position(|q| q.name == p.name)
        .unwrap_or_default()
}

fn counts_of(model: &GpuModel, placed: &[Placed]) -> Vec<usize> {
    let mut counts = vec![0usize; model.profiles.len()];
    for p in placed {
        if let Some(c) = counts.get_mut(p.profile) {
            *c += 1;
        }
    }
    counts
}

fn empty(model: &GpuModel, profiles: Vec<String>) -> MigValidation {
    MigValidation {
        model: model.name.to_string(),
        profiles,
        valid: false,
        reason: None,
        placements: Vec::new(),
        commands: Vec::new(),
        order_works_for_any_placement: false,
        warnings: Vec::new(),
    }
}

/// Validates instance counts (indexed like `model.profiles`), never expanding absurd counts.
pub(crate) fn validate_counts(
    model: &GpuModel,
    counts: &[usize],
    profiles: Vec<String>,
) -> MigValidation {
    let mut out = empty(model, profiles);
    // Counts above 255 are above every maximum too; saturate so the packer's rules see that.
    let small: Vec<u8> = counts
        .iter()
        .map(|&n| u8::try_from(n).unwrap_or(u8::MAX))
        .collect();
    match diagnose(model, &small) {
        Ok(placed) => finish(model, &placed, &mut out),
        Err(v) => out.reason = Some(explain(model, counts, &[], v)),
    }
    out
}

fn finish(model: &GpuModel, placed: &[Placed], out: &mut MigValidation) {
    out.valid = true;
    let (order, any) = creation_order(model, placed);
    out.order_works_for_any_placement = any;
    out.placements = order
        .iter()
        .map(|&i| {
            let p = &model.profiles[placed[i].profile];
            MigPlacement {
                profile: p.name.to_string(),
                start: placed[i].start,
                memory_slices: p.memory_slices,
            }
        })
        .collect();
    let names: Vec<&str> = out.placements.iter().map(|p| p.profile.as_str()).collect();
    if !names.is_empty() {
        out.commands.push(create_command(0, &names));
    }
    if let Some(w) = driver_warning(model, &names) {
        out.warnings.push(w);
    }
    if let Certainty::Uncertain(why) = model.certainty {
        out.warnings.push(format!(
            "{} catalogue entry is uncertain: {why}",
            model.name
        ));
    }
    let mut geometry_noted = false;
    for p in &out.placements {
        if let Some(Certainty::Uncertain(why)) = model.profile(&p.profile).map(|p| p.certainty) {
            if !geometry_noted {
                out.warnings
                    .push(format!("{} geometry is uncertain: {why}", model.name));
                geometry_noted = true;
            }
        }
    }
}

/// `2g.10gb ×3 and 1g.5gb` — the instances of `counts`, largest first.
fn instance_list(model: &GpuModel, counts: &[usize]) -> String {
    let mut parts: Vec<(&MigProfile, usize)> = model
        .profiles
        .iter()
        .zip(counts)
        .filter(|(_, &n)| n > 0)
        .map(|(p, &n)| (p, n))
        .collect();
    crate::sort::sort_by_key(&mut parts, |(p, _)| {
        (
            std::cmp::Reverse(p.memory_slices),
            std::cmp::Reverse(p.compute_slices),
        )
    });
    let words: Vec<String> = parts
        .iter()
        .map(|(p, n)| {
            if *n == 1 {
                p.name.to_string()
            } else {
                format!("{} ×{n}", p.name)
            }
        })
        .collect();
    words.join(" and ")
}

/// `4+4+1` — the slices of each instance, largest first (at most 16 terms).
fn terms(model: &GpuModel, counts: &[usize], slices: fn(&MigProfile) -> u8) -> String {
    let mut each: Vec<u8> = Vec::new();
    for (p, &n) in model.profiles.iter().zip(counts) {
        each.extend(std::iter::repeat_n(slices(p), n.min(16)));
    }
    each.sort_unstable_by(|a, b| b.cmp(a));
    let shown: Vec<String> = each.iter().take(16).map(u8::to_string).collect();
    let more = if each.len() > 16 { "+…" } else { "" };
    format!("{}{more}", shown.join("+"))
}

fn starts(p: &MigProfile) -> String {
    let s: Vec<String> = p.starts.iter().map(u8::to_string).collect();
    s.join(", ")
}

fn explain(model: &GpuModel, counts: &[usize], placed: &[Placed], v: Violation) -> String {
    let (compute_max, memory_max) = model
        .mig
        .map_or((0, 0), |g| (g.compute_slices, g.memory_slices));
    let list = instance_list(model, counts);
    let total = |f: fn(&MigProfile) -> u8| -> usize {
        model
            .profiles
            .iter()
            .zip(counts)
            .map(|(p, &n)| usize::from(f(p)).saturating_mul(n))
            .fold(0usize, usize::saturating_add)
    };
    match v {
        Violation::NoMig => format!("{} has no MIG", model.name),
        Violation::TooMany { profile } => {
            let p = &model.profiles[profile];
            let s = if p.max_count == 1 { "" } else { "s" };
            format!(
                "max {} instance{s} of {} per GPU on {}, got {}",
                p.max_count, p.name, model.name, counts[profile]
            )
        }
        Violation::Compute { .. } => format!(
            "{list}: {} = {} compute slices exceed the {compute_max} of {}",
            terms(model, counts, |p| p.compute_slices),
            total(|p| p.compute_slices),
            model.name
        ),
        Violation::Memory { .. } => format!(
            "{list}: {} = {} memory slices exceed the {memory_max} of {}",
            terms(model, counts, |p| p.memory_slices),
            total(|p| p.memory_slices),
            model.name
        ),
        Violation::Media { count } => format!(
            "at most one instance with media extensions (+me, +me.all) per GPU, got {count}"
        ),
        Violation::AllMedia => {
            let all = model
                .profiles
                .iter()
                .zip(counts)
                .find(|(p, &n)| n > 0 && p.class == crate::catalog::ProfileClass::AllMediaEngines)
                .map_or("a +me.all profile", |(p, _)| p.name);
            format!("{all} takes every media engine: only -me profiles may share the GPU with it")
        }
        Violation::BadStart { index } => {
            let at = placed.get(index).copied().unwrap_or(Placed {
                profile: 0,
                start: 0,
            });
            let p = &model.profiles[at.profile];
            format!(
                "{} may not start at memory slice {} on {} (valid starts: {})",
                p.name,
                at.start,
                model.name,
                starts(p)
            )
        }
        Violation::Overlap { a, b } => {
            let show = |i: usize| {
                placed.get(i).map_or_else(String::new, |at| {
                    let p = &model.profiles[at.profile];
                    format!("{} at {}:{}", p.name, at.start, p.memory_slices)
                })
            };
            format!("{} and {} share memory slices", show(a), show(b))
        }
        Violation::NoPlacement => {
            let rules: Vec<String> = model
                .profiles
                .iter()
                .zip(counts)
                .filter(|(_, &n)| n > 0)
                .map(|(p, _)| {
                    format!(
                        "{} starts at {{{}}}, {} slice{}",
                        p.name,
                        starts(p),
                        p.memory_slices,
                        if p.memory_slices == 1 { "" } else { "s" }
                    )
                })
                .collect();
            format!(
                "no placement: {list} fit in {} of {compute_max} compute and {} of {memory_max} memory slices, but not at valid starts without overlap ({})",
                total(|p| p.compute_slices),
                total(|p| p.memory_slices),
                rules.join("; ")
            )
        }
    }
}

#[cfg(feature = "serde")]
pub use parted::validate_mig_parted;

#[cfg(feature = "serde")]
mod parted;

#[cfg(test)]
mod tests;
