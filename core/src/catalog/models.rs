//! The catalogue's data: every model with its source (sections of shared/reference/gpu-sharing-facts.md).

use super::profile::{eight_slice, four_slice, ProfileClass::*};
use super::{Certainty, Certainty::*, GpuModel, MigGeometry, MigProfile};

const SEVEN_EIGHT: Option<MigGeometry> = Some(MigGeometry {
    compute_slices: 7,
    memory_slices: 8,
});
const FOUR_FOUR: Option<MigGeometry> = Some(MigGeometry {
    compute_slices: 4,
    memory_slices: 4,
});

const NO_LGIPP: Certainty = Uncertain("placements transcribed from NVIDIA's diagrams; no real `nvidia-smi mig -lgipp` capture (facts §1.2)");

// 8-memory-slice boards, facts §1.2 (placements) and §1.3 (names).
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

// 4-memory-slice boards, facts §1.4.
static A30: [MigProfile; 5] = [
    four_slice("1g.6gb", 1, 4, Plain, Known),
    four_slice("1g.6gb+me", 1, 1, MediaExtensions, Known),
    four_slice("2g.12gb", 2, 2, Plain, Known),
    four_slice("2g.12gb+me", 2, 1, MediaExtensions, Known),
    four_slice("4g.24gb", 4, 1, Plain, Known),
];
const RTX_PRO_PLACEMENTS: Certainty =
    Uncertain("placements {0,1,2,3}:1, {0,2}:2, {0}:4 inferred; no -lgipp found (facts §1.4)");
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

pub(super) static ALL: &[GpuModel] = &[
    model("A100-SXM4-40GB", &["NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB"], &["a100-40gb", "a100", "a100-pcie-40gb"],
        40960, Some(400), SEVEN_EIGHT, &A100_40, Known,
        "MIG guide profile tables and -lgipp (facts §1.2-1.3); memory and power from the real qx-a100.xml capture (§4, §7)"),
    model("A100-SXM4-80GB", &["NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe"], &["a100-80gb", "a100-pcie-80gb"],
        81920, None, SEVEN_EIGHT, &A100_80, Uncertain("memory total assumed 81920 MiB; the facts file has no capture of it"),
        "MIG guide profile names (facts §1.3)"),
    model("H100-80GB-HBM3", &["NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe"], &["h100-80gb", "h100", "h100-sxm5-80gb", "h100-pcie"],
        81559, Some(700), SEVEN_EIGHT, &H100_80, Known,
        "MIG guide names, stackhpc -lgip (facts §1.3); memory from the real qx-h100.xml capture, power from the exporter capture (§4, §7)"),
    model("H100-NVL", &["NVIDIA H100 NVL"], &["h100-94gb"],
        95830, Some(400), SEVEN_EIGHT, &H100_94, Known,
        "MIG guide names; real -lgip/-lgipp from an Azure NC40ads_H100_v5 (facts §1.2-1.3, §4, §7)"),
    model("GH200-96GB", &["NVIDIA GH200 480GB", "NVIDIA GH200 96GB HBM3"], &["gh200", "h100-96gb"],
        98304, None, SEVEN_EIGHT, &H100_96, Uncertain("nvidia-smi product name and memory total not captured; placements not captured"),
        "MIG guide GH200 table; real -lgip from kf-cuanschutz logs (facts §1.3)"),
    model("H20", &["NVIDIA H20"], &[],
        98304, None, SEVEN_EIGHT, &H100_96, Uncertain("profile names inferred from mig-parted's all-balanced grouping; memory total not captured"),
        "mig-parted config-default.yaml (facts §1.3, §1.5)"),
    model("H200", &["NVIDIA H200", "NVIDIA H200 NVL"], &["h200-141gb", "h200-nvl"],
        143771, Some(700), SEVEN_EIGHT, &H200, Known,
        "MIG guide H200 table (facts §1.3); memory and power from the real exporter capture (§4, §7)"),
    model("GH200-144GB", &["NVIDIA GH200 144G HBM3e"], &[],
        147456, None, SEVEN_EIGHT, &GH200_144, Uncertain("names only from mig-parted; nvidia-smi product name and memory total not captured"),
        "mig-parted config (facts §1.3)"),
    model("B200", &["NVIDIA B200"], &["b200-180gb"],
        183359, Some(1000), SEVEN_EIGHT, &B200, Known,
        "MIG guide B200 table (facts §1.3); memory and power from the real qx-b200.xml capture (§4, §7)"),
    model("GB200", &["NVIDIA GB200"], &["gb200-186gb"],
        189471, Some(1200), SEVEN_EIGHT, &GB200, Uncertain("profile names changed across mig-parted versions (older: 1g.24gb, 3g.95gb, 4g.95gb, 7g.189gb)"),
        "mig-parted / GPU Operator config (facts §1.3); memory and power from the real qx-gb200.xml capture (§4, §7)"),
    model("B300", &["NVIDIA B300"], &[],
        275040, None, SEVEN_EIGHT, &B300, Uncertain("names only from mig-parted; nvidia-smi product name and memory total not captured"),
        "mig-parted config-default.yaml (facts §1.3)"),
    model("GB300", &["NVIDIA GB300"], &[],
        284208, Some(1400), SEVEN_EIGHT, &GB300, Uncertain("names only from mig-parted"),
        "mig-parted config (facts §1.3); memory and power from the real qx-gb300.xml capture (§4, §7)"),
    model("A30", &["NVIDIA A30"], &["a30-24gb"],
        24576, Some(165), FOUR_FOUR, &A30, Known,
        "MIG guide; real -lgipp from Summer-Lo (facts §1.4); memory and power cap from real captures (§4, §7)"),
    model("RTX-PRO-6000-Blackwell", &["NVIDIA RTX PRO 6000 Blackwell Server Edition"], &["rtx-pro-6000", "rtx-pro-6000-96gb"],
        97887, None, FOUR_FOUR, &RTX_PRO_6000, Uncertain("nvidia-smi product name, memory total and placements not captured"),
        "MIG guide RTX PRO 6000 table (facts §1.4)"),
    // Boards without MIG: shared by MPS or time-slicing, or used whole.
    model("L40S", &["NVIDIA L40S"], &[],
        46068, Some(350), None, NONE, Known,
        "real qx-l40s.xml capture (facts §4, §7)"),
    model("L4", &["NVIDIA L4"], &[],
        23034, Some(72), None, NONE, Known,
        "memory from facts §4; power cap from real nvidia-smi tables (§7)"),
    model("T4", &["Tesla T4", "NVIDIA T4"], &[],
        15360, Some(70), None, NONE, Known,
        "real qx-t4.xml capture (facts §4, §7)"),
    model("A10", &["NVIDIA A10"], &[],
        23028, None, None, NONE, Uncertain("memory total from common nvidia-smi output, not from the facts file"),
        "not in the facts file"),
    model("A10G", &["NVIDIA A10G"], &[],
        23028, None, None, NONE, Uncertain("memory total from common nvidia-smi output, not from the facts file"),
        "not in the facts file"),
    model("V100-SXM2-16GB", &["Tesla V100-SXM2-16GB"], &["v100", "v100-16gb"],
        16384, None, None, NONE, Uncertain("memory total from the board's nominal size, not from the facts file"),
        "not in the facts file"),
];
