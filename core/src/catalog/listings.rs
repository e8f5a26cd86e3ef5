//! Real listings of MIG instance memory, board by board: what `nvidia-smi mig -lgip` printed, or a
//! MIG device's framebuffer showed, for each GPU-instance size, with the driver and the source
//! (docs/hardware-facts.md §1.6).
//!
//! The same board lists different memory under different drivers (a B200's 1g.23gb: 22.00 GiB in
//! NVIDIA/mig-parted#166, 20.50 GiB in #187), so every listing seen is kept and the catalogue plans
//! with the smallest ([`super::memory`]). A listing is keyed by memory slices: every `-lgip` seen
//! gives profiles of the same memory slices (3g and 4g, 1g.2M and 2g, a profile and its `+me`
//! variant) the same memory.

use super::Certainty::{self, Known, Uncertain};

/// One instance size's memory as a source shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListedMemory {
    /// GiB as `nvidia-smi mig -lgip` prints it (two decimals), in hundredths: `16.00` → 1600.
    GibHundredths(u32),
    /// Exact MiB: a MIG device's framebuffer in the nvidia-smi table, or a GFD `.memory` label.
    Mib(u64),
}

impl ListedMemory {
    /// MiB never above what the listing says: exact MiB as they are, printed GiB × 1024 rounded
    /// down (`9.62` GiB → 9850 MiB).
    pub fn floor_mib(self) -> u64 {
        match self {
            ListedMemory::GibHundredths(h) => u64::from(h) * 1024 / 100,
            ListedMemory::Mib(m) => m,
        }
    }

    /// Whether this printed value is what `-lgip` prints for `mib` (two decimals of GiB, so within
    /// half a hundredth): then it says nothing below `mib`.
    pub fn prints(self, mib: u64) -> bool {
        match self {
            ListedMemory::GibHundredths(h) => {
                (u128::from(mib) * 100).abs_diff(u128::from(h) * 1024) <= 512
            }
            ListedMemory::Mib(m) => m == mib,
        }
    }

    /// As the source shows it: `16.00 GiB`, `16384 MiB`.
    pub fn text(self) -> String {
        match self {
            ListedMemory::GibHundredths(h) => format!("{}.{:02} GiB", h / 100, h % 100),
            ListedMemory::Mib(m) => format!("{m} MiB"),
        }
    }
}

/// One real listing of a board's MIG instance memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MigMemoryListing {
    /// The catalogue model (one board).
    pub model: &'static str,
    /// The driver version, where the listing shows it.
    pub driver: Option<&'static str>,
    /// Where it was seen.
    pub source: &'static str,
    /// (memory slices, memory) for each size the listing shows.
    pub sizes: &'static [(u8, ListedMemory)],
    pub certainty: Certainty,
}

impl MigMemoryListing {
    /// The memory it lists for an instance of `memory_slices`, if it lists one.
    pub fn of(&self, memory_slices: u8) -> Option<ListedMemory> {
        self.sizes
            .iter()
            .find(|(k, _)| *k == memory_slices)
            .map(|&(_, m)| m)
    }

    /// `NVIDIA/mig-parted#120`, with `, driver 590.48.01` where the listing shows one.
    pub fn cite(&self) -> String {
        match self.driver {
            Some(d) => format!("{}, driver {d}", self.source),
            None => self.source.to_string(),
        }
    }
}

use ListedMemory::{GibHundredths as G, Mib as M};

const fn listing(
    model: &'static str,
    driver: Option<&'static str>,
    source: &'static str,
    sizes: &'static [(u8, ListedMemory)],
    certainty: Certainty,
) -> MigMemoryListing {
    MigMemoryListing {
        model,
        driver,
        source,
        sizes,
        certainty,
    }
}

/// Every listing, docs/hardware-facts.md §1.6. Sizes a source does not show are left out.
pub(super) static LISTINGS: &[MigMemoryListing] = &[
    listing("A100-SXM4-40GB", None,
        "the NVIDIA MIG User Guide's nvidia-smi mig -lgip example (Getting Started)",
        &[(1, G(475)), (2, G(962)), (4, G(1950)), (8, G(3925))], Known),
    listing("A100-SXM4-40GB", Some("580.126.09"),
        "a real nvidia-smi mig -lgip in a public blog post",
        &[(2, G(975)), (4, G(1962)), (8, G(3950))], Known),
    listing("A100-SXM4-80GB", None,
        "a real nvidia-smi mig -lgip of an A100-SXM4-80GB in public notes whose repository could not be identified",
        &[(1, G(950)), (2, G(1950)), (4, G(3925)), (8, G(7900))],
        Uncertain("one real listing, in notes whose repository could not be identified")),
    listing("A100-80GB-PCIe", None,
        "GFD nvidia.com/mig-<profile>.memory labels of a real A100 80GB PCIe node (a public GPU Operator walkthrough)",
        &[(1, M(9728)), (2, M(19968)), (4, M(40192))], Known),
    listing("H100-80GB-HBM3", None,
        "a real nvidia-smi mig -lgip in stackhpc/ansible-slurm-appliance docs/mig.md",
        &[(1, G(975)), (2, G(1962)), (4, G(3950)), (8, G(7925))], Known),
    listing("H100-80GB-HBM3", Some("590.48.01"),
        "the MIG devices of utkuozdemir/nvidia_gpu_exporter's H100 MIG capture",
        &[(1, M(9984)), (2, M(20096)), (4, M(40448))], Known),
    listing("H100-NVL", Some("560.35.03"),
        "a real nvidia-smi mig -lgip and MIG devices in AlizeeChen11/mig-and-mps (Azure NC40ads_H100_v5)",
        &[(1, M(11008)), (2, M(22144)), (4, M(47488)), (8, G(9312))], Known),
    listing("GH200-96GB", None,
        "a real nvidia-smi mig -lgip in kf-cuanschutz's Grace Hopper benchmarking logs",
        &[(1, G(1100)), (2, G(2300)), (4, G(4650)), (8, G(9300))], Known),
    listing("H200", None,
        "a real nvidia-smi mig -lgip in NVIDIA/mig-parted#120",
        &[(1, G(1600)), (2, G(3225)), (4, G(6950)), (8, G(13975))], Known),
    listing("H200", Some("590.48.01"),
        "the MIG devices of utkuozdemir/nvidia_gpu_exporter's H200 MIG capture",
        &[(1, M(16384)), (2, M(33280)), (4, M(71424))], Known),
    listing("GH200-144GB", None,
        "a real nvidia-smi mig -lgip in NVIDIA/mig-parted#139",
        &[(1, G(1750)), (2, G(3525))], Known),
    listing("B200", None,
        "a real nvidia-smi mig -lgip in NVIDIA/mig-parted#166 (2025-01-29)",
        &[(1, G(2200)), (2, G(4425))], Known),
    listing("B200", None,
        "a real nvidia-smi mig -lgip in NVIDIA/mig-parted#187 and NVIDIA/gpu-operator#1351 (2025-03-20, a later driver: the listing that adds 4g.90gb)",
        &[(1, G(2050)), (2, G(4425))], Known),
    listing("GB200", None,
        "a real nvidia-smi mig -lgip in NVIDIA/mig-parted#227",
        &[(1, G(2200)), (2, G(4550))], Known),
    listing("GB200", None,
        "a real nvidia-smi mig -lgip of an HGX GB200 in NVIDIA/gpu-operator#1303, which names the one-slice profile 1g.24gb",
        &[(1, G(2000)), (2, G(4550))], Known),
    listing("A30", None,
        "a real nvidia-smi mig -lgip in Summer-Lo/Docker_configuration 000-MIG/README.md",
        &[(1, G(581)), (2, G(1169)), (4, G(2350))], Known),
    listing("A30", None,
        "the MIG devices in rohitralhan/RHOAI-NVIDIA-MIG-GPU's README",
        &[(1, M(5952)), (2, M(11968))], Known),
    listing("RTX-PRO-6000-Blackwell", None,
        "a real nvidia-smi mig -lgip of an RTX PRO 6000 Blackwell Server Edition in bigstack-oss/cubecos#312",
        &[(1, G(2312)), (2, G(4650))], Known),
    listing("RTX-PRO-6000-Blackwell", None,
        "a real nvidia-smi mig -lgip in GoogleCloudPlatform/container-engine-accelerators#564",
        &[(1, G(2362))], Known),
];
