//! Columns say what [`pack`](crate::api::pack) says, by position: checked against it on random
//! scenarios (every mechanism, memory, GPU limits, nodes, the optimizer), and every bad column
//! refused in its own field.

use super::*;
use crate::api::{pack, PackRequest};
use crate::caps::nodes::NodeSpec;
use crate::caps::ClusterGpuCaps;
use proptest::prelude::*;

const MIB: u64 = 1 << 20;

fn caps(mig: bool, mps: bool, timeslice: bool, limit: Option<u64>, nodes: bool) -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mig: mig,
        supports_mps: mps,
        supports_timeslicing: timeslice,
        gpu_model: Some("A100-SXM4-40GB".into()),
        gpu_count: limit,
        nodes: nodes.then(|| {
            vec![
                NodeSpec {
                    name: "a".into(),
                    gpus: 4,
                },
                NodeSpec {
                    name: "b".into(),
                    gpus: 8,
                },
            ]
        }),
        ..Default::default()
    }
}

fn request(asks: AskColumns, caps: ClusterGpuCaps, optimize: bool) -> PackColumnsRequest {
    PackColumnsRequest {
        asks,
        gpu_count: None,
        cluster: Cluster::Given(caps),
        options: options(optimize),
    }
}

/// First-fit-decreasing alone, or with a 20 ms search.
fn options(optimize: bool) -> PackOptions {
    PackOptions {
        optimize,
        time_limit_ms: Some(20),
        ..PackOptions::default()
    }
}

/// Holds `c` to `pack`'s answer for the same asks.
fn agrees(c: &PackColumns, r: &PackResult, asks: &[FractionalAsk]) {
    let s = &c.summary;
    assert_eq!(
        (s.gpus_used, s.lower_bound, s.gpu_count),
        (r.gpus_used, r.lower_bound, r.gpu_count)
    );
    assert_eq!(
        (&s.gpu_model, &s.notes, &s.nodes),
        (&r.gpu_model, &r.notes, &r.nodes)
    );
    assert_eq!(s.utilisation, r.utilisation);
    let name = |i: u32| asks[i as usize].name();
    let unplaced: Vec<(&str, &str)> = s
        .unplaced
        .iter()
        .map(|u| (name(u.ask), u.reason.as_str()))
        .collect();
    let expected: Vec<(&str, &str)> = r
        .unplaced
        .iter()
        .map(|u| (u.name.as_str(), u.reason.as_str()))
        .collect();
    assert_eq!(unplaced, expected);
    assert_eq!(c.gpus.ask_start.len(), r.gpus.len() + 1);
    for (g, layout) in r.gpus.iter().enumerate() {
        let on: Vec<&str> = c.gpus.asks
            [c.gpus.ask_start[g] as usize..c.gpus.ask_start[g + 1] as usize]
            .iter()
            .map(|&i| name(i))
            .collect();
        assert_eq!(on, layout.asks().collect::<Vec<_>>(), "GPU {g}");
        assert_eq!(
            (c.gpus.mechanism[g], c.gpus.used[g]),
            (layout.mechanism(), layout.used_fraction())
        );
        for instance in layout.instances() {
            let i = asks.iter().position(|a| a.name() == instance.ask).unwrap();
            let profile = c.asks.mig_profile[i].map(|p| s.mig_profiles[p as usize].as_str());
            assert_eq!(
                (profile, c.asks.mig_start[i]),
                (Some(instance.profile), Some(instance.start))
            );
        }
    }
    for (i, (ask, choice)) in asks.iter().zip(&r.choices).enumerate() {
        let first = r
            .gpus
            .iter()
            .position(|g| g.asks().any(|a| a == ask.name()));
        assert_eq!(c.asks.gpu[i].map(|g| g as usize), first, "ask {i}");
        assert_eq!(
            (c.asks.mechanism[i], c.asks.allocated[i]),
            (choice.mechanism, choice.allocated_fraction)
        );
        let mig = r
            .gpus
            .iter()
            .flat_map(|g| g.instances())
            .any(|m| m.ask == ask.name());
        assert_eq!(c.asks.mig_profile[i].is_some(), mig);
    }
    for w in &s.warnings {
        let carrying: Vec<usize> = (0..asks.len())
            .filter(|&i| r.choices[i].warnings.iter().any(|x| *x == w.text))
            .collect();
        assert_eq!(
            (w.asks as usize, w.first as usize),
            (carrying.len(), carrying[0]),
            "{}",
            w.text
        );
    }
    let total: usize = r.choices.iter().map(|c| c.warnings.len()).sum();
    assert_eq!(
        s.warnings.iter().map(|w| w.asks as usize).sum::<usize>(),
        total
    );
    assert_eq!(s.mechanisms, Mechanism::ALL);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn columns_say_what_pack_says(
        sizes in prop::collection::vec((0u64..2500, prop_oneof![Just(0u64), 1u64..30_000]), 1..40),
        mechanisms in (any::<bool>(), any::<bool>(), any::<bool>()),
        limit in prop::option::of(1u64..10),
        nodes in any::<bool>(),
        named in any::<bool>(),
        optimize in any::<bool>(),
    ) {
        // Thousandths of a GPU (0: memory only, at least 1 MiB then); above 1000 whole GPUs, no memory.
        let fractions: Vec<f64> = sizes.iter().map(|&(t, _)| t as f64 / 1000.0).collect();
        let memory: Vec<f64> = sizes
            .iter()
            .map(|&(t, mib)| match (t, mib) {
                (0, 0) => MIB as f64,
                (t, _) if t >= 1000 => 0.0,
                (_, mib) => (mib * MIB) as f64,
            })
            .collect();
        let names = named.then(|| (0..sizes.len()).map(|i| format!(" ask-{i} ")).collect());
        let columns = AskColumns::new(names, Some(&fractions), Some(&memory)).unwrap();
        let (mig, mps, timeslice) = mechanisms;
        let caps = caps(mig, mps, timeslice, limit, nodes && limit.is_none());
        let asks = columns.asks().to_vec();
        let mut plain = PackRequest::new(asks.clone(), caps.clone());
        plain.options = options(optimize);
        match (pack(&plain), pack_columns(&request(columns, caps, optimize))) {
            (Ok(r), Ok(c)) => agrees(&c, &r.result, &asks),
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "pack {:?}, columns {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }
}

#[test]
fn asks_are_named_by_position_without_names() {
    let columns = AskColumns::new(
        None,
        Some(&[0.5, 0.0, 0.75]),
        Some(&[0.0, 4096.0 * MIB as f64, 0.0]),
    )
    .unwrap();
    let names: Vec<&str> = columns.asks().iter().map(FractionalAsk::name).collect();
    assert_eq!(names, ["0", "1", "2"]);
    assert_eq!(
        columns.asks()[1].memory(),
        Some(Memory::from_bytes(4096 * MIB).unwrap())
    );
    let c = pack_columns(&request(
        columns,
        caps(false, false, true, Some(1), false),
        false,
    ))
    .unwrap();
    // 0.75 first, then 0.5 finds no room on the one GPU; the memory ask shares with 0.75.
    assert_eq!(c.asks.gpu, [None, Some(0), Some(0)]);
    assert_eq!(c.summary.unplaced.len(), 1);
    assert_eq!(
        (
            c.summary.unplaced[0].ask,
            c.summary.unplaced[0].name.as_str()
        ),
        (0, "0")
    );
    assert_eq!(c.summary.warnings.len(), 1);
    assert_eq!(
        (c.summary.warnings[0].asks, c.summary.warnings[0].first),
        (3, 0)
    );
}

#[test]
fn mig_asks_get_their_profile_and_start() {
    let columns = AskColumns::new(None, Some(&[0.5, 0.25, 0.125]), None).unwrap();
    let c = pack_columns(&request(
        columns,
        caps(true, false, false, None, false),
        false,
    ))
    .unwrap();
    let profiles: Vec<&str> = c
        .asks
        .mig_profile
        .iter()
        .map(|p| c.summary.mig_profiles[p.unwrap() as usize].as_str())
        .collect();
    assert_eq!(profiles, ["4g.20gb", "2g.10gb", "1g.5gb"]);
    assert_eq!(c.asks.gpu, [Some(0), Some(0), Some(0)]);
    assert_eq!(c.asks.mig_start, [Some(0), Some(4), Some(6)]);
    assert_eq!(c.gpus.mechanism, [Mechanism::Mig]);
}

fn refused(
    names: Option<Vec<String>>,
    fractions: Option<&[f64]>,
    memory: Option<&[f64]>,
) -> (ErrorKind, String) {
    let e = AskColumns::new(names, fractions, memory).unwrap_err();
    (e.kind, e.field.unwrap_or_default())
}

#[test]
fn bad_columns_are_refused_in_their_field() {
    let names = |n: &[&str]| Some(n.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(
        refused(None, None, None),
        (ErrorKind::Syntax, "fractions".into())
    );
    assert_eq!(
        refused(None, Some(&[0.5]), Some(&[1.0, 2.0])),
        (ErrorKind::Syntax, "memory".into())
    );
    assert_eq!(
        refused(names(&["a"]), Some(&[0.5, 0.5]), None),
        (ErrorKind::Syntax, "names".into())
    );
    assert_eq!(
        refused(None, Some(&[0.5, f64::NAN]), None),
        (ErrorKind::OutOfRange, "fractions[1]".into())
    );
    assert_eq!(
        refused(None, Some(&[-0.5]), None),
        (ErrorKind::OutOfRange, "fractions[0]".into())
    );
    assert_eq!(
        refused(None, Some(&[0.5, 0.0]), None),
        (ErrorKind::OutOfRange, "fractions[1]".into())
    );
    assert_eq!(
        refused(None, None, Some(&[1.5])),
        (ErrorKind::OutOfRange, "memory[0]".into())
    );
    assert_eq!(
        refused(None, None, Some(&[f64::INFINITY])),
        (ErrorKind::OutOfRange, "memory[0]".into())
    );
    assert_eq!(
        refused(None, None, Some(&[1e300])),
        (ErrorKind::OutOfRange, "memory[0]".into())
    );
    assert_eq!(
        refused(None, Some(&[2.0]), Some(&[1024.0])),
        (ErrorKind::OutOfRange, "fractions[0]".into())
    );
    assert_eq!(
        refused(names(&["a", " "]), Some(&[0.5, 0.5]), None),
        (ErrorKind::Syntax, "names[1]".into())
    );
    let dup = pack_columns(&request(
        AskColumns::new(names(&["a", "a"]), Some(&[0.5, 0.5]), None).unwrap(),
        caps(false, false, true, None, false),
        false,
    ))
    .unwrap_err();
    assert_eq!(dup.kind, ErrorKind::DuplicateName);
    let many = vec![0.5; MAX_ASKS + 1];
    assert_eq!(
        refused(None, Some(&many), None),
        (ErrorKind::TooLarge, "fractions".into())
    );
}
