//! Slurm GRES for the plan: `gres.conf`, `slurm.conf` `GresTypes=`/`Gres=` lines, and each ask's `--gres=` option (docs/hardware-facts.md §5).
//!
//! MIG instances are GPUs of the type slurmd's NVML detection gives them
//! (`gpu:nvidia_a100_3g.20gb:N`, see [`mig_type`]); time-sliced GPUs are shards; MPS GPUs are
//! `mps` counts of 100 per GPU (a request is a percentage of one GPU). Node names are placeholders.

use super::yaml::{quoted, write_comment};
use super::{gpu_list, Plan};
use crate::catalog::{GpuModel, MigProfile};
use crate::plan::Mechanism;
use crate::units::{gcd, Share};

/// The most shards per GPU written; finer fractions round their shard counts up.
pub const MAX_SHARDS_PER_GPU: u64 = 1000;

/// A MIG profile's GRES type as slurmd's NVML detection names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigType {
    /// The detected type, e.g. `nvidia_a100_3g.20gb`.
    pub name: String,
    /// The real memory of such an instance in MiB, when real output shows it; `None` means the GB
    /// figure was taken from the profile's name and is uncertain.
    pub real_mib: Option<u64>,
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

/// The GRES type slurmd's NVML detection (`AutoDetect=nvml`) gives an instance of `profile` on a
/// board of `model` named as its first nvidia-smi name: the prefix of [`mig_type_prefix`], then
/// `_<GPU-instance slices>g.<memory MiB / 1024, rounded>gb` (docs/hardware-facts.md §5). The
/// memory is the real one where real output shows it, which can differ from the profile's name
/// (an A100 80GB 3g.40gb is `nvidia_a100_3g.39gb`); attributes such as `+me` are not part of it.
pub fn mig_type(model: &GpuModel, profile: &MigProfile) -> MigType {
    let board = model.smi_names.first().copied().unwrap_or(model.name);
    let real_mib = model.real_instance_mib(profile.memory_slices);
    // roundl(MiB / 1024): half away from zero, as `(mib + 512) / 1024` for whole MiB.
    let gb = real_mib
        .map(|mib| (mib + 512) / 1024)
        .or_else(|| name_gb(profile))
        .unwrap_or_default();
    MigType {
        name: format!(
            "{}_{}g.{gb}gb",
            mig_type_prefix(board),
            profile.compute_slices
        ),
        real_mib,
    }
}

/// Each detected MIG type of the plan with its count, largest first; profiles Slurm cannot tell
/// apart (`1g.10gb` and `1g.10gb+me`) share one type.
fn mig_type_totals(plan: &Plan, model: &GpuModel) -> Vec<(MigType, u64)> {
    let mut totals: Vec<(MigType, u8, u64)> = Vec::new();
    for g in &plan.mig_gpus {
        for p in &g.validation.placements {
            let Some(profile) = model.profile(&p.profile) else {
                continue;
            };
            let t = mig_type(model, profile);
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

/// The comment above the MIG `Gres=` line: the instances per GPU, the naming rule, and where the
/// detected names differ from the profiles' (docs/hardware-facts.md §5).
fn mig_text(plan: &Plan, model: &GpuModel, mig: &[u64]) -> String {
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
    let board = model.smi_names.first().copied().unwrap_or(model.name);
    let mut text = format!(
        "MIG {} ({}): {}.
Types are the names slurmd's NVML detection gives MIG devices: the board's name ({board}) lower-cased with spaces as _ and cut at its first '-', then _<GPU-instance slices>g.<instance memory in MiB / 1024, rounded>gb (SchedMD/slurm gpu_nvml.c). A configured Type must be a substring of the detected name, or the node drains (SchedMD gres.html); slurmd -G, or its debug2 log line \"MIG Profile\", shows the names a node really has. The rounded memory can change with the driver (an A100 80GB 3g.40gb was found as 3g.39gb with driver 535 and 3g.40gb with 495, NVIDIA/mig-parted#31).",
        gpu_list(mig),
        model.name,
        per_gpu.join("; ")
    );
    for p in &profiles {
        let t = mig_type(model, p);
        let gb = name_gb(p).unwrap_or_default();
        match t.real_mib {
            Some(mib) if (mib + 512) / 1024 != gb => text.push_str(&format!(
                "
{} is detected as {}, not …{gb}gb: its {mib} MiB round to {} GiB (real nvidia-smi output).",
                p.name,
                t.name,
                (mib + 512) / 1024
            )),
            Some(_) => {}
            None => text.push_str(&format!(
                "
(unverified) {}: its real memory was not seen in nvidia-smi output, so {} takes the {gb} GB of the profile's name; detection may round the real memory to less.",
                p.name, t.name
            )),
        }
        if !p.is_plain() {
            text.push_str(&format!(
                "
{} is detected as {}: the name carries no attribute, so Slurm cannot tell it from the plain profile of the same size.",
                p.name, t.name
            ));
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
            "
Other boards of this model have other names: on nodes with them, types start with {} instead.",
            others.join(" or ")
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

pub(crate) fn slurm(plan: &Plan) -> String {
    let mut out = plan.header("slurm");
    write_comment(
        &mut out,
        0,
        "Slurm GRES for the plan (SchedMD gres.html). <…> are placeholders for your node names; GPU numbers are the plan's. Each kind of GPU is written as if it had nodes of its own: split the counts per node.",
    );
    let mig = plan.gpus_of(Mechanism::Mig);
    let whole = plan.gpus_of(Mechanism::Whole);
    let shared = plan.gpus_of(Mechanism::Timeslice);
    let mps = plan.gpus_of(Mechanism::Mps);
    let fractions: Vec<Share> = plan
        .placed
        .iter()
        .filter(|a| a.choice.mechanism == Mechanism::Timeslice)
        .map(|a| a.choice.allocated_fraction)
        .collect();
    let (per_gpu, exact) = shards_per_gpu(&fractions);

    out.push_str("#\n# ==== gres.conf ====\n");
    if !mig.is_empty() {
        write_comment(&mut out, 0, "MIG (Slurm 21.08+): NVML detection finds the MIG instances as GPUs; Slurm does not create them, so create them first (the mig-parted or mig-commands export). AutoDetect=nvidia (24.11) does not detect MIG.");
    }
    out.push_str("AutoDetect=nvml\n");
    if !shared.is_empty() {
        write_comment(&mut out, 0, &format!("time-sliced {}: {per_gpu} shards each, split evenly over the node's GPUs unless each File= gets its own Count (SchedMD gres.html).", gpu_list(&shared)));
        out.push_str(&format!(
            "NodeName=<time-sliced-nodes> Name=shard Count={}\n",
            per_gpu * shared.len() as u64
        ));
    }
    if !mps.is_empty() {
        write_comment(
            &mut out,
            0,
            &format!(
                "MPS {}: 100 per GPU, so a request is a percentage of one GPU.",
                gpu_list(&mps)
            ),
        );
        out.push_str(&format!(
            "NodeName=<mps-nodes> Name=mps Count={}\n",
            100 * mps.len() as u64
        ));
    }

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
        write_comment(&mut out, 0, &mig_text(plan, model, &mig));
        let gres: Vec<String> = mig_type_totals(plan, model)
            .iter()
            .map(|(t, n)| format!("gpu:{}:{n}", t.name))
            .collect();
        out.push_str(&format!("NodeName=<mig-nodes> Gres={}\n", gres.join(",")));
    }
    if !whole.is_empty() {
        write_comment(&mut out, 0, &format!("whole {}. An untyped --gres=gpu:N may also be given MIG instances on MIG nodes: keep whole-GPU jobs on these nodes (a partition).", gpu_list(&whole)));
        out.push_str(&format!(
            "NodeName=<whole-gpu-nodes> Gres=gpu:{}\n",
            whole.len()
        ));
    }
    if !shared.is_empty() {
        let how = if exact {
            format!("{per_gpu} shards per GPU, the least common multiple of the fractions' denominators, so every fraction is a whole number of shards")
        } else {
            format!("{per_gpu} shards per GPU; the fractions are finer, so shard counts round up and fewer asks may share a GPU than the plan has")
        };
        write_comment(&mut out, 0, &format!("time-sliced {}: {how}. Shards do not fence processes: a planning share, enforced by nothing; a GPU is allocated as gpu or as shards, not both (SchedMD gres.html).", gpu_list(&shared)));
        out.push_str(&format!(
            "NodeName=<time-sliced-nodes> Gres=gpu:{},shard:{}\n",
            shared.len(),
            per_gpu * shared.len() as u64
        ));
    }
    if !mps.is_empty() {
        write_comment(&mut out, 0, &format!("MPS {}: mps 100 per GPU. A job gets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = its request × 100 / the GPU's count, and its share comes from one GPU per node; gpu and mps cannot be mixed in one job; MPS has no error isolation between clients (NVIDIA MPS docs, SchedMD gres.html).", gpu_list(&mps)));
        out.push_str(&format!(
            "NodeName=<mps-nodes> Gres=gpu:{},mps:{}\n",
            mps.len(),
            100 * mps.len() as u64
        ));
    }

    out.push_str("#\n# ==== per ask: sbatch / srun option ====\n");
    if plan.placed.is_empty() {
        out.push_str("# (no placed asks)\n");
    }
    for a in &plan.placed {
        let c = a.choice;
        let option = match c.mechanism {
            Mechanism::Mig => {
                let profile = a
                    .instance
                    .map(|i| i.profile)
                    .or(c.mig_profile.as_deref())
                    .unwrap_or_default();
                match plan
                    .model
                    .and_then(|m| Some(mig_type(m, m.profile(profile)?)))
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
        };
        write_comment(&mut out, 0, &format!("{}: {option}", quoted(a.name)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::FractionalAsk;
    use crate::caps::ClusterGpuCaps;
    use crate::catalog::models;
    use crate::export::{export, ExportFormat, ExportOptions};
    use crate::pack::bin_pack;

    /// slurmd's NVML autodetection, transliterated from SchedMD/slurm
    /// `src/plugins/gpu/nvml/gpu_nvml.c` (and `gpu_common_underscorify_tolower` in
    /// `src/plugins/gpu/common/gpu_common.c`), independently of the code under test:
    ///
    /// `_nvml_get_device_name`: `nvmlDeviceGetName(...); gpu_common_underscorify_tolower(device_name);`
    /// where that function does `str[i] = tolower(str[i]); if (str[i] == ' ') str[i] = '_';`.
    ///
    /// `_get_system_gpu_list_nvml`, MIG mode: `char *tok = xstrchr(tmp_device_name, '-'); if (tok)
    /// { /* Here we are clearing everything after the first '-' ... */ tok[0] = '\0'; }` and the
    /// result seeds `nvml_mig.profile_name`.
    ///
    /// `_handle_mig`: `/* Divide MB by 1024 (2^10) to get GB, and then round */
    /// xstrfmtcat(nvml_mig->profile_name, "_%ug.%lugb", attributes.gpuInstanceSliceCount,
    /// (unsigned long)roundl((long double)attributes.memorySizeMB / (long double)1024));`
    fn slurmd_mig_profile(device_name: &str, slice_count: u8, memory_size_mb: u64) -> String {
        let mut name: String = device_name
            .chars()
            .map(|c| match c.to_ascii_lowercase() {
                ' ' => '_',
                c => c,
            })
            .collect();
        if let Some(i) = name.find('-') {
            name.truncate(i);
        }
        let gb = (memory_size_mb as f64 / 1024.0).round();
        format!("{name}_{slice_count}g.{gb}gb")
    }

    fn plan_text(model: &str, specs: &[String]) -> String {
        let asks: Vec<FractionalAsk> = specs
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect();
        let caps = ClusterGpuCaps {
            supports_mig: true,
            gpu_model: Some(model.into()),
            ..Default::default()
        };
        let r = bin_pack(&asks, &caps).unwrap();
        export(&r, ExportFormat::Slurm, &ExportOptions::default()).unwrap()
    }

    /// Real names Slurm detected, each from a public source:
    /// SchedMD gres.html ("Here is an example slurm.conf for a system with 2 gpus, one of which is
    /// partitioned into 2 MIGs where the \"MIG Profile\" is nvidia_a100_3g.20gb");
    /// stackhpc/ansible-slurm-appliance docs (an H100 80GB HBM3 node: nvidia_h100_80gb_hbm3_1g.10gb);
    /// NVIDIA/mig-parted#31 (A100-SXM4-80GB, AutoDetect=nvml, driver 535: "3g.39gb").
    #[test]
    fn mig_types_are_the_names_slurmd_detects() {
        let a100 = crate::catalog::find_model("A100-SXM4-40GB").unwrap();
        let t = mig_type(a100, a100.profile("3g.20gb").unwrap());
        assert_eq!(t.name, "nvidia_a100_3g.20gb");
        let h100 = crate::catalog::find_model("H100-80GB-HBM3").unwrap();
        assert_eq!(
            mig_type(h100, h100.profile("1g.10gb").unwrap()).name,
            "nvidia_h100_80gb_hbm3_1g.10gb"
        );
        let a100_80 = crate::catalog::find_model("A100-SXM4-80GB").unwrap();
        assert_eq!(
            mig_type(a100_80, a100_80.profile("3g.40gb").unwrap()).name,
            "nvidia_a100_3g.39gb"
        );
        // Attributes are not part of the detected name.
        assert_eq!(
            mig_type(a100_80, a100_80.profile("1g.10gb+me").unwrap()).name,
            "nvidia_a100_1g.10gb"
        );
        let text = plan_text("a100", &["x:3g.20gb".into(), "y:2g.10gb".into()]);
        assert!(
            text.contains(
                "NodeName=<mig-nodes> Gres=gpu:nvidia_a100_3g.20gb:1,gpu:nvidia_a100_2g.10gb:1\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("# \"x\": --gres=gpu:nvidia_a100_3g.20gb:1\n"),
            "{text}"
        );
    }

    /// Every profile of every MIG-capable model: the Type written is the name slurmd detects for
    /// it (so it is a substring of it, SchedMD gres.html: "This type must be a substring of the
    /// \"MIG Profile\" string as reported by the node in its slurmd log"), taking the real memory
    /// where real output shows it; and the export writes those types and no other.
    #[test]
    fn every_catalogued_mig_profile_gets_its_detected_type() {
        for model in models().iter().filter(|m| m.is_mig_capable()) {
            let board = model.smi_names[0];
            let mut specs = Vec::new();
            for (i, p) in model.profiles.iter().enumerate() {
                let t = mig_type(model, p);
                let mib = t.real_mib.unwrap_or_else(|| name_gb(p).unwrap() * 1024);
                let detected = slurmd_mig_profile(board, p.compute_slices, mib);
                assert_eq!(t.name, detected, "{} {}", model.name, p.name);
                assert!(!t.name.contains(['+', '-', ' ']), "{}", t.name);
                specs.push(format!("a{i}:{}", p.name));
            }
            let text = plan_text(model.name, &specs);
            let gres = text
                .lines()
                .find_map(|l| l.strip_prefix("NodeName=<mig-nodes> Gres="))
                .unwrap_or_else(|| panic!("{text}"));
            for entry in gres.split(',') {
                let ty = entry
                    .strip_prefix("gpu:")
                    .unwrap()
                    .rsplit_once(':')
                    .unwrap()
                    .0;
                assert!(
                    model.profiles.iter().any(|p| mig_type(model, p).name == ty),
                    "{}: {ty} is detected for no profile\n{text}",
                    model.name
                );
            }
            for line in text.lines().filter(|l| l.contains("--gres=gpu:")) {
                let ty = line
                    .split("--gres=gpu:")
                    .nth(1)
                    .unwrap()
                    .trim_end_matches(":1");
                assert!(gres.contains(&format!("gpu:{ty}:")), "{line}\n{text}");
            }
        }
    }

    /// Where the real memory rounds to another GB than the profile's name, the output says so.
    #[test]
    fn a_detected_name_that_differs_from_the_profile_is_explained() {
        let text = plan_text("h200", &["x:1g.18gb".into(), "y:3g.71gb".into()]);
        assert!(
            text.contains("gpu:nvidia_h200_3g.70gb:1,gpu:nvidia_h200_1g.16gb:1"),
            "{text}"
        );
        assert!(
            text.contains("1g.18gb is detected as nvidia_h200_1g.16gb"),
            "{text}"
        );
        let text = plan_text("b200", &["x:3g.90gb".into()]);
        assert!(
            text.contains("(unverified) 3g.90gb: its real memory was not seen"),
            "{text}"
        );
    }

    #[test]
    fn shards_make_fractions_exact() {
        let f = |s: &str| Share::parse(s).unwrap();
        assert_eq!(shards_per_gpu(&[f("0.5"), f("0.3"), f("0.4")]), (10, true));
        assert_eq!(shards_per_gpu(&[f("1/3"), f("0.25")]), (12, true));
        assert_eq!(shards_per_gpu(&[f("0.5")]), (2, true));
        assert_eq!(shards_per_gpu(&[f("0.00001")]), (100, false));
        assert_eq!(shards(f("0.3"), 10), 3);
        assert_eq!(shards(f("1/3"), 100), 34);
    }
}
