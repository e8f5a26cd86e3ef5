//! Exports of a plan on nodes: each device-plugin config names the nodes to label with it, mig-parted
//! gets one config per node layout with device indices counted on the node, and the nvidia-smi
//! commands use each GPU's index on its node.

use crate::common::{asks, caps, documents, run, unwrapped};
use gpu_share_core::internals::export::ExportFormat;
use gpu_share_core::internals::nodes::parse_nodes;
use gpu_share_core::internals::{bin_pack, ClusterGpuCaps};

const A100: &str = "A100-SXM4-40GB";

/// `caps` on the nodes `nodes` names.
fn on_nodes(caps: ClusterGpuCaps, nodes: &str) -> ClusterGpuCaps {
    ClusterGpuCaps {
        nodes: Some(parse_nodes(nodes).unwrap()),
        ..caps
    }
}

#[test]
fn each_config_names_the_nodes_that_select_it() {
    // An MPS client and a whole GPU cannot share a node: MPS on one, the whole GPU on the other.
    let mps_only = on_nodes(caps(false, true, false, A100), "gpu-a:1,gpu-b:1");
    let r = bin_pack(&asks(&["s:0.3", "w:1"]), &mps_only).unwrap();
    assert!(r.unplaced.is_empty(), "{:?}", r.unplaced);
    let text = unwrapped(&run(&r, ExportFormat::DevicePlugin));
    let mps_node = r
        .gpus
        .iter()
        .find(|g| g.asks().any(|a| a == "s"))
        .unwrap()
        .node
        .clone()
        .unwrap();
    let whole_node = r
        .gpus
        .iter()
        .find(|g| g.asks().any(|a| a == "w"))
        .unwrap()
        .node
        .clone()
        .unwrap();
    assert_ne!(mps_node, whole_node);
    assert!(text.contains(&format!("kubectl label node {mps_node} nvidia.com/device-plugin.config=gpu-share-mps --overwrite")), "{text}");
    assert!(text.contains(&format!("kubectl label node {whole_node} nvidia.com/device-plugin.config=gpu-share-whole --overwrite")), "{text}");
    // MIG GPUs on both nodes of a MIG plan: one config, both nodes labelled with it.
    let a = asks(&["m1:3g.20gb", "m2:3g.20gb", "m3:3g.20gb", "m4:3g.20gb"]);
    let text = unwrapped(&run(
        &bin_pack(&a, &on_nodes(caps(true, true, false, A100), "2x1")).unwrap(),
        ExportFormat::DevicePlugin,
    ));
    for node in ["node-1", "node-2"] {
        assert!(
            text.contains(&format!(
                "kubectl label node {node} nvidia.com/device-plugin.config=gpu-share --overwrite"
            )),
            "{text}"
        );
    }
}

#[test]
fn mig_parted_counts_devices_on_each_node() {
    // A whole GPU and a MIG GPU on each of two nodes, one layout per node: indices 0 and 1 on each.
    let a = asks(&["w1:1", "w2:1", "m1:7g.40gb", "m2:3g.20gb"]);
    let r = bin_pack(&a, &on_nodes(caps(true, true, false, A100), "2x2")).unwrap();
    assert!(r.unplaced.is_empty(), "{:?}", r.unplaced);
    let text = run(&r, ExportFormat::MigParted);
    let docs = documents(&text);
    let configs = docs[0]["mig-configs"].as_object().unwrap();
    assert_eq!(configs.len(), 2, "the nodes hold different layouts: {text}");
    for entries in configs.values() {
        for e in entries.as_array().unwrap() {
            for d in e["devices"].as_array().unwrap() {
                assert!(
                    d.as_u64().unwrap() < 2,
                    "device index counted on a node of 2 GPUs: {text}"
                );
            }
        }
    }
    assert!(
        unwrapped(&text).contains("kubectl label node node-1 nvidia.com/mig.config=gpu-share-"),
        "{text}"
    );
    let commands = run(&r, ExportFormat::MigCommands);
    for line in commands
        .lines()
        .filter(|l| l.starts_with("nvidia-smi mig -i"))
    {
        let index: u64 = line["nvidia-smi mig -i ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(index < 2, "{line}");
    }
}
