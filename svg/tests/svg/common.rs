//! What the tests share: packing a list of specs, rendering, and reading the document back.

use gpu_share_core::internals::{bin_pack, ClusterGpuCaps, FractionalAsk, PackResult};
use gpu_share_svg::{render, SvgOptions};
use roxmltree::{Document, Node};

pub fn pack(specs: &[&str], caps: ClusterGpuCaps) -> PackResult {
    let asks: Vec<FractionalAsk> = specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect();
    bin_pack(&asks, &caps).unwrap()
}

pub fn svg(result: &PackResult) -> String {
    render(result, &SvgOptions::default())
}

/// The document, which must be well-formed XML.
pub fn parse(svg: &str) -> Document<'_> {
    Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed: {e}\n{svg}"))
}

/// Elements with `class` among their classes.
pub fn with_class<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants()
        .filter(|n| {
            n.attribute("class")
                .is_some_and(|c| c.split(' ').any(|k| k == class))
        })
        .collect()
}

/// The text of an element's `<title>` child.
pub fn title<'a>(node: Node<'a, '_>) -> &'a str {
    node.children()
        .find(|c| c.has_tag_name("title"))
        .and_then(|t| t.text())
        .unwrap_or_default()
}

/// Every text node of the document, joined by newlines.
pub fn all_text(doc: &Document) -> String {
    doc.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The palette class (`c3` → 3) of a block or legend entry.
pub fn colour(node: Node) -> Option<usize> {
    node.attribute("class")?
        .split(' ')
        .find_map(|c| c.strip_prefix('c')?.parse().ok())
}
