//! Tests of `device_plugin`.

use super::*;
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::catalog::find_model;
use crate::error::ErrorKind;
use crate::export::{export, ExportFormat, ExportOptions};
use crate::pack::bin_pack;

fn mps_export(specs: &[&str], model: Option<&str>, format: ExportFormat) -> Result<String> {
    let asks: Vec<FractionalAsk> = specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect();
    let caps = ClusterGpuCaps {
        supports_mps: true,
        gpu_model: model.map(Into::into),
        ..Default::default()
    };
    let r = bin_pack(&asks, &caps).unwrap();
    export(&r, format, &ExportOptions::default())
}

fn replicas(text: &str) -> u32 {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("replicas: "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"))
}

/// The plugin's MPS daemon (NVIDIA/k8s-device-plugin
/// `cmd/mps-control-daemon/mps/daemon.go`) gives every client the same share:
/// `activeThreadPercentage`: `return fmt.Sprintf("%d", 100/replicasPerDevice)` and
/// `perDevicePinnedDeviceMemoryLimits`: `limits[index] = fmt.Sprintf("%vM",
/// totalMemory/replicas/1024/1024)` — integer divisions, rounded down. An ask the plugin cannot
/// give its share at the minimum of 2 replicas ("replicas must be at least 2", README) is an
/// error naming the ask, never a config with a comment; and the replicas chosen give every
/// client at least its ask.
#[test]
fn no_mps_client_gets_less_than_its_ask() {
    // 0.75 of a GPU: with 2 replicas the plugin gives 50%. An error in every format that
    // relies on the plugin's config, naming the ask.
    for format in [
        ExportFormat::DevicePlugin,
        ExportFormat::Kubernetes,
        ExportFormat::KServe,
    ] {
        let e = mps_export(&["small:0.2", "big:0.75"], Some("l4"), format).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange, "{format}");
        assert_eq!(e.field.as_deref(), Some("asks[1]"), "{format}");
        assert!(e.message.contains("100/replicas"), "{}", e.message);
        assert!(!e.message.contains("--"), "names no flag: {}", e.message);
    }
    // Slurm's MPS counts do not go through the plugin.
    assert!(mps_export(&["big:0.75"], Some("l4"), ExportFormat::Slurm).is_ok());

    // 1/3 each: 100/3 = 33% of the threads is less than a third (34% asked): 2 replicas.
    let text = mps_export(
        &["a:1/3", "b:1/3", "c:1/3"],
        None,
        ExportFormat::DevicePlugin,
    )
    .unwrap();
    assert_eq!(replicas(&text), 2, "{text}");

    // 0.3 each: 100/3 = 33% of the threads covers 30%; 81559/3 = 27186 MiB covers the 24467
    // MiB asked: 3 replicas. A quarter each on an H100 80GB: 25% and 81559/4 = 20389 MiB, the
    // whole MiB of the 20389.75 asked: 4 replicas.
    let text = mps_export(
        &["a:0.3", "b:0.3", "c:0.3"],
        Some("h100"),
        ExportFormat::DevicePlugin,
    )
    .unwrap();
    assert_eq!(replicas(&text), 3, "{text}");
    let four: Vec<String> = (0..4).map(|i| format!("q{i}:0.25")).collect();
    let four: Vec<&str> = four.iter().map(String::as_str).collect();
    let text = mps_export(&four, Some("h100"), ExportFormat::DevicePlugin).unwrap();
    assert_eq!(replicas(&text), 4, "{text}");

    // Every export that succeeds gives every MPS client at least its ask, under the daemon's
    // own arithmetic.
    let h100 = find_model("h100").unwrap();
    for specs in [
        &["a:0.5", "b:0.5"][..],
        &["a:0.3", "b:0.3", "c:0.3"],
        &["a:0.1", "b:0.45", "c:0.2", "d:0.05"],
        &[
            "a:1/7", "b:1/7", "c:1/7", "d:1/7", "e:1/7", "f:1/7", "g:1/7",
        ],
        &["a:0.49", "b:0.49", "c:0.02"],
    ] {
        for model in [None, Some("h100")] {
            let Ok(text) = mps_export(specs, model, ExportFormat::DevicePlugin) else {
                continue;
            };
            let r = u64::from(replicas(&text));
            for spec in specs.iter() {
                let a = FractionalAsk::parse_spec(spec).unwrap();
                let f = a.requested_fraction().unwrap();
                let one = u128::from(Share::ONE.units());
                let threads = u128::from(100 / r);
                assert!(threads * one >= u128::from(f.units()) * 100, "{spec} r={r}");
                if model.is_some() {
                    let mib = h100.memory_mib;
                    let given = u128::from(mib / r);
                    assert!(given >= u128::from(mib) * u128::from(f.units()) / one);
                }
            }
        }
    }
}

/// The daemon's pinned limit is total/replicas (the code quoted above), and gpu-share pins an
/// MPS client with memory to the memory it asked (docs/hardware-facts.md §10): the replicas
/// chosen give every client its memory, or the export is refused naming the ask.
#[test]
fn replicas_cover_every_clients_memory() {
    // 46068 MiB on an L40S: 3 replicas give 15356 MiB each, enough for 12 GiB (12288 MiB).
    let text = mps_export(
        &["a:0.1:12GiB", "b:0.1:2GiB", "c:0.1:2GiB"],
        Some("L40S"),
        ExportFormat::DevicePlugin,
    )
    .unwrap();
    assert_eq!(replicas(&text), 3, "{text}");
    // 20 GiB needs total/replicas ≥ 20480 MiB: 2 replicas (23034), not 3 (15356), though
    // the shares alone would allow 10.
    let text = mps_export(
        &["big:0.1:20GiB", "s1:0.1:1GiB", "s2:0.1:1GiB", "s3:0.1:1GiB"],
        Some("L40S"),
        ExportFormat::DevicePlugin,
    )
    .unwrap();
    assert_eq!(replicas(&text), 2, "{text}");
    // 30 GiB is more than the 23034 MiB two replicas give: refused, naming the ask.
    let e = mps_export(
        &["a:0.1:30GiB", "b:0.1:1GiB"],
        Some("L40S"),
        ExportFormat::DevicePlugin,
    )
    .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("asks[0]"));
    assert!(e.message.contains("30720 MiB of memory"), "{}", e.message);
    assert!(e.message.contains("at most 23034 MiB"), "{}", e.message);
}

/// MPS's thread percentage is explained as a ceiling (NVIDIA MPS documentation: "Setting the
/// limit does not reserve dedicated resources for any MPS client context. It simply limits
/// how much resources can be used by a client context.").
#[test]
fn the_mps_config_calls_the_thread_percentage_a_ceiling() {
    let text = mps_export(&["a:0.5", "b:0.3"], Some("l4"), ExportFormat::DevicePlugin).unwrap();
    let flat = text.replace("\n# ", " ");
    assert!(flat.contains("a ceiling, not a reservation"), "{text}");
}
