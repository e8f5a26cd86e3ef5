//! Slurm GRES for the plan: `gres.conf`, `slurm.conf` `GresTypes=`/`Gres=` lines, and each ask's `--gres=` option (docs/hardware-facts.md §5).
//!
//! MIG instances are GPUs of a type naming the profile (`gpu:<model>_<profile>:N`, detected by
//! `AutoDetect=nvml`); time-sliced GPUs are shards; MPS GPUs are `mps` counts of 100 per GPU
//! (a request is a percentage of one GPU). Node names are placeholders.

use super::yaml::{quoted, write_comment};
use super::{gpu_list, Plan};
use crate::catalog::GpuModel;
use crate::plan::Mechanism;
use crate::units::{gcd, Share};

/// The most shards per GPU written; finer fractions round their shard counts up.
pub const MAX_SHARDS_PER_GPU: u64 = 1000;

/// The GRES type of a MIG profile: the board's product name lower-cased with spaces as `_`, then
/// `_<profile>`, the form Slurm's NVML detection reports (`nvidia_h100_80gb_hbm3_1g.10gb`).
pub fn mig_type(model: &GpuModel, profile: &str) -> String {
    let product = model
        .smi_names
        .first()
        .copied()
        .unwrap_or(model.name)
        .trim()
        .to_ascii_lowercase()
        .replace(' ', "_");
    format!("{product}_{profile}")
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
        let mut totals: Vec<(String, u64)> = Vec::new();
        let mut per_gpu_lines = Vec::new();
        for g in &plan.mig_gpus {
            let mut here: Vec<(String, u64)> = Vec::new();
            for p in &g.validation.placements {
                for list in [&mut totals, &mut here] {
                    match list.iter_mut().find(|(n, _)| *n == p.profile) {
                        Some(e) => e.1 += 1,
                        None => list.push((p.profile.clone(), 1)),
                    }
                }
            }
            let parts: Vec<String> = here.iter().map(|(p, n)| format!("{p} ×{n}")).collect();
            per_gpu_lines.push(format!("GPU {}: {}", g.index, parts.join(", ")));
        }
        let size = |name: &str| model.profile(name).map_or(0, |p| p.memory_slices);
        totals.sort_by(|a, b| size(&b.0).cmp(&size(&a.0)).then_with(|| a.0.cmp(&b.0)));
        let mut text = format!(
            "MIG {} ({}): {}.",
            gpu_list(&mig),
            model.name,
            per_gpu_lines.join("; ")
        );
        if let Some((first, _)) = totals.first() {
            text.push_str(&format!("\nA Type must be a substring of the MIG profile string NVML reports; Slurm's detection has been seen reporting nvidia_h100_80gb_hbm3_1g.10gb (stackhpc/ansible-slurm-appliance docs). The form for this board ({}) is inferred from that [U]; the profile alone (e.g. {first}) is a substring too.", mig_type(model, first)));
        }
        write_comment(&mut out, 0, &text);
        let gres: Vec<String> = totals
            .iter()
            .map(|(p, n)| format!("gpu:{}:{n}", mig_type(model, p)))
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
                    .map(|i| i.profile.as_str())
                    .or(c.mig_profile.as_deref())
                    .unwrap_or_default();
                match plan.model {
                    Some(m) => format!("--gres=gpu:{}:1", mig_type(m, profile)),
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
