//! `detect` on `kubectl get resourceslices -o yaml` itself (the core's `yaml` feature): the static-MIG fixture shaped like dra-driver-nvidia-gpu#719.

use gpu_share_core::internals::discover::{detect, SourceFormat};

use crate::common::fixture;

const STATIC_MIG_YAML: &str = "resourceslices/a100-80gb-pcie-static-mig.yaml";

#[test]
fn detect_reads_kubectl_yaml() {
    let inv = detect(&fixture(STATIC_MIG_YAML)).unwrap();
    assert_eq!(inv.sources, vec![SourceFormat::KubectlResourceSlices]);
    assert_eq!(inv.gpus.len(), 4);
    let nodes: Vec<&str> = inv.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        nodes,
        [
            "aks-gpupool-31415926-vmss000002",
            "aks-migpool-27182818-vmss000001"
        ]
    );
    let devices: usize = inv.gpus.iter().map(|g| g.mig_devices.len()).sum();
    assert_eq!(devices, 8);
    assert_eq!(inv.nodes[1].mig_device_counts["2g.20gb"], 4);
    assert_eq!(inv.gpus[0].memory_mib, Some(81920));
    assert!(inv.caps().supports_mig);
}

#[test]
fn yaml_errors_name_the_line() {
    let text = fixture(STATIC_MIG_YAML).replacen("    devices:\n", "    devices: [\n", 1);
    let e = detect(&text).unwrap_err();
    assert!(e.line.is_some(), "{e}");
    // A document of another kind is refused by its kind.
    let e = detect("apiVersion: v1\nkind: ResourceSliceList\nitems: 7\n").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("kind"), "{e}");
}
