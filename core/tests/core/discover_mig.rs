//! Discovery of MIG instances as they are, on a real H200 capture with MIG and on `nvidia-smi mig -lgi` /
//! `-lci` output: GPU instances with their compute instances, names from the board's SM counts, placements
//! and GPU instance IDs, and how the formats merge. (The other formats: `discover.rs`.)

use gpu_share_core::internals::discover::{detect, detect_all, DiscoveredGpu, SourceFormat};

use crate::common::only_gpu;

/// Sections of a real capture on an NVIDIA H200 with MIG, driver 590.48.01: utkuozdemir/nvidia_gpu_exporter,
/// `internal/captures/linux-x86_64__nvidia-h200-mig__590.48.01.txt` at commit 0eee0d31 (MIT), quoted unchanged:
/// its `nvidia-smi -L` section and the summary table of its `nvidia-smi` section (without the date line and the
/// processes block). GPU instance 2 holds two compute instances, CI 0 and CI 1; the other three hold one each.
const H200_LIST: &str = "\
GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)
  MIG 1c.3g.71gb  Device  0: (UUID: MIG-00000000-0000-0000-0000-000000000000)
  MIG 2c.3g.71gb  Device  1: (UUID: MIG-00000001-0000-0000-0000-000000000001)
  MIG 2g.35gb     Device  2: (UUID: MIG-00000002-0000-0000-0000-000000000002)
  MIG 1g.18gb     Device  3: (UUID: MIG-00000003-0000-0000-0000-000000000003)
  MIG 1g.18gb     Device  4: (UUID: MIG-00000004-0000-0000-0000-000000000004)
";
const H200_TABLE: &str = "\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 590.48.01              Driver Version: 590.48.01      CUDA Version: 13.1     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA H200                    On  |   00000000:83:00.0 Off |                   On |
| N/A   28C    P0             78W /  700W |      55MiB / 143771MiB |     N/A      Default |
|                                         |                        |              Enabled |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| MIG devices:                                                                            |
+------------------+----------------------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |
|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |
|                  |                                  |        ECC|                       |
|==================+==================================+===========+=======================|
|  0    2   0   0  |              22MiB / 71424MiB    | 16      0 |  3   0    3    0    3 |
|                  |               0MiB / 59237MiB    |           |                       |
+------------------+----------------------------------+-----------+-----------------------+
|  0    2   1   1  |              22MiB / 71424MiB    | 32      0 |  3   0    3    0    3 |
|                  |               0MiB / 59237MiB    |           |                       |
+------------------+----------------------------------+-----------+-----------------------+
|  0    3   0   2  |              17MiB / 33280MiB    | 32      0 |  2   0    2    0    2 |
|                  |               0MiB / 29618MiB    |           |                       |
+------------------+----------------------------------+-----------+-----------------------+
|  0    9   0   3  |               9MiB / 16384MiB    | 16      0 |  1   0    1    0    1 |
|                  |               0MiB / 14809MiB    |           |                       |
+------------------+----------------------------------+-----------+-----------------------+
|  0   10   0   4  |               9MiB / 16384MiB    | 16      0 |  1   0    1    0    1 |
|                  |               0MiB / 14809MiB    |           |                       |
+------------------+----------------------------------+-----------+-----------------------+
";

/// The H200 capture's two sections as one capture, each under its banner.
fn h200_capture() -> String {
    format!("# $ nvidia-smi -L\n{H200_LIST}\n# $ nvidia-smi\n{H200_TABLE}")
}

/// GPU instances as (profile, GPU instance ID, compute instances as (name, device index)).
type Gi<'a> = (&'a str, Option<u32>, Vec<(Option<&'a str>, Option<u32>)>);

fn instances(g: &DiscoveredGpu) -> Vec<Gi<'_>> {
    g.mig_devices
        .iter()
        .map(|d| {
            (
                d.profile.as_str(),
                d.gpu_instance_id,
                d.compute_instances
                    .iter()
                    .map(|c| (c.profile.as_deref(), c.device_index))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn compute_instances_of_one_gpu_instance_are_one_gpu_instance() {
    // NVIDIA's MIG User Guide, "MIG Device Names": "By default, a MIG device consists of a single
    // 'GPU Instance' and a single 'Compute Instance'" and "When only a single CI is created (that
    // consumes the entire compute capacity of the GI), then the CI sizing is implied in the device
    // name"; "Each GI can be further sub-divided into multiple CIs", named e.g. 1c.3g.20gb and
    // 2c.3g.20gb for compute instances of 1 and 2 slices of one 3g.20gb GPU instance. So the capture's
    // `1c.3g.71gb` and `2c.3g.71gb` are one 3g.71gb GPU instance (4 of the 8 memory slices), not two.
    let g = only_gpu(H200_LIST);
    assert_eq!(
        instances(&g),
        [
            (
                "3g.71gb",
                None,
                vec![(Some("1c.3g.71gb"), Some(0)), (Some("2c.3g.71gb"), Some(1))]
            ),
            ("2g.35gb", None, vec![(Some("2g.35gb"), Some(2))]),
            ("1g.18gb", None, vec![(Some("1g.18gb"), Some(3))]),
            ("1g.18gb", None, vec![(Some("1g.18gb"), Some(4))]),
        ]
    );
    // 4 + 2 + 1 + 1 memory slices of the H200's 8.
    let h200 = gpu_share_core::internals::catalog::find_model("H200").unwrap();
    let slices: u32 = g
        .mig_devices
        .iter()
        .map(|d| u32::from(h200.profile(&d.profile).unwrap().memory_slices))
        .sum();
    assert_eq!(slices, 8);
    let inv = detect(H200_LIST).unwrap();
    assert!(
        inv.notes.iter().any(|n| n.contains("1c.3g.71gb (device 0) and 2c.3g.71gb (device 1) are compute instances of one 3g.71gb GPU instance")),
        "{:?}",
        inv.notes
    );

    // Two full-size compute instances are two GPU instances, and compute slices that do not fit
    // in one GPU instance start another: 2c + 2c > 3.
    let two = "GPU 0: NVIDIA H200 (UUID: GPU-0)\n  MIG 2c.3g.71gb Device 0: (UUID: MIG-0)\n  MIG 2c.3g.71gb Device 1: (UUID: MIG-1)\n";
    assert_eq!(only_gpu(two).mig_devices.len(), 2);
}

#[test]
fn the_table_groups_compute_instances_by_gpu_instance_id() {
    // The table's "MIG devices" block has one row per compute instance, with its GI ID and CI ID.
    let g = only_gpu(H200_TABLE);
    type Ids = (Option<u32>, Vec<(Option<u32>, Option<u32>, Option<u32>)>);
    let ids: Vec<Ids> = g
        .mig_devices
        .iter()
        .map(|d| {
            (
                d.gpu_instance_id,
                d.compute_instances
                    .iter()
                    .map(|c| (c.compute_instance_id, c.device_index, c.multiprocessors))
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            (
                Some(2),
                vec![(Some(0), Some(0), Some(16)), (Some(1), Some(1), Some(32))]
            ),
            (Some(3), vec![(Some(0), Some(2), Some(32))]),
            (Some(9), vec![(Some(0), Some(3), Some(16))]),
            (Some(10), vec![(Some(0), Some(4), Some(16))]),
        ]
    );
    assert_eq!(g.mig_devices[0].memory_mib, Some(71424));
    // With -L in the same capture, the names come from -L, matched by MIG device index.
    let g = only_gpu(&h200_capture());
    assert_eq!(
        instances(&g),
        [
            (
                "3g.71gb",
                Some(2),
                vec![(Some("1c.3g.71gb"), Some(0)), (Some("2c.3g.71gb"), Some(1))]
            ),
            ("2g.35gb", Some(3), vec![(Some("2g.35gb"), Some(2))]),
            ("1g.18gb", Some(9), vec![(Some("1g.18gb"), Some(3))]),
            ("1g.18gb", Some(10), vec![(Some("1g.18gb"), Some(4))]),
        ]
    );
}

#[test]
fn table_devices_are_named_from_the_boards_sm_counts_or_not_at_all() {
    // The H200 table alone: GPU instance 3 shows 33280 MiB (2 of 8 memory slices: 1g.35gb or 2g.35gb)
    // and 32 SMs. `nvidia-smi mig -lgip` on an H200 (NVIDIA/mig-parted#120) lists
    // `MIG 1g.35gb  15  4/4  32.25  No  26` and `MIG 2g.35gb  14  3/3  32.25  No  32`: 32 SMs is 2g.35gb.
    let inv = detect(H200_TABLE).unwrap();
    let g = &inv.gpus[0];
    let profiles: Vec<(&str, Option<u32>)> = g
        .mig_devices
        .iter()
        .map(|d| (d.profile.as_str(), d.gpu_instance_id))
        .collect();
    // GPU instance 2 shows 71424 MiB (3g.71gb or 4g.71gb, 60 or 64 SMs) through two compute
    // instances of 16 and 32 SMs: the table cannot tell which, so it is not guessed.
    assert_eq!(
        profiles,
        [
            ("unknown", Some(2)),
            ("2g.35gb", Some(3)),
            ("1g.18gb", Some(9)),
            ("1g.18gb", Some(10))
        ]
    );
    let notes = inv.notes.join("\n");
    assert!(
        notes.contains("GPU 0 GPU instance 2: profile unknown, not guessed: 71424 MiB fits 3g.71gb or 4g.71gb; it holds 2 compute instances (16 + 32 SMs)"),
        "{notes}"
    );
    assert!(!notes.contains("; assumed"), "{notes}");

    // An H100 PCIe has other SM counts than the SXM board of the same profile table: a real
    // `nvidia-smi mig -lgip` on one (driver 570.169, public notes) lists `MIG 1g.20gb  15  4/4  19.62
    // No  14` and `MIG 2g.20gb  14  3/3  19.62  No  30`, where the SXM's (stackhpc/ansible-slurm-appliance)
    // has 26 and 32. A table in the format of that capture's (its header and GPU row, with one
    // 2g.20gb row written by hand, 20096 MiB as in the H100 capture's table):
    let pcie = "\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.169                Driver Version: 570.169        CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA H100 PCIe               Off |   00000000:01:00.0 Off |                   On |
| N/A   40C    P0             54W /  350W |     102MiB /  81559MiB |     N/A      Default |
|                                         |                        |              Enabled |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| MIG devices:                                                                            |
+------------------+----------------------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |                     Memory-Usage |        Vol|        Shared         |
|      ID  ID  Dev |                       BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |
|                  |                                  |        ECC|                       |
|==================+==================================+===========+=======================|
|  0    3   0   0  |              15MiB / 20096MiB    | 30      0 |  2   0    2    0    2 |
|                  |                 0MiB / 32767MiB  |           |                       |
+------------------+----------------------------------+-----------+-----------------------+
";
    let inv = detect(pcie).unwrap();
    assert_eq!(inv.gpus[0].model.as_deref(), Some("H100-PCIe"));
    assert_eq!(inv.gpus[0].mig_devices[0].profile, "2g.20gb");
    // Its counts come from one capture whose repository is unknown: the note says so.
    assert!(
        inv.notes
            .iter()
            .any(|n| n.contains("named 2g.20gb from its 30 SMs") && n.contains("uncertain")),
        "{:?}",
        inv.notes
    );
    // The same row on the SXM board matches none of its counts (26, 32): not guessed.
    let sxm = pcie.replace("NVIDIA H100 PCIe   ", "NVIDIA H100 80GB HBM3");
    let inv = detect(&sxm).unwrap();
    assert_eq!(inv.gpus[0].mig_devices[0].profile, "unknown");
}

/// `nvidia-smi mig -lgi -i 3` as quoted in kubernetes-sigs/dra-driver-nvidia-gpu#933 (real output, three 1g.10gb
/// GPU instances on GPU 3).
const LGI_DRA_933: &str = "\
+---------------------------------------------------------+
| GPU instances:                                          |
| GPU   Name               Profile  Instance   Placement  |
|                            ID       ID       Start:Size |
|=========================================================|
|   3  MIG 1g.10gb           19        7          0:1     |
+---------------------------------------------------------+
|   3  MIG 1g.10gb           19        8          1:1     |
+---------------------------------------------------------+
|   3  MIG 1g.10gb           19       12          5:1     |
+---------------------------------------------------------+
";

#[test]
fn lgi_gives_each_gpu_instance_its_placement_and_id() {
    // NVML: a placement is "Index of first occupied memory slice" and "Number of memory slices occupied"
    // (nvmlGpuInstancePlacement_t); `nvidia-smi mig -lgi` prints it as `Placement Start:Size` beside the
    // GPU index as nvidia-smi numbers it and the GPU instance ID. Real output from
    // kubernetes-sigs/dra-driver-nvidia-gpu#933: GPU 3 holds 1g.10gb instances 7, 8 and 12 at 0:1, 1:1, 5:1.
    let inv = detect(LGI_DRA_933).unwrap();
    assert_eq!(inv.sources, vec![SourceFormat::SmiMigGpuInstances]);
    let g = &inv.gpus[0];
    assert_eq!(inv.gpus.len(), 1);
    assert_eq!(g.index, 3);
    assert!(g.mig_enabled);
    let gis: Vec<(&str, Option<u8>, Option<u32>)> = g
        .mig_devices
        .iter()
        .map(|d| (d.profile.as_str(), d.start, d.gpu_instance_id))
        .collect();
    assert_eq!(
        gis,
        [
            ("1g.10gb", Some(0), Some(7)),
            ("1g.10gb", Some(1), Some(8)),
            ("1g.10gb", Some(5), Some(12))
        ]
    );
    // -lgi names no GPU model, and 1g.10gb is a profile of several: said, not guessed.
    assert_eq!(g.model, None);
    assert!(
        inv.notes
            .iter()
            .any(|n| n.contains("GPU 3: the input does not name the GPU")),
        "{:?}",
        inv.notes
    );

    // The same layout in real output quoted in NVIDIA/DCGM#138 (two GPUs, instances not in ID order).
    let dcgm = "\
+-------------------------------------------------------+
| GPU instances:                                        |
| GPU   Name             Profile  Instance   Placement  |
|                          ID       ID       Start:Size |
|=======================================================|
|   0  MIG 1g.10gb         19        9          2:1     |
+-------------------------------------------------------+
|   0  MIG 1g.10gb         19       10          3:1     |
+-------------------------------------------------------+
|   0  MIG 2g.20gb         14        3          0:2     |
+-------------------------------------------------------+
|   0  MIG 3g.40gb          9        2          4:4     |
+-------------------------------------------------------+
|   1  MIG 1g.10gb         19       13          2:1     |
+-------------------------------------------------------+
|   1  MIG 1g.10gb         19       14          3:1     |
+-------------------------------------------------------+
|   1  MIG 2g.20gb         14        5          0:2     |
+-------------------------------------------------------+
|   1  MIG 3g.40gb          9        1          4:4     |
+-------------------------------------------------------+
";
    let inv = detect(dcgm).unwrap();
    type Layout<'a> = (u64, Vec<(&'a str, Option<u8>, Option<u32>)>);
    let layout: Vec<Layout> = inv
        .gpus
        .iter()
        .map(|g| {
            (
                g.index,
                g.mig_devices
                    .iter()
                    .map(|d| (d.profile.as_str(), d.start, d.gpu_instance_id))
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        layout,
        [
            (
                0,
                vec![
                    ("1g.10gb", Some(2), Some(9)),
                    ("1g.10gb", Some(3), Some(10)),
                    ("2g.20gb", Some(0), Some(3)),
                    ("3g.40gb", Some(4), Some(2))
                ]
            ),
            (
                1,
                vec![
                    ("1g.10gb", Some(2), Some(13)),
                    ("1g.10gb", Some(3), Some(14)),
                    ("2g.20gb", Some(0), Some(5)),
                    ("3g.40gb", Some(4), Some(1))
                ]
            )
        ]
    );
}

/// `nvidia-smi mig -lgi` and `-lci` for the H200 MIG capture's GPU instances, written by hand in the format of
/// the real outputs quoted in NVIDIA/DCGM#138 (-lgi; its GPU 0 has GPU instances 9, 10, 3 and 2 of sizes 1, 1, 2
/// and 4 at 2:1, 3:1, 0:2 and 4:4, the IDs the H200 capture's table shows) and in NVIDIA's MIG User Guide
/// ("Getting Started": `nvidia-smi mig -lci`, here with the `Placement Start:Size` column newer drivers add,
/// as in real output on an A100-SXM4-40GB, driver 580.126.09, in a public blog post). The -lci placements are
/// compute slices within each GPU instance.
const H200_LGI: &str = "\
+---------------------------------------------------------+
| GPU instances:                                          |
| GPU   Name               Profile  Instance   Placement  |
|                            ID       ID       Start:Size |
|=========================================================|
|   0  MIG 1g.18gb           19        9          2:1     |
+---------------------------------------------------------+
|   0  MIG 1g.18gb           19       10          3:1     |
+---------------------------------------------------------+
|   0  MIG 2g.35gb           14        3          0:2     |
+---------------------------------------------------------+
|   0  MIG 3g.71gb            9        2          4:4     |
+---------------------------------------------------------+
";
const H200_LCI: &str = "\
+--------------------------------------------------------------------+
| Compute instances:                                                 |
| GPU     GPU       Name             Profile   Instance   Placement  |
|       Instance                       ID        ID       Start:Size |
|         ID                                                         |
|====================================================================|
|   0      9       MIG 1g.18gb          0         0          0:1     |
+--------------------------------------------------------------------+
|   0     10       MIG 1g.18gb          0         0          0:1     |
+--------------------------------------------------------------------+
|   0      3       MIG 2g.35gb          1         0          0:2     |
+--------------------------------------------------------------------+
|   0      2       MIG 1c.3g.71gb       0         0          0:1     |
+--------------------------------------------------------------------+
|   0      2       MIG 2c.3g.71gb       1         1          1:2     |
+--------------------------------------------------------------------+
";

/// GPU instances as (profile, start, GPU instance ID, compute instances as (name, device index, start)).
type Placed<'a> = (
    &'a str,
    Option<u8>,
    Option<u32>,
    Vec<(Option<&'a str>, Option<u32>, Option<u8>)>,
);

fn placed(g: &DiscoveredGpu) -> Vec<Placed<'_>> {
    g.mig_devices
        .iter()
        .map(|d| {
            (
                d.profile.as_str(),
                d.start,
                d.gpu_instance_id,
                d.compute_instances
                    .iter()
                    .map(|c| (c.profile.as_deref(), c.device_index, c.start))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn lgi_and_lci_merge_with_the_other_formats() {
    // Table + -L + -lgi + -lci in one capture: GPU instances by ID from the table, names from -L, placements
    // from -lgi, compute instance placements from -lci (matched by GPU and compute instance IDs).
    let capture = format!(
        "{}\n# $ nvidia-smi mig -lgi\n{H200_LGI}\n# $ nvidia-smi mig -lci\n{H200_LCI}",
        h200_capture()
    );
    let inv = detect(&capture).unwrap();
    assert_eq!(
        inv.sources,
        vec![
            SourceFormat::SmiTable,
            SourceFormat::SmiList,
            SourceFormat::SmiMigGpuInstances,
            SourceFormat::SmiMigComputeInstances
        ]
    );
    let g = &inv.gpus[0];
    assert_eq!(g.model.as_deref(), Some("H200"));
    let expected: Vec<Placed> = vec![
        (
            "3g.71gb",
            Some(4),
            Some(2),
            vec![
                (Some("1c.3g.71gb"), Some(0), Some(0)),
                (Some("2c.3g.71gb"), Some(1), Some(1)),
            ],
        ),
        (
            "2g.35gb",
            Some(0),
            Some(3),
            vec![(Some("2g.35gb"), Some(2), Some(0))],
        ),
        (
            "1g.18gb",
            Some(2),
            Some(9),
            vec![(Some("1g.18gb"), Some(3), Some(0))],
        ),
        (
            "1g.18gb",
            Some(3),
            Some(10),
            vec![(Some("1g.18gb"), Some(4), Some(0))],
        ),
    ];
    assert_eq!(placed(g), expected);
    assert_eq!(g.mig_devices[0].memory_mib, Some(71424));

    // -L + -lgi (no IDs in -L): paired in order — MIG devices are numbered by GPU instance ID — because
    // the profiles agree; the note says so.
    let inv = detect_all(&[H200_LIST, H200_LGI]).unwrap();
    let g = &inv.gpus[0];
    let gis: Vec<(&str, Option<u8>, Option<u32>)> = g
        .mig_devices
        .iter()
        .map(|d| (d.profile.as_str(), d.start, d.gpu_instance_id))
        .collect();
    assert_eq!(
        inv.gpus.len(),
        2,
        "two inputs are two machines unless one capture holds both"
    );
    let merged = format!("# $ nvidia-smi -L\n{H200_LIST}\n# $ nvidia-smi mig -lgi\n{H200_LGI}");
    let inv = detect(&merged).unwrap();
    let g = &inv.gpus[0];
    let gis_merged: Vec<(&str, Option<u8>, Option<u32>)> = g
        .mig_devices
        .iter()
        .map(|d| (d.profile.as_str(), d.start, d.gpu_instance_id))
        .collect();
    assert_eq!(
        gis_merged,
        [
            ("3g.71gb", Some(4), Some(2)),
            ("2g.35gb", Some(0), Some(3)),
            ("1g.18gb", Some(2), Some(9)),
            ("1g.18gb", Some(3), Some(10))
        ]
    );
    assert!(gis.iter().all(|(_, start, _)| start.is_none()));
    assert!(
        inv.notes
            .iter()
            .any(|n| n.contains("paired with the GPU instances of nvidia-smi mig -lgi in order")),
        "{:?}",
        inv.notes
    );
    // -L + -lci: paired in order too, by names.
    let merged = format!("# $ nvidia-smi -L\n{H200_LIST}\n# $ nvidia-smi mig -lci\n{H200_LCI}");
    let g = only_gpu(&merged);
    assert_eq!(
        g.mig_devices
            .iter()
            .map(|d| (
                d.profile.as_str(),
                d.gpu_instance_id,
                d.compute_instances.len()
            ))
            .collect::<Vec<_>>(),
        [
            ("3g.71gb", Some(2), 2),
            ("2g.35gb", Some(3), 1),
            ("1g.18gb", Some(9), 1),
            ("1g.18gb", Some(10), 1)
        ]
    );

    // -lgi alone: the H200's profile names are its own and its NVL board's, so the model follows
    // from them, the first of the two, and the note names both.
    let inv = detect(H200_LGI).unwrap();
    assert_eq!(inv.gpus[0].model.as_deref(), Some("H200"));
    assert!(
        inv.notes.iter().any(|n| n.contains(
            "only H200 and H200-NVL (the same profiles) have MIG profiles 1g.18gb, 2g.35gb, 3g.71gb, so it is taken to be H200"
        )),
        "{:?}",
        inv.notes
    );
    // A placement the catalogue does not allow is noted (3g starts at 0 or 4).
    let odd = H200_LGI.replace("4:4     |", "2:4     |");
    let inv = detect(&odd).unwrap();
    assert!(
        inv.notes
            .iter()
            .any(|n| n
                .contains("places 3g.71gb at 2:4, where the catalogue for H200 allows {0,4}:4")),
        "{:?}",
        inv.notes
    );
    // A malformed placement is an error with its line and column.
    let bad = H200_LGI.replace("0:2     |", "0-2     |");
    let e = detect(&bad).unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (Some(10), Some("Placement")));
}
