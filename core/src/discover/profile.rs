//! Naming a MIG device that nvidia-smi shows only by its memory (and multiprocessors), against the catalogue.

use crate::catalog::{GpuModel, MigProfile};

/// Multiprocessors per compute slice, from the SM column of real `nvidia-smi mig -lgip` output
/// (docs/hardware-facts.md §1.3: A100 1g = 14 SMs, 2g 28, 3g 42, 4g 56, 7g 98; H100 1g 16, 2g 32, 3g 60, 4g 64;
/// A30 14/28/56). They tell `3g` from `4g` (and `1g.2M` from `2g`) when the memory is the same.
const SMS_PER_COMPUTE_SLICE: &[(&str, u32)] = &[
    ("A100-SXM4-40GB", 14),
    ("A100-SXM4-80GB", 14),
    ("H100-80GB-HBM3", 16),
    ("H100-NVL", 16),
    ("GH200-96GB", 16),
    ("A30", 14),
];

/// How a device's profile was settled.
pub(super) enum Derived {
    /// Only one profile of the model has that many memory slices.
    Sure(&'static str),
    /// Several fit; the multiprocessor count (or, without one, the smallest) chose.
    Chosen {
        name: &'static str,
        others: Vec<&'static str>,
        by_sms: bool,
    },
}

/// The profile of a MIG device with `memory_mib` of framebuffer on a `gpu_memory_mib` GPU:
/// go-nvlib names a profile by its memory slices, `ceil(memory / total × slices)` (docs/hardware-facts.md §1.1),
/// so the catalogue profiles with that many memory slices are the candidates.
///
/// # Errors
/// Why no profile fits (the model has no MIG, no profile has that many slices, …).
pub(super) fn derive(
    model: &GpuModel,
    gpu_memory_mib: Option<u64>,
    memory_mib: u64,
    sms: Option<u32>,
) -> Result<Derived, String> {
    let Some(geometry) = model.mig else {
        return Err(format!("{} has no MIG", model.name));
    };
    let total = gpu_memory_mib
        .filter(|&t| t > 0)
        .unwrap_or(model.memory_mib)
        .max(1);
    let slices =
        (u128::from(memory_mib) * u128::from(geometry.memory_slices)).div_ceil(u128::from(total));
    let candidates: Vec<&'static MigProfile> = model
        .profiles
        .iter()
        .filter(|p| u128::from(p.memory_slices) == slices)
        .collect();
    let plain: Vec<&'static MigProfile> = candidates
        .iter()
        .copied()
        .filter(|p| p.is_plain())
        .collect();
    let pool = if plain.is_empty() { candidates } else { plain };
    match pool.as_slice() {
        [] => Err(format!(
            "no MIG profile of {} has {memory_mib} MiB ({slices} of {} memory slices)",
            model.name, geometry.memory_slices
        )),
        [only] => Ok(Derived::Sure(only.name)),
        several => {
            let per_slice = SMS_PER_COMPUTE_SLICE
                .iter()
                .find(|(m, _)| *m == model.name)
                .map(|&(_, k)| k);
            let by_sms = sms.zip(per_slice).map(|(s, k)| s / k);
            let smallest = several.iter().min_by_key(|p| p.compute_slices);
            let chosen = match by_sms {
                Some(g) => several
                    .iter()
                    .filter(|p| u32::from(p.compute_slices) <= g)
                    .max_by_key(|p| p.compute_slices)
                    .or(smallest),
                None => smallest,
            };
            let Some(chosen) = chosen else {
                return Err("no candidate profile".into());
            };
            Ok(Derived::Chosen {
                name: chosen.name,
                others: several
                    .iter()
                    .filter(|p| p.name != chosen.name)
                    .map(|p| p.name)
                    .collect(),
                by_sms: by_sms.is_some(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::find_model;

    fn name(d: Result<Derived, String>) -> &'static str {
        match d.unwrap() {
            Derived::Sure(n) => n,
            Derived::Chosen { name, .. } => name,
        }
    }

    #[test]
    fn names_h100_devices_from_the_real_table() {
        // Memory and SMs from the H100 MIG capture's "MIG devices" block (docs/hardware-facts.md §1.3).
        let h100 = find_model("H100-80GB-HBM3").unwrap();
        assert_eq!(name(derive(h100, Some(81559), 40448, Some(60))), "3g.40gb");
        assert_eq!(name(derive(h100, Some(81559), 40448, Some(64))), "4g.40gb");
        assert_eq!(name(derive(h100, Some(81559), 20096, Some(32))), "2g.20gb");
        assert_eq!(name(derive(h100, Some(81559), 20096, Some(26))), "1g.20gb");
        assert_eq!(name(derive(h100, Some(81559), 9984, Some(16))), "1g.10gb");
        // gpustack's XML example: 40448 MiB of an 81920 MiB board, 60 SMs.
        assert_eq!(name(derive(h100, Some(81920), 40448, Some(60))), "3g.40gb");
        assert!(matches!(
            derive(h100, None, 40448, None),
            Ok(Derived::Chosen { by_sms: false, .. })
        ));
        let t4 = find_model("t4").unwrap();
        assert!(derive(t4, None, 4000, None).is_err());
    }
}
