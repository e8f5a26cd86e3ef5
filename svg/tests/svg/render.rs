//! The document's structure for known packings: root, title and summary, lanes and blocks at their
//! real places, free room, nodes, the lane limit, unplaced asks, legend and options.

use crate::common::{all_text, colour, pack, parse, svg, title, with_class};
use gpu_share_core::internals::nodes::NodeSpec;
use gpu_share_core::internals::{ClusterGpuCaps, PackResult};
use gpu_share_svg::{render, SvgOptions};

fn mig(count: Option<u64>) -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mig: true,
        gpu_count: count,
        ..Default::default()
    }
}

fn timeslice(count: Option<u64>) -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_timeslicing: true,
        gpu_count: count,
        ..Default::default()
    }
}

fn seed_mig() -> PackResult {
    pack(&["x:3g.20gb", "y:2g.10gb", "z:2g.10gb"], mig(Some(1)))
}

/// `(x, width)` of a block's `<rect>`, in pixels.
fn rect(block: roxmltree::Node) -> (f64, f64) {
    let r = block.children().find(|c| c.has_tag_name("rect")).unwrap();
    let num = |a: &str| r.attribute(a).unwrap().parse::<f64>().unwrap();
    (num("x"), num("width"))
}

#[test]
fn the_document_is_standalone_and_accessible() {
    let text = svg(&seed_mig());
    let doc = parse(&text);
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    assert_eq!(root.attribute("role"), Some("img"));
    let height = root.attribute("height").unwrap();
    assert_eq!(
        root.attribute("viewBox"),
        Some(format!("0 0 720 {height}").as_str())
    );
    assert_eq!(root.attribute("width"), Some("720"));
    let ids: Vec<&str> = root
        .attribute("aria-labelledby")
        .unwrap()
        .split(' ')
        .collect();
    let by_id = |id: &str| {
        doc.descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap()
    };
    assert_eq!(by_id(ids[0]).tag_name().name(), "title");
    assert_eq!(by_id(ids[0]).text(), Some("GPU packing"));
    assert_eq!(by_id(ids[1]).tag_name().name(), "desc");
    assert_eq!(
        by_id(ids[1]).text(),
        Some("1 GPU used, lower bound 1, 0 unplaced, model A100-SXM4-40GB")
    );
    let style = doc.descendants().find(|n| n.has_tag_name("style")).unwrap();
    assert!(style
        .text()
        .unwrap()
        .contains("@media (prefers-color-scheme: dark)"));
    assert!(text.ends_with("</svg>\n") && !text.starts_with("<?xml"));
}

#[test]
fn mig_instances_sit_at_their_memory_slices() {
    let doc_text = svg(&seed_mig());
    let doc = parse(&doc_text);
    let lane = doc
        .descendants()
        .find(|n| n.attribute("data-gpu") == Some("0"))
        .unwrap();
    assert_eq!(lane.attribute("data-mechanism"), Some("mig"));
    assert_eq!(title(lane), "GPU 0 · mig · 8 of 8 memory slices used");
    let blocks = with_class(&doc, "block");
    let asks: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b.attribute("data-ask"))
        .collect();
    assert_eq!(asks, ["y", "z", "x"], "by start");
    // The bar is 696 px from x = 12; 3g.20gb starts at memory slice 4 of 8.
    let x = blocks[2];
    assert_eq!(rect(x), (12.0 + 348.0 + 0.5, 348.0 - 1.0));
    assert_eq!(rect(blocks[0]), (12.5, 173.0));
    assert_eq!(
        title(x),
        "x — MIG 3g.20gb on GPU 0: memory slices 4–7 of 8, 3 compute slices"
    );
    assert_eq!(x.attribute("tabindex"), Some("0"));
    assert_eq!(x.attribute("role"), Some("img"));
    let label = x.descendants().find(|n| n.has_tag_name("text")).unwrap();
    assert_eq!(label.text(), Some("x 3g.20gb"));
    assert_eq!(with_class(&doc, "slice-line").len(), 7);
    assert!(
        with_class(&doc, "free")
            .iter()
            .all(|n| !n.has_attribute("data-gpu")),
        "no free slice"
    );
}

#[test]
fn shared_lanes_stack_shares_and_the_rest_is_free() {
    let r = pack(&["a:0.5", "b:0.3", "c:0.4"], timeslice(Some(2)));
    let text = svg(&r);
    let doc = parse(&text);
    let lane0: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("data-gpu") == Some("0") && !n.has_attribute("data-mechanism"))
        .collect();
    let asks: Vec<Option<&str>> = lane0.iter().map(|b| b.attribute("data-ask")).collect();
    assert_eq!(asks, [Some("a"), Some("c"), None]);
    assert_eq!(rect(lane0[0]), (12.5, 347.0));
    assert_eq!(rect(lane0[1]), (360.5, 277.4));
    assert_eq!(rect(lane0[2]), (638.9, 68.6));
    assert_eq!(lane0[2].attribute("class"), Some("free"));
    assert_eq!(title(lane0[2]), "GPU 0: 0.1 free");
    assert_eq!(title(lane0[0]), "a — 0.5 of GPU 0 by timeslice");
    assert!(with_class(&doc, "slice-line").is_empty());
    assert!(all_text(&doc).contains("GPU 1 · timeslice · 0.3 used"));
}

#[test]
fn whole_asks_keep_one_colour_and_nodes_are_named() {
    let caps = ClusterGpuCaps {
        nodes: Some(vec![NodeSpec {
            name: "node-1".into(),
            gpus: 4,
        }]),
        ..Default::default()
    };
    let r = pack(&["big:2", "s:0.5"], caps);
    let doc_text = svg(&r);
    let doc = parse(&doc_text);
    let lanes = with_class(&doc, "lane");
    assert_eq!(lanes.len(), 3);
    assert!(lanes
        .iter()
        .all(|l| l.attribute("data-node") == Some("node-1")));
    assert!(title(lanes[0]).starts_with("GPU 0 on node-1 · whole"));
    let big: Vec<_> = with_class(&doc, "block")
        .into_iter()
        .filter(|b| b.attribute("data-ask") == Some("big"))
        .collect();
    assert_eq!(big.len(), 2);
    assert_eq!(colour(big[0]), colour(big[1]));
    assert_eq!(rect(big[0]), (12.5, 695.0), "a whole GPU is full");
    assert_eq!(title(big[1]), "big — whole GPU 1, exclusive");
}

#[test]
fn lanes_beyond_the_limit_are_counted() {
    let r = pack(
        &["a:1", "b:1", "c:1", "d:1", "e:1"],
        ClusterGpuCaps::default(),
    );
    let options = SvgOptions {
        max_gpus: 2,
        ..Default::default()
    };
    let text = render(&r, &options);
    let doc = parse(&text);
    assert_eq!(with_class(&doc, "lane").len(), 2);
    assert!(all_text(&doc).contains("… 3 more GPUs, listed in the plan"));
    let none = render(
        &r,
        &SvgOptions {
            max_gpus: 0,
            ..Default::default()
        },
    );
    let doc = parse(&none);
    assert!(with_class(&doc, "lane").is_empty());
    let text = all_text(&doc);
    assert!(text.contains("… 5 more GPUs, listed in the plan") && !text.contains("No GPU in use."));
    let one = render(
        &r,
        &SvgOptions {
            max_gpus: 4,
            ..Default::default()
        },
    );
    assert!(all_text(&parse(&one)).contains("… 1 more GPU, listed in the plan"));
    assert!(!all_text(&parse(&svg(&r))).contains("more GPU"));
}

#[test]
fn a_window_of_lanes_counts_the_gpus_before_and_after() {
    let r = pack(
        &["a:1", "b:1", "c:1", "d:1", "e:1"],
        ClusterGpuCaps::default(),
    );
    let window = |first_gpu, max_gpus| {
        let doc_text = render(
            &r,
            &SvgOptions {
                first_gpu,
                max_gpus,
                ..Default::default()
            },
        );
        let doc = parse(&doc_text);
        let drawn: Vec<String> = with_class(&doc, "lane")
            .iter()
            .filter_map(|l| l.attribute("data-gpu").map(str::to_string))
            .collect();
        (drawn, all_text(&doc))
    };
    let (drawn, text) = window(1, 3);
    assert_eq!(drawn, ["1", "2", "3"]);
    assert!(
        text.contains("… 1 GPU before these, listed in the plan"),
        "{text}"
    );
    assert!(text.contains("… 1 more GPU, listed in the plan"), "{text}");
    let (drawn, text) = window(3, 10);
    assert_eq!(drawn, ["3", "4"]);
    assert!(
        text.contains("… 3 GPUs before these") && !text.contains("more GPU"),
        "{text}"
    );
    // Past the end: no lane, every GPU counted before.
    let (drawn, text) = window(9, 10);
    assert!(drawn.is_empty());
    assert!(text.contains("… 5 GPUs before these"), "{text}");
    // The default draws from the first GPU and says nothing of GPUs before.
    assert!(!window(0, 10).1.contains("before these"));
}

#[test]
fn unplaced_asks_are_listed_with_their_reasons() {
    let r = pack(&["a:0.5", "b:0.6"], timeslice(Some(1)));
    assert_eq!(r.unplaced.len(), 1);
    let text = svg(&r);
    let doc = parse(&text);
    let group = with_class(&doc, "unplaced");
    assert_eq!(group[0].attribute("data-count"), Some("1"));
    // The larger ask is placed first; the other finds no room.
    assert_eq!(r.unplaced[0].name, "a");
    let entry = group[0]
        .children()
        .find(|n| n.attribute("data-ask") == Some("a"))
        .unwrap();
    let reason = format!("a (timeslice): {}", r.unplaced[0].reason);
    assert_eq!(title(entry), reason);
    assert!(all_text(&doc).contains("Unplaced (1)"));
    assert!(all_text(&doc).contains(&reason));
    let all_placed = svg(&pack(&["a:0.5"], timeslice(None)));
    assert!(all_text(&parse(&all_placed)).contains("Every ask is placed."));
}

#[test]
fn the_legend_has_free_then_each_ask_once_in_first_appearance_order() {
    let r = pack(&["a:0.5", "b:0.3", "c:0.4", "big:2"], timeslice(None));
    let text = svg(&r);
    let doc = parse(&text);
    let entries = with_class(&doc, "legend-entry");
    let names: Vec<&str> = entries
        .iter()
        .map(|e| {
            e.children()
                .find(|c| c.has_tag_name("text"))
                .unwrap()
                .text()
                .unwrap()
        })
        .collect();
    let order: Vec<&str> = r.gpus.iter().flat_map(|g| g.asks()).collect();
    let mut first: Vec<&str> = Vec::new();
    for a in order {
        if !first.contains(&a) {
            first.push(a);
        }
    }
    assert_eq!(names[0], "free");
    assert_eq!(names[1..], first[..]);
    // A legend entry has its ask's colour.
    for e in &entries[1..] {
        let ask = e.attribute("data-ask").unwrap();
        let block = with_class(&doc, "block")
            .into_iter()
            .find(|b| b.attribute("data-ask") == Some(ask))
            .unwrap();
        assert_eq!(colour(*e), colour(block));
    }
}

#[test]
fn options_set_the_title_width_and_ids() {
    let r = seed_mig();
    let options = SvgOptions {
        title: Some("Plan <A> & \"B\"".into()),
        width: 100,
        id_prefix: "second".into(),
        ..Default::default()
    };
    let text = render(&r, &options);
    let doc = parse(&text);
    let root = doc.root_element();
    assert_eq!(
        root.attribute("width"),
        Some("320"),
        "clamped to the minimum"
    );
    assert_eq!(
        root.attribute("aria-labelledby"),
        Some("second-title second-desc")
    );
    assert_eq!(title(root), "Plan <A> & \"B\"");
    let wide = render(
        &r,
        &SvgOptions {
            width: 1_000_000,
            ..Default::default()
        },
    );
    assert_eq!(
        parse(&wide).root_element().attribute("width"),
        Some("10000")
    );
    let bad = render(
        &r,
        &SvgOptions {
            id_prefix: "1 \"x\"".into(),
            ..Default::default()
        },
    );
    assert!(bad.contains("aria-labelledby=\"gpu-share-title gpu-share-desc\""));
}

#[test]
fn rendering_is_deterministic_and_survives_a_trip_through_json() {
    let r = pack(&["w:0.5", "x:3g.20gb", "big:2", "v:0.25"], mig(None));
    let first = svg(&r);
    assert_eq!(first, svg(&r.clone()));
    let json = serde_json::to_value(&r).unwrap();
    let back = PackResult::from_json(&json).unwrap();
    assert_eq!(svg(&back), first);
}

#[test]
fn an_empty_packing_still_draws() {
    let r = pack(&[], ClusterGpuCaps::default());
    let text = all_text(&parse(&svg(&r)));
    assert!(text.contains("No GPU in use.") && text.contains("Every ask is placed."));
    assert!(text.contains("0 GPUs used, lower bound 0, 0 unplaced, model not specified"));
}
