//! Names are text, never markup: hostile names, node names and titles come out escaped, with the
//! characters XML 1.0 does not allow dropped, and every name readable in full in a `<title>`.

use crate::common::{all_text, parse, title, with_class};
use gpu_share_core::internals::nodes::NodeSpec;
use gpu_share_core::internals::{bin_pack, ClusterGpuCaps, FractionalAsk};
use gpu_share_svg::{render, SvgOptions};

fn hostile() -> Vec<String> {
    vec![
        "<script>alert(1)</script>".into(),
        "]]>".into(),
        "\"double\" and 'single'".into(),
        "&amp; &lt;b&gt; &#x26;".into(),
        "🙂 emoji 名前".into(),
        "x".repeat(128),
        "<!-- c -->".into(),
        "<?pi x?>".into(),
        "a\u{2028}b".into(),
        "</svg><svg onload=alert(1)>".into(),
    ]
}

#[test]
fn hostile_names_are_text_everywhere() {
    let names = hostile();
    let asks: Vec<FractionalAsk> = names
        .iter()
        .enumerate()
        .map(|(i, n)| match i % 3 {
            0 => FractionalAsk::mig(n, "1g.5gb").unwrap(),
            1 => {
                FractionalAsk::fraction(n, gpu_share_core::internals::Share::parse("0.2").unwrap())
                    .unwrap()
            }
            _ => FractionalAsk::fraction(n, gpu_share_core::internals::Share::parse("1").unwrap())
                .unwrap(),
        })
        .collect();
    let caps = ClusterGpuCaps {
        supports_mig: true,
        supports_timeslicing: true,
        gpu_count: Some(4),
        nodes: Some(vec![
            NodeSpec {
                name: "<node & \"1\">".into(),
                gpus: 2,
            },
            NodeSpec {
                name: "]]>node".into(),
                gpus: 2,
            },
        ]),
        ..Default::default()
    };
    let r = bin_pack(&asks, &caps).unwrap();
    assert!(
        !r.unplaced.is_empty(),
        "some are unplaced, so reasons hold names too"
    );
    let options = SvgOptions {
        title: Some("<title>&</title>".into()),
        ..Default::default()
    };
    let text = render(&r, &options);
    let doc = parse(&text);
    assert!(!text.contains("<script") && !text.contains("<!--") && !text.contains("<?"));
    assert!(doc.descendants().all(|n| !n.has_tag_name("script")));
    assert_eq!(
        doc.root_element()
            .children()
            .filter(|n| n.has_tag_name("svg"))
            .count(),
        0
    );
    let words = all_text(&doc);
    for name in &names {
        assert!(words.contains(name.as_str()), "{name} is not in the text");
        let in_data = doc
            .descendants()
            .any(|n| n.attribute("data-ask") == Some(name.as_str()));
        assert!(in_data, "{name} is no data-ask");
    }
    assert!(words.contains("<title>&</title>"));
    let lanes = with_class(&doc, "lane");
    assert!(lanes
        .iter()
        .any(|l| l.attribute("data-node") == Some("<node & \"1\">")
            && title(*l).contains("on <node & \"1\">")));
}

#[test]
fn long_names_are_cut_in_labels_and_whole_in_titles() {
    let long = "n".repeat(128);
    let asks = vec![FractionalAsk::fraction(
        &long,
        gpu_share_core::internals::Share::parse("0.1").unwrap(),
    )
    .unwrap()];
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let text = render(&bin_pack(&asks, &caps).unwrap(), &SvgOptions::default());
    let doc = parse(&text);
    let block = with_class(&doc, "block")[0];
    assert_eq!(title(block), format!("{long} — 0.1 of GPU 0 by timeslice"));
    let label = block
        .descendants()
        .find(|n| n.has_tag_name("text"))
        .unwrap()
        .text()
        .unwrap();
    assert!(
        label.ends_with('…') && label.chars().count() < 20,
        "{label}"
    );
    let legend = with_class(&doc, "legend-entry")[1];
    assert_eq!(title(legend), long);
}

#[test]
fn characters_xml_forbids_are_dropped() {
    // The core refuses control characters in names; U+FFFE and U+FFFF it lets through.
    let name = "a\u{FFFE}b\u{FFFF}c";
    let asks = vec![FractionalAsk::fraction(
        name,
        gpu_share_core::internals::Share::parse("0.5").unwrap(),
    )
    .unwrap()];
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let r = bin_pack(&asks, &caps).unwrap();
    let text = render(
        &r,
        &SvgOptions {
            title: Some("t\u{0}\u{7}\u{1b}i\u{85}tle\n".into()),
            ..Default::default()
        },
    );
    let doc = parse(&text);
    assert!(doc
        .descendants()
        .any(|n| n.attribute("data-ask") == Some("abc")));
    assert_eq!(title(doc.root_element()), "title ");
    assert!(!text.contains('\u{FFFE}') && !text.contains('\u{0}'));
}
