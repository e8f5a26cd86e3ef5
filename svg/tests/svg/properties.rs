//! Properties over random packings made by the core's real packer — MIG on A100-40GB, A100-80GB,
//! H100-80GB and A30, MPS, time-slicing, whole and multi-GPU whole asks, GPU limits (so unplaced
//! asks), nodes and the optimizer: the renderer never panics, the document always parses, every
//! GPU up to the limit is a lane, every placed ask is a block of one colour that its lane
//! neighbours do not share, every unplaced ask is listed, and the same result (also read back from
//! its JSON, as the npm package does) gives the same bytes.

use crate::common::{all_text, colour, with_class};
use gpu_share_core::internals::nodes::NodeSpec;
use gpu_share_core::internals::pack::{bin_pack_with, optimize::Budget, PackOptions};
use gpu_share_core::internals::{find_model, ClusterGpuCaps, FractionalAsk, PackResult, Share};
use gpu_share_svg::{render, SvgOptions, MAX_UNPLACED};
use proptest::prelude::*;
use std::collections::BTreeMap;

const MODELS: [&str; 4] = ["A100-SXM4-40GB", "A100-SXM4-80GB", "H100-80GB-HBM3", "A30"];

/// An ask's size: a share in thousandths, whole GPUs, or the `n`th profile of the model.
#[derive(Clone, Debug)]
enum Size {
    Thousandths(u64),
    Whole(u64),
    Profile(usize),
}

fn size() -> impl Strategy<Value = Size> {
    prop_oneof![
        (1u64..1000).prop_map(Size::Thousandths),
        (1u64..4).prop_map(Size::Whole),
        (0usize..16).prop_map(Size::Profile),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,8}",
        prop::sample::select(vec!["<b>", "a&b", "\"q\"", "]]>", "🙂", "名前", "it's"])
            .prop_map(String::from),
        "[a-z]{100,128}",
    ]
}

#[derive(Clone, Debug)]
struct Case {
    asks: Vec<(String, Size)>,
    model: usize,
    flags: [bool; 3],
    gpus: Option<u64>,
    nodes: Option<Vec<u64>>,
    optimize: Option<u64>,
    max_gpus: usize,
    width: u32,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((name(), size()), 0..24),
        0usize..MODELS.len(),
        any::<[bool; 3]>(),
        prop::option::of(1u64..8),
        prop::option::of(prop::collection::vec(1u64..5, 1..4)),
        prop::option::of(1u64..400),
        prop_oneof![Just(500usize), 0usize..6],
        prop_oneof![Just(720u32), 0u32..2000],
    )
        .prop_map(
            |(asks, model, flags, gpus, nodes, optimize, max_gpus, width)| Case {
                asks,
                model,
                flags,
                gpus,
                nodes,
                optimize,
                max_gpus,
                width,
            },
        )
}

/// The case packed by the real packer, when the core accepts it.
fn packed(case: &Case) -> Option<PackResult> {
    let model = find_model(MODELS[case.model]).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    let asks: Vec<FractionalAsk> = case
        .asks
        .iter()
        .filter(|(n, _)| seen.insert(n.clone()))
        .filter_map(|(n, s)| match s {
            Size::Thousandths(t) => FractionalAsk::fraction(n, Share::ratio(*t, 1000).ok()?).ok(),
            Size::Whole(g) => FractionalAsk::fraction(n, Share::whole(*g).ok()?).ok(),
            Size::Profile(p) => {
                FractionalAsk::mig(n, model.profiles[p % model.profiles.len()].name).ok()
            }
        })
        .collect();
    let caps = ClusterGpuCaps {
        supports_mig: case.flags[0],
        supports_mps: case.flags[1],
        supports_timeslicing: case.flags[2],
        gpu_model: Some(model.name.to_string()),
        gpu_count: case.gpus,
        nodes: case.nodes.as_ref().map(|list| {
            list.iter()
                .enumerate()
                .map(|(i, &gpus)| NodeSpec {
                    name: format!("node-{i}"),
                    gpus,
                })
                .collect()
        }),
        ..Default::default()
    };
    let options = PackOptions {
        optimize: case.optimize.map(Budget::work),
    };
    bin_pack_with(&asks, &caps, &options).ok().map(|p| p.result)
}

fn check(r: &PackResult, options: &SvgOptions) -> Result<(), TestCaseError> {
    let text = render(r, options);
    let doc = roxmltree::Document::parse(&text)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    let lanes = with_class(&doc, "lane");
    prop_assert_eq!(lanes.len(), r.gpus.len().min(options.max_gpus));
    let words = all_text(&doc);
    let mut colours: BTreeMap<&str, Option<usize>> = BTreeMap::new();
    for (lane, gpu) in lanes.iter().zip(&r.gpus) {
        let index = gpu.index.to_string();
        prop_assert_eq!(lane.attribute("data-gpu"), Some(index.as_str()));
        let blocks: Vec<_> = lane
            .children()
            .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("block")))
            .collect();
        let asks: Vec<&str> = blocks
            .iter()
            .filter_map(|b| b.attribute("data-ask"))
            .collect();
        prop_assert_eq!(&asks, &gpu.asks().collect::<Vec<_>>());
        for (b, ask) in blocks.iter().zip(&asks) {
            prop_assert!(words.contains(ask), "{} is not in the text", ask);
            let c = colour(*b);
            prop_assert!(c.is_some());
            prop_assert_eq!(
                *colours.entry(ask).or_insert(c),
                c,
                "{} has two colours",
                ask
            );
        }
        for pair in blocks.windows(2) {
            prop_assert_ne!(
                colour(pair[0]),
                colour(pair[1]),
                "neighbours share a colour on GPU {}",
                gpu.index
            );
        }
    }
    for u in r.unplaced.iter().take(MAX_UNPLACED) {
        prop_assert!(words.contains(&u.reason));
        prop_assert!(doc
            .descendants()
            .any(|n| n.attribute("data-ask") == Some(u.name.as_str())));
    }
    prop_assert_eq!(render(r, options), text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256)
    ))]

    #[test]
    fn every_packing_draws_as_a_well_formed_document(case in case()) {
        let Some(r) = packed(&case) else { return Ok(()) };
        let options = SvgOptions { max_gpus: case.max_gpus, width: case.width, ..Default::default() };
        check(&r, &options)?;
        // What npm draws: the result read back from its JSON gives the same bytes.
        let back = PackResult::from_json(&serde_json::to_value(&r).unwrap());
        prop_assert_eq!(back.as_ref(), Ok(&r));
        prop_assert_eq!(render(&back.unwrap(), &options), render(&r, &options));
    }
}
