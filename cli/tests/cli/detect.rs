//! `gpu-share detect` and `--caps-from` end to end, on the real captures in tests/fixtures/nvidia-smi.

use crate::common::{gpu_share, json, no_ledger, stdout};
use predicates::str::contains;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/nvidia-smi/");

fn fixture(name: &str) -> String {
    format!("{FIXTURES}{name}")
}

/// What one fixture holds: its GPUs, their model and MIG state, and GPU 0's MIG device profiles.
struct Expected {
    file: &'static str,
    count: usize,
    model: &'static str,
    capable: bool,
    enabled: bool,
    devices: &'static [&'static str],
}

const fn expect(
    file: &'static str,
    count: usize,
    model: &'static str,
    capable: bool,
    enabled: bool,
    devices: &'static [&'static str],
) -> Expected {
    Expected {
        file,
        count,
        model,
        capable,
        enabled,
        devices,
    }
}

const EXPECTED: &[Expected] = &[
    expect("qx-a100.xml", 1, "A100-SXM4-40GB", true, false, &[]),
    expect("qx-h100.xml", 8, "H100-80GB-HBM3", true, false, &[]),
    expect("qx-l40s.xml", 1, "L40S", false, false, &[]),
    expect("qx-t4.xml", 1, "T4", false, false, &[]),
    expect(
        "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt",
        1,
        "H100-80GB-HBM3",
        true,
        false,
        &[],
    ),
    expect(
        "linux-x86_64__nvidia-h100-mig__590.48.01.txt",
        1,
        "H100-80GB-HBM3",
        true,
        true,
        &["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"],
    ),
    expect(
        "linux-x86_64__nvidia-l40s__595.80.txt",
        1,
        "L40S",
        false,
        false,
        &[],
    ),
];

#[test]
fn detect_reads_every_fixture() {
    for &Expected {
        file,
        count,
        model,
        capable,
        enabled,
        devices,
    } in EXPECTED
    {
        let v = json(gpu_share(no_ledger()).args(["detect", "--json", "--from", &fixture(file)]));
        let gpus = v["gpus"].as_array().unwrap();
        assert_eq!(gpus.len(), count, "{file}");
        for g in gpus {
            assert_eq!(g["model"], model, "{file}");
            assert_eq!(g["mig_capable"], capable, "{file}");
            assert_eq!(g["mig_enabled"], enabled, "{file}");
            assert!(g["memory_mib"].as_u64().unwrap() > 0, "{file}");
        }
        let profiles: Vec<&str> = gpus[0]["mig_devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["profile"].as_str().unwrap())
            .collect();
        assert_eq!(profiles, devices, "{file}");
        assert_eq!(v["caps"]["gpu_model"], model, "{file}");
        assert_eq!(v["caps"]["gpu_count"], count, "{file}");
        // MIG counts only where it is enabled: turning it on needs a GPU reset, never planned unasked.
        assert_eq!(v["caps"]["supports_mig"], capable && enabled, "{file}");
        assert!(v["notes"].as_array().unwrap().len() >= 2, "{file}");
        assert!(!v["sources"].as_array().unwrap().is_empty(), "{file}");

        let text = stdout(gpu_share(no_ledger()).args(["detect", "--from", &fixture(file)]));
        let gpus_word = if count == 1 { "GPU" } else { "GPUs" };
        assert!(
            text.starts_with(&format!("{count} {gpus_word} from ")),
            "{text}"
        );
        assert!(text.contains(model), "{text}");
        assert!(
            text.contains(&format!("caps: {model} ×{count}; ")),
            "{text}"
        );
        for d in devices {
            assert!(text.contains(d), "{text}");
        }
    }
}

#[test]
fn detect_text_is_a_table_with_caps_and_notes() {
    let text = stdout(gpu_share(no_ledger()).args(["detect", "--from", &fixture("qx-a100.xml")]));
    assert_eq!(
        text.lines().take(5).collect::<Vec<_>>(),
        [
            "1 GPU from nvidia-smi -q -x",
            "  GPU  model           memory     MIG  MIG devices",
            "  0    A100-SXM4-40GB  40960 MiB  off  -",
            "caps: A100-SXM4-40GB ×1; MIG off (capable, disabled); MPS (assumed); time-slicing (assumed)",
            "  as flags: --gpu-model A100-SXM4-40GB --mps --timeslice (pack: --gpus 1)",
        ]
    );
    assert!(text.contains("notes:\n  MIG is supported but disabled on GPU 0"));
    let mig = stdout(gpu_share(no_ledger()).args([
        "detect",
        "--from",
        &fixture("linux-x86_64__nvidia-h100-mig__590.48.01.txt"),
    ]));
    assert!(
        mig.contains("  0    H100-80GB-HBM3  81559 MiB  on   3g.40gb 2g.20gb 1g.10gb 1g.10gb\n"),
        "{mig}"
    );
    assert!(mig.contains("no MPS"), "{mig}");
}

#[test]
fn detect_merges_several_files() {
    let a100 = fixture("qx-a100.xml");
    let h100 = fixture("qx-h100.xml");
    let v =
        json(gpu_share(no_ledger()).args(["detect", "--json", "--from", &h100, "--from", &a100]));
    assert_eq!(v["gpus"].as_array().unwrap().len(), 9);
    assert_eq!(v["caps"]["gpu_count"], 9);
    assert_eq!(v["caps"]["gpu_model"], "H100-80GB-HBM3");
    // GPUs of different files stay apart: each is labelled with its file.
    assert_eq!(v["gpus"][8]["node"], a100.as_str());
    assert_eq!(v["gpus"][8]["index"], 0);
    let notes = v["notes"].to_string();
    assert!(notes.contains("mixed GPU models"), "{notes}");
}

#[test]
fn detect_reads_stdin() {
    let xml = std::fs::read_to_string(fixture("qx-t4.xml")).unwrap();
    let v = json(
        gpu_share(no_ledger())
            .args(["detect", "--json", "--from", "-"])
            .write_stdin(xml),
    );
    assert_eq!(v["gpus"][0]["model"], "T4");
}

#[test]
fn detect_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.txt");
    std::fs::write(&garbage, "this is not nvidia-smi output\n").unwrap();
    gpu_share(no_ledger())
        .args(["detect", "--from", &fixture("qx-t4.xml"), "--from"])
        .arg(&garbage)
        .assert()
        .code(1)
        .stderr(contains("garbage.txt"))
        .stderr(contains("line 1: unrecognised input"))
        .stderr(contains("nvidia-smi -q -x"));
    let bad_csv = dir.path().join("bad.csv");
    std::fs::write(
        &bad_csv,
        "index, name, memory.total [MiB]\n0, Tesla T4, 15360 MiB\n1, Tesla T4\n",
    )
    .unwrap();
    gpu_share(no_ledger())
        .args(["detect", "--from"])
        .arg(&bad_csv)
        .assert()
        .code(1)
        .stderr(contains("line 3: expected 3 columns"))
        .stderr(contains("bad.csv"));
    gpu_share(no_ledger())
        .args(["detect", "--from"])
        .arg(dir.path().join("missing.xml"))
        .assert()
        .code(2)
        .stderr(contains("cannot read"));
}

#[test]
fn detect_without_nvidia_smi_says_how_to_go_on() {
    let empty = tempfile::tempdir().unwrap();
    gpu_share(no_ledger())
        .arg("detect")
        .env("PATH", empty.path())
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("nvidia-smi not found on PATH; pass --from FILE"));
}

#[cfg(unix)]
#[test]
fn detect_runs_nvidia_smi_from_path() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("nvidia-smi");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\n[ \"$1 $2\" = \"-q -x\" ] || exit 9\nexec cat '{}'\n",
            fixture("qx-a100.xml")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:/bin:/usr/bin", dir.path().display());
    let v = json(
        gpu_share(no_ledger())
            .args(["detect", "--json"])
            .env("PATH", &path),
    );
    assert_eq!(v["gpus"][0]["model"], "A100-SXM4-40GB");
}

#[test]
fn plan_takes_caps_from_a_capture() {
    // A capture with MIG enabled (a MIG-capable GPU with MIG off is planned without it).
    let h100 = fixture("linux-x86_64__nvidia-h100-mig__590.48.01.txt");
    let text = stdout(gpu_share(no_ledger()).args([
        "plan",
        "JPCP",
        "--fraction",
        "0.25",
        "--caps-from",
        &h100,
    ]));
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("caps from "), "{text}");
    assert_eq!(
        lines.next(),
        Some("JPCP: mig (isolation: hardware) — 2g.20gb, 0.29 GPU")
    );
    let v = json(gpu_share(no_ledger()).args([
        "plan",
        "JPCP",
        "--fraction",
        "0.25",
        "--caps-from",
        &h100,
        "--json",
    ]));
    assert_eq!(v["mechanism"], "mig");
    assert_eq!(v["mig_profile"], "2g.20gb");
    assert_eq!(v["gpu_model"], "H100-80GB-HBM3");
    assert_eq!(v["caps_from"]["caps"]["supports_mig"], true);
    assert_eq!(v["caps_from"]["files"][0], h100.as_str());
}

#[test]
fn mig_capable_turns_mig_on_for_a_capture_with_mig_disabled() {
    let a100 = fixture("qx-a100.xml");
    let args = ["plan", "JPCP", "--fraction", "0.25", "--caps-from", &a100];
    let off = json(gpu_share(no_ledger()).args(args).arg("--json"));
    assert_eq!(
        off["mechanism"], "mps",
        "MIG is disabled on the A100: not used unasked"
    );
    let on = json(
        gpu_share(no_ledger())
            .args(args)
            .args(["--mig-capable", "--json"]),
    );
    assert_eq!(on["mechanism"], "mig");
    assert_eq!(on["mig_profile"], "2g.10gb");
    let notes = on["caps_from"]["notes"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("MIG turned on as asked: it is disabled on 1 GPU")),
        "{notes:?}"
    );
    // A board without MIG: the error names the flag.
    let t4 = fixture("qx-t4.xml");
    let out = gpu_share(no_ledger())
        .args([
            "plan",
            "JPCP",
            "--fraction",
            "0.25",
            "--caps-from",
            &t4,
            "--mig-capable",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--mig-capable") && err.contains("does not support MIG"),
        "{err}"
    );
}

#[test]
fn pack_takes_caps_from_a_capture() {
    let t4 = fixture("qx-t4.xml");
    let v = json(gpu_share(no_ledger()).args([
        "pack",
        "--ask",
        "a:0.5",
        "--ask",
        "b:0.25",
        "--caps-from",
        &t4,
        "--json",
    ]));
    assert_eq!(v["gpus_used"], 1);
    assert_eq!(v["gpus"][0]["mechanism"], "mps");
    assert_eq!(v["caps_from"]["caps"]["gpu_model"], "T4");
    // The one T4 found bounds the pack; --gpus overrides it.
    let args = [
        "pack",
        "--ask",
        "a:0.5",
        "--ask",
        "b:0.3",
        "--ask",
        "c:0.4",
        "--caps-from",
        &t4,
    ];
    gpu_share(no_ledger())
        .args(args)
        .assert()
        .code(3)
        .stdout(contains("1 unplaced"));
    let text = stdout(gpu_share(no_ledger()).args(args).args(["--gpus", "2"]));
    assert!(text.contains("3 asks on 2 GPUs"), "{text}");
}

#[test]
fn caps_from_conflicts_with_caps_flags() {
    let t4 = fixture("qx-t4.xml");
    // --mig-capable is not among them: beside --caps-from it turns MIG on (see above).
    for flag in ["--mps", "--timeslice"] {
        gpu_share(no_ledger())
            .args(["plan", "x", "--fraction", "0.5", "--caps-from", &t4, flag])
            .assert()
            .code(2)
            .stderr(contains("cannot be used with"));
    }
    gpu_share(no_ledger())
        .args([
            "pack",
            "--ask",
            "a:0.5",
            "--caps-from",
            &t4,
            "--gpu-model",
            "a100",
        ])
        .assert()
        .code(2);
}

/// `nvidia-smi -L` of an H200 with MIG, quoted unchanged from a real capture: utkuozdemir/nvidia_gpu_exporter,
/// `internal/captures/linux-x86_64__nvidia-h200-mig__590.48.01.txt` at commit 0eee0d31 (MIT). Devices 0 and 1 are
/// two compute instances of one 3g.71gb GPU instance (the capture's table lists both under GI ID 2).
const H200_LIST: &str = "\
GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)
  MIG 1c.3g.71gb  Device  0: (UUID: MIG-00000000-0000-0000-0000-000000000000)
  MIG 2c.3g.71gb  Device  1: (UUID: MIG-00000001-0000-0000-0000-000000000001)
  MIG 2g.35gb     Device  2: (UUID: MIG-00000002-0000-0000-0000-000000000002)
  MIG 1g.18gb     Device  3: (UUID: MIG-00000003-0000-0000-0000-000000000003)
  MIG 1g.18gb     Device  4: (UUID: MIG-00000004-0000-0000-0000-000000000004)
";

#[test]
fn detect_lists_gpu_instances_with_their_compute_instances() {
    // NVIDIA's MIG User Guide, "MIG Device Names": a GPU instance "can be further sub-divided into
    // multiple CIs", whose MIG devices are named 1c.3g.20gb, 2c.3g.20gb …; a single CI spanning the GI
    // carries the GI's name. So 5 MIG devices here are 4 GPU instances.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("h200-L.txt");
    std::fs::write(&file, H200_LIST).unwrap();
    let file = file.to_str().unwrap();
    let v = json(gpu_share(no_ledger()).args(["detect", "--json", "--from", file]));
    let gis = v["gpus"][0]["mig_devices"].as_array().unwrap();
    let profiles: Vec<&str> = gis.iter().map(|d| d["profile"].as_str().unwrap()).collect();
    assert_eq!(profiles, ["3g.71gb", "2g.35gb", "1g.18gb", "1g.18gb"]);
    let cis: Vec<(&str, u64)> = gis[0]["compute_instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["profile"].as_str().unwrap(),
                c["device_index"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(cis, [("1c.3g.71gb", 0), ("2c.3g.71gb", 1)]);
    assert_eq!(gis[1]["compute_instances"][0]["profile"], "2g.35gb");
    let text = stdout(gpu_share(no_ledger()).args(["detect", "--from", file]));
    assert!(
        text.contains("3g.71gb[2 CIs] 2g.35gb 1g.18gb 1g.18gb\n"),
        "{text}"
    );
}

#[test]
fn detect_reads_placements_from_mig_lgi() {
    // `nvidia-smi mig -lgi -i 3`, real output quoted in kubernetes-sigs/dra-driver-nvidia-gpu#933. Its
    // `Placement Start:Size` column is NVML's placement of each GPU instance: the index of its first
    // memory slice and how many it occupies (nvmlGpuInstancePlacement_t).
    let lgi = "\
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
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lgi.txt");
    std::fs::write(&file, lgi).unwrap();
    let file = file.to_str().unwrap();
    let v = json(gpu_share(no_ledger()).args(["detect", "--json", "--from", file]));
    let g = &v["gpus"][0];
    assert_eq!(g["index"], 3);
    let gis: Vec<(&str, u64, u64)> = g["mig_devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["profile"].as_str().unwrap(),
                d["start"].as_u64().unwrap(),
                d["gpu_instance_id"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        gis,
        [("1g.10gb", 0, 7), ("1g.10gb", 1, 8), ("1g.10gb", 5, 12)]
    );
    assert_eq!(v["sources"][0], "smi_mig_gpu_instances");
    let text = stdout(gpu_share(no_ledger()).args(["detect", "--from", file]));
    assert!(
        text.starts_with("1 GPU from nvidia-smi mig -lgi\n"),
        "{text}"
    );
    assert!(text.contains("1g.10gb@0 1g.10gb@1 1g.10gb@5"), "{text}");
}
