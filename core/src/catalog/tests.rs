//! Checks that the catalogue's data obeys the geometry rules it encodes.

use super::*;

#[test]
fn finds_models_by_smi_name_alias_and_canonical_name() {
    for name in [
        "NVIDIA A100-SXM4-40GB",
        "a100-40gb",
        "A100-SXM4-40GB",
        "a100_sxm4_40gb",
    ] {
        assert_eq!(
            find_model(name).map(|m| m.name),
            Some("A100-SXM4-40GB"),
            "{name}"
        );
    }
    assert_eq!(find_model("NVIDIA H200").map(|m| m.name), Some("H200"));
    assert_eq!(find_model("h200").map(|m| m.name), Some("H200"));
    assert_eq!(
        find_model("NVIDIA H100 80GB HBM3").map(|m| m.name),
        Some("H100-80GB-HBM3")
    );
    assert_eq!(find_model("Tesla T4").map(|m| m.name), Some("T4"));
    assert!(find_model("").is_none());
    assert!(find_model("nvidia").is_none());
    let err = require_model("Voodoo 2").unwrap_err();
    assert_eq!(err.kind, ErrorKind::UnknownModel);
    assert!(err.message.contains("A100-SXM4-40GB"));
}

#[test]
fn every_name_is_unique() {
    let mut seen = std::collections::BTreeSet::new();
    for m in models() {
        for n in std::iter::once(m.name)
            .chain(m.smi_names.iter().copied())
            .chain(m.aliases.iter().copied())
        {
            assert!(seen.insert(normalise(n)), "{n} names two models");
        }
    }
}

#[test]
fn every_facts_file_mig_model_is_present() {
    for name in [
        "a30",
        "a100-40gb",
        "a100-80gb",
        "h100-80gb",
        "h100-94gb",
        "h100-96gb",
        "h20",
        "h200",
        "gh200-144gb",
        "b200",
        "gb200",
        "b300",
        "gb300",
        "rtx-pro-6000",
    ] {
        let m = find_model(name).unwrap_or_else(|| panic!("{name} missing"));
        assert!(m.is_mig_capable(), "{name}");
    }
    for name in ["t4", "l4", "l40s", "a10"] {
        assert!(!find_model(name).unwrap().is_mig_capable());
    }
}

#[test]
fn placements_are_aligned_and_inside_the_board() {
    for m in models() {
        let Some(g) = m.mig else {
            assert!(m.profiles.is_empty());
            continue;
        };
        for p in m.profiles {
            assert!(p.memory_slices.is_power_of_two(), "{} {}", m.name, p.name);
            assert!(p.compute_slices <= g.compute_slices);
            assert!(p.max_count >= 1 && !p.starts.is_empty());
            for &s in p.starts {
                assert_eq!(
                    s % p.memory_slices,
                    0,
                    "{} {} start {s} unaligned",
                    m.name,
                    p.name
                );
                assert!(
                    s + p.memory_slices <= g.memory_slices,
                    "{} {} start {s} off the board",
                    m.name,
                    p.name
                );
            }
            let gb: u32 = p
                .name
                .split('.')
                .nth(1)
                .and_then(|r| r.split(['g', '+', '-']).next())
                .and_then(|n| n.parse().ok())
                .unwrap();
            assert!(gb > 0, "{} {}", m.name, p.name);
        }
    }
}

#[test]
fn shares_follow_the_larger_of_compute_and_memory() {
    let a100 = find_model("a100-40gb").unwrap();
    let share = |p: &str| a100.profile_share(a100.profile(p).unwrap());
    assert_eq!(share("1g.5gb"), Share::ratio(1, 7).unwrap());
    assert_eq!(share("1g.10gb"), Share::ratio(1, 4).unwrap());
    assert_eq!(share("2g.10gb"), Share::ratio(2, 7).unwrap());
    assert_eq!(share("3g.20gb"), Share::ratio(1, 2).unwrap());
    assert_eq!(share("4g.20gb"), Share::ratio(4, 7).unwrap());
    assert_eq!(share("7g.40gb"), Share::ONE);
}

#[test]
fn unknown_profile_lists_the_valid_ones() {
    let a100 = find_model("a100-40gb").unwrap();
    let err = a100.require_profile("9g.99gb").unwrap_err();
    assert_eq!(err.kind, ErrorKind::UnknownProfile);
    assert!(
        err.message
            .contains("1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb"),
        "{}",
        err.message
    );
    assert!(find_model("t4")
        .unwrap()
        .require_profile("1g.5gb")
        .unwrap_err()
        .message
        .contains("no MIG"));
}

#[test]
fn profiles_identify_models() {
    let only_a100: Vec<_> = models_with_profiles(["1g.5gb"])
        .iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(only_a100, ["A100-SXM4-40GB", "A100-PCIE-40GB"]);
    let h200: Vec<_> = models_with_profiles(["3g.71gb"])
        .iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(h200, ["H200", "H200-NVL"]);
    assert!(models_with_profiles(["3g.40gb"]).len() > 1);
}

#[test]
fn multiprocessor_tables_name_catalogue_profiles() {
    for t in models::MIG_MULTIPROCESSORS {
        let m = find_model(t.board).unwrap_or_else(|| panic!("{} is no catalogue model", t.board));
        for (p, n) in t.profiles {
            assert!(m.profile(p).is_some(), "{}: {p}", t.board);
            assert!(*n > 0, "{}: {p}", t.board);
        }
        assert_eq!(mig_multiprocessors(t.board), Some(t));
        // Found by another spelling too, and by no other table's name: the exact-match shortcut
        // in `mig_multiprocessors` relies on that.
        let spelled = t.board.to_uppercase().replace(' ', "_");
        assert_eq!(mig_multiprocessors(&spelled), Some(t), "{spelled}");
        let others = models::MIG_MULTIPROCESSORS
            .iter()
            .filter(|o| o.board != t.board);
        for o in others {
            assert_ne!(
                mig_multiprocessors(o.board),
                Some(t),
                "{} and {}",
                o.board,
                t.board
            );
        }
    }
    // Two boards of one profile table: the H100 SXM and PCIe differ in SMs (docs/hardware-facts.md
    // §1.3), so they are two models, each with its own table.
    let sxm = mig_multiprocessors("NVIDIA H100 80GB HBM3").unwrap();
    let pcie = mig_multiprocessors("nvidia h100 pcie").unwrap();
    assert_eq!(
        (sxm.of("1g.10gb"), pcie.of("1g.10gb")),
        (Some(16), Some(14))
    );
    assert_eq!(
        (
            find_model(sxm.board).map(|m| m.name),
            find_model(pcie.board).map(|m| m.name)
        ),
        (Some("H100-80GB-HBM3"), Some("H100-PCIe"))
    );
    assert!(mig_multiprocessors("NVIDIA").is_none());
    assert!(mig_multiprocessors("Tesla T4").is_none());
}

/// Each board carries its own default power limit (docs/hardware-facts.md §7): a PCIe or NVL board
/// is its own model, found by its nvidia-smi name and short names, with the profile table of its
/// SXM sibling.
#[test]
fn pcie_and_nvl_boards_carry_their_own_power() {
    // (nvidia-smi name, model, watts), each figure from its source:
    let boards = [
        // NVIDIA/k8s-test-infra qx-a100.xml: `<default_power_limit>400.00 W</default_power_limit>`.
        ("NVIDIA A100-SXM4-40GB", "A100-SXM4-40GB", 400),
        // A real nvidia-smi table of two A100-PCIE-40GB (mahendrapaipuri/ceems docs, driver
        // 535.129.03): `| N/A   28C    P0              31W / 250W |     50MiB / 40960MiB |`.
        ("NVIDIA A100-PCIE-40GB", "A100-PCIE-40GB", 250),
        // Real nvidia-smi tables of A100 80GB PCIe boards: `45W /  300W |       0MiB /  81920MiB`.
        ("NVIDIA A100 80GB PCIe", "A100-80GB-PCIe", 300),
        // utkuozdemir/nvidia_gpu_exporter's H100 capture: `Default Power Limit : 700.00 W`.
        ("NVIDIA H100 80GB HBM3", "H100-80GB-HBM3", 700),
        // NVIDIA H100 PCIe product brief PB-11133-001_v02: "operates unconstrained up to its
        // maximum thermal design power (TDP) level of 350 W"; real tables: `46W /  350W`.
        ("NVIDIA H100 PCIe", "H100-PCIe", 350),
        // utkuozdemir/nvidia_gpu_exporter's H200 capture: `Default Power Limit : 700.00 W`.
        ("NVIDIA H200", "H200", 700),
        // A real nvidia-smi table of an H200 NVL: `78W /  600W |     741MiB / 143771MiB`.
        ("NVIDIA H200 NVL", "H200-NVL", 600),
        // leptonai/gpud e2e/mock/nvidia-smi/test_data.go (nvidia-smi -q of an A10, driver
        // 550.127.05): `Default Power Limit : 150.00 W`.
        ("NVIDIA A10", "A10", 150),
    ];
    for (smi, name, watts) in boards {
        let m = find_model(smi).unwrap_or_else(|| panic!("{smi}"));
        assert_eq!((m.name, m.power_limit_w), (name, Some(watts)), "{smi}");
    }
    for (alias, name) in [
        ("A100-PCIE-40GB", "A100-PCIE-40GB"),
        ("a100-pcie-80gb", "A100-80GB-PCIe"),
        ("H100-PCIe", "H100-PCIe"),
        ("h200-nvl", "H200-NVL"),
    ] {
        assert_eq!(find_model(alias).map(|m| m.name), Some(name), "{alias}");
    }
    // Siblings share the profile table and placements.
    for (sxm, pcie) in [
        ("A100-SXM4-40GB", "A100-PCIE-40GB"),
        ("A100-SXM4-80GB", "A100-80GB-PCIe"),
        ("H100-80GB-HBM3", "H100-PCIe"),
        ("H200", "H200-NVL"),
    ] {
        let (a, b) = (find_model(sxm).unwrap(), find_model(pcie).unwrap());
        assert_eq!((a.mig, a.profiles), (b.mig, b.profiles), "{pcie}");
        assert_ne!(a.power_limit_w, b.power_limit_w, "{pcie}");
    }
}

/// A model's nvidia-smi names are one board's: no two of them have different SM tables, so a
/// model's per-profile SMs are well defined.
#[test]
fn a_model_has_at_most_one_sm_table() {
    for m in models() {
        let tables: Vec<&str> = m
            .smi_names
            .iter()
            .filter_map(|n| mig_multiprocessors(n))
            .map(|t| t.board)
            .collect();
        assert!(tables.len() <= 1, "{}: {tables:?}", m.name);
    }
}

#[test]
fn the_nearest_profile_keeps_compute_then_memory_and_the_engine_tail() {
    let a100_40 = find_model("A100-40GB").unwrap();
    let a100_80 = find_model("A100-80GB").unwrap();
    let a30 = find_model("A30").unwrap();
    let near = |m: &GpuModel, p: &str| m.nearest_profile(p).map(|p| p.name);
    // A profile the model has is its own nearest.
    for p in a100_40.profiles {
        assert_eq!(near(a100_40, p.name), Some(p.name));
    }
    assert_eq!(near(a100_40, "3g.40gb"), Some("3g.20gb"));
    assert_eq!(near(a100_80, "3g.20gb"), Some("3g.40gb"));
    assert_eq!(near(a100_40, "1g.10gb+me"), Some("1g.5gb+me"));
    // The A30 has 1, 2 and 4 compute slices: 3g goes up to 4g, 7g down to 4g.
    assert_eq!(near(a30, "3g.40gb"), Some("4g.24gb"));
    assert_eq!(near(a30, "7g.80gb"), Some("4g.24gb"));
    assert_eq!(near(a100_40, "half"), None);
    assert_eq!(near(find_model("T4").unwrap(), "1g.5gb"), None);
}

/// Every listing names a MIG-capable catalogue model and sizes its profiles have
/// (docs/hardware-facts.md §1.6).
#[test]
fn every_listing_is_of_a_catalogued_board_and_size() {
    for l in listings::LISTINGS {
        let m = models()
            .iter()
            .find(|m| m.name == l.model)
            .unwrap_or_else(|| panic!("{} is no catalogue model", l.model));
        assert!(m.is_mig_capable(), "{}", l.model);
        assert!(!l.sizes.is_empty() && !l.source.is_empty(), "{}", l.model);
        for (k, listed) in l.sizes {
            assert!(
                m.profiles.iter().any(|p| p.memory_slices == *k),
                "{}: no profile of {k} memory slices",
                l.model
            );
            assert!(listed.floor_mib() > 0, "{}", l.model);
        }
    }
}

/// gpu-share#55 items 2–4: where drivers list different memory, the catalogue offers the smallest,
/// so no plan promises more than some driver gives. Each figure from its listing:
/// B200 1g.23gb 22.00 GiB (NVIDIA/mig-parted#166) and 20.50 GiB (#187, gpu-operator#1351);
/// GB200 1g.23gb 22.00 GiB (mig-parted#227) and 20.00 GiB as an HGX GB200's 1g.24gb
/// (gpu-operator#1303); H200 16.00 / 32.25 / 69.50 GiB (mig-parted#120) against 16384 / 33280 /
/// 71424 MiB devices (nvidia_gpu_exporter's H200 capture, driver 590.48.01); A100-40GB 9.62 / 19.50
/// / 39.25 GiB (the MIG User Guide's -lgip) against 9.75 / 19.62 / 39.50 (driver 580.126.09);
/// GH200 144GB 1g.18gb 17.50 GiB (mig-parted#139); RTX PRO 6000 1g.24gb 23.12 GiB
/// (bigstack-oss/cubecos#312) against 23.62 (container-engine-accelerators#564).
#[test]
fn instance_memory_is_the_smallest_listing() {
    let mib = |m: &str, p: &str| {
        let model = find_model(m).unwrap();
        model.profile_memory(model.profile(p).unwrap())
    };
    let known = |m: &str, p: &str| {
        let u = mib(m, p);
        assert_eq!(u.certainty, Certainty::Known, "{m} {p}");
        u.mib
    };
    assert_eq!(known("B200", "1g.23gb"), 20992); // 20.50 GiB
    assert_eq!(known("B200", "1g.23gb+me"), 20992);
    assert_eq!(known("B200", "2g.45gb"), 45312); // 44.25 GiB
    assert_eq!(known("GB200", "1g.23gb"), 20480); // 20.00 GiB
    assert_eq!(known("H200", "1g.18gb"), 16384);
    assert_eq!(known("H200", "2g.35gb"), 33024); // 32.25 GiB, below the 33280 MiB device
    assert_eq!(known("H200", "4g.71gb"), 71168); // 69.50 GiB, below 71424
    assert_eq!(known("A100-SXM4-40GB", "2g.10gb"), 9850); // 9.62 GiB rounded down
    assert_eq!(known("A100-SXM4-40GB", "3g.20gb"), 19968);
    assert_eq!(known("A100-SXM4-40GB", "7g.40gb"), 40192);
    assert_eq!(known("GH200-144GB", "1g.18gb"), 17920);
    assert_eq!(known("RTX-PRO-6000-Blackwell", "1g.24gb"), 23674); // 23.12 GiB
                                                                   // A printed figure the exact device of the same board prints as adds nothing lower: the H100
                                                                   // NVL's 1g.12gb is 11008 MiB (10.75 GiB), the A30's 1g.6gb 5952 MiB (5.81 GiB).
    assert_eq!(known("H100-NVL", "1g.12gb"), 11008);
    assert_eq!(known("A30", "1g.6gb"), 5952);
    for m in models() {
        for p in m.profiles {
            let offered = m.profile_memory(p).mib;
            for l in m.instance_listings(p.memory_slices) {
                assert!(
                    offered <= l.listed.floor_mib().max(l.mib),
                    "{} {}",
                    m.name,
                    p.name
                );
                assert!(offered <= l.mib, "{} {}", m.name, p.name);
            }
        }
    }
}

/// gpu-share#55 item 2: the estimate for a size no listing shows is at or below every listing of
/// the same share of memory on every board, scaled to the board (so on a listed board, at or below
/// its own listing), and marked estimated. The old fallback, the profile name's GB in SI units,
/// was above three real listings of the table (H100 NVL 1g.12gb 11008 MiB < 11444; GH200 96GB
/// 1g.12gb 11264; H200 1g.18gb 16384 < 17166).
#[test]
fn the_estimate_is_below_every_listing_of_its_share() {
    for board in models().iter().filter(|m| m.is_mig_capable()) {
        for p in board.profiles {
            for l in board.instance_listings(p.memory_slices) {
                let share = (p.memory_slices, board.mig.unwrap().memory_slices);
                for m in models().iter().filter(|m| m.is_mig_capable()) {
                    let g = m.mig.unwrap();
                    for q in m.profiles.iter().filter(|q| {
                        u32::from(q.memory_slices) * u32::from(share.1)
                            == u32::from(share.0) * u32::from(g.memory_slices)
                    }) {
                        let estimate = m.estimated_instance_mib(q.memory_slices).unwrap();
                        let scaled = u128::from(l.mib) * u128::from(m.memory_mib)
                            / u128::from(board.memory_mib);
                        assert!(
                            u128::from(estimate) <= scaled,
                            "{} {}: {estimate} above {} {} scaled ({scaled})",
                            m.name,
                            q.name,
                            board.name,
                            p.name
                        );
                    }
                }
            }
        }
    }
    let h200_nvl = find_model("H200-NVL").unwrap();
    let one = h200_nvl.profile_memory(h200_nvl.profile("1g.18gb").unwrap());
    assert!(one.mib < 16384, "{one:?}");
    assert_eq!(one.certainty, Certainty::Uncertain(ESTIMATED));
    let si = |gb: u64| gb * 1_000_000_000 / crate::memory::MIB;
    assert!(si(12) > 11008 && si(18) > 16384);
}
