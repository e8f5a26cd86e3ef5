//! Discovery on the real nvidia-smi captures in tests/fixtures/nvidia-smi and on bad input: exact values,
//! merged sections, caps, errors with lines. (kubectl input: `discover_kubectl.rs`; MIG instances as they are, `-lgi`/`-lci`: `discover_mig.rs`.)

use gpu_share_core::internals::discover::{detect, detect_all, failed_input, SourceFormat};
use gpu_share_core::internals::{select_mechanism, ErrorKind, FractionalAsk, Mechanism};

use crate::common::{fixture, only_gpu};

const H100_TXT: &str = "nvidia-smi/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";
const H100_MIG_TXT: &str = "nvidia-smi/linux-x86_64__nvidia-h100-mig__590.48.01.txt";
const L40S_TXT: &str = "nvidia-smi/linux-x86_64__nvidia-l40s__595.80.txt";

/// The body of the first section of a capture whose banner is exactly `# $ {command}`.
fn section(capture: &str, command: &str) -> String {
    let banner = format!("# $ {command}");
    let mut lines = capture
        .lines()
        .skip_while(|l| l.trim_end() != banner.trim_end());
    lines.next().expect("banner");
    lines
        .skip_while(|l| l.starts_with('#'))
        .take_while(|l| !l.starts_with("####"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn qx_a100_is_one_mig_capable_a100_with_mig_off() {
    let inv = detect(&fixture("nvidia-smi/qx-a100.xml")).unwrap();
    assert_eq!(inv.sources, vec![SourceFormat::SmiXml]);
    let g = &inv.gpus[0];
    assert_eq!(inv.gpus.len(), 1);
    assert_eq!(g.name, "NVIDIA A100-SXM4-40GB");
    assert_eq!(g.model.as_deref(), Some("A100-SXM4-40GB"));
    assert_eq!(g.memory_mib, Some(40960));
    assert!(g.mig_capable && !g.mig_enabled);
    assert_eq!(g.mig_pending, Some(false));
    assert!(g.mig_devices.is_empty());
    assert_eq!(
        g.uuid.as_deref(),
        Some("GPU-00000000-0000-0000-0000-000000000000")
    );
    assert_eq!(g.pci_bus_id.as_deref(), Some("00000000:06:00.0"));
    assert_eq!(g.pci_device_id.as_deref(), Some("0x20B010DE"));
    assert_eq!(g.power_limit_w, Some(400));
    assert_eq!(g.node, None);

    let caps = inv.caps();
    assert_eq!(caps.gpu_model.as_deref(), Some("A100-SXM4-40GB"));
    assert_eq!(caps.gpu_count, Some(1));
    // MIG is off on this GPU: the caps leave it out (enabling it needs a GPU reset), and say so.
    assert!(!caps.supports_mig && caps.supports_mps && caps.supports_timeslicing);
    assert_eq!(caps.mig_profiles, None);
    assert_eq!(inv.mig_disabled_gpus(), 1);
    let notes = inv.notes.join("\n");
    assert!(
        notes.contains("MIG is supported but disabled on GPU 0: left out of the caps"),
        "{notes}"
    );
    assert!(notes.contains("GPU reset"), "{notes}");
    assert!(notes.contains("time-slicing assumed"), "{notes}");
    assert!(notes.contains("MPS assumed"), "{notes}");
    let choice = select_mechanism(&FractionalAsk::parse_spec("a:0.25").unwrap(), &caps).unwrap();
    assert_ne!(choice.mechanism, Mechanism::Mig);

    // Turned on by the user, the caps plan a quarter GPU as MIG on the real model.
    let caps = gpu_share_core::internals::ClusterGpuCaps {
        supports_mig: true,
        ..caps
    };
    let choice = select_mechanism(&FractionalAsk::parse_spec("a:0.25").unwrap(), &caps).unwrap();
    assert_eq!(choice.mechanism, Mechanism::Mig);
    assert_eq!(choice.mig_profile.as_deref(), Some("2g.10gb"));
}

#[test]
fn qx_h100_is_eight_h100s() {
    let inv = detect(&fixture("nvidia-smi/qx-h100.xml")).unwrap();
    assert_eq!(inv.gpus.len(), 8);
    let buses: Vec<&str> = inv
        .gpus
        .iter()
        .map(|g| g.pci_bus_id.as_deref().unwrap())
        .collect();
    assert_eq!(
        buses,
        [
            "00000000:53:00.0",
            "00000000:64:00.0",
            "00000000:75:00.0",
            "00000000:86:00.0",
            "00000000:97:00.0",
            "00000000:A8:00.0",
            "00000000:B9:00.0",
            "00000000:CA:00.0"
        ]
    );
    for (i, g) in inv.gpus.iter().enumerate() {
        assert_eq!(g.index, i as u64);
        assert_eq!(g.name, "NVIDIA H100 80GB HBM3");
        assert_eq!(g.model.as_deref(), Some("H100-80GB-HBM3"));
        assert_eq!(g.memory_mib, Some(81559));
        assert_eq!(g.power_limit_w, Some(700));
        assert_eq!(g.pci_device_id.as_deref(), Some("0x233010DE"));
        assert!(g.mig_capable && !g.mig_enabled);
    }
    let caps = inv.caps();
    assert_eq!(caps.gpu_model.as_deref(), Some("H100-80GB-HBM3"));
    assert_eq!(caps.gpu_count, Some(8));
    // Capable, but disabled on all eight: not used unless turned on.
    assert!(!caps.supports_mig);
    assert_eq!(inv.mig_disabled_gpus(), 8);
}

#[test]
fn qx_l40s_and_t4_have_no_mig() {
    for (file, name, model, memory, watts) in [
        ("qx-l40s.xml", "NVIDIA L40S", "L40S", 46068, 350),
        ("qx-t4.xml", "Tesla T4", "T4", 15360, 70),
    ] {
        let inv = detect(&fixture(&format!("nvidia-smi/{file}"))).unwrap();
        let g = &inv.gpus[0];
        assert_eq!(inv.gpus.len(), 1, "{file}");
        assert_eq!(g.name, name);
        assert_eq!(g.model.as_deref(), Some(model));
        assert_eq!(g.memory_mib, Some(memory));
        assert_eq!(g.power_limit_w, Some(watts));
        assert!(!g.mig_capable && !g.mig_enabled, "{file}");
        assert_eq!(g.mig_pending, None);
        let caps = inv.caps();
        assert!(!caps.supports_mig && caps.supports_mps && caps.supports_timeslicing);
        assert_eq!(caps.gpu_model.as_deref(), Some(model));
        caps.resolve(&[]).unwrap();
    }
}

#[test]
fn h100_capture_merges_csv_table_and_list() {
    let inv = detect(&fixture(H100_TXT)).unwrap();
    assert_eq!(
        inv.sources,
        vec![
            SourceFormat::SmiQueryCsv,
            SourceFormat::SmiTable,
            SourceFormat::SmiList
        ]
    );
    let g = &inv.gpus[0];
    assert_eq!(inv.gpus.len(), 1);
    assert_eq!(g.model.as_deref(), Some("H100-80GB-HBM3"));
    assert_eq!(g.memory_mib, Some(81559));
    assert_eq!(g.pci_bus_id.as_deref(), Some("00000000:00:09.0"));
    assert_eq!(g.pci_device_id.as_deref(), Some("0x233010DE"));
    assert_eq!(g.power_limit_w, Some(700));
    assert!(g.mig_capable && !g.mig_enabled);
    assert_eq!(g.mig_pending, Some(false));
    assert!(g.mig_devices.is_empty());
}

#[test]
fn h100_mig_capture_finds_the_mig_devices() {
    let inv = detect(&fixture(H100_MIG_TXT)).unwrap();
    let g = &inv.gpus[0];
    assert_eq!(inv.gpus.len(), 1);
    assert!(g.mig_capable && g.mig_enabled);
    assert_eq!(g.mig_pending, Some(true));
    type Device<'a> = (&'a str, Option<u32>, Option<u64>, Option<u8>);
    let devices: Vec<Device> = g
        .mig_devices
        .iter()
        .map(|d| (d.profile.as_str(), d.gpu_instance_id, d.memory_mib, d.start))
        .collect();
    assert_eq!(
        devices,
        [
            ("3g.40gb", Some(2), Some(40448), None),
            ("2g.20gb", Some(3), Some(20096), None),
            ("1g.10gb", Some(9), Some(9984), None),
            ("1g.10gb", Some(10), Some(9984), None),
        ]
    );
    let caps = inv.caps();
    assert!(caps.supports_mig && caps.supports_timeslicing);
    assert!(!caps.supports_mps, "MPS is not offered on MIG-enabled GPUs");
    assert!(inv.notes.iter().any(|n| n.contains("MPS left out")));
}

#[test]
fn h100_mig_sections_alone() {
    let capture = fixture(H100_MIG_TXT);
    // The table alone: profiles derived from memory and multiprocessors (no names in the table).
    let table = section(&capture, "nvidia-smi ");
    let g = only_gpu(&table);
    let profiles: Vec<&str> = g.mig_devices.iter().map(|d| d.profile.as_str()).collect();
    assert_eq!(profiles, ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]);
    assert_eq!(g.memory_mib, Some(81559));
    assert_eq!(g.power_limit_w, Some(700));
    assert!(g.mig_enabled);
    assert_eq!(
        detect(&table).unwrap().sources,
        vec![SourceFormat::SmiTable]
    );
    // -L alone: names, no memory.
    let list = section(&capture, "nvidia-smi -L");
    let g = only_gpu(&list);
    let profiles: Vec<&str> = g.mig_devices.iter().map(|d| d.profile.as_str()).collect();
    assert_eq!(profiles, ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]);
    assert!(g.mig_enabled);
    assert_eq!(g.memory_mib, None);
    // The CSV alone (header with units): MIG mode but no devices.
    let csv_banner = capture
        .lines()
        .find(|l| l.starts_with("# $ nvidia-smi --query-gpu="))
        .unwrap()
        .trim_start_matches("# $ ")
        .to_string();
    let g = only_gpu(&section(&capture, &csv_banner));
    assert!(g.mig_enabled && g.mig_devices.is_empty());
    assert_eq!(g.memory_mib, Some(81559));
}

#[test]
fn l40s_capture_is_one_l40s_without_mig() {
    let inv = detect(&fixture(L40S_TXT)).unwrap();
    let g = &inv.gpus[0];
    assert_eq!(inv.gpus.len(), 1);
    assert_eq!(g.model.as_deref(), Some("L40S"));
    assert_eq!(g.memory_mib, Some(46068));
    assert_eq!(g.power_limit_w, Some(350));
    assert_eq!(g.pci_bus_id.as_deref(), Some("00000000:01:00.0"));
    assert!(!g.mig_capable && !g.mig_enabled);
}

#[test]
fn csv_with_and_without_header() {
    let with_units = "index, name, memory.total [MiB], mig.mode.current, mig.mode.pending\n\
                      0, NVIDIA A100-SXM4-40GB, 40960 MiB, Enabled, Enabled\n\
                      1, Tesla T4, 15360 MiB, [N/A], [N/A]\n";
    let inv = detect(with_units).unwrap();
    assert_eq!(inv.sources, vec![SourceFormat::SmiQueryCsv]);
    assert_eq!(inv.gpus.len(), 2);
    assert!(inv.gpus[0].mig_enabled);
    assert_eq!(inv.gpus[1].model.as_deref(), Some("T4"));
    assert!(!inv.gpus[1].mig_capable);

    let noheader_nounits = "0, NVIDIA H100 80GB HBM3, 81559, Disabled, Disabled\n";
    let g = only_gpu(noheader_nounits);
    assert_eq!(
        (g.model.as_deref(), g.memory_mib, g.mig_capable),
        (Some("H100-80GB-HBM3"), Some(81559), true)
    );

    // The MIG guide's example query (docs/hardware-facts.md §4).
    let guide = "pci.bus_id, mig.mode.current\n00000000:36:00.0, Enabled\n";
    let g = only_gpu(guide);
    assert_eq!(g.pci_bus_id.as_deref(), Some("00000000:36:00.0"));
    assert!(g.mig_enabled);

    // Without a header, only the documented order is read.
    let ambiguous = "NVIDIA H100 80GB HBM3, 81559 MiB\n";
    let e = detect(ambiguous).unwrap_err();
    assert_eq!((e.kind, e.line), (ErrorKind::Syntax, Some(1)));
    assert!(e.message.contains("header"), "{e}");
}

#[test]
fn unknown_models_are_planned_without_mig() {
    let inv =
        detect("index, name, memory.total [MiB]\n0, NVIDIA GeForce RTX 4090, 24564 MiB\n").unwrap();
    let g = &inv.gpus[0];
    assert_eq!((g.model.as_deref(), g.mig_capable), (None, false));
    let caps = inv.caps();
    assert_eq!(caps.gpu_model.as_deref(), Some("NVIDIA GeForce RTX 4090"));
    assert!(!caps.supports_mig);
    let resolved = caps.resolve(&[]).unwrap();
    assert_eq!(
        resolved.unknown_model.as_deref(),
        Some("NVIDIA GeForce RTX 4090")
    );
    assert!(inv.notes.iter().any(|n| n.contains("not in the catalogue")));
}

/// `-lgip` rows built from docs/hardware-facts.md (§1.2–1.3: A100-40GB names, IDs, GiB and SMs; no capture of
/// `-lgip` is among the fixtures), and `-lgipp` lines as docs/hardware-facts.md quotes them from the MIG guide.
const A100_LGIP: &str = "\
+-----------------------------------------------------------------------------+
| GPU instance profiles:                                                      |
| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |
|                              Free/Total   GiB              CE    JPEG  OFA  |
|=============================================================================|
|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |
|                                                             1     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 1g.5gb+me     20     1/1        4.75       No     14     1     0   |
|                                                             1     1     1   |
+-----------------------------------------------------------------------------+
|   0  MIG 1g.10gb       15     4/4        9.75       No     14     1     0   |
|                                                             1     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 2g.10gb       14     3/3        9.75       No     28     1     0   |
|                                                             2     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 3g.20gb        9     2/2        19.62      No     42     2     0   |
|                                                             3     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 4g.20gb        5     1/1        19.62      No     56     2     0   |
|                                                             4     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 7g.40gb        0     1/1        39.50      No     98     5     0   |
|                                                             7     1     1   |
+-----------------------------------------------------------------------------+
";
const A100_LGIPP: &str = "\
GPU  0 Profile ID 19 Placements: {0,1,2,3,4,5,6}:1
GPU  0 Profile ID 20 Placements: {0,1,2,3,4,5,6}:1
GPU  0 Profile ID 15 Placements: {0,2,4,6}:2
GPU  0 Profile ID 14 Placements: {0,2,4}:2
GPU  0 Profile ID  9 Placements: {0,4}:4
GPU  0 Profile ID  5 Placement : {0}:4
GPU  0 Profile ID  0 Placement : {0}:8
";

#[test]
fn lgip_profiles_and_lgipp_placements() {
    let inv = detect(A100_LGIP).unwrap();
    assert_eq!(inv.sources, vec![SourceFormat::SmiMigProfiles]);
    assert_eq!(
        inv.mig_profiles,
        [
            "1g.5gb",
            "1g.5gb+me",
            "1g.10gb",
            "2g.10gb",
            "3g.20gb",
            "4g.20gb",
            "7g.40gb"
        ]
    );
    let caps = inv.caps();
    assert!(caps.supports_mig);
    assert_eq!(caps.gpu_count, None);
    assert_eq!(caps.mig_profiles.as_ref().map(Vec::len), Some(7));
    assert_eq!(
        caps.resolve(&[]).unwrap().model.unwrap().name,
        "A100-SXM4-40GB"
    );

    // With the XML and the placements: the profiles limit the caps, the placements match the catalogue.
    let both = format!("{A100_LGIP}\n{A100_LGIPP}");
    let inv = detect_all(&[&fixture("nvidia-smi/qx-a100.xml"), &both]).unwrap();
    assert_eq!(
        inv.sources,
        vec![SourceFormat::SmiXml, SourceFormat::SmiMigProfiles]
    );
    let caps = inv.caps();
    assert_eq!(caps.gpu_model.as_deref(), Some("A100-SXM4-40GB"));
    assert_eq!(caps.mig_profiles.as_ref().map(Vec::len), Some(7));
    assert!(
        inv.notes.iter().any(|n| n.contains("match the catalogue")),
        "{:?}",
        inv.notes
    );
    // A placement that disagrees is noted, not trusted.
    let wrong = format!("{A100_LGIP}GPU  0 Profile ID  9 Placements: {{0,3}}:4\n");
    let inv = detect(&wrong).unwrap();
    assert!(inv
        .notes
        .iter()
        .any(|n| n.contains("the planner uses the catalogue's")));
    // -lgipp alone names no profile.
    let e = detect(A100_LGIPP).unwrap_err();
    assert!(e.message.contains("-lgip"), "{e}");
}

#[test]
fn mixed_models_pick_the_most_common_and_say_so() {
    let t4 = fixture("nvidia-smi/qx-t4.xml");
    let inv = detect_all(&[&fixture("nvidia-smi/qx-a100.xml"), &t4, &t4]).unwrap();
    assert_eq!(inv.gpus.len(), 3);
    let caps = inv.caps();
    assert_eq!(caps.gpu_model.as_deref(), Some("T4"));
    assert_eq!(caps.gpu_count, Some(3));
    assert!(!caps.supports_mig, "the caps describe T4s");
    let notes = inv.notes.join("\n");
    assert!(
        notes.contains("mixed GPU models (1× A100-SXM4-40GB, 2× T4)"),
        "{notes}"
    );
    assert!(notes.contains("MIG left out"), "{notes}");
    caps.resolve(&[]).unwrap();
}

#[test]
fn bad_input_is_an_error_with_its_line() {
    // Truncated XML: the error is at the end of the text.
    let xml = fixture("nvidia-smi/qx-a100.xml");
    let cut = &xml[..3000];
    let e = detect(cut).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(e.line, Some(cut.lines().count()));
    assert!(e.message.contains("truncated"), "{e}");
    // A malformed value names its field and line.
    let bad = xml.replace("<total>40960 MiB</total>", "<total>lots</total>");
    let e = detect(&bad).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("gpu[0].fb_memory_usage.total"));
    assert_eq!(e.line, Some(124));
    // Another XML document.
    let e = detect("<?xml version=\"1.0\"?>\n<html></html>").unwrap_err();
    assert!(e.message.contains("nvidia_smi_log"), "{e}");
    // A CSV row with the wrong number of columns.
    let csv = "index, name, memory.total [MiB]\n0, Tesla T4, 15360 MiB\n1, Tesla T4\n";
    let e = detect(csv).unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("expected 3 columns"), "{e}");
    // Garbage and empty input list the accepted formats.
    for text in ["hello world\nnothing to see", "", "  \n\n"] {
        let e = detect(text).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert!(e.message.contains("nvidia-smi -q -x"), "{e}");
        assert!(e.message.contains("kubectl get nodes -o json"), "{e}");
    }
    // A broken -L line.
    let e = detect("GPU 0: Tesla T4 (UUID: GPU-1)\nGPU zero\n").unwrap_err();
    assert_eq!(e.line, Some(2));
    // Too large.
    let huge = "a".repeat(gpu_share_core::internals::parse::MAX_INPUT_BYTES + 1);
    assert_eq!(detect(&huge).unwrap_err().kind, ErrorKind::TooLarge);
}

#[test]
fn detect_all_names_the_failing_input() {
    let e = detect_all(&[&fixture("nvidia-smi/qx-t4.xml"), "garbage"]).unwrap_err();
    assert_eq!(failed_input(&e), Some((1, None)));
    let csv = "index, name, memory.total [MiB]\n0, Tesla T4, lots\n";
    let e = detect_all(&[csv]).unwrap_err();
    assert_eq!(failed_input(&e), Some((0, Some("memory.total"))));
    assert_eq!(e.line, Some(2));
    assert!(detect_all(&[]).is_err());
}

#[test]
fn a_capture_with_a_broken_section_uses_the_others() {
    let capture = fixture(H100_MIG_TXT);
    let broken = capture.replacen(
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID:",
        "GPU X: NVIDIA H100 80GB HBM3 (UUID:",
        1,
    );
    let inv = detect(&broken).unwrap();
    assert!(!inv.sources.contains(&SourceFormat::SmiList));
    assert!(inv
        .notes
        .iter()
        .any(|n| n.contains("nvidia-smi -L") && n.contains("skipped")));
    // Without -L, the table's devices are named from their memory and multiprocessors.
    let profiles: Vec<&str> = inv.gpus[0]
        .mig_devices
        .iter()
        .map(|d| d.profile.as_str())
        .collect();
    assert_eq!(profiles, ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]);
}

#[cfg(feature = "serde")]
#[test]
fn json_shape_has_the_issue_fields() {
    let inv = detect(&fixture(H100_MIG_TXT)).unwrap();
    let v = serde_json::to_value(&inv).unwrap();
    let g = &v["gpus"][0];
    for key in [
        "index",
        "model",
        "memory_mib",
        "mig_capable",
        "mig_enabled",
        "mig_devices",
    ] {
        assert!(g.get(key).is_some(), "missing {key}");
    }
    assert_eq!(g["mig_devices"][0]["profile"], "3g.40gb");
    assert!(g["mig_devices"][0]["start"].is_null());
    assert_eq!(v["sources"][0], "smi_query_csv");
}

#[test]
fn large_inputs_are_read_in_linear_time() {
    // 100,000 GPUs with distinct unknown names, and one GPU with 100,000 MIG lines: a quadratic
    // step anywhere would take minutes here.
    let mut csv = String::from("index, name, memory.total [MiB]\n");
    for i in 0..100_000 {
        csv.push_str(&format!("{i}, Board {i}, 1024 MiB\n"));
    }
    let inv = detect(&csv).unwrap();
    assert_eq!(inv.gpus.len(), 100_000);
    assert!(inv.notes.len() < 20, "{}", inv.notes.len());
    let mut list = String::from("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n");
    for i in 0..100_000 {
        list.push_str(&format!("  MIG 1g.10gb Device {i}: (UUID: MIG-{i})\n"));
    }
    assert_eq!(detect(&list).unwrap().gpus[0].mig_devices.len(), 100_000);
    let mut xml = String::from("<nvidia_smi_log>");
    for _ in 0..20_000 {
        xml.push_str("<gpu><product_name>Tesla T4</product_name></gpu>");
    }
    xml.push_str("</nvidia_smi_log>");
    assert_eq!(detect(&xml).unwrap().gpus.len(), 20_000);
}

#[test]
fn xml_mig_devices_are_named_from_memory_and_multiprocessors() {
    // Shaped like the MIG-enabled `nvidia-smi -q -x` example docs/hardware-facts.md cites (§4: gpustack's
    // detector docstring, H100 80GB, a 3g.40gb device with 60 SMs and 40448 MiB); no fixture has one.
    let xml = r#"<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
  <attached_gpus>1</attached_gpus>
  <gpu id="00000000:00:09.0">
    <product_name>NVIDIA H100 80GB HBM3</product_name>
    <mig_mode><current_mig>Enabled</current_mig><pending_mig>Enabled</pending_mig></mig_mode>
    <mig_devices>
      <mig_device>
        <index>0</index>
        <gpu_instance_id>1</gpu_instance_id>
        <compute_instance_id>0</compute_instance_id>
        <device_attributes><shared><multiprocessor_count>60</multiprocessor_count></shared></device_attributes>
        <fb_memory_usage><total>40448 MiB</total></fb_memory_usage>
      </mig_device>
      <mig_device>
        <index>1</index>
        <gpu_instance_id>2</gpu_instance_id>
        <compute_instance_id>0</compute_instance_id>
        <device_attributes><shared><multiprocessor_count>64</multiprocessor_count></shared></device_attributes>
        <fb_memory_usage><total>40448 MiB</total></fb_memory_usage>
      </mig_device>
    </mig_devices>
    <fb_memory_usage><total>81920 MiB</total></fb_memory_usage>
  </gpu>
</nvidia_smi_log>"#;
    let g = only_gpu(xml);
    assert!(g.mig_enabled);
    let devices: Vec<(&str, Option<u32>)> = g
        .mig_devices
        .iter()
        .map(|d| (d.profile.as_str(), d.gpu_instance_id))
        .collect();
    assert_eq!(devices, [("3g.40gb", Some(1)), ("4g.40gb", Some(2))]);
    assert!(g.mig_devices.iter().all(|d| d.start.is_none()));
}

#[test]
fn list_alone_says_it_cannot_see_the_mig_mode() {
    let inv = detect("GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-0)\nGPU 1: Tesla T4 (UUID: GPU-1)\n")
        .unwrap();
    assert_eq!(inv.gpus.len(), 2);
    assert!(inv.gpus[0].mig_capable && !inv.gpus[0].mig_enabled);
    assert!(inv
        .notes
        .iter()
        .any(|n| n.contains("does not show the MIG mode")));
}
