//! Naming a MIG device that nvidia-smi shows only by its memory (and multiprocessors), against the catalogue.

use crate::catalog::{self, Certainty, GpuModel, MigProfile};

/// A GPU instance named from its memory and multiprocessors.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Derived {
    pub name: &'static str,
    /// Set when the name rests on SM counts the catalogue marks uncertain: why.
    pub uncertain: Option<&'static str>,
}

/// The profile of a GPU instance with `memory_mib` of framebuffer on a `gpu_memory_mib` GPU that
/// nvidia-smi calls `board`, whose compute instances show `sms` multiprocessors each.
///
/// go-nvlib names a profile by its memory slices, `ceil(memory / total × slices)`
/// (docs/hardware-facts.md §1.1), so the catalogue profiles with that many memory slices are the
/// candidates. Where several have that many (`3g` and `4g`, `1g.2M` and `2g`), the board's SM count of
/// each profile, from real `nvidia-smi mig -lgip` output (§1.3), decides — but only for a GPU instance
/// showing one compute instance whose SM count equals exactly one candidate's. The table and the XML
/// show each compute instance's SMs, not the GPU instance's, so a GPU instance split into compute
/// instances cannot be told apart this way, and neither can a board whose counts no source gives.
///
/// # Errors
/// Why the profile cannot be told (no candidate, or several and nothing to decide between them).
pub(super) fn derive(
    model: &GpuModel,
    board: &str,
    gpu_memory_mib: Option<u64>,
    memory_mib: u64,
    sms: &[u32],
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
    let several = match pool.as_slice() {
        [] => {
            return Err(format!(
                "no MIG profile of {} has {memory_mib} MiB ({slices} of {} memory slices)",
                model.name, geometry.memory_slices
            ))
        }
        [only] => {
            return Ok(Derived {
                name: only.name,
                uncertain: None,
            })
        }
        several => several,
    };
    let names: Vec<&str> = several.iter().map(|p| p.name).collect();
    let fits = format!("{memory_mib} MiB fits {}", names.join(" or "));
    let s = match sms {
        [] => {
            return Err(format!(
                "{fits}, and the input shows no multiprocessor count to tell them apart"
            ))
        }
        [one] => *one,
        many => {
            let each: Vec<String> = many.iter().map(u32::to_string).collect();
            return Err(format!(
                "{fits}; it holds {} compute instances ({} SMs), which do not show the GPU instance's own multiprocessor count",
                many.len(),
                each.join(" + ")
            ));
        }
    };
    let Some(table) = catalog::mig_multiprocessors(board) else {
        return Err(format!(
            "{fits}; the SM counts of {board:?}'s MIG profiles are not in the catalogue (they differ between boards of one model, e.g. H100 SXM and PCIe)"
        ));
    };
    let mut counts: Vec<(&'static str, u32)> = Vec::with_capacity(several.len());
    for p in several {
        match table.of(p.name) {
            Some(n) => counts.push((p.name, n)),
            None => {
                return Err(format!(
                    "{fits}; the catalogue has no SM count for {} on {}",
                    p.name, table.board
                ))
            }
        }
    }
    let matching: Vec<&'static str> = counts
        .iter()
        .filter(|&&(_, n)| n == s)
        .map(|&(p, _)| p)
        .collect();
    match matching.as_slice() {
        [name] => Ok(Derived {
            name,
            uncertain: match table.certainty {
                Certainty::Known => None,
                Certainty::Uncertain(why) => Some(why),
            },
        }),
        _ => {
            let each: Vec<String> = counts.iter().map(|(p, n)| format!("{p} {n}")).collect();
            Err(format!(
                "{fits}; its {s} SMs match none of their counts on {} ({}), so it may hold a compute instance smaller than itself",
                table.board,
                each.join(", ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::find_model;

    fn name(d: Result<Derived, String>) -> &'static str {
        d.unwrap().name
    }

    #[test]
    fn names_h100_devices_from_the_real_table() {
        // Memory and SMs from the H100 MIG capture's "MIG devices" block (docs/hardware-facts.md §1.3).
        let h100 = find_model("H100-80GB-HBM3").unwrap();
        let sxm = "NVIDIA H100 80GB HBM3";
        assert_eq!(
            name(derive(h100, sxm, Some(81559), 40448, &[60])),
            "3g.40gb"
        );
        assert_eq!(
            name(derive(h100, sxm, Some(81559), 40448, &[64])),
            "4g.40gb"
        );
        assert_eq!(
            name(derive(h100, sxm, Some(81559), 20096, &[32])),
            "2g.20gb"
        );
        assert_eq!(
            name(derive(h100, sxm, Some(81559), 20096, &[26])),
            "1g.20gb"
        );
        assert_eq!(name(derive(h100, sxm, Some(81559), 9984, &[16])), "1g.10gb");
        // gpustack's XML example: 40448 MiB of an 81920 MiB board, 60 SMs.
        assert_eq!(
            name(derive(h100, sxm, Some(81920), 40448, &[60])),
            "3g.40gb"
        );
        // Without SMs, or with SMs that fit no profile, nothing is assumed.
        assert!(derive(h100, sxm, None, 40448, &[]).is_err());
        assert!(derive(h100, sxm, None, 40448, &[16])
            .unwrap_err()
            .contains("smaller than itself"));
        // The PCIe board of the same model: 2g.20gb has 30 SMs there, from an uncertain source.
        let pcie = derive(h100, "NVIDIA H100 PCIe", Some(81559), 20096, &[30]).unwrap();
        assert_eq!(pcie.name, "2g.20gb");
        assert!(pcie.uncertain.is_some());
        let t4 = find_model("t4").unwrap();
        assert!(derive(t4, "Tesla T4", None, 4000, &[]).is_err());
    }
}
