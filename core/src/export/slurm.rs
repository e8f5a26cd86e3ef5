//! Slurm GRES for the plan: `gres.conf`, `slurm.conf` `GresTypes=`/`Gres=` lines, and each ask's `--gres=` option (docs/hardware-facts.md §5).
//!
//! MIG instances are GPUs of the type slurmd's NVML detection gives them (see [`mig_type`]):
//! since slurmd 23.02.6 the MIG device's own NVML name (`gpu:nvidia_h200_1g.18gb:N`), before it a
//! name built from the instance's memory, rounded (`--slurm-version`). Time-sliced GPUs are
//! shards; MPS GPUs are `mps` counts of 100 per GPU (a request is a percentage of one GPU). Node
//! names are placeholders.

use super::yaml::{quoted, write_comment};
use super::{gpu_list, ExportOptions, PlacedAsk, Plan};
use crate::catalog::{GpuModel, MigProfile};
use crate::error::{Error, ErrorKind, Result};
use crate::plan::Mechanism;
use crate::units::{gcd, Share};
use std::fmt;

/// The most shards per GPU written; finer fractions round their shard counts up.
pub const MAX_SHARDS_PER_GPU: u64 = 1000;

/// A Slurm release, `major.minor.micro` (`23.02.6`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlurmVersion(pub u32, pub u32, pub u32);

/// The first slurmd that takes a MIG device's type from its NVML name: SchedMD/slurm's
/// CHANGELOG for 23.02.6, "Fix some mig profile names in slurm not matching nvidia mig profiles"
/// (commit 04f0e4c3d7, bug 17705), docs/hardware-facts.md §5.
pub const NVML_MIG_NAMES_SINCE: SlurmVersion = SlurmVersion(23, 2, 6);

impl SlurmVersion {
    /// `23.02.6`, `23.02` (its first release, `.0`) or `24.11.1`.
    ///
    /// # Errors
    /// `Syntax` for anything else.
    pub fn parse(text: &str) -> Result<SlurmVersion> {
        let parts: Vec<&str> = text.trim().split('.').collect();
        let number = |s: &str| {
            (!s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u32>().ok())
                .flatten()
        };
        let numbers: Option<Vec<u32>> = parts.iter().map(|p| number(p)).collect();
        match numbers.as_deref() {
            Some(&[major, minor]) => Ok(SlurmVersion(major, minor, 0)),
            Some(&[major, minor, micro]) => Ok(SlurmVersion(major, minor, micro)),
            _ => Err(Error::new(
                ErrorKind::Syntax,
                format!("{text:?} is not a Slurm version such as 23.02.6 or 24.11"),
            )),
        }
    }

    /// How this slurmd names a MIG device.
    pub fn naming(self) -> MigNaming {
        if self >= NVML_MIG_NAMES_SINCE {
            MigNaming::NvmlName
        } else {
            MigNaming::RoundedMemory
        }
    }
}

impl fmt::Display for SlurmVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}.{}", self.0, self.1, self.2)
    }
}

/// How slurmd's NVML detection (`AutoDetect=nvml`) names a MIG device, after the parent board's
/// prefix ([`mig_type_prefix`]), docs/hardware-facts.md §5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MigNaming {
    /// slurmd 23.02.6 and later (`gpu_nvml.c`, the `strstr(device_name, "mig_")` branch): the MIG
    /// device's NVML name from `mig_` on, keeping the `_`, so `_3g.71gb`, `_1g.10gb+me`.
    NvmlName,
    /// slurmd before 23.02.6: `_<GPU-instance slices>g.<memory MiB / 1024, rounded half away from
    /// zero>gb`, so the name follows the instance's real memory (`_3g.70gb` for 71424 MiB).
    RoundedMemory,
}

/// A MIG profile's GRES type as slurmd's NVML detection names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigType {
    /// The detected type, e.g. `nvidia_h200_1g.18gb`.
    pub name: String,
    /// Rounded-memory naming: the real memory it rounds, in MiB (the smallest listed), when a real
    /// listing shows it; `None` means the GB figure was taken from the profile's name, uncertain.
    pub real_mib: Option<u64>,
    /// Rounded-memory naming: the names other listed drivers' memory rounds to, with the listing.
    pub other_drivers: Vec<(String, String)>,
}

/// The part of a board's NVML name that Slurm keeps for a MIG type: lower-cased, spaces as `_`,
/// cut at the first `-` (`NVIDIA A100-SXM4-40GB` → `nvidia_a100`), docs/hardware-facts.md §5.
pub fn mig_type_prefix(nvml_name: &str) -> String {
    let name = nvml_name.trim().to_ascii_lowercase().replace(' ', "_");
    match name.split_once('-') {
        Some((head, _)) => head.to_string(),
        None => name,
    }
}

/// The GB figure in a profile's name (`3g.20gb` → 20).
fn name_gb(profile: &MigProfile) -> Option<u64> {
    let base = profile.name.split(['+', '-']).next()?;
    base.split_once('.')?.1.strip_suffix("gb")?.parse().ok()
}

/// `roundl(MiB / 1024)`: half away from zero, as `(mib + 512) / 1024` for whole MiB.
fn rounded_gb(mib: u64) -> u64 {
    (mib + 512) / 1024
}

/// The GRES type slurmd's NVML detection gives an instance of `profile` on a board of `model`
/// named as its first nvidia-smi name: the prefix of [`mig_type_prefix`], then, as `naming`
/// says, the MIG device's NVML name (the profile's name as nvidia-smi shows it, attributes kept)
/// or the slice count and the rounded real memory (an A100 80GB 3g.40gb: `nvidia_a100_3g.39gb`).
pub fn mig_type(model: &GpuModel, profile: &MigProfile, naming: MigNaming) -> MigType {
    let board = model.smi_names.first().copied().unwrap_or(model.name);
    let prefix = mig_type_prefix(board);
    if naming == MigNaming::NvmlName {
        return MigType {
            name: format!("{prefix}_{}", profile.name.to_ascii_lowercase()),
            real_mib: None,
            other_drivers: Vec::new(),
        };
    }
    let rounded = |gb: u64| format!("{prefix}_{}g.{gb}gb", profile.compute_slices);
    let listed = model.instance_listings(profile.memory_slices);
    let real_mib = listed.first().map(|l| l.mib);
    let gb = real_mib
        .map(rounded_gb)
        .or_else(|| name_gb(profile))
        .unwrap_or_default();
    let name = rounded(gb);
    let mut other_drivers: Vec<(String, String)> = Vec::new();
    for l in &listed {
        let other = rounded(rounded_gb(l.mib));
        if other != name && !other_drivers.iter().any(|(n, _)| *n == other) {
            other_drivers.push((other, l.listing.cite()));
        }
    }
    MigType {
        name,
        real_mib,
        other_drivers,
    }
}

/// The naming of the slurmd `options` target: NVML names unless an older version is given.
fn naming_of(options: &ExportOptions) -> (MigNaming, Option<SlurmVersion>) {
    let version = options
        .slurm_version
        .as_deref()
        .and_then(|v| SlurmVersion::parse(v).ok());
    (
        version.map_or(MigNaming::NvmlName, SlurmVersion::naming),
        version,
    )
}

/// Each detected MIG type of the plan with its count, largest first; under rounded-memory naming
/// profiles Slurm cannot tell apart (`1g.10gb` and `1g.10gb+me`) share one type.
fn mig_type_totals(plan: &Plan, model: &GpuModel, naming: MigNaming) -> Vec<(MigType, u64)> {
    let mut totals: Vec<(MigType, u8, u64)> = Vec::new();
    for g in &plan.mig_gpus {
        for p in &g.validation.placements {
            let Some(profile) = model.profile(&p.profile) else {
                continue;
            };
            let t = mig_type(model, profile, naming);
            match totals.iter_mut().find(|(n, _, _)| n.name == t.name) {
                Some(e) => e.2 += 1,
                None => totals.push((t, profile.memory_slices, 1)),
            }
        }
    }
    crate::sort::sort_by(&mut totals, |a, b| {
        b.1.cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name))
    });
    totals.into_iter().map(|(t, _, n)| (t, n)).collect()
}

/// The MIG instances per GPU of the plan, `GPU 0: 3g.71gb ×1, 1g.18gb ×1`, and the distinct
/// profiles, largest first.
fn instances_per_gpu(plan: &Plan, model: &GpuModel) -> (Vec<String>, Vec<&'static MigProfile>) {
    let mut per_gpu = Vec::new();
    let mut profiles: Vec<&'static MigProfile> = Vec::new();
    for g in &plan.mig_gpus {
        let mut here: Vec<(&str, u64)> = Vec::new();
        for p in &g.validation.placements {
            match here.iter_mut().find(|(n, _)| *n == p.profile) {
                Some(e) => e.1 += 1,
                None => here.push((&p.profile, 1)),
            }
            if let Some(profile) = model.profile(&p.profile) {
                if !profiles.iter().any(|q| q.name == profile.name) {
                    profiles.push(profile);
                }
            }
        }
        let parts: Vec<String> = here.iter().map(|(p, n)| format!("{p} ×{n}")).collect();
        per_gpu.push(format!("GPU {}: {}", g.index, parts.join(", ")));
    }
    crate::sort::sort_by(&mut profiles, |a, b| {
        b.memory_slices
            .cmp(&a.memory_slices)
            .then_with(|| a.name.cmp(b.name))
    });
    (per_gpu, profiles)
}

/// How the types are named, for the comment above the MIG `Gres=` line.
fn naming_text(board: &str, naming: MigNaming, version: Option<SlurmVersion>) -> String {
    let target = match version {
        Some(v) => format!("slurmd {v}"),
        None => format!(
            "slurmd {NVML_MIG_NAMES_SINCE} or later (give --slurm-version for an older one)"
        ),
    };
    let rule = match naming {
        MigNaming::NvmlName => format!(
            "the board's name ({board}) lower-cased with spaces as _ and cut at its first '-', then _ and the MIG device's name as NVML gives it (the profile, attributes such as +me kept): SchedMD/slurm gpu_nvml.c since 23.02.6 (its CHANGELOG: \"Fix some mig profile names in slurm not matching nvidia mig profiles\"); real clusters request e.g. gpu:nvidia_h200_2g.35gb"
        ),
        MigNaming::RoundedMemory => format!(
            "the board's name ({board}) lower-cased with spaces as _ and cut at its first '-', then _<GPU-instance slices>g.<instance memory in MiB / 1024, rounded>gb, as slurmd before 23.02.6 names them (SchedMD/slurm gpu_nvml.c). The rounded memory changes with the driver (an A100 80GB 3g.40gb was found as 3g.39gb with driver 535 and 3g.40gb with 495, NVIDIA/mig-parted#31)"
        ),
    };
    format!(
        "Types for {target}: the names slurmd's NVML detection gives MIG devices: {rule}. A configured Type must be a substring of the detected name, or the node drains (SchedMD gres.html); Slurm matches the longest types first (gres_gpu.c). slurmd -G, or its debug2 log line \"MIG Profile\", shows the names a node really has."
    )
}

/// The comment above the MIG `Gres=` line: the instances per GPU, the naming rule and the slurmd
/// it targets, and where the detected names differ from the profiles' (docs/hardware-facts.md §5).
fn mig_text(plan: &Plan, model: &GpuModel, mig: &[u64], options: &ExportOptions) -> String {
    let (naming, version) = naming_of(options);
    let (per_gpu, profiles) = instances_per_gpu(plan, model);
    let board = model.smi_names.first().copied().unwrap_or(model.name);
    let mut text = format!(
        "MIG {} ({}): {}.\n{}",
        gpu_list(mig),
        model.name,
        per_gpu.join("; "),
        naming_text(board, naming, version)
    );
    for p in &profiles {
        if naming == MigNaming::RoundedMemory {
            text.push_str(&rounded_note(model, p));
        }
    }
    let others: Vec<String> = model
        .smi_names
        .iter()
        .skip(1)
        .map(|n| mig_type_prefix(n))
        .filter(|p| *p != mig_type_prefix(board))
        .collect();
    if !others.is_empty() {
        text.push_str(&format!(
            "\nOther boards of this model have other names: on nodes with them, types start with {} instead.",
            others.join(" or ")
        ));
    }
    text
}

/// Under rounded-memory naming, what one profile is detected as and why.
fn rounded_note(model: &GpuModel, p: &MigProfile) -> String {
    let t = mig_type(model, p, MigNaming::RoundedMemory);
    let gb = name_gb(p).unwrap_or_default();
    let mut text = match t.real_mib {
        Some(mib) if rounded_gb(mib) != gb => format!(
            "\n{} is detected as {}, not …{gb}gb: its {mib} MiB (the smallest real listing) round to {} GiB.",
            p.name,
            t.name,
            rounded_gb(mib)
        ),
        Some(_) => String::new(),
        None => format!(
            "\n(unverified) {}: its real memory was not seen in nvidia-smi output, so {} takes the {gb} GB of the profile's name; detection may round the real memory to less.",
            p.name, t.name
        ),
    };
    for (other, cite) in &t.other_drivers {
        text.push_str(&format!(
            "\nWith the driver of {cite}, {} is detected as {other} instead.",
            p.name
        ));
    }
    if !p.is_plain() {
        text.push_str(&format!(
            "\n{} is detected as {}: the name carries no attribute, so Slurm cannot tell it from the plain profile of the same size.",
            p.name, t.name
        ));
    }
    text
}

/// Shards per GPU: the least common multiple of the fractions' denominators, so that every
/// fraction is a whole number of shards, unless that exceeds [`MAX_SHARDS_PER_GPU`] (then 100).
fn shards_per_gpu(fractions: &[Share]) -> (u64, bool) {
    let one = Share::ONE.units();
    let mut lcm = 1u64;
    for f in fractions {
        let den = one / gcd(f.units(), one).max(1);
        lcm = lcm / gcd(lcm, den) * den;
        if lcm > MAX_SHARDS_PER_GPU {
            return (100, false);
        }
    }
    (lcm.max(2), true)
}

fn shards(fraction: Share, per_gpu: u64) -> u64 {
    let one = u128::from(Share::ONE.units());
    (u128::from(fraction.units()) * u128::from(per_gpu)).div_ceil(one) as u64
}

pub(crate) fn slurm(plan: &Plan, options: &ExportOptions) -> String {
    let mut out = plan.header("slurm");
    write_comment(
        &mut out,
        0,
        "Slurm GRES for the plan (SchedMD gres.html). <…> are placeholders for your node names; GPU numbers are the plan's. Each kind of GPU is written as if it had nodes of its own: split the counts per node.",
    );
    let gpus = GpusByKind::of(plan);
    write_gres_conf(&mut out, &gpus);
    write_slurm_conf(&mut out, plan, options, &gpus);
    write_ask_options(&mut out, plan, options, gpus.per_gpu);
    out
}

/// The plan's GPUs by mechanism, each kind written as nodes of its own, and the shards per
/// time-sliced GPU.
struct GpusByKind {
    mig: Vec<u64>,
    whole: Vec<u64>,
    shared: Vec<u64>,
    mps: Vec<u64>,
    /// Shards per time-sliced GPU, and whether every fraction is a whole number of them.
    per_gpu: u64,
    exact: bool,
}

impl GpusByKind {
    fn of(plan: &Plan) -> GpusByKind {
        let fractions: Vec<Share> = plan
            .placed
            .iter()
            .filter(|a| a.choice.mechanism == Mechanism::Timeslice)
            .map(|a| a.choice.allocated_fraction)
            .collect();
        let (per_gpu, exact) = shards_per_gpu(&fractions);
        GpusByKind {
            mig: plan.gpus_of(Mechanism::Mig),
            whole: plan.gpus_of(Mechanism::Whole),
            shared: plan.gpus_of(Mechanism::Timeslice),
            mps: plan.gpus_of(Mechanism::Mps),
            per_gpu,
            exact,
        }
    }
}

/// `gres.conf`: NVML detection, and the shard and MPS counts (which detection does not give).
fn write_gres_conf(out: &mut String, gpus: &GpusByKind) {
    let GpusByKind {
        mig,
        shared,
        mps,
        per_gpu,
        ..
    } = gpus;
    out.push_str("#\n# ==== gres.conf ====\n");
    if !mig.is_empty() {
        write_comment(out, 0, "MIG (Slurm 21.08+): NVML detection finds the MIG instances as GPUs; Slurm does not create them, so create them first (the mig-parted or mig-commands export). AutoDetect=nvidia (24.11) does not detect MIG.");
    }
    out.push_str("AutoDetect=nvml\n");
    if !shared.is_empty() {
        write_comment(out, 0, &format!("time-sliced {}: {per_gpu} shards each, split evenly over the node's GPUs unless each File= gets its own Count (SchedMD gres.html).", gpu_list(shared)));
        out.push_str(&format!(
            "NodeName=<time-sliced-nodes> Name=shard Count={}\n",
            per_gpu * shared.len() as u64
        ));
    }
    if !mps.is_empty() {
        write_comment(
            out,
            0,
            &format!(
                "MPS {}: 100 per GPU, so a request is a percentage of one GPU.",
                gpu_list(mps)
            ),
        );
        out.push_str(&format!(
            "NodeName=<mps-nodes> Name=mps Count={}\n",
            100 * mps.len() as u64
        ));
    }
}

/// `slurm.conf`: `GresTypes=` and one `Gres=` line per kind of GPU.
fn write_slurm_conf(out: &mut String, plan: &Plan, options: &ExportOptions, gpus: &GpusByKind) {
    let GpusByKind {
        mig,
        whole,
        shared,
        mps,
        ..
    } = gpus;
    out.push_str("#\n# ==== slurm.conf ====\n");
    let mut types = vec!["gpu"];
    if !shared.is_empty() {
        types.push("shard");
    }
    if !mps.is_empty() {
        types.push("mps");
    }
    out.push_str(&format!("GresTypes={}\n", types.join(",")));
    if let (false, Some(model)) = (mig.is_empty(), plan.model) {
        write_comment(out, 0, &mig_text(plan, model, mig, options));
        let gres: Vec<String> = mig_type_totals(plan, model, naming_of(options).0)
            .iter()
            .map(|(t, n)| format!("gpu:{}:{n}", t.name))
            .collect();
        out.push_str(&format!("NodeName=<mig-nodes> Gres={}\n", gres.join(",")));
    }
    if !whole.is_empty() {
        write_comment(out, 0, &format!("whole {}. An untyped --gres=gpu:N may also be given MIG instances on MIG nodes: keep whole-GPU jobs on these nodes (a partition).", gpu_list(whole)));
        out.push_str(&format!(
            "NodeName=<whole-gpu-nodes> Gres=gpu:{}\n",
            whole.len()
        ));
    }
    if !shared.is_empty() {
        write_shard_nodes(out, gpus);
    }
    if !mps.is_empty() {
        write_comment(out, 0, &format!("MPS {}: mps 100 per GPU. A job gets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = its request × 100 / the GPU's count, and its share comes from one GPU per node; gpu and mps cannot be mixed in one job; MPS has no error isolation between clients (NVIDIA MPS docs, SchedMD gres.html).", gpu_list(mps)));
        out.push_str(&format!(
            "NodeName=<mps-nodes> Gres=gpu:{},mps:{}\n",
            mps.len(),
            100 * mps.len() as u64
        ));
    }
}

/// The time-sliced GPUs' `Gres=` line, saying how the shard count was chosen.
fn write_shard_nodes(out: &mut String, gpus: &GpusByKind) {
    let GpusByKind {
        shared,
        per_gpu,
        exact,
        ..
    } = gpus;
    let how = if *exact {
        format!("{per_gpu} shards per GPU, the least common multiple of the fractions' denominators, so every fraction is a whole number of shards")
    } else {
        format!("{per_gpu} shards per GPU; the fractions are finer, so shard counts round up and fewer asks may share a GPU than the plan has")
    };
    write_comment(out, 0, &format!("time-sliced {}: {how}. Shards do not fence processes: a planning share, enforced by nothing; a GPU is allocated as gpu or as shards, not both (SchedMD gres.html).", gpu_list(shared)));
    out.push_str(&format!(
        "NodeName=<time-sliced-nodes> Gres=gpu:{},shard:{}\n",
        shared.len(),
        per_gpu * shared.len() as u64
    ));
}

/// Each placed ask's `--gres=` option, as a comment line.
fn write_ask_options(out: &mut String, plan: &Plan, options: &ExportOptions, per_gpu: u64) {
    out.push_str("#\n# ==== per ask: sbatch / srun option ====\n");
    if plan.placed.is_empty() {
        out.push_str("# (no placed asks)\n");
    }
    for a in &plan.placed {
        let option = gres_option(a, plan, options, per_gpu);
        write_comment(out, 0, &format!("{}: {option}", quoted(a.name)));
    }
}

/// The `--gres=` option an ask's job gives: its MIG type, GPU count, shards or MPS percentage.
fn gres_option(a: &PlacedAsk, plan: &Plan, options: &ExportOptions, per_gpu: u64) -> String {
    let c = a.choice;
    match c.mechanism {
        Mechanism::Mig => {
            let profile = a
                .instance
                .map(|i| i.profile)
                .or(c.mig_profile.as_deref())
                .unwrap_or_default();
            let naming = naming_of(options).0;
            match plan
                .model
                .and_then(|m| Some(mig_type(m, m.profile(profile)?, naming)))
            {
                Some(t) => format!("--gres=gpu:{}:1", t.name),
                None => format!("--gres=gpu:{profile}:1"),
            }
        }
        Mechanism::Whole => format!("--gres=gpu:{}", c.gpus),
        Mechanism::Timeslice => {
            format!("--gres=shard:{}", shards(c.allocated_fraction, per_gpu))
        }
        Mechanism::Mps => {
            let percent = c.mps.map_or_else(
                || shards(c.allocated_fraction, 100),
                |l| u64::from(l.active_thread_percentage),
            );
            format!("--gres=mps:{percent}")
        }
    }
}

#[cfg(test)]
mod tests;
