//! The pack use case for many asks as columns: one array per field in, one per field out, and no
//! object per ask either way. A million asks as objects spent more of npm `binPack` on making and
//! reading objects than on packing (BENCHMARKS.md, speed where users call it); here they cross as
//! typed arrays (`binPackColumns`). The packing is [`pack`](super::pack)'s — the same GPUs for the
//! same asks — said by position instead of by name; what it leaves out is each ask's notes (how
//! the choice was made) and each GPU's memory total, which [`pack`](super::pack) gives.

use super::cluster::{CapsFrom, Cluster};
use super::pack::{pack_on, OptimizeReport, PackOptions, PackResponse};
use crate::ask::AskSize;
use crate::ask::FractionalAsk;
use crate::error::{Error, ErrorKind, Result};
use crate::memory::Memory;
use crate::pack::NodeLayout;
use crate::pack::PackResult;
use crate::pack::{Tenants, MAX_ASKS};
use crate::plan::Mechanism;
use crate::units::Share;
use std::borrow::Cow;
use std::collections::HashMap;

/// Asks as columns, validated: ask `i` is `fractions[i]` of a GPU, `memory[i]` bytes of GPU
/// memory, or both (0 in a column: not given), named `names[i]` or, without names, by its
/// position (`"0"`, `"1"`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskColumns {
    asks: Vec<FractionalAsk>,
    /// Whether the names are the positions (no names were given).
    positional: bool,
}

impl AskColumns {
    /// # Errors
    /// `Syntax` (field `fractions`) when neither numeric column is given, or (the shorter
    /// column) when lengths differ; `TooLarge` above [`MAX_ASKS`]; the value's own error, in
    /// field `fractions[i]`, `memory[i]` or `names[i]`, for a value that is not a fraction, a
    /// whole number of bytes or a name, or an ask given neither.
    pub fn new(
        names: Option<Vec<String>>,
        fractions: Option<&[f64]>,
        memory: Option<&[f64]>,
    ) -> Result<AskColumns> {
        let n = column_length(names.as_ref().map(Vec::len), fractions, memory)?;
        let positional = names.is_none();
        let mut names = names.map(Vec::into_iter);
        let mut asks = Vec::with_capacity(n);
        for i in 0..n {
            // Each name moves into its ask (given) or is the position's digits (not given).
            let name = match &mut names {
                Some(names) => names.next().unwrap_or_default(),
                None => i.to_string(),
            };
            let fraction = fractions.map_or(Ok(None), |f| fraction_at(f, i))?;
            let memory = memory.map_or(Ok(None), |m| memory_at(m, i))?;
            let size = match (fraction, memory) {
                (Some(f), None) => AskSize::Fraction(f),
                (None, Some(m)) => AskSize::Memory(m),
                (Some(f), Some(m)) => AskSize::FractionAndMemory(f, m),
                (None, None) => {
                    return Err(at_position(
                        Error::new(
                            ErrorKind::OutOfRange,
                            "an ask needs a fraction or memory (0 in both columns)",
                        )
                        .in_field("fraction"),
                        i,
                    ))
                }
            };
            let ask = FractionalAsk::sized(name, size);
            asks.push(ask.map_err(|e| at_position(e, i))?);
        }
        Ok(AskColumns { asks, positional })
    }

    /// The asks, in order.
    pub fn asks(&self) -> &[FractionalAsk] {
        &self.asks
    }

    /// The asks, in order, to pack as a list ([`PackRequest`](super::PackRequest)).
    pub fn into_asks(self) -> Vec<FractionalAsk> {
        self.asks
    }

    pub fn len(&self) -> usize {
        self.asks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.asks.is_empty()
    }
}

/// The asks' count: every column given has it.
fn column_length(
    names: Option<usize>,
    fractions: Option<&[f64]>,
    memory: Option<&[f64]>,
) -> Result<usize> {
    let columns = [
        ("fractions", fractions.map(<[f64]>::len)),
        ("memory", memory.map(<[f64]>::len)),
        ("names", names),
    ];
    if fractions.is_none() && memory.is_none() {
        return Err(
            Error::new(ErrorKind::Syntax, "give fractions, memory or both").in_field("fractions"),
        );
    }
    let given: Vec<(&str, usize)> = columns.iter().filter_map(|&(c, n)| Some((c, n?))).collect();
    let (first, n) = given[0];
    if let Some(&(other, m)) = given.iter().find(|&&(_, m)| m != n) {
        return Err(Error::new(
            ErrorKind::Syntax,
            format!("has {m} values; {first} has {n} (one value per ask in every column)"),
        )
        .in_field(other));
    }
    if n > MAX_ASKS {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("{n} asks is more than the {MAX_ASKS} one pack accepts"),
        )
        .in_field(first));
    }
    Ok(n)
}

/// `fractions[i]` as a share (`None` for 0).
fn fraction_at(fractions: &[f64], i: usize) -> Result<Option<Share>> {
    match fractions[i] {
        0.0 => Ok(None),
        f => Share::from_f64(f)
            .map(Some)
            .map_err(|e| e.in_field(format!("fractions[{i}]"))),
    }
}

/// `memory[i]` bytes (`None` for 0): a whole number, exactly representable.
fn memory_at(memory: &[f64], i: usize) -> Result<Option<Memory>> {
    let bytes = memory[i];
    if bytes == 0.0 {
        return Ok(None);
    }
    let whole = bytes.is_finite()
        && bytes.fract() == 0.0
        && (1.0..=9_007_199_254_740_992.0).contains(&bytes);
    let memory = if whole {
        Memory::from_bytes(bytes as u64)
    } else {
        Err(Error::new(
            ErrorKind::OutOfRange,
            format!("must be a whole number of bytes, got {bytes}"),
        ))
    };
    memory
        .map(Some)
        .map_err(|e| e.in_field(format!("memory[{i}]")))
}

/// An ask constructor's error, in the column of the field it names.
fn at_position(e: Error, i: usize) -> Error {
    let column = match e.field.as_deref() {
        Some("name") => "names",
        Some("memory") => "memory",
        _ => "fractions",
    };
    Error { field: None, ..e }.in_field(format!("{column}[{i}]"))
}

/// Asks as columns to pack onto a cluster: npm `binPackColumns(columns, gpuCount, caps, options)`;
/// the rest as in [`PackRequest`](super::PackRequest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackColumnsRequest {
    pub asks: AskColumns,
    pub gpu_count: Option<u64>,
    pub cluster: Cluster,
    pub options: PackOptions,
}

/// What the packing says once, not per ask: the totals, the asks that found no room, the
/// warnings with how many asks carry each, and the legends of the columns' codes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct PackColumnsSummary {
    pub gpus_used: u64,
    /// No packing of these asks with these mechanisms uses fewer GPUs.
    pub lower_bound: u64,
    pub gpu_count: Option<u64>,
    pub gpu_model: Option<String>,
    /// As [`PackResult::utilisation`].
    pub utilisation: Share,
    /// Asks that found no room, in input order.
    pub unplaced: Vec<UnplacedAt>,
    /// Every distinct warning of the asks' choices, in the order first met.
    pub warnings: Vec<WarningCount>,
    pub notes: Vec<String>,
    /// The nodes, when the cluster has them: each one's role and GPUs.
    pub nodes: Vec<NodeLayout>,
    /// The mechanism codes' legend: code `c` is `mechanisms[c]`.
    pub mechanisms: Vec<Mechanism>,
    /// The MIG profile codes' legend: code `c` is `mig_profiles[c]`.
    pub mig_profiles: Vec<String>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub optimize: Option<OptimizeReport>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub caps_from: Option<CapsFrom>,
}

/// An ask that found no room, by position.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct UnplacedAt {
    pub ask: u32,
    pub name: String,
    pub mechanism: Mechanism,
    pub reason: String,
}

/// One warning and the asks that carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct WarningCount {
    pub text: String,
    /// How many asks carry it.
    pub asks: u64,
    /// The first of them, by position.
    pub first: u32,
}

/// Where each ask went, in input order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AskPlacements {
    /// The (first) GPU the ask is on; `None` when unplaced.
    pub gpu: Vec<Option<u32>>,
    pub mechanism: Vec<Mechanism>,
    /// What the ask denies to others: its MIG instance's share, its fraction, or whole GPUs.
    pub allocated: Vec<Share>,
    /// The MIG instance's profile, as a code of [`PackColumnsSummary::mig_profiles`].
    pub mig_profile: Vec<Option<u8>>,
    /// The MIG instance's first memory slice.
    pub mig_start: Vec<Option<u8>>,
}

/// Each GPU, in index order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuColumns {
    pub mechanism: Vec<Mechanism>,
    /// The share of the GPU its tenants take.
    pub used: Vec<Share>,
    /// The asks on GPU `g` are `asks[ask_start[g]..ask_start[g + 1]]` (a multi-GPU ask on each).
    pub asks: Vec<u32>,
    /// `gpus_used + 1` offsets into `asks`.
    pub ask_start: Vec<u32>,
}

/// A packing as columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackColumns {
    pub summary: PackColumnsSummary,
    pub asks: AskPlacements,
    pub gpus: GpuColumns,
}

/// Packs the asks as [`pack`](super::pack) does and returns the packing as columns.
///
/// # Errors
/// As [`pack`](super::pack).
pub fn pack_columns(request: &PackColumnsRequest) -> Result<PackColumns> {
    let (caps, caps_from) = request.cluster.caps_with(request.gpu_count)?;
    super::pack::no_models(&request.options)?;
    let response = pack_on(request.asks.asks(), &request.options, &caps, caps_from)?;
    Ok(columns(&request.asks, response))
}

/// Ask positions by name.
enum Positions<'a> {
    /// The names are the positions.
    Numbers,
    Names(HashMap<&'a str, u32>),
}

impl Positions<'_> {
    fn of(&self, name: &str) -> u32 {
        match self {
            Positions::Numbers => name.parse().unwrap_or(u32::MAX),
            Positions::Names(map) => map.get(name).copied().unwrap_or(u32::MAX),
        }
    }
}

fn columns(asks: &AskColumns, response: PackResponse) -> PackColumns {
    let PackResponse {
        result,
        optimize,
        caps_from,
        ..
    } = response;
    let positions = if asks.positional {
        Positions::Numbers
    } else {
        Positions::Names(
            (0u32..)
                .zip(&asks.asks)
                .map(|(i, a)| (a.name(), i))
                .collect(),
        )
    };
    let mut mig_profiles = Vec::new();
    let (placements, gpus) = placements(&result, &positions, &mut mig_profiles);
    let summary = PackColumnsSummary {
        gpus_used: result.gpus_used,
        lower_bound: result.lower_bound,
        gpu_count: result.gpu_count,
        utilisation: result.utilisation,
        unplaced: result
            .unplaced
            .iter()
            .map(|u| UnplacedAt {
                ask: positions.of(&u.name),
                name: u.name.clone(),
                mechanism: u.mechanism,
                reason: u.reason.clone(),
            })
            .collect(),
        warnings: warning_counts(&result),
        mechanisms: Mechanism::ALL.to_vec(),
        mig_profiles,
        optimize,
        caps_from,
        gpu_model: result.gpu_model,
        notes: result.notes,
        nodes: result.nodes,
    };
    PackColumns {
        summary,
        asks: placements,
        gpus,
    }
}

/// Each ask's GPU and instance, and each GPU's asks.
fn placements(
    result: &PackResult,
    positions: &Positions,
    mig_profiles: &mut Vec<String>,
) -> (AskPlacements, GpuColumns) {
    let n = result.choices.len();
    let mut asks = AskPlacements {
        gpu: vec![None; n],
        mechanism: result.choices.iter().map(|c| c.mechanism).collect(),
        allocated: result
            .choices
            .iter()
            .map(|c| c.allocated_fraction)
            .collect(),
        mig_profile: vec![None; n],
        mig_start: vec![None; n],
    };
    let mut gpus = GpuColumns {
        ask_start: vec![0],
        ..GpuColumns::default()
    };
    for (g, layout) in (0u32..).zip(&result.gpus) {
        gpus.mechanism.push(layout.mechanism());
        gpus.used.push(layout.used_fraction());
        for name in layout.asks() {
            let i = positions.of(name);
            gpus.asks.push(i);
            if let Some(first) = asks.gpu.get_mut(i as usize) {
                first.get_or_insert(g);
            }
        }
        gpus.ask_start.push(gpus.asks.len() as u32);
        if let Tenants::Mig(instances) = layout.tenants() {
            for instance in instances {
                let i = positions.of(&instance.ask) as usize;
                if i < n {
                    asks.mig_profile[i] = Some(code(mig_profiles, instance.profile));
                    asks.mig_start[i] = Some(instance.start);
                }
            }
        }
    }
    (asks, gpus)
}

/// The code of `profile` in the legend, added when new (a model has fewer than 20 profiles).
fn code(legend: &mut Vec<String>, profile: &str) -> u8 {
    let at = legend.iter().position(|p| p == profile).unwrap_or_else(|| {
        legend.push(profile.to_string());
        legend.len() - 1
    });
    at as u8
}

/// The distinct warnings of the choices, each with its count and first ask. Most asks carry one
/// of a few texts, so the last one met is tried before the map.
fn warning_counts(result: &PackResult) -> Vec<WarningCount> {
    let mut counts: Vec<WarningCount> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut last: Option<(&Cow<'static, str>, usize)> = None;
    for (i, choice) in (0u32..).zip(&result.choices) {
        for warning in &choice.warnings {
            let k = match last {
                Some((text, k)) if text == warning => k,
                _ => *index.entry(warning.as_ref()).or_insert_with(|| {
                    counts.push(WarningCount {
                        text: warning.to_string(),
                        asks: 0,
                        first: i,
                    });
                    counts.len() - 1
                }),
            };
            counts[k].asks += 1;
            last = Some((warning, k));
        }
    }
    counts
}

#[cfg(test)]
mod tests;
