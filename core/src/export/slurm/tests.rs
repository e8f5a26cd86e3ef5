//! Tests of `slurm`.

use super::*;
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::catalog::models;
use crate::export::{export, ExportFormat, ExportOptions};
use crate::pack::bin_pack;

/// `gpu_common_underscorify_tolower` (SchedMD/slurm `src/plugins/gpu/common/gpu_common.c`):
/// `str[i] = tolower(str[i]); if (str[i] == ' ') str[i] = '_';`, applied by
/// `_nvml_get_device_name` to every NVML name.
fn underscorify_tolower(name: &str) -> String {
    name.chars()
        .map(|c| match c.to_ascii_lowercase() {
            ' ' => '_',
            c => c,
        })
        .collect()
}

/// The parent GPU's part (`_get_system_gpu_list_nvml`, MIG mode): `char *tok =
/// xstrchr(tmp_device_name, '-'); if (tok) { /* Here we are clearing everything after the
/// first '-' ... */ tok[0] = '\0'; }`.
fn parent_part(device_name: &str) -> String {
    let mut name = underscorify_tolower(device_name);
    if let Some(i) = name.find('-') {
        name.truncate(i);
    }
    name
}

/// slurmd before 23.02.6, transliterated from SchedMD/slurm `src/plugins/gpu/nvml/gpu_nvml.c`
/// `_handle_mig`, independently of the code under test: `/* Divide MB by 1024 (2^10) to get
/// GB, and then round */ xstrfmtcat(nvml_mig->profile_name, "_%ug.%lugb",
/// attributes.gpuInstanceSliceCount, (unsigned long)roundl((long double)attributes.memorySizeMB
/// / (long double)1024));`
fn slurmd_rounded(device_name: &str, slice_count: u8, memory_size_mb: u64) -> String {
    let gb = (memory_size_mb as f64 / 1024.0).round();
    format!("{}_{slice_count}g.{gb}gb", parent_part(device_name))
}

/// slurmd 23.02.6 and later (SchedMD/slurm CHANGELOG/slurm-23.02.md, "Changes in Slurm
/// 23.02.6": "Fix some mig profile names in slurm not matching nvidia mig profiles"), `_handle_mig`:
/// `_nvml_get_device_name(&mig, device_name, ...); if (device_name[0] && (str =
/// strstr(device_name, "mig_"))) { /* Adding 3 to skip "mig" but keep "_" */
/// xstrfmtcat(nvml_mig->profile_name, "%s", str + 3); }`. A MIG device's NVML name is the
/// board's, ` MIG `, and the profile: `NVIDIA A100-SXM4-40GB MIG 3g.20gb` in HTCondor's
/// condor_gpu_discovery manual (an NVML device list).
fn slurmd_nvml(device_name: &str, profile: &str) -> String {
    let mig = underscorify_tolower(&format!("{device_name} MIG {profile}"));
    let at = mig
        .find("mig_")
        .expect("a MIG device's NVML name holds \"MIG \"");
    format!("{}{}", parent_part(device_name), &mig[at + 3..])
}

fn plan_text_for(model: &str, specs: &[String], slurm_version: Option<&str>) -> String {
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
    let options = ExportOptions {
        slurm_version: slurm_version.map(str::to_string),
        ..ExportOptions::default()
    };
    export(&r, ExportFormat::Slurm, &options).unwrap()
}

fn plan_text(model: &str, specs: &[String]) -> String {
    plan_text_for(model, specs, None)
}

/// gpu-share#55 item 1, real names Slurm detected, each from a public source: SchedMD
/// gres.html ("the \"MIG Profile\" is nvidia_a100_3g.20gb"); stackhpc/ansible-slurm-appliance
/// docs (an H100 80GB HBM3 node: nvidia_h100_80gb_hbm3_1g.10gb); job scripts of real clusters
/// requesting gpu:nvidia_h200_2g.35gb and gpu:nvidia_b200_3g.90gb (names no rounding of the
/// real 32–33 GiB and 86–89 GiB gives); NVIDIA/mig-parted#31 (A100-SXM4-80GB, slurmd of
/// 2023 with drivers 535 and 545: "3g.39gb").
#[test]
fn mig_types_are_the_names_slurmd_detects() {
    let nvml = MigNaming::NvmlName;
    let old = MigNaming::RoundedMemory;
    let find = |m: &str| crate::catalog::find_model(m).unwrap();
    let name = |m: &str, p: &str, n: MigNaming| {
        let model = find(m);
        mig_type(model, model.profile(p).unwrap(), n).name
    };
    assert_eq!(name("a100", "3g.20gb", nvml), "nvidia_a100_3g.20gb");
    assert_eq!(
        name("h100", "1g.10gb", nvml),
        "nvidia_h100_80gb_hbm3_1g.10gb"
    );
    assert_eq!(name("h200", "2g.35gb", nvml), "nvidia_h200_2g.35gb");
    assert_eq!(name("b200", "3g.90gb", nvml), "nvidia_b200_3g.90gb");
    // The cases: what slurmd ≥ 23.02.6 detects.
    assert_eq!(name("h200", "1g.18gb", nvml), "nvidia_h200_1g.18gb");
    assert_eq!(name("h200", "3g.71gb", nvml), "nvidia_h200_3g.71gb");
    assert_eq!(
        name("a100-pcie-80gb", "3g.40gb", nvml),
        "nvidia_a100_80gb_pcie_3g.40gb"
    );
    assert_eq!(
        name("h100", "7g.80gb", nvml),
        "nvidia_h100_80gb_hbm3_7g.80gb"
    );
    // NVML keeps the attribute.
    assert_eq!(
        name("a100-80gb", "1g.10gb+me", nvml),
        "nvidia_a100_1g.10gb+me"
    );
    // Before 23.02.6: the rounded memory, no attribute.
    assert_eq!(name("a100-80gb", "3g.40gb", old), "nvidia_a100_3g.39gb");
    assert_eq!(name("a100-80gb", "1g.10gb+me", old), "nvidia_a100_1g.10gb");
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
    assert!(text.contains("Types for slurmd 23.02.6 or later"), "{text}");
}

/// Every profile of every MIG-capable model, under both namings: the Type written is the name
/// slurmd detects for it (so it is a substring of it, SchedMD gres.html: "This type must be a
/// substring of the \"MIG Profile\" string as reported by the node in its slurmd log"), taking
/// for the rounded naming the smallest real listing; and the export writes those types and no
/// other.
#[test]
fn every_catalogued_mig_profile_gets_its_detected_type() {
    for (naming, version) in [
        (MigNaming::NvmlName, None),
        (MigNaming::RoundedMemory, Some("23.02.5")),
    ] {
        for model in models().iter().filter(|m| m.is_mig_capable()) {
            let board = model.smi_names[0];
            let mut specs = Vec::new();
            for (i, p) in model.profiles.iter().enumerate() {
                let t = mig_type(model, p, naming);
                let detected = match naming {
                    MigNaming::NvmlName => slurmd_nvml(board, p.name),
                    MigNaming::RoundedMemory => {
                        let mib = t.real_mib.unwrap_or_else(|| name_gb(p).unwrap() * 1024);
                        slurmd_rounded(board, p.compute_slices, mib)
                    }
                };
                assert_eq!(t.name, detected, "{} {}", model.name, p.name);
                assert!(!t.name.contains(' '), "{}", t.name);
                specs.push(format!("a{i}:{}", p.name));
            }
            let text = plan_text_for(model.name, &specs, version);
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
                    model
                        .profiles
                        .iter()
                        .any(|p| mig_type(model, p, naming).name == ty),
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
}

/// Slurm sorts configured and detected types longest first and gives each device the first
/// unused record whose type is a substring of its name (SchedMD/slurm
/// `src/plugins/gres/gpu/gres_gpu.c`, `_normalize_sys_gres_types`: "Sort conf and sys gres
/// lists by longest GRES type to shortest, so we can avoid issues if e.g. `k20m` and `k20m1` are
/// both specified"; `_find_type_in_gres_list`: `xstrcasestr(sys_gres_type, type_name)`). So a
/// +me instance beside plain ones of its size finds its own record first, and every device
/// written finds one: simulated here on each model's profiles.
#[test]
fn every_detected_device_finds_its_configured_record() {
    for model in models().iter().filter(|m| m.is_mig_capable()) {
        let types: Vec<String> = model
            .profiles
            .iter()
            .map(|p| mig_type(model, p, MigNaming::NvmlName).name)
            .collect();
        // One of each profile, as configured and as detected.
        let mut conf: Vec<(String, u32)> = types.iter().map(|t| (t.clone(), 1)).collect();
        let mut sys = types.clone();
        conf.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
        sys.sort_by_key(|t| std::cmp::Reverse(t.len()));
        for device in &sys {
            let record = conf
                .iter_mut()
                .find(|(t, n)| *n > 0 && device.to_lowercase().contains(&t.to_lowercase()))
                .unwrap_or_else(|| panic!("{}: {device} finds no record", model.name));
            assert_eq!(
                &record.0, device,
                "{}: {device} took another's record",
                model.name
            );
            record.1 -= 1;
        }
    }
}

/// Before 23.02.6 the name rounds the real memory, which differs between drivers: the smallest
/// listing's name is written and the others are said (a B200's 1g.23gb: 20.50 GiB in
/// NVIDIA/mig-parted#187, 22.00 GiB in #166).
#[test]
fn a_detected_name_that_differs_from_the_profile_is_explained() {
    let text = plan_text_for(
        "h200",
        &["x:1g.18gb".into(), "y:3g.71gb".into()],
        Some("23.02.5"),
    );
    assert!(
        text.contains("gpu:nvidia_h200_3g.70gb:1,gpu:nvidia_h200_1g.16gb:1"),
        "{text}"
    );
    assert!(
        text.contains("1g.18gb is detected as nvidia_h200_1g.16gb"),
        "{text}"
    );
    assert!(text.contains("Types for slurmd 23.02.5"), "{text}");
    let text = plan_text_for("b200", &["x:1g.23gb".into()], Some("22.05"));
    assert!(text.contains("gpu:nvidia_b200_1g.21gb:1"), "{text}");
    assert!(text.contains("NVIDIA/mig-parted#166"), "{text}");
    assert!(text.contains("nvidia_b200_1g.22gb instead"), "{text}");
    let text = plan_text_for("b200", &["x:3g.90gb".into()], Some("23.02.0"));
    assert!(
        text.contains("(unverified) 3g.90gb: its real memory was not seen"),
        "{text}"
    );
}

#[test]
fn versions_are_read_and_compared() {
    let v = |s: &str| SlurmVersion::parse(s).unwrap();
    assert_eq!(v("23.02.6"), NVML_MIG_NAMES_SINCE);
    assert_eq!(v("23.02.5").naming(), MigNaming::RoundedMemory);
    assert_eq!(v("23.02").naming(), MigNaming::RoundedMemory);
    assert_eq!(v("23.02.6").naming(), MigNaming::NvmlName);
    assert_eq!(v("23.11").naming(), MigNaming::NvmlName);
    assert_eq!(v("24.11.1").to_string(), "24.11.1");
    for bad in ["", "23", "23.x", "23.02.6.1", "v23.02", "23..1"] {
        assert!(SlurmVersion::parse(bad).is_err(), "{bad}");
    }
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
