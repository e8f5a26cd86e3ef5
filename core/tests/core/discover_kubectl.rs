//! Discovery from `kubectl get nodes -o json`: nodes built from the GPU Feature Discovery label examples in
//! docs/hardware-facts.md §2 — time-slicing, MPS, mixed and single MIG strategies — and bad kubectl input.

use gpu_share_core::internals::discover::{detect, DiscoveredGpu, SourceFormat};
/// Node objects built from the GFD label examples in docs/hardware-facts.md §2.
fn node(name: &str, labels: &[(&str, &str)], allocatable: &[(&str, &str)]) -> serde_json::Value {
    let labels: serde_json::Map<String, serde_json::Value> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
        .collect();
    let allocatable: serde_json::Map<String, serde_json::Value> = allocatable
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
        .collect();
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": allocatable, "capacity": allocatable}
    })
}

fn time_slicing_node() -> serde_json::Value {
    node(
        "ts-node",
        &[
            ("kubernetes.io/hostname", "ts-node"),
            ("nvidia.com/gpu.product", "Tesla-T4-SHARED"),
            ("nvidia.com/gpu.count", "2"),
            ("nvidia.com/gpu.memory", "15360"),
            ("nvidia.com/gpu.replicas", "4"),
            ("nvidia.com/gpu.sharing-strategy", "time-slicing"),
            ("nvidia.com/gpu.family", "turing"),
            ("nvidia.com/mig.capable", "false"),
        ],
        &[("cpu", "8"), ("nvidia.com/gpu", "8")],
    )
}

fn mixed_mig_node() -> serde_json::Value {
    node(
        "mixed-node",
        &[
            ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"),
            ("nvidia.com/gpu.count", "2"),
            ("nvidia.com/gpu.memory", "40960"),
            ("nvidia.com/gpu.replicas", "1"),
            ("nvidia.com/gpu.sharing-strategy", "none"),
            ("nvidia.com/mig.capable", "true"),
            ("nvidia.com/mig.strategy", "mixed"),
            ("nvidia.com/mig.config", "all-3g.20gb"),
            ("nvidia.com/mig-3g.20gb.count", "2"),
            ("nvidia.com/mig-3g.20gb.memory", "10240"),
            ("nvidia.com/mig-3g.20gb.multiprocessors", "42"),
        ],
        &[("nvidia.com/gpu", "1"), ("nvidia.com/mig-3g.20gb", "2")],
    )
}

fn single_mig_node() -> serde_json::Value {
    node(
        "single-node",
        &[
            ("nvidia.com/gpu.product", "A100-SXM4-40GB-MIG-1g.5gb"),
            ("nvidia.com/gpu.count", "56"),
            ("nvidia.com/gpu.memory", "4864"),
            ("nvidia.com/gpu.replicas", "1"),
            ("nvidia.com/mig.capable", "true"),
            ("nvidia.com/mig.strategy", "single"),
            ("nvidia.com/mig.config", "all-1g.5gb"),
        ],
        &[("nvidia.com/gpu", "56")],
    )
}

#[test]
fn kubectl_time_slicing_node() {
    let inv = detect(&time_slicing_node().to_string()).unwrap();
    assert_eq!(inv.sources, vec![SourceFormat::KubectlNodes]);
    assert_eq!(inv.nodes.len(), 1);
    let n = &inv.nodes[0];
    assert_eq!(
        (
            n.name.as_str(),
            n.gpu_count,
            n.replicas,
            n.sharing_strategy.as_deref()
        ),
        ("ts-node", 2, Some(4), Some("time-slicing"))
    );
    assert_eq!(inv.gpus.len(), 2);
    for g in &inv.gpus {
        assert_eq!(g.node.as_deref(), Some("ts-node"));
        assert_eq!(g.name, "Tesla-T4-SHARED");
        assert_eq!(g.model.as_deref(), Some("T4"));
        assert_eq!(g.memory_mib, Some(15360));
        assert!(!g.mig_capable);
    }
    let caps = inv.caps();
    assert!(caps.supports_timeslicing && !caps.supports_mps && !caps.supports_mig);
    assert_eq!(
        (caps.gpu_model.as_deref(), caps.gpu_count),
        (Some("T4"), Some(2))
    );
}

#[test]
fn kubectl_node_list_with_mixed_and_single_mig() {
    let list = serde_json::json!({
        "apiVersion": "v1",
        "kind": "List",
        "items": [mixed_mig_node(), single_mig_node(), node("cpu-node", &[("kubernetes.io/os", "linux")], &[("cpu", "4")])],
    });
    let inv = detect(&list.to_string()).unwrap();
    assert_eq!(inv.nodes.len(), 2, "the CPU node is skipped");
    let mixed = &inv.nodes[0];
    assert_eq!(mixed.mig_strategy.as_deref(), Some("mixed"));
    assert_eq!(mixed.mig_config.as_deref(), Some("all-3g.20gb"));
    assert_eq!(mixed.mig_device_counts.get("3g.20gb"), Some(&2));
    assert_eq!(mixed.gpu_count, 2);
    let on_mixed: Vec<&DiscoveredGpu> = inv
        .gpus
        .iter()
        .filter(|g| g.node.as_deref() == Some("mixed-node"))
        .collect();
    assert_eq!(on_mixed.len(), 2);
    // Two 3g.20gb fit one A100 (4 memory slices each): the first GPU holds both, the second has no MIG.
    assert!(on_mixed[0].mig_enabled && !on_mixed[1].mig_enabled);
    assert_eq!(on_mixed[0].mig_devices.len(), 2);
    assert_eq!(on_mixed[0].mig_devices[0].profile, "3g.20gb");
    assert_eq!(on_mixed[0].mig_devices[0].memory_mib, Some(10240));

    let single = &inv.nodes[1];
    assert_eq!(single.gpu_count, 8, "56 1g.5gb devices, at most 7 per A100");
    assert_eq!(single.mig_device_counts.get("1g.5gb"), Some(&56));
    let on_single: Vec<&DiscoveredGpu> = inv
        .gpus
        .iter()
        .filter(|g| g.node.as_deref() == Some("single-node"))
        .collect();
    assert_eq!(on_single.len(), 8);
    assert!(on_single
        .iter()
        .all(|g| g.mig_enabled && g.mig_devices.len() == 7));
    assert_eq!(on_single[0].model.as_deref(), Some("A100-SXM4-40GB"));
    assert!(inv
        .notes
        .iter()
        .any(|n| n.contains("1 node without NVIDIA GPU")));

    let caps = inv.caps();
    assert_eq!(caps.gpu_model.as_deref(), Some("A100-SXM4-40GB"));
    assert_eq!(caps.gpu_count, Some(10));
    assert!(caps.supports_mig);
    assert!(
        !caps.supports_timeslicing && !caps.supports_mps,
        "sharing-strategy none"
    );
    caps.resolve(&[]).unwrap();
}

#[test]
fn kubectl_errors_name_the_field() {
    let mut bad = time_slicing_node();
    bad["metadata"]["labels"]["nvidia.com/gpu.count"] = "two".into();
    let e = detect(&bad.to_string()).unwrap_err();
    assert_eq!(
        e.field.as_deref(),
        Some("metadata.labels.nvidia.com/gpu.count")
    );
    let e = detect("{\"kind\": \"Pod\"}").unwrap_err();
    assert!(e.message.contains("Node"), "{e}");
    let e = detect("{\n\"kind\": \"NodeList\",\n\"items\": [\n").unwrap_err();
    assert_eq!(e.line, Some(4));
}
