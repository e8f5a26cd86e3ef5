//! The catalogue's data: every model with its source (sections of docs/hardware-facts.md).

use super::profile::{eight_slice, four_slice, ProfileClass::*};
use super::{Certainty, Certainty::*, GpuModel, MigGeometry, MigMultiprocessors, MigProfile};

const SEVEN_EIGHT: Option<MigGeometry> = Some(MigGeometry {
    compute_slices: 7,
    memory_slices: 8,
});
const FOUR_FOUR: Option<MigGeometry> = Some(MigGeometry {
    compute_slices: 4,
    memory_slices: 4,
});

const NO_LGIPP: Certainty = Uncertain("placements as in NVIDIA's MIG User Guide diagrams; no real `nvidia-smi mig -lgipp` capture seen");

// 8-memory-slice boards, docs/hardware-facts.md §1.2 (placements) and §1.3 (names).
static A100_40: [MigProfile; 7] = eight_slice(
    [
        "1g.5gb",
        "1g.5gb+me",
        "1g.10gb",
        "2g.10gb",
        "3g.20gb",
        "4g.20gb",
        "7g.40gb",
    ],
    Known,
);
static A100_80: [MigProfile; 7] = eight_slice(
    [
        "1g.10gb",
        "1g.10gb+me",
        "1g.20gb",
        "2g.20gb",
        "3g.40gb",
        "4g.40gb",
        "7g.80gb",
    ],
    Known,
);
static H100_80: [MigProfile; 7] = eight_slice(
    [
        "1g.10gb",
        "1g.10gb+me",
        "1g.20gb",
        "2g.20gb",
        "3g.40gb",
        "4g.40gb",
        "7g.80gb",
    ],
    NO_LGIPP,
);
static H100_94: [MigProfile; 7] = eight_slice(
    [
        "1g.12gb",
        "1g.12gb+me",
        "1g.24gb",
        "2g.24gb",
        "3g.47gb",
        "4g.47gb",
        "7g.94gb",
    ],
    Known,
);
static H100_96: [MigProfile; 7] = eight_slice(
    [
        "1g.12gb",
        "1g.12gb+me",
        "1g.24gb",
        "2g.24gb",
        "3g.48gb",
        "4g.48gb",
        "7g.96gb",
    ],
    NO_LGIPP,
);
static H200: [MigProfile; 7] = eight_slice(
    [
        "1g.18gb",
        "1g.18gb+me",
        "1g.35gb",
        "2g.35gb",
        "3g.71gb",
        "4g.71gb",
        "7g.141gb",
    ],
    NO_LGIPP,
);
static GH200_144: [MigProfile; 7] = eight_slice(
    [
        "1g.18gb",
        "1g.18gb+me",
        "1g.36gb",
        "2g.36gb",
        "3g.72gb",
        "4g.72gb",
        "7g.144gb",
    ],
    NO_LGIPP,
);
static B200: [MigProfile; 7] = eight_slice(
    [
        "1g.23gb",
        "1g.23gb+me",
        "1g.45gb",
        "2g.45gb",
        "3g.90gb",
        "4g.90gb",
        "7g.180gb",
    ],
    NO_LGIPP,
);
static GB200: [MigProfile; 7] = eight_slice(
    [
        "1g.23gb",
        "1g.23gb+me",
        "1g.47gb",
        "2g.47gb",
        "3g.93gb",
        "4g.93gb",
        "7g.186gb",
    ],
    NO_LGIPP,
);
static B300: [MigProfile; 7] = eight_slice(
    [
        "1g.34gb",
        "1g.34gb+me",
        "1g.67gb",
        "2g.67gb",
        "3g.135gb",
        "4g.135gb",
        "7g.269gb",
    ],
    NO_LGIPP,
);
static GB300: [MigProfile; 7] = eight_slice(
    [
        "1g.35gb",
        "1g.35gb+me",
        "1g.70gb",
        "2g.70gb",
        "3g.139gb",
        "4g.139gb",
        "7g.278gb",
    ],
    NO_LGIPP,
);

// 4-memory-slice boards, docs/hardware-facts.md §1.4.
static A30: [MigProfile; 5] = [
    four_slice("1g.6gb", 1, 4, Plain, Known),
    four_slice("1g.6gb+me", 1, 1, MediaExtensions, Known),
    four_slice("2g.12gb", 2, 2, Plain, Known),
    four_slice("2g.12gb+me", 2, 1, MediaExtensions, Known),
    four_slice("4g.24gb", 4, 1, Plain, Known),
];
const RTX_PRO_PLACEMENTS: Certainty = Uncertain(
    "placements {0,1,2,3}:1, {0,2}:2, {0}:4 inferred from the A30's; no real -lgipp capture seen",
);
static RTX_PRO_6000: [MigProfile; 11] = [
    four_slice("1g.24gb", 1, 4, Plain, RTX_PRO_PLACEMENTS),
    four_slice("1g.24gb+me", 1, 1, MediaExtensions, RTX_PRO_PLACEMENTS),
    four_slice("1g.24gb+gfx", 1, 4, Graphics, RTX_PRO_PLACEMENTS),
    four_slice("1g.24gb+me.all", 1, 1, AllMediaEngines, RTX_PRO_PLACEMENTS),
    four_slice("1g.24gb-me", 1, 4, NoMediaEngines, RTX_PRO_PLACEMENTS),
    four_slice("2g.48gb", 2, 2, Plain, RTX_PRO_PLACEMENTS),
    four_slice("2g.48gb+gfx", 2, 2, Graphics, RTX_PRO_PLACEMENTS),
    four_slice("2g.48gb+me.all", 2, 1, AllMediaEngines, RTX_PRO_PLACEMENTS),
    four_slice("2g.48gb-me", 2, 2, NoMediaEngines, RTX_PRO_PLACEMENTS),
    four_slice("4g.96gb", 4, 1, Plain, RTX_PRO_PLACEMENTS),
    four_slice("4g.96gb+gfx", 4, 1, Graphics, RTX_PRO_PLACEMENTS),
];

const NONE: &[MigProfile] = &[];

#[allow(clippy::too_many_arguments)]
const fn model(
    name: &'static str,
    smi_names: &'static [&'static str],
    aliases: &'static [&'static str],
    memory_mib: u64,
    power_limit_w: Option<u32>,
    mig: Option<MigGeometry>,
    profiles: &'static [MigProfile],
    certainty: Certainty,
    source: &'static str,
) -> GpuModel {
    GpuModel {
        name,
        smi_names,
        aliases,
        memory_mib,
        power_limit_w,
        mig,
        profiles,
        certainty,
        source,
    }
}

// Each model is one board as nvidia-smi names it, so that its power (and its per-profile SMs) are
// that board's: a PCIe or NVL board is its own model, sharing its SXM sibling's profile table and
// placements (docs/hardware-facts.md §7). `power_limit_w` is the board's default power limit with
// its source in `source`; `None` where no source gives one.
pub(super) static ALL: &[GpuModel] = &[
    model("A100-SXM4-40GB", &["NVIDIA A100-SXM4-40GB"], &["a100-40gb", "a100"],
        40960, Some(400), SEVEN_EIGHT, &A100_40, Known,
        "NVIDIA MIG User Guide profile tables and -lgipp; memory and the 400 W default power limit from a real nvidia-smi -q -x capture (NVIDIA/k8s-test-infra qx-a100.xml)"),
    model("A100-PCIE-40GB", &["NVIDIA A100-PCIE-40GB"], &[],
        40960, Some(250), SEVEN_EIGHT, &A100_40, Known,
        "NVIDIA MIG User Guide profile tables (the A100 40GB's, as on the SXM4 board); memory and the 250 W power limit from real nvidia-smi tables of A100-PCIE-40GB boards (e.g. mahendrapaipuri/ceems docs, driver 535.129.03)"),
    model("A100-SXM4-80GB", &["NVIDIA A100-SXM4-80GB"], &["a100-80gb"],
        81920, Some(400), SEVEN_EIGHT, &A100_80, Uncertain("memory total assumed 81920 MiB; no real capture of it seen"),
        "NVIDIA MIG User Guide profile names; the 400 W power limit from the Pwr:Usage/Cap column of real nvidia-smi tables of A100-SXM4-80GB boards (one shows 500 W)"),
    model("A100-80GB-PCIe", &["NVIDIA A100 80GB PCIe"], &["a100-pcie-80gb"],
        81920, Some(300), SEVEN_EIGHT, &A100_80, Known,
        "NVIDIA MIG User Guide profile names (the A100 80GB's, as on the SXM4 board); memory and the 300 W power limit from real nvidia-smi tables of A100 80GB PCIe boards"),
    model("H100-80GB-HBM3", &["NVIDIA H100 80GB HBM3"], &["h100-80gb", "h100", "h100-sxm5-80gb"],
        81559, Some(700), SEVEN_EIGHT, &H100_80, Known,
        "NVIDIA MIG User Guide names, real -lgip (stackhpc/ansible-slurm-appliance docs); memory from a real nvidia-smi -q -x capture (NVIDIA/k8s-test-infra qx-h100.xml), the 700 W default power limit from a real capture (utkuozdemir/nvidia_gpu_exporter)"),
    model("H100-PCIe", &["NVIDIA H100 PCIe"], &[],
        81559, Some(350), SEVEN_EIGHT, &H100_80, Known,
        "NVIDIA MIG User Guide names (the H100 80GB's, as on the SXM5 board); 350 W: NVIDIA H100 PCIe product brief PB-11133-001 (\"maximum thermal design power (TDP) level of 350 W\") and the power cap in real nvidia-smi tables; memory from real nvidia-smi tables"),
    model("H100-NVL", &["NVIDIA H100 NVL"], &["h100-94gb"],
        95830, Some(400), SEVEN_EIGHT, &H100_94, Known,
        "NVIDIA MIG User Guide names; real -lgip/-lgipp from an Azure NC40ads_H100_v5 (AlizeeChen11/mig-and-mps); memory and power cap from real nvidia-smi output"),
    model("GH200-96GB", &["NVIDIA GH200 480GB", "NVIDIA GH200 96GB HBM3"], &["gh200", "h100-96gb"],
        98304, None, SEVEN_EIGHT, &H100_96, Uncertain("nvidia-smi product name and memory total not captured; placements not captured"),
        "NVIDIA MIG User Guide GH200 table; real -lgip from kf-cuanschutz's Grace Hopper logs; no power figure: real nvidia-smi tables of GH200 480GB boards show 700 W and 900 W caps"),
    model("H20", &["NVIDIA H20"], &[],
        98304, Some(500), SEVEN_EIGHT, &H100_96, Uncertain("profile names inferred from mig-parted's all-balanced grouping; memory total not captured"),
        "NVIDIA mig-parted config-default.yaml; the 500 W power limit from the Pwr:Usage/Cap column of real nvidia-smi tables of H20 boards"),
    model("H200", &["NVIDIA H200"], &["h200-141gb"],
        143771, Some(700), SEVEN_EIGHT, &H200, Known,
        "NVIDIA MIG User Guide H200 table; memory and the 700 W default power limit from a real capture (utkuozdemir/nvidia_gpu_exporter)"),
    model("H200-NVL", &["NVIDIA H200 NVL"], &[],
        143771, Some(600), SEVEN_EIGHT, &H200, Known,
        "NVIDIA MIG User Guide H200 table (the H200's profiles); memory and the 600 W power limit from a real nvidia-smi table of an H200 NVL"),
    model("GH200-144GB", &["NVIDIA GH200 144G HBM3e"], &[],
        147456, None, SEVEN_EIGHT, &GH200_144, Uncertain("names only from mig-parted; nvidia-smi product name and memory total not captured"),
        "NVIDIA mig-parted config; no power figure seen"),
    model("B200", &["NVIDIA B200"], &["b200-180gb"],
        183359, Some(1000), SEVEN_EIGHT, &B200, Known,
        "NVIDIA MIG User Guide B200 table; memory and the 1000 W default power limit from a real nvidia-smi -q -x capture (NVIDIA/k8s-test-infra qx-b200.xml)"),
    model("GB200", &["NVIDIA GB200"], &["gb200-186gb"],
        189471, Some(1200), SEVEN_EIGHT, &GB200, Uncertain("profile names changed across mig-parted versions (older: 1g.24gb, 3g.95gb, 4g.95gb, 7g.189gb)"),
        "NVIDIA mig-parted / GPU Operator config; memory and the 1200 W default power limit from a real nvidia-smi -q -x capture (NVIDIA/k8s-test-infra qx-gb200.xml)"),
    model("B300", &["NVIDIA B300 SXM6 AC"], &[],
        275040, Some(1100), SEVEN_EIGHT, &B300, Uncertain("names only from mig-parted"),
        "NVIDIA mig-parted config-default.yaml; product name, memory and the 1100 W power limit from real nvidia-smi tables of NVIDIA B300 SXM6 AC boards"),
    model("GB300", &["NVIDIA GB300"], &[],
        284208, Some(1400), SEVEN_EIGHT, &GB300, Uncertain("names only from mig-parted"),
        "NVIDIA mig-parted config; memory and the 1400 W default power limit from a real nvidia-smi -q -x capture (NVIDIA/k8s-test-infra qx-gb300.xml)"),
    model("A30", &["NVIDIA A30"], &["a30-24gb"],
        24576, Some(165), FOUR_FOUR, &A30, Known,
        "NVIDIA MIG User Guide; real -lgipp (Summer-Lo/Docker_configuration); memory and power cap from real nvidia-smi output"),
    model("RTX-PRO-6000-Blackwell", &["NVIDIA RTX PRO 6000 Blackwell Server Edition"], &["rtx-pro-6000", "rtx-pro-6000-96gb"],
        97887, None, FOUR_FOUR, &RTX_PRO_6000, Uncertain("nvidia-smi product name, memory total and placements not captured"),
        "NVIDIA MIG User Guide RTX PRO 6000 table; no power figure: nvidia-smi tables cut the name short, so the Server Edition's cap cannot be told from other editions'"),
    // Boards without MIG: shared by MPS or time-slicing, or used whole.
    model("L40S", &["NVIDIA L40S"], &[],
        46068, Some(350), None, NONE, Known,
        "a real nvidia-smi -q -x capture (NVIDIA/k8s-test-infra qx-l40s.xml)"),
    model("L4", &["NVIDIA L4"], &[],
        23034, Some(72), None, NONE, Known,
        "memory and power cap from real nvidia-smi output"),
    model("T4", &["Tesla T4", "NVIDIA T4"], &[],
        15360, Some(70), None, NONE, Known,
        "a real nvidia-smi -q -x capture (NVIDIA/k8s-test-infra qx-t4.xml)"),
    model("A10", &["NVIDIA A10"], &[],
        23028, Some(150), None, NONE, Known,
        "memory and the 150 W default power limit from nvidia-smi -q output kept as a test fixture (leptonai/gpud e2e/mock/nvidia-smi/test_data.go, driver 550.127.05) and the power cap in real nvidia-smi tables"),
    model("A10G", &["NVIDIA A10G"], &[],
        23028, Some(300), None, NONE, Known,
        "memory and the 300 W default power limit from a real nvidia-smi -q of an A10G (driver 535.247.01) quoted in a public issue, and the power cap in real nvidia-smi tables"),
    model("V100-SXM2-16GB", &["Tesla V100-SXM2-16GB"], &["v100", "v100-16gb"],
        16384, Some(300), None, NONE, Known,
        "memory and the 300 W power limit from the Pwr:Usage/Cap column of real nvidia-smi tables of Tesla V100-SXM2-16GB boards"),
];

const fn sms(
    board: &'static str,
    profiles: &'static [(&'static str, u32)],
    certainty: Certainty,
    source: &'static str,
) -> MigMultiprocessors {
    MigMultiprocessors {
        board,
        profiles,
        certainty,
        source,
    }
}

// SMs per GPU-instance profile, board by board, docs/hardware-facts.md §1.3: each from the SM column of a
// real `nvidia-smi mig -lgip` on that board. Profiles no source shows are left out.
pub(super) static MIG_MULTIPROCESSORS: &[MigMultiprocessors] = &[
    sms("NVIDIA A100-SXM4-40GB",
        &[("1g.5gb", 14), ("1g.5gb+me", 14), ("1g.10gb", 14), ("2g.10gb", 28), ("3g.20gb", 42), ("4g.20gb", 56), ("7g.40gb", 98)],
        Known,
        "a real nvidia-smi mig -lgip (A100-SXM4-40GB, driver 580.126.09) in a public blog post; the NVIDIA MIG User Guide's A100 profile table gives the same fractions of SMs (1/7 … 7/7 of 98)"),
    sms("NVIDIA H100 80GB HBM3",
        &[("1g.10gb", 16), ("1g.10gb+me", 16), ("1g.20gb", 26), ("2g.20gb", 32), ("3g.40gb", 60), ("4g.40gb", 64), ("7g.80gb", 132)],
        Known,
        "a real nvidia-smi mig -lgip in stackhpc/ansible-slurm-appliance docs/mig.md; 3g.40gb with 60 SMs and 2g.20gb with 32 also in utkuozdemir/nvidia_gpu_exporter's H100 MIG capture"),
    sms("NVIDIA H100 PCIe",
        &[("1g.10gb", 14), ("1g.10gb+me", 14), ("1g.20gb", 14), ("2g.20gb", 30), ("3g.40gb", 46), ("4g.40gb", 62), ("7g.80gb", 114)],
        Uncertain("from a single real nvidia-smi mig -lgip (H100 PCIe, driver 570.169) in public notes whose repository could not be identified"),
        "a real nvidia-smi mig -lgip on an H100 PCIe (driver 570.169) in public notes"),
    sms("NVIDIA H100 NVL",
        &[("1g.12gb", 16), ("1g.12gb+me", 16), ("1g.24gb", 26), ("2g.24gb", 32), ("3g.47gb", 60), ("4g.47gb", 64), ("7g.94gb", 132)],
        Known,
        "real nvidia-smi mig -lgip in NVIDIA/gpu-operator#900 and AlizeeChen11/mig-and-mps"),
    sms("NVIDIA GH200 480GB",
        &[("1g.12gb", 16), ("1g.24gb", 26), ("2g.24gb", 32), ("3g.48gb", 60), ("4g.48gb", 64), ("7g.96gb", 132)],
        Uncertain("the product name nvidia-smi prints for this board is not captured"),
        "a real nvidia-smi mig -lgip in kf-cuanschutz's Grace Hopper benchmarking logs"),
    sms("NVIDIA H200",
        &[("1g.18gb", 16), ("1g.18gb+me", 16), ("1g.35gb", 26), ("2g.35gb", 32), ("3g.71gb", 60), ("4g.71gb", 64)],
        Known,
        "a real nvidia-smi mig -lgip in NVIDIA/mig-parted#120; 2g.35gb with 32 SMs also in utkuozdemir/nvidia_gpu_exporter's H200 MIG capture"),
    sms("NVIDIA GH200 144G HBM3e",
        &[("1g.18gb", 16), ("1g.18gb+me", 16), ("1g.36gb", 26), ("2g.36gb", 32)],
        Known,
        "a real nvidia-smi mig -lgip in NVIDIA/mig-parted#139"),
    sms("NVIDIA B200",
        &[("1g.23gb", 18), ("1g.23gb+me", 18), ("1g.45gb", 30), ("2g.45gb", 36)],
        Known,
        "a real nvidia-smi mig -lgip in NVIDIA/mig-parted#166"),
    sms("NVIDIA GB200",
        &[("1g.23gb", 18), ("1g.23gb+me", 18), ("1g.47gb", 32), ("2g.47gb", 38)],
        Known,
        "a real nvidia-smi mig -lgip in NVIDIA/mig-parted#227"),
    sms("NVIDIA A30",
        &[("1g.6gb", 14), ("1g.6gb+me", 14), ("2g.12gb", 28), ("4g.24gb", 56)],
        Known,
        "a real nvidia-smi mig -lgip in Summer-Lo/Docker_configuration 000-MIG/README.md"),
];
