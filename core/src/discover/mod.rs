//! Discovery: which GPUs a machine or cluster has, read from the text its tools print — pure: text in, inventory out.
//!
//! [`detect`] recognises one input by its content: `nvidia-smi -q -x` (XML), `nvidia-smi --query-gpu=…
//! --format=csv` (with or without header and units), `nvidia-smi -L`, the `nvidia-smi` summary table,
//! `nvidia-smi mig -lgi`/`-lci` (GPU and compute instances, with placements), `nvidia-smi mig
//! -lgip`/`-lgipp`, `kubectl get nodes -o json`, `kubectl get resourceslices -o json` (or `-o yaml`,
//! with the `yaml` feature; `resource_slice`), or a capture of several nvidia-smi
//! commands each under a `# $ nvidia-smi …` banner. [`detect_all`] merges several inputs (one machine
//! or cluster listing each, e.g. nodes + `-lgip`). [`Inventory::caps`] turns the result into the
//! [`ClusterGpuCaps`](crate::caps::ClusterGpuCaps) the planner takes, and the inventory's notes say what was
//! assumed. Nothing here panics: malformed input is an [`Error`] naming the line (and field).
//!
//! ```
//! let xml = r#"<?xml version="1.0" ?>
//! <nvidia_smi_log><gpu id="00000000:06:00.0">
//!   <product_name>NVIDIA A100-SXM4-40GB</product_name>
//!   <mig_mode><current_mig>Disabled</current_mig><pending_mig>Disabled</pending_mig></mig_mode>
//!   <fb_memory_usage><total>40960 MiB</total></fb_memory_usage>
//! </gpu></nvidia_smi_log>"#;
//! let inventory = gpu_share_core::internals::discover::detect(xml)?;
//! assert_eq!(inventory.gpus[0].model.as_deref(), Some("A100-SXM4-40GB"));
//! let caps = inventory.caps();
//! // MIG capable but disabled: left out of the caps until the user turns it on.
//! assert!(inventory.gpus[0].mig_capable && !caps.supports_mig);
//! assert_eq!(caps.gpu_count, Some(1));
//! # Ok::<(), gpu_share_core::internals::Error>(())
//! ```

mod capture;
mod inventory;
#[cfg(feature = "serde")]
mod kubectl;
mod list;
mod mig_instances;
mod mig_profiles;
mod profile;
mod query_csv;
mod raw;
pub mod resource_slice;
mod table;
mod values;
mod xml;

pub use inventory::{
    DiscoveredComputeInstance, DiscoveredGpu, DiscoveredMigDevice, DiscoveredNode, Inventory,
    SourceFormat,
};

use crate::caps::MAX_GPU_COUNT;
use crate::catalog::{self, GpuModel};
use crate::error::{Error, ErrorKind, Result};
use mig_profiles::{PlacementRow, ProfileRow};
use raw::RawGpu;
use std::collections::{BTreeSet, HashMap, HashSet};

/// What the error for unrecognised input lists.
const ACCEPTED: &str = "nvidia-smi -q -x (XML), nvidia-smi --query-gpu=… --format=csv, nvidia-smi -L, nvidia-smi (the summary table), nvidia-smi mig -lgi / -lci, nvidia-smi mig -lgip / -lgipp, kubectl get nodes -o json, or kubectl get resourceslices -o json (or -o yaml) — or a capture of several of them, each under a `# $ nvidia-smi …` banner";

/// Reads one input in any supported format (recognised by its content) into an inventory.
///
/// # Errors
/// `Syntax` with the line (and field) of malformed input, or for text in no supported format (the
/// message lists them); `TooLarge` above [`MAX_INPUT_BYTES`](crate::parse::MAX_INPUT_BYTES) or [`MAX_GPU_COUNT`] GPUs.
pub fn detect(text: &str) -> Result<Inventory> {
    finish(read(text)?)
}

/// Reads several inputs and merges them: GPUs and nodes add up (each input is its own machine or
/// cluster listing), MIG profiles and notes are joined.
///
/// # Errors
/// As [`detect`]; the error's field starts with `inputs[i]`, naming the input that failed
/// ([`failed_input`] reads it back).
pub fn detect_all(inputs: &[&str]) -> Result<Inventory> {
    let labels: Vec<String> = (1..=inputs.len()).map(|i| format!("input {i}")).collect();
    let named: Vec<(&str, &str)> = labels
        .iter()
        .map(String::as_str)
        .zip(inputs.iter().copied())
        .collect();
    detect_labelled(&named)
}

/// [`detect_all`] with a label for each input (`(label, text)`, e.g. a file name): when more than one
/// input has GPUs that no node name places (nvidia-smi output), their `node` is their input's label,
/// so GPUs of different machines stay apart.
///
/// # Errors
/// As [`detect_all`].
pub fn detect_labelled(inputs: &[(&str, &str)]) -> Result<Inventory> {
    if inputs.is_empty() {
        return Err(Error::new(ErrorKind::Syntax, "no input to read"));
    }
    let mut parts = Vec::with_capacity(inputs.len());
    for (i, (_, text)) in inputs.iter().enumerate() {
        parts.push(read(text).map_err(|e| e.in_field(format!("inputs[{i}]")))?);
    }
    let unplaced = parts
        .iter()
        .filter(|p| p.gpus.iter().any(|g| g.node.is_none()))
        .count();
    let mut all = Parsed::default();
    for ((label, _), mut part) in inputs.iter().zip(parts) {
        if unplaced > 1 {
            for g in part.gpus.iter_mut().filter(|g| g.node.is_none()) {
                g.node = Some((*label).to_string());
            }
        }
        all.absorb(part);
    }
    finish(all)
}

/// The input a [`detect_all`] error is about, and the field within it (if any): its field is
/// `inputs[i]…`, or `current[i]…` where a request names its texts so (fit, repartition).
pub fn failed_input(error: &Error) -> Option<(usize, Option<&str>)> {
    let field = error.field.as_deref()?;
    let rest = field
        .strip_prefix("inputs[")
        .or_else(|| field.strip_prefix("current["))?;
    let (index, rest) = rest.split_once(']')?;
    let index = index.parse().ok()?;
    Some((index, rest.strip_prefix('.').filter(|f| !f.is_empty())))
}

/// What one input yields before the inventory is settled.
#[derive(Debug, Default)]
struct Parsed {
    gpus: Vec<DiscoveredGpu>,
    nodes: Vec<inventory::DiscoveredNode>,
    profiles: Vec<ProfileRow>,
    placements: Vec<PlacementRow>,
    sources: Vec<SourceFormat>,
    notes: Vec<String>,
}

/// One format's reading.
enum Piece {
    Gpus(Vec<RawGpu>),
    Profiles(mig_profiles::Parsed),
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    Nodes(NodesParsed),
    /// The NVIDIA DRA driver's ResourceSlices.
    #[cfg(feature = "serde")]
    Slices(resource_slice::inventory::Read),
}

#[cfg(feature = "serde")]
type NodesParsed = kubectl::Parsed;
#[cfg(not(feature = "serde"))]
type NodesParsed = (Vec<DiscoveredGpu>, Vec<DiscoveredNode>, Vec<String>);

impl Parsed {
    fn add_sources(&mut self, formats: &[SourceFormat]) {
        for f in formats {
            if !self.sources.contains(f) {
                self.sources.push(*f);
            }
        }
    }

    fn absorb(&mut self, other: Parsed) {
        self.gpus.extend(other.gpus);
        self.nodes.extend(other.nodes);
        self.profiles.extend(other.profiles);
        self.placements.extend(other.placements);
        self.add_sources(&other.sources);
        self.notes.extend(other.notes);
    }

    /// Settled GPUs read from `formats` (best first) of one machine.
    fn from_gpus(formats: &[SourceFormat], raw: Vec<RawGpu>) -> Parsed {
        let mut p = Parsed::default();
        p.add_sources(formats);
        p.gpus = raw::settle(raw, &mut p.notes);
        if formats == [SourceFormat::SmiList]
            && p.gpus.iter().any(|g| g.mig_capable && !g.mig_enabled)
        {
            p.notes.push(
                "nvidia-smi -L does not show the MIG mode: GPUs it lists without MIG devices are taken as MIG disabled"
                    .into(),
            );
        }
        p
    }

    fn from_piece(format: SourceFormat, piece: Piece) -> Parsed {
        match piece {
            Piece::Gpus(raw) => Parsed::from_gpus(&[format], raw),
            Piece::Profiles((profiles, placements, notes)) => Parsed {
                profiles,
                placements,
                sources: vec![format],
                notes,
                ..Parsed::default()
            },
            Piece::Nodes((gpus, nodes, notes)) => Parsed {
                gpus,
                nodes,
                sources: vec![format],
                notes,
                ..Parsed::default()
            },
            #[cfg(feature = "serde")]
            Piece::Slices(read) => Parsed {
                gpus: read.gpus,
                nodes: read.nodes,
                profiles: read.profiles,
                sources: vec![format],
                notes: read.notes,
                ..Parsed::default()
            },
        }
    }
}

/// Reads `text` as `format`; `first_line` is its first line within the caller's input.
fn read_piece(format: SourceFormat, text: &str, first_line: usize) -> Result<Piece> {
    Ok(match format {
        SourceFormat::SmiXml => Piece::Gpus(xml::parse(text, first_line)?),
        SourceFormat::SmiQueryCsv => Piece::Gpus(query_csv::parse(text, first_line)?),
        SourceFormat::SmiList => Piece::Gpus(list::parse(text, first_line)?),
        SourceFormat::SmiTable => Piece::Gpus(table::parse(text, first_line)?),
        SourceFormat::SmiMigProfiles => Piece::Profiles(mig_profiles::parse(text, first_line)?),
        SourceFormat::SmiMigGpuInstances | SourceFormat::SmiMigComputeInstances => {
            Piece::Gpus(mig_instances::parse(text, first_line)?)
        }
        #[cfg(feature = "serde")]
        SourceFormat::KubectlNodes => Piece::Nodes(kubectl::parse(text, first_line)?),
        #[cfg(not(feature = "serde"))]
        SourceFormat::KubectlNodes => {
            return Err(Error::new(
                ErrorKind::Syntax,
                "reading `kubectl get nodes -o json` needs gpu-share-core's `serde` feature (on by default)",
            )
            .at_line(first_line))
        }
        #[cfg(feature = "serde")]
        SourceFormat::KubectlResourceSlices => Piece::Slices(resource_slice::inventory::read(
            &resource_slice::read_resource_slices(text)
                .map_err(|e| shift_line(e, first_line))?,
        )),
        #[cfg(not(feature = "serde"))]
        SourceFormat::KubectlResourceSlices => {
            return Err(Error::new(
                ErrorKind::Syntax,
                "reading `kubectl get resourceslices` needs gpu-share-core's `serde` feature (on by default)",
            )
            .at_line(first_line))
        }
    })
}

/// An error's line, counted from `first_line` of the caller's input.
#[cfg(feature = "serde")]
fn shift_line(mut e: Error, first_line: usize) -> Error {
    e.line = e.line.map(|l| l + first_line.saturating_sub(1));
    e
}

/// The format of a single (non-capture) input, from its content.
fn sniff(text: &str) -> Option<SourceFormat> {
    let t = text.trim_start();
    if t.starts_with('<') {
        return Some(SourceFormat::SmiXml);
    }
    if resource_slice_like(t) {
        return Some(SourceFormat::KubectlResourceSlices);
    }
    if t.starts_with(['{', '[']) {
        return Some(SourceFormat::KubectlNodes);
    }
    if table::looks_like(text) {
        return Some(SourceFormat::SmiTable);
    }
    if mig_instances::looks_like(text) {
        return mig_instances::formats(text).first().copied();
    }
    if mig_profiles::looks_like(text) {
        return Some(SourceFormat::SmiMigProfiles);
    }
    let first = t.lines().next().unwrap_or("");
    if list::is_gpu_line(first) {
        return Some(SourceFormat::SmiList);
    }
    if first.contains(',') {
        return Some(SourceFormat::SmiQueryCsv);
    }
    None
}

/// Whether `text` is kubectl's JSON or YAML of ResourceSlices: a `kind` of `ResourceSlice` or
/// `ResourceSliceList` (kubectl writes `"kind": "ResourceSlice"` in JSON, `kind: ResourceSlice`
/// in YAML, the latter also as `- kind: …` in a list).
fn resource_slice_like(text: &str) -> bool {
    if text.starts_with(['{', '[']) {
        let compact: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .take(1 << 20)
            .collect();
        return compact.contains("\"kind\":\"ResourceSlice\"")
            || compact.contains("\"kind\":\"ResourceSliceList\"");
    }
    text.lines().take(100_000).any(|line| {
        let l = line.trim_start();
        let l = l.strip_prefix("- ").unwrap_or(l).trim_end();
        l == "kind: ResourceSlice" || l == "kind: ResourceSliceList"
    })
}

fn read(text: &str) -> Result<Parsed> {
    crate::parse::check_size(text, "the input")?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(Error::new(
            ErrorKind::Syntax,
            format!("the input is empty; expected the output of {ACCEPTED}"),
        ));
    }
    if capture::is_capture(text) {
        return capture::read(text);
    }
    let Some(format) = sniff(text) else {
        let line = text
            .lines()
            .position(|l| !l.trim().is_empty())
            .map_or(1, |i| i + 1);
        return Err(Error::new(
            ErrorKind::Syntax,
            format!("unrecognised input; expected the output of {ACCEPTED}"),
        )
        .at_line(line));
    };
    let piece = read_piece(format, text, 1)?;
    Ok(match (format, piece) {
        // One input may hold both the -lgi and the -lci table.
        (
            SourceFormat::SmiMigGpuInstances | SourceFormat::SmiMigComputeInstances,
            Piece::Gpus(raw),
        ) => Parsed::from_gpus(&mig_instances::formats(text), raw),
        (format, piece) => Parsed::from_piece(format, piece),
    })
}

/// Names `-lgipp` placements, checks them against the catalogue, and settles the inventory with its caps notes.
fn finish(p: Parsed) -> Result<Inventory> {
    let mut notes = p.notes;
    let mut mig_profiles: Vec<String> = Vec::new();
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for row in &p.profiles {
        if named.insert(&row.name) {
            mig_profiles.push(row.name.clone());
        }
    }
    check_placements(&p.profiles, &p.placements, &p.gpus, &mut notes);
    if p.gpus.is_empty() && p.nodes.is_empty() && mig_profiles.is_empty() {
        let why = if p.placements.is_empty() {
            "the input lists no GPU".to_string()
        } else {
            "nvidia-smi mig -lgipp lists profile IDs only, which differ between GPU models; give the output of nvidia-smi mig -lgip too".to_string()
        };
        return Err(Error::new(ErrorKind::Syntax, why));
    }
    if p.gpus.len() as u64 > MAX_GPU_COUNT {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("more than {MAX_GPU_COUNT} GPUs"),
        ));
    }
    let mut inventory = Inventory {
        gpus: p.gpus,
        nodes: p.nodes,
        mig_profiles,
        sources: p.sources,
        notes: Vec::new(),
    };
    let (_, caps_notes) = inventory.caps_with_notes();
    let mut seen: HashSet<String> = HashSet::new();
    for n in notes.into_iter().chain(caps_notes) {
        if seen.insert(n.clone()) {
            inventory.notes.push(n);
        }
    }
    Ok(inventory)
}

/// `-lgipp` placements against the catalogue's (the planner uses the catalogue's): notes any difference.
fn check_placements(
    profiles: &[ProfileRow],
    placements: &[PlacementRow],
    gpus: &[DiscoveredGpu],
    notes: &mut Vec<String>,
) {
    let mut unnamed: BTreeSet<u32> = BTreeSet::new();
    let mut matched: Vec<&str> = Vec::new();
    let mut seen: BTreeSet<(u32, &[u8], u8)> = BTreeSet::new();
    if placements.is_empty() {
        return;
    }
    let model_names: BTreeSet<&str> = gpus.iter().filter_map(|g| g.model.as_deref()).collect();
    let gpu_models: Vec<&'static GpuModel> = model_names
        .into_iter()
        .filter_map(catalog::find_model)
        .collect();
    let mut by_gpu_id: HashMap<(u32, u32), &str> = HashMap::new();
    let mut by_id: HashMap<u32, &str> = HashMap::new();
    for p in profiles {
        by_gpu_id.entry((p.gpu, p.id)).or_insert(&p.name);
        by_id.entry(p.id).or_insert(&p.name);
    }
    for pl in placements {
        if !seen.insert((pl.id, pl.starts.as_slice(), pl.size)) {
            continue;
        }
        let name = by_gpu_id
            .get(&(pl.gpu, pl.id))
            .or_else(|| by_id.get(&pl.id))
            .copied();
        let Some(name) = name else {
            unnamed.insert(pl.id);
            continue;
        };
        let mut models: Vec<&'static GpuModel> = gpu_models
            .iter()
            .copied()
            .filter(|m| m.profile(name).is_some())
            .collect();
        if models.is_empty() {
            models = catalog::models_with_profiles([name]);
        }
        let Some(first) = models.first() else {
            continue;
        };
        let agrees = models.iter().any(|m| {
            m.profile(name)
                .is_some_and(|p| p.memory_slices == pl.size && p.starts == pl.starts.as_slice())
        });
        if agrees {
            if !matched.contains(&name) && matched.len() < 32 {
                matched.push(name);
            }
        } else if let Some(p) = first.profile(name) {
            let starts = |s: &[u8]| s.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
            notes.push(format!(
                "line {}: nvidia-smi mig -lgipp places {name} at {{{}}}:{}, the catalogue ({}) at {{{}}}:{}; the planner uses the catalogue's",
                pl.line,
                starts(&pl.starts),
                pl.size,
                first.name,
                starts(p.starts),
                p.memory_slices
            ));
        }
    }
    if !matched.is_empty() {
        notes.push(format!(
            "nvidia-smi mig -lgipp placements of {} match the catalogue",
            matched.join(", ")
        ));
    }
    if !unnamed.is_empty() {
        let ids: Vec<String> = unnamed.iter().take(32).map(u32::to_string).collect();
        notes.push(format!(
            "nvidia-smi mig -lgipp placements for profile IDs {} are not named (IDs differ between GPU models); add the output of nvidia-smi mig -lgip to check them",
            ids.join(", ")
        ));
    }
}
