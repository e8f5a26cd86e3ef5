//! Replay's invariants, on the synthetic trace (tests/fixtures/replay/) and on random small
//! clusters: no node or GPU is ever over-allocated in any resource, every arrival is placed or
//! failed exactly once, the same seed gives the same run, the fill protocol stops where it says,
//! and the bound is never below a placement that exists.

use super::bound::upper_bound;
use super::cluster::Placement;
use super::run::Simulation;
use super::trace::{PodGpu, Trace, GPU_MILLI};
use super::workload::{arrivals, Tune};
use super::{replay, Policy, ReplayOptions};
use proptest::prelude::*;

const NODES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/replay/nodes.csv"
));
const PODS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/replay/pods.csv"
));

fn fixture() -> Trace {
    Trace::read(NODES, PODS).unwrap()
}

/// Replays `order` under `policy` and checks every placement against its own accounting, made
/// here from the trace and the placements alone.
fn check_placements(trace: &Trace, order: &[u32], policy: Policy, seed: u64) {
    let sim = Simulation::new(trace, Tune::PAPER);
    let mut cpu: Vec<u64> = trace.nodes.iter().map(|n| n.cpu_milli).collect();
    let mut memory: Vec<u64> = trace.nodes.iter().map(|n| n.memory_mib).collect();
    let mut free: Vec<Vec<u32>> = trace
        .nodes
        .iter()
        .map(|n| vec![GPU_MILLI; n.gpus as usize])
        .collect();
    let (mut seen, mut placed, mut allocated) = (0, 0, 0);
    let run = sim.run_traced(policy, seed, order, |i, at: Option<Placement>| {
        assert_eq!(i, order[seen], "arrivals are taken once each, in order");
        seen += 1;
        let pod = &trace.pods[i as usize];
        let Some(at) = at else { return };
        placed += 1;
        let (n, node) = (at.node, &trace.nodes[at.node]);
        cpu[n] = cpu[n]
            .checked_sub(pod.cpu_milli)
            .expect("a node's CPU over-allocated");
        memory[n] = memory[n]
            .checked_sub(pod.memory_mib)
            .expect("a node's memory over-allocated");
        match pod.gpu {
            PodGpu::None => assert_eq!(at.gpu, None),
            PodGpu::Share(milli) => {
                assert!(
                    pod.models.contains(node.model),
                    "a pod on a model it excludes"
                );
                let f = &mut free[n][at.gpu.expect("a share names its GPU")];
                *f = f.checked_sub(milli).expect("a GPU over-allocated");
                allocated += u64::from(milli);
            }
            PodGpu::Whole(count) => {
                assert!(
                    pod.models.contains(node.model),
                    "a pod on a model it excludes"
                );
                let idle: Vec<usize> = (0..free[n].len())
                    .filter(|&g| free[n][g] == GPU_MILLI)
                    .collect();
                assert!(
                    idle.len() >= count as usize,
                    "whole GPUs that were not free"
                );
                for &g in &idle[..count as usize] {
                    free[n][g] = 0;
                }
                allocated += u64::from(count) * u64::from(GPU_MILLI);
            }
        }
    });
    assert_eq!(seen, order.len());
    assert_eq!(run.placed_pods, placed);
    let failed = run.failed.no_gpu + run.failed.share + run.failed.whole;
    assert_eq!(
        run.placed_pods + failed,
        order.len() as u64,
        "placed or failed, exactly once"
    );
    assert_eq!(run.allocated_gpu_milli, allocated);
    assert!(
        allocated <= upper_bound(trace, order),
        "the bound is below a placement"
    );
}

#[test]
fn the_fixture_is_never_over_allocated_under_any_policy() {
    let trace = fixture();
    for seed in [1, 42] {
        let order = arrivals(&trace, Tune::PAPER, seed).unwrap();
        for policy in Policy::ALL {
            check_placements(&trace, &order, policy, seed);
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_replay_and_another_seed_another() {
    let trace = fixture();
    let options = |seeds: Vec<u64>| ReplayOptions {
        policies: Policy::ALL.to_vec(),
        seeds,
        tune: Tune::PAPER,
    };
    let once = replay(&trace, &options(vec![7])).unwrap();
    assert_eq!(once, replay(&trace, &options(vec![7])).unwrap());
    assert_ne!(
        once.policies[0].runs,
        replay(&trace, &options(vec![8])).unwrap().policies[0].runs
    );
    // Every policy sees the same arrivals.
    let arrived: Vec<_> = once
        .policies
        .iter()
        .map(|p| (p.runs[0].arrived_pods, p.runs[0].arrived_gpu_milli))
        .collect();
    assert!(arrived.windows(2).all(|w| w[0] == w[1]), "{arrived:?}");
}

#[test]
fn the_fill_adds_copies_until_the_next_would_pass_the_tune() {
    let trace = fixture();
    let capacity = trace.capacity_milli();
    let order = arrivals(&trace, Tune::PAPER, 3).unwrap();
    let demand: u64 = order
        .iter()
        .map(|&i| trace.pods[i as usize].gpu.milli())
        .sum();
    assert!(demand * 1000 <= capacity * 1300, "{demand} of {capacity}");
    assert!(order.len() > trace.pods.len(), "copies were added");
    // Every pod of the list comes first, each once, then the copies.
    let mut originals: Vec<u32> = order[..trace.pods.len()].to_vec();
    originals.sort_unstable();
    assert_eq!(originals, (0..trace.pods.len() as u32).collect::<Vec<_>>());
    // The copy that stopped the fill would have passed the tune: the largest GPU ask does.
    let largest = trace.pods.iter().map(|p| p.gpu.milli()).max().unwrap();
    assert!((demand + largest) * 1000 > capacity * 1300);
}

#[test]
fn a_list_asking_more_than_the_tune_loses_pods_at_random() {
    let trace = fixture();
    let capacity = trace.capacity_milli();
    let tune = Tune::from_permille(500).unwrap();
    let order = arrivals(&trace, tune, 3).unwrap();
    let demand: u64 = order
        .iter()
        .map(|&i| trace.pods[i as usize].gpu.milli())
        .sum();
    assert!(demand * 1000 <= capacity * 500 && order.len() < trace.pods.len());
    let mut unique = order.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), order.len(), "no pod twice");
}

#[test]
fn the_bound_sees_cpu_that_runs_out() {
    // Two GPUs, four cores: however the pods are placed, one 4-core pod runs.
    let nodes = "sn,cpu_milli,memory_mib,gpu,model\nn,4000,65536,2,T4\n";
    let pods =
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,4000,1024,1,1000\nb,4000,1024,1,1000\n";
    let trace = Trace::read(nodes, pods).unwrap();
    assert_eq!(upper_bound(&trace, &[0, 1]), 1000);
    let r = replay(
        &trace,
        &ReplayOptions {
            policies: vec![Policy::Fgd],
            seeds: vec![1],
            tune: Tune::PAPER,
        },
    )
    .unwrap();
    assert_eq!((r.bound.upper.0, r.bound.offline.0), (5000, 5000));
    // The arrivals never ask more than 100%: at 130% the cluster is as they left it.
    assert_eq!(
        (
            r.policies[0].at_100.unwrap().0,
            r.policies[0].at_tune.unwrap().0
        ),
        (5000, 5000)
    );
}

/// Small random clusters and pod lists in the trace's form.
fn trace_strategy() -> impl Strategy<Value = Trace> {
    let node = (1u32..=4, 0u64..3, prop::sample::select(vec![1u32, 2, 4, 8]));
    let pod = (
        0u64..5,
        0u64..4,
        0u32..6,
        prop::sample::select(vec![0u64, 1, 2, 3]),
    );
    (
        prop::collection::vec(node, 1..6),
        prop::collection::vec(pod, 1..30),
    )
        .prop_map(|(nodes, pods)| {
            let models = ["A", "B"];
            let mut n_csv = String::from("sn,cpu_milli,memory_mib,gpu,model\n");
            for (i, (cores, memory, gpus)) in nodes.iter().enumerate() {
                n_csv += &format!(
                    "n{i},{},{},{gpus},{}\n",
                    cores * 8000,
                    (memory + 1) * 16384,
                    models[i % 2]
                );
            }
            let mut p_csv = String::from("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n");
            for (i, (cpu, memory, kind, spec)) in pods.iter().enumerate() {
                let (num, milli) =
                    [(0, 0), (1, 1000), (2, 1000), (1, 500), (1, 250), (4, 1000)][*kind as usize];
                let spec = ["", "A", "B", "A|B"][*spec as usize];
                p_csv += &format!(
                    "p{i},{},{},{num},{milli},{spec}\n",
                    cpu * 4000 + 1000,
                    memory * 8192 + 1024
                );
            }
            Trace::read(&n_csv, &p_csv).unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_policy_over_allocates_a_random_cluster(trace in trace_strategy(), seed in 0u64..1000) {
        let order = arrivals(&trace, Tune::PAPER, seed).unwrap();
        for policy in Policy::ALL {
            check_placements(&trace, &order, policy, seed);
        }
    }
}

/// Where FGD's score, the nodes' GPUs and (for a share) the GPU's fit are all equal, gpu-share's
/// policy puts a GPU pod where the node's CPU stays in balance with its free GPUs — here the
/// node left with just the CPU its last free GPU's typical pod needs — whatever the run's node
/// order, where FGD's tie falls to that order.
#[test]
fn gpu_share_keeps_a_nodes_cpu_in_balance_with_its_gpus() {
    let nodes = "sn,cpu_milli,memory_mib,gpu,model\n\
        spare,64000,262144,2,T4\nbalanced,16000,262144,2,T4\n";
    let pods_of = |ask: &str| {
        let mut pods = String::from("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n");
        for i in 0..4 {
            pods.push_str(&format!("p{i},{ask},\n"));
        }
        pods
    };
    // A whole GPU with 8,000 CPU leaves the balanced node 8,000 CPU for its other GPU; a half GPU
    // with 4,000 CPU leaves it 12,000 for 1,500 milli, exactly the typical 8 CPU per milli.
    for ask in ["8000,1024,1,1000", "4000,1024,1,500"] {
        let trace = Trace::read(nodes, &pods_of(ask)).unwrap();
        let sim = Simulation::new(&trace, Tune::PAPER);
        let first_node = |policy, seed| {
            let mut node = None;
            sim.run_traced(policy, seed, &[0], |_, at| node = at.map(|a| a.node));
            node
        };
        let fgd: std::collections::HashSet<_> =
            (0..16).map(|s| first_node(Policy::Fgd, s)).collect();
        assert_eq!(fgd.len(), 2, "{ask}: FGD's tie falls to the node order");
        for seed in 0..16 {
            assert_eq!(
                first_node(Policy::GpuShare, seed),
                Some(1),
                "{ask}, seed {seed}"
            );
        }
    }
}
