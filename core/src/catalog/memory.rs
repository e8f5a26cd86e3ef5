//! Memory a workload can use: each MIG instance's real MiB, and what the driver keeps of a whole GPU.

use super::{Certainty, GpuModel, MigProfile};
use crate::memory::MIB;

/// The memory (MiB) of a GPU instance covering `.1` memory slices on the model named `.0`, as real
/// `nvidia-smi mig -lgip` output or real MIG devices show it (docs/hardware-facts.md §1.3, §1.4,
/// §5). Every `-lgip` seen gives profiles of the same memory slices (3g and 4g, 1g.2M and 2g, a
/// profile and its `+me` variant) the same memory, so the table is keyed by memory slices.
const REAL_INSTANCE_MIB: &[(&str, u8, u64)] = &[
    ("A100-SXM4-40GB", 2, 9984),
    ("A100-SXM4-40GB", 4, 20096),
    ("A100-SXM4-40GB", 8, 40448),
    ("A100-SXM4-80GB", 1, 9728),
    ("A100-SXM4-80GB", 2, 19968),
    ("A100-SXM4-80GB", 4, 40192),
    // GFD's nvidia.com/mig-<profile>.memory labels of a real A100 80GB PCIe node (§9).
    ("A100-80GB-PCIe", 1, 9728),
    ("A100-80GB-PCIe", 2, 19968),
    ("A100-80GB-PCIe", 4, 40192),
    ("H100-80GB-HBM3", 1, 9984),
    ("H100-80GB-HBM3", 2, 20096),
    ("H100-80GB-HBM3", 4, 40448),
    ("H100-80GB-HBM3", 8, 81152),
    ("H100-NVL", 1, 11008),
    ("H100-NVL", 2, 22144),
    ("H100-NVL", 4, 47488),
    ("H100-NVL", 8, 95360),
    ("GH200-96GB", 1, 11264),
    ("GH200-96GB", 2, 23552),
    ("GH200-96GB", 4, 47616),
    ("GH200-96GB", 8, 95232),
    ("H200", 1, 16384),
    ("H200", 2, 33280),
    ("H200", 4, 71424),
    ("A30", 1, 5952),
    ("A30", 2, 11968),
    ("A30", 4, 24064),
];

/// FB memory "Reserved" (MiB) of whole GPUs in real `nvidia-smi -q` captures kept in
/// `tests/fixtures/nvidia-smi/` (docs/hardware-facts.md §10): memory the driver keeps, which no
/// process can allocate.
const RESERVED_MIB: &[(&str, u64)] = &[
    ("T4", 448),
    ("A100-SXM4-40GB", 518),
    ("H100-80GB-HBM3", 480),
    ("L40S", 609),
];

/// For a board without a capture: the most any captured board keeps (L40S), so a plan errs on
/// the side of room (docs/hardware-facts.md §10).
pub const RESERVED_MIB_UNCAPTURED: u64 = 609;

/// How much memory an instance or a GPU offers, and how sure the catalogue is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UsableMemory {
    pub mib: u64,
    pub certainty: Certainty,
}

impl GpuModel {
    /// The real MiB of an instance of `memory_slices` on this board, where real output shows it.
    pub fn real_instance_mib(&self, memory_slices: u8) -> Option<u64> {
        REAL_INSTANCE_MIB
            .iter()
            .find(|(m, slices, _)| *m == self.name && *slices == memory_slices)
            .map(|&(_, _, mib)| mib)
    }

    /// The memory a process in an instance of `profile` can use: the real MiB where real output
    /// shows it; else the GB of the profile's name read as SI gigabytes (`1g.5gb` → 4768 MiB),
    /// which every real instance seen exceeds, marked uncertain.
    pub fn profile_memory(&self, profile: &MigProfile) -> UsableMemory {
        if let Some(mib) = self.real_instance_mib(profile.memory_slices) {
            return UsableMemory {
                mib,
                certainty: Certainty::Known,
            };
        }
        let gb = profile
            .name
            .split(['+', '-'])
            .next()
            .and_then(|base| base.split_once('.'))
            .and_then(|(_, m)| m.strip_suffix("gb"))
            .and_then(|m| m.parse::<u64>().ok())
            .unwrap_or(0);
        UsableMemory {
            mib: gb * 1_000_000_000 / MIB,
            certainty: Certainty::Uncertain(
                "no real nvidia-smi mig -lgip output for this board: memory taken from the profile's name in SI gigabytes",
            ),
        }
    }

    /// What the driver keeps of a whole GPU (FB memory "Reserved" in a real capture), or
    /// [`RESERVED_MIB_UNCAPTURED`] marked uncertain.
    pub fn reserved_memory(&self) -> UsableMemory {
        match RESERVED_MIB.iter().find(|(m, _)| *m == self.name) {
            Some(&(_, mib)) => UsableMemory {
                mib,
                certainty: Certainty::Known,
            },
            None => UsableMemory {
                mib: RESERVED_MIB_UNCAPTURED,
                certainty: Certainty::Uncertain(
                    "no real nvidia-smi -q capture for this board: the driver's reserved memory taken as the most any captured board keeps (609 MiB)",
                ),
            },
        }
    }

    /// Memory processes can allocate on the whole GPU: the total less what the driver keeps.
    pub fn usable_memory(&self) -> UsableMemory {
        let reserved = self.reserved_memory();
        UsableMemory {
            mib: self.memory_mib.saturating_sub(reserved.mib),
            certainty: reserved.certainty,
        }
    }
}

/// The smallest catalogued GPU whose usable memory holds `mib` (ties: fewer MiB, then catalogue
/// order), to name in an error.
pub fn smallest_gpu_holding(mib: u64) -> Option<&'static GpuModel> {
    super::models()
        .iter()
        .filter(|m| m.usable_memory().mib >= mib)
        .min_by_key(|m| m.usable_memory().mib)
}

/// The catalogued GPU with the most usable memory.
pub fn largest_gpu() -> Option<&'static GpuModel> {
    super::models().iter().max_by_key(|m| m.usable_memory().mib)
}
