//! The fit use case: MIG GPUs as they are (from `nvidia-smi mig -lgi`, with `-L` / `-q -x` or
//! kubectl output naming the model) — per GPU, which profiles can still be created and where,
//! which free memory slices are stranded, and where new asks go without touching what runs.

mod live;

use super::discover::{labelled, read, DetectInput};
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::catalog::{find_model, models_with_profiles, require_model, GpuModel};
use crate::discover::{DiscoveredGpu, Inventory};
use crate::error::{Error, ErrorKind, Hint, Input, Result};
use crate::pack::mig::{verify, Placed};
use crate::plan::Mechanism;
use live::LiveGpu;

/// The most asks one fit places.
pub const MAX_FIT_ASKS: usize = 10_000;

/// GPUs as they are, and optionally asks to place on them: npm `fit(current, asks, options)`,
/// `gpu-share fit --current FILE`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct FitRequest {
    /// nvidia-smi or kubectl output: one text per machine (or cluster).
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "super::discover::texts::one_or_many")
    )]
    pub current: Vec<DetectInput>,
    /// Asks to place in the free room, each as a MIG profile of its GPU's model.
    #[cfg_attr(feature = "serde", serde(default))]
    pub asks: Vec<FractionalAsk>,
    #[cfg_attr(feature = "serde", serde(default))]
    pub options: LiveOptions,
}

/// What the texts of GPUs as they are may not say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct LiveOptions {
    /// The GPU model, for GPUs whose texts do not name it (`nvidia-smi mig -lgi` names none).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub gpu_model: Option<String>,
}

/// An error of [`fit`] or [`super::repartition`] in the request's words: the texts are `current`,
/// the options `options.…`, and a hint to give the model points at `options.gpu_model`.
pub(super) fn in_request(e: Error) -> Error {
    let give = matches!(
        e.hint,
        Some(Hint::Give {
            input: Input::GpuModel
        })
    );
    let e = renamed(e, "inputs", "current");
    let e = renamed(e, "gpu_model", "options.gpu_model");
    let e = renamed(e, "free", "options.free");
    match e.field {
        None if give => e.in_field("options.gpu_model"),
        _ => e,
    }
}

/// An error's field with its first segment `from` renamed `to` (`inputs[0]` → `current[0]`).
fn renamed(e: Error, from: &str, to: &str) -> Error {
    let field = e.field.as_deref().map(|f| match f.strip_prefix(from) {
        Some(rest) if rest.is_empty() || rest.starts_with(['[', '.']) => format!("{to}{rest}"),
        _ => f.to_string(),
    });
    Error { field, ..e }
}

/// What fits where, GPU by GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct FitResponse {
    /// Every MIG-enabled GPU whose placements are known, as it is now.
    pub gpus: Vec<GpuFit>,
    /// Where each ask that fits goes, in the order given.
    pub placed: Vec<FitPlacement>,
    /// Asks with no room anywhere, with why.
    pub unplaced: Vec<FitUnplaced>,
    /// GPUs left out and models assumed, one sentence each.
    pub notes: Vec<String>,
}

/// One MIG GPU as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct GpuFit {
    pub node: Option<String>,
    pub index: u64,
    pub model: String,
    /// The GPU instances there now, by start.
    pub instances: Vec<LiveInstance>,
    pub free_memory_slices: Vec<u8>,
    pub free_compute_slices: u8,
    /// Each profile that can be created now, with every start it can take.
    pub creatable: Vec<Creatable>,
    /// Free memory slices that no profile could use now: inside no creatable placement.
    pub stranded_memory_slices: Vec<u8>,
    /// With asks: free memory slices inside no creatable placement of the asks' profiles.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub stranded_for_asks: Option<Vec<u8>>,
}

/// An existing GPU instance.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct LiveInstance {
    pub profile: String,
    pub start: u8,
    pub gpu_instance_id: Option<u32>,
}

/// A profile that can be created now, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Creatable {
    pub profile: String,
    pub starts: Vec<u8>,
}

/// Where an ask goes: a new GPU instance at a free placement.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct FitPlacement {
    pub ask: String,
    pub node: Option<String>,
    pub gpu: u64,
    pub profile: String,
    pub start: u8,
}

/// An ask with no room, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct FitUnplaced {
    pub name: String,
    pub reason: String,
}

/// A GPU being fitted: where it is, its live state, and the asks' profiles on its model.
pub(crate) struct Target<'a> {
    pub source: &'a DiscoveredGpu,
    pub live: LiveGpu,
}

/// Reads the GPUs, then places the asks (largest first) each on the first GPU with a free
/// placement for its profile, at the start that leaves the most room for the other asks.
///
/// # Errors
/// Discovery errors (naming the input); `gpu_model` not a MIG-capable catalogue model; a GPU
/// whose model neither the inputs nor `gpu_model` settle (with a hint to give the model); more
/// than [`MAX_FIT_ASKS`] asks; duplicate ask names.
pub fn fit(request: &FitRequest) -> Result<FitResponse> {
    fit_live(request).map_err(in_request)
}

/// The asks of a use case on live GPUs: at most `max` of them (the search is exact), uniquely named.
pub(crate) fn live_asks(asks: &[FractionalAsk], max: usize, use_case: &str) -> Result<()> {
    if asks.len() > max {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "{} asks is more than the {max} one {use_case} places",
                asks.len()
            ),
        )
        .in_field("asks"));
    }
    crate::pack::check_unique_names(asks)
}

fn fit_live(request: &FitRequest) -> Result<FitResponse> {
    live_asks(&request.asks, MAX_FIT_ASKS, "fit")?;
    let (inventory, given, mut notes) = live_inventory(
        &labelled(&request.current, "current"),
        request.options.gpu_model.as_deref(),
    )?;
    let mut targets = targets(&inventory, given, &mut notes)?;
    let profiles_of = |t: &Target| -> Vec<Option<usize>> {
        request
            .asks
            .iter()
            .map(|a| profile_for(a, t.live.model))
            .collect()
    };
    let asked: Vec<Vec<Option<usize>>> = targets.iter().map(profiles_of).collect();
    let gpus = targets
        .iter()
        .zip(&asked)
        .map(|(t, asked)| describe(t, asked, !request.asks.is_empty()))
        .collect();
    let (placed, unplaced) = place(&request.asks, &mut targets, &asked);
    Ok(FitResponse {
        gpus,
        placed,
        unplaced,
        notes,
    })
}

/// The inputs read, the model given (checked), and discovery's notes that concern live GPUs (the
/// caps' notes — which mechanisms a plan may use — say nothing about what fits).
pub(super) fn live_inventory(
    inputs: &[DetectInput],
    gpu_model: Option<&str>,
) -> Result<(Inventory, Option<&'static GpuModel>, Vec<String>)> {
    let given = gpu_model.map(mig_model).transpose()?;
    let inventory = read(inputs)?;
    let (_, caps_notes) = inventory.caps_with_notes();
    let notes = inventory
        .notes
        .iter()
        .filter(|n| !caps_notes.contains(n))
        .cloned()
        .collect();
    Ok((inventory, given, notes))
}

fn mig_model(name: &str) -> Result<&'static GpuModel> {
    let model = require_model(name).map_err(|e| e.in_field(Input::GpuModel.field()))?;
    if !model.is_mig_capable() {
        return Err(Error::new(
            ErrorKind::UnknownModel,
            format!("{} has no MIG", model.name),
        )
        .in_field(Input::GpuModel.field()));
    }
    Ok(model)
}

/// The MIG-enabled GPUs whose placements are known, each on its model; notes for the others.
pub(super) fn targets<'a>(
    inventory: &'a Inventory,
    given: Option<&'static GpuModel>,
    notes: &mut Vec<String>,
) -> Result<Vec<Target<'a>>> {
    let mut out = Vec::new();
    for g in &inventory.gpus {
        let name = gpu_name(g.node.as_deref(), g.index);
        if !g.mig_enabled {
            notes.push(not_enabled(g, &name));
            continue;
        }
        if g.mig_devices.iter().any(|d| d.start.is_none()) {
            notes.push(format!(
                "{name}: the input gives no placements; `nvidia-smi mig -lgi` does"
            ));
            continue;
        }
        let model = model_of(g, given, &name, notes)?;
        let mut placed = Vec::new();
        for d in &g.mig_devices {
            let profile = model.profiles.iter().position(|p| p.name == d.profile);
            match (profile, d.start) {
                (Some(profile), Some(start)) => placed.push(Placed { profile, start }),
                _ => {
                    return Err(Error::new(
                        ErrorKind::UnknownProfile,
                        format!(
                            "{name} holds a {} instance, which is no profile of {}",
                            d.profile, model.name
                        ),
                    )
                    .with_hint(Hint::Give {
                        input: Input::GpuModel,
                    }));
                }
            }
        }
        crate::sort::sort_by_key(&mut placed, |p| p.start);
        if verify(model, &placed).is_err() {
            let layout: Vec<(&str, u8)> = placed
                .iter()
                .map(|p| (model.profiles[p.profile].name, p.start))
                .collect();
            let why = crate::validate_mig::validate_placements(model, &layout)?.reason;
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!(
                    "{name}'s instances are not a valid layout of {} ({}): is that its model?",
                    model.name,
                    why.unwrap_or_default()
                ),
            )
            .with_hint(Hint::Give {
                input: Input::GpuModel,
            }));
        }
        out.push(Target {
            source: g,
            live: LiveGpu { model, placed },
        });
    }
    Ok(out)
}

/// Why a GPU is left out as not MIG-enabled, saying what the input shows and what is assumed.
fn not_enabled(g: &DiscoveredGpu, name: &str) -> String {
    if !g.mig_capable {
        let model = g.model.as_deref().unwrap_or(&g.name);
        return format!("{name}: {model} has no MIG, so nothing can be created on it");
    }
    if g.mig_mode_shown {
        return format!("{name}: MIG is disabled, as the input shows, so nothing can be created on it (enabling MIG needs a GPU reset)");
    }
    format!(
        "{name}: the input does not show its MIG mode and lists no MIG devices on it, so it is taken as MIG disabled and nothing is placed on it; were MIG enabled with no instances yet, every profile could be created. nvidia-smi -q -x (or nvidia-smi mig -lgi) shows which"
    )
}

/// The GPU's model: as the input names it, else the one given, else the only catalogue model
/// (up to boards with the same profiles) that has every profile the GPU holds.
fn model_of(
    g: &DiscoveredGpu,
    given: Option<&'static GpuModel>,
    name: &str,
    notes: &mut Vec<String>,
) -> Result<&'static GpuModel> {
    let found = g
        .model
        .as_deref()
        .and_then(find_model)
        .filter(|m| m.is_mig_capable());
    if let Some(m) = found {
        // A model the given one cannot be (other profiles) is the input's; boards with the same
        // profiles (discovery may have named the first of them) are the user's to tell apart.
        match given {
            Some(g) if g.name != m.name && g.same_profiles(m) => return Ok(g),
            Some(g) if g.name != m.name => notes.push(format!(
                "{name}: the input shows a {}, so the model given ({}) is not used for it",
                m.name, g.name
            )),
            _ => {}
        }
        return Ok(m);
    }
    // Discovery's note that the input names no model is answered here, one way or the other.
    let unnamed = format!("{name}: the input does not name the GPU");
    notes.retain(|n| !n.starts_with(&unnamed));
    if let Some(m) = given {
        notes.push(format!("{name}: read as {}, the model given", m.name));
        return Ok(m);
    }
    let held: Vec<&str> = g.mig_devices.iter().map(|d| d.profile.as_str()).collect();
    let holds = |m: &&'static GpuModel| {
        let placed: Option<Vec<Placed>> = g
            .mig_devices
            .iter()
            .map(|d| {
                let profile = m.profiles.iter().position(|p| p.name == d.profile)?;
                Some(Placed {
                    profile,
                    start: d.start?,
                })
            })
            .collect();
        placed.is_some_and(|p| verify(m, &p).is_ok())
    };
    let candidates: Vec<&'static GpuModel> = models_with_profiles(held.iter().copied())
        .into_iter()
        .filter(holds)
        .collect();
    match candidates.as_slice() {
        [first, rest @ ..] if !held.is_empty() && rest.iter().all(|m| m.same_profiles(first)) => {
            if !rest.is_empty() {
                notes.push(format!(
                    "{name}: read as {}; every board with its profiles has the same placements",
                    first.name
                ));
            }
            Ok(first)
        }
        _ => Err(Error::new(
            ErrorKind::UnknownModel,
            format!(
                "{name}: the input does not name the GPU model, and its profiles do not settle it"
            ),
        )
        .with_hint(Hint::Give {
            input: Input::GpuModel,
        })),
    }
}

pub(crate) fn gpu_name(node: Option<&str>, index: u64) -> String {
    match node {
        Some(node) => format!("{node} GPU {index}"),
        None => format!("GPU {index}"),
    }
}

/// The MIG profile that serves `ask` on `model`: the one it names, or the least-waste profile
/// covering its fraction; `None` when no profile of the model does.
pub(super) fn profile_for(ask: &FractionalAsk, model: &'static GpuModel) -> Option<usize> {
    let caps = ClusterGpuCaps {
        supports_mig: true,
        gpu_model: Some(model.name.to_string()),
        ..Default::default()
    };
    let choice = crate::plan::select_mechanism(ask, &caps).ok()?;
    let name = choice
        .mig_profile
        .filter(|_| choice.mechanism == Mechanism::Mig)?;
    model.profiles.iter().position(|p| p.name == name)
}

fn describe(t: &Target, asked: &[Option<usize>], with_asks: bool) -> GpuFit {
    let live = &t.live;
    let model = live.model;
    let all: Vec<usize> = (0..model.profiles.len()).collect();
    let mut asked: Vec<usize> = asked.iter().flatten().copied().collect();
    asked.sort_unstable();
    asked.dedup();
    let used = live.used_mask();
    let by_start = t
        .source
        .mig_devices
        .iter()
        .filter_map(|d| Some((d.start?, d)));
    let mut instances: Vec<LiveInstance> = by_start
        .map(|(start, d)| LiveInstance {
            profile: d.profile.clone(),
            start,
            gpu_instance_id: d.gpu_instance_id,
        })
        .collect();
    crate::sort::sort_by_key(&mut instances, |i| i.start);
    GpuFit {
        node: t.source.node.clone(),
        index: t.source.index,
        model: model.name.to_string(),
        instances,
        free_memory_slices: (0..live.memory_slices())
            .filter(|s| used & (1 << s) == 0)
            .collect(),
        free_compute_slices: live.free_compute_slices(),
        creatable: all
            .iter()
            .filter_map(|&p| {
                let starts = live.starts_for(p);
                (!starts.is_empty()).then(|| Creatable {
                    profile: model.profiles[p].name.to_string(),
                    starts,
                })
            })
            .collect(),
        stranded_memory_slices: live.stranded(&all),
        stranded_for_asks: with_asks.then(|| live.stranded(&asked)),
    }
}

/// First fit, largest memory first: each ask on the first GPU with room for its profile, at the
/// start that leaves the most placements for the asks still to come.
fn place(
    asks: &[FractionalAsk],
    targets: &mut [Target],
    asked: &[Vec<Option<usize>>],
) -> (Vec<FitPlacement>, Vec<FitUnplaced>) {
    let size = |i: usize| {
        targets
            .iter()
            .zip(asked)
            .filter_map(|(t, a)| Some(t.live.model.profiles[a[i]?].memory_slices))
            .max()
            .unwrap_or(0)
    };
    let mut order: Vec<usize> = (0..asks.len()).collect();
    crate::sort::sort_by_key(&mut order, |&i| (std::cmp::Reverse(size(i)), i));
    // Per GPU, how many asks still to place want each profile of its model.
    let mut waiting: Vec<Vec<usize>> = targets
        .iter()
        .zip(asked)
        .map(|(t, a)| {
            let mut counts = vec![0; t.live.model.profiles.len()];
            a.iter().flatten().for_each(|&p| counts[p] += 1);
            counts
        })
        .collect();
    let mut placed: Vec<(usize, FitPlacement)> = Vec::new();
    let mut unplaced: Vec<(usize, FitUnplaced)> = Vec::new();
    for &i in &order {
        for (w, a) in waiting.iter_mut().zip(asked) {
            if let Some(p) = a[i] {
                w[p] -= 1;
            }
        }
        let mut spot = None;
        for ((t, a), w) in targets.iter_mut().zip(asked).zip(&waiting) {
            let Some(p) = a[i] else { continue };
            let next: Vec<usize> = (0..w.len()).filter(|&q| w[q] > 0).collect();
            let considered = if next.is_empty() {
                (0..w.len()).collect()
            } else {
                next
            };
            if let Some(start) = t.live.best_start(p, &considered) {
                t.live.placed.push(Placed { profile: p, start });
                spot = Some(FitPlacement {
                    ask: asks[i].name().to_string(),
                    node: t.source.node.clone(),
                    gpu: t.source.index,
                    profile: t.live.model.profiles[p].name.to_string(),
                    start,
                });
                break;
            }
        }
        match spot {
            Some(p) => placed.push((i, p)),
            None => {
                let name = asks[i].name().to_string();
                let reason = why_unplaced(targets, asked, i);
                unplaced.push((i, FitUnplaced { name, reason }));
            }
        }
    }
    crate::sort::sort_by_key(&mut placed, |(i, _)| *i);
    crate::sort::sort_by_key(&mut unplaced, |(i, _)| *i);
    (
        placed.into_iter().map(|(_, p)| p).collect(),
        unplaced.into_iter().map(|(_, u)| u).collect(),
    )
}

fn why_unplaced(targets: &[Target], asked: &[Vec<Option<usize>>], i: usize) -> String {
    if targets.is_empty() {
        return "the inputs show no MIG-enabled GPU with known placements".into();
    }
    let profile = targets
        .iter()
        .zip(asked)
        .find_map(|(t, a)| Some(t.live.model.profiles[a[i]?].name));
    match profile {
        None => "no MIG profile of these GPUs holds it".into(),
        Some(p) => format!("no GPU has a free placement for {p} without moving an instance"),
    }
}
