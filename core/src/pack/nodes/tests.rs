//! Node assignment: one sharing configuration per node, multi-GPU asks on one node, the rest unplaced.

use super::*;
use crate::ask::FractionalAsk;
use crate::caps::nodes::parse_nodes;
use crate::caps::ClusterGpuCaps;
use crate::pack::bin_pack;
use proptest::prelude::*;

fn asks(specs: &[&str]) -> Vec<FractionalAsk> {
    specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect()
}

fn caps(nodes: &str, mps: bool, timeslice: bool, mig: bool) -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mps: mps,
        supports_timeslicing: timeslice,
        supports_mig: mig,
        nodes: Some(parse_nodes(nodes).unwrap()),
        ..Default::default()
    }
}

#[test]
fn time_sliced_and_mps_gpus_never_share_a_node() {
    // MPS is offered (so fractions go to MPS); two asks moved to time-slicing by the GPU limit
    // would need a node of their own. Here: one MPS GPU and one whole GPU on 2 nodes of 1 GPU.
    let r = bin_pack(&asks(&["s:0.5", "w:1"]), &caps("2x1", true, false, false)).unwrap();
    assert!(r.unplaced.is_empty(), "{:?}", r.unplaced);
    let roles: Vec<Option<NodeRole>> = r.nodes.iter().map(|n| n.role).collect();
    assert!(
        roles.contains(&Some(NodeRole::Mps)) && roles.contains(&Some(NodeRole::Exclusive)),
        "{roles:?}"
    );
    // On one node of two GPUs, the whole GPU and the MPS GPU cannot both be served: one is unplaced.
    let r = bin_pack(&asks(&["s:0.5", "w:1"]), &caps("1x2", true, false, false)).unwrap();
    assert_eq!(r.unplaced.len(), 1);
    assert!(
        r.unplaced[0].reason.contains("one sharing configuration"),
        "{}",
        r.unplaced[0].reason
    );
    assert_eq!(r.gpus_used, 1);
    // What a node rule leaves out is packed again without it: the room it held serves another ask.
    let r = bin_pack(&asks(&["big:3", "w:2"]), &caps("2x2", false, false, false)).unwrap();
    let out: Vec<&str> = r.unplaced.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(out, ["big"]);
    assert_eq!(r.gpus_used, 2);
}

#[test]
fn a_multi_gpu_ask_stays_on_one_node() {
    // A pod asking for 4 whole GPUs gets them on one node: 2 nodes of 2 GPUs cannot hold it.
    let r = bin_pack(&asks(&["big:4"]), &caps("2x2", false, false, false)).unwrap();
    assert_eq!(r.unplaced.len(), 1);
    let why = &r.unplaced[0].reason;
    assert!(
        why.contains("needs 4 whole GPUs on one node") && why.contains("the largest node has 2"),
        "{why}"
    );
    assert_eq!(r.gpus_used, 0);
    let r = bin_pack(
        &asks(&["big:4", "s:2"]),
        &caps("small:2,large:4", false, false, false),
    )
    .unwrap();
    assert!(r.unplaced.is_empty());
    let large = r.nodes.iter().find(|n| n.name == "large").unwrap();
    let big: Vec<u64> = r
        .gpus
        .iter()
        .filter(|g| g.asks().any(|a| a == "big"))
        .map(|g| g.index)
        .collect();
    assert_eq!(large.gpus, big);
}

#[test]
fn a_small_role_takes_a_small_node() {
    // One MPS GPU and a 2-GPU ask on nodes of 1 and 2 GPUs: the MPS GPU must not take the large node.
    let c = caps("gpu-a:1,gpu-b:2", true, false, false);
    let r = bin_pack(&asks(&["s:0.3", "w:2"]), &c).unwrap();
    assert!(r.unplaced.is_empty(), "{:?}", r.unplaced);
    let role = |name: &str| r.nodes.iter().find(|n| n.name == name).unwrap().role;
    assert_eq!(role("gpu-a"), Some(NodeRole::Mps));
    assert_eq!(role("gpu-b"), Some(NodeRole::Exclusive));
}

#[test]
fn mig_gpus_share_nodes_with_whole_gpus() {
    let r = bin_pack(
        &asks(&["m:3g.20gb", "w:1"]),
        &caps("1x2", false, false, true),
    )
    .unwrap();
    assert!(r.unplaced.is_empty());
    assert_eq!(r.nodes[0].role, Some(NodeRole::Exclusive));
    assert_eq!(r.nodes[0].gpus, [0, 1]);
    assert!(r.gpus.iter().all(|g| g.node.as_deref() == Some("node-1")));
}

#[test]
fn the_gpu_count_comes_from_the_nodes_and_must_agree() {
    let mut c = caps("2x4", false, true, false);
    assert_eq!(c.resolve(&[]).unwrap().gpu_count, Some(8));
    c.gpu_count = Some(3);
    assert_eq!(c.resolve(&[]).unwrap_err().field.as_deref(), Some("nodes"));
}

proptest! {
    /// On random asks and node shapes: no node holds two roles or more GPUs than it has, every GPU
    /// is on a node, a whole ask's GPUs are on one node, and every ask is placed or unplaced once.
    #[test]
    fn nodes_are_never_overfilled_or_mixed(
        sizes in prop::collection::vec(1u32..30, 1..20),
        shape in (1u64..4, 1u64..5),
        mps in any::<bool>(),
        ts in any::<bool>(),
    ) {
        let specs: Vec<String> = sizes.iter().enumerate().map(|(i, s)| {
            if *s > 24 { format!("w{i}:{}", s - 23) } else { format!("a{i}:0.{:02}", s * 4) }
        }).collect();
        let list = asks(&specs.iter().map(String::as_str).collect::<Vec<_>>());
        let c = caps(&format!("{}x{}", shape.0, shape.1), mps, ts, false);
        let r = bin_pack(&list, &c).unwrap();
        for n in &r.nodes {
            prop_assert!(n.gpus.len() as u64 <= n.capacity);
            for &g in &n.gpus {
                let gpu = &r.gpus[g as usize];
                prop_assert_eq!(Some(NodeRole::of(gpu.mechanism())), n.role);
                prop_assert_eq!(gpu.node.as_deref(), Some(n.name.as_str()));
            }
        }
        for g in &r.gpus {
            prop_assert!(g.node.is_some());
        }
        for a in &list {
            let nodes: std::collections::BTreeSet<&str> = r.gpus.iter().filter(|g| g.asks().any(|x| x == a.name())).filter_map(|g| g.node.as_deref()).collect();
            let unplaced = r.unplaced.iter().filter(|u| u.name == a.name()).count();
            prop_assert!(nodes.len() + unplaced == 1, "{} on {:?}, unplaced {}", a.name(), nodes, unplaced);
        }
    }
}
