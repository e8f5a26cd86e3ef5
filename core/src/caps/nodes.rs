//! The nodes of a cluster as people write them: `4x8` (four nodes of eight GPUs) or `gpu-a:8,gpu-b:4`.
//! Packing onto them (one sharing configuration per node) is the packer's (`pack/nodes.rs`).

use crate::error::{Error, ErrorKind, Result};

/// The most nodes a cluster description may hold.
pub const MAX_NODES: usize = 100_000;

/// One node and how many GPUs it has.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NodeSpec {
    pub name: String,
    pub gpus: u64,
}

/// Reads `4x8` (four nodes of eight GPUs, named `node-1` …) or `a:8,b:4` (named nodes), or a mix.
///
/// # Errors
/// `Syntax` (field `nodes`) for anything else, a count of 0, more than [`MAX_NODES`] nodes, or
/// two nodes of one name.
pub fn parse_nodes(text: &str) -> Result<Vec<NodeSpec>> {
    let bad = |why: String| Err(Error::new(ErrorKind::Syntax, why).in_field("nodes"));
    let mut out: Vec<NodeSpec> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let number = |s: &str| s.trim().parse::<u64>().ok().filter(|&n| n > 0);
        if let Some((name, gpus)) = part.split_once(':') {
            let (Some(gpus), false) = (number(gpus), name.trim().is_empty()) else {
                return bad(format!(
                    "{part:?} is not NAME:GPUS (a node name and its GPU count, e.g. gpu-a:8)"
                ));
            };
            out.push(NodeSpec {
                name: name.trim().to_string(),
                gpus,
            });
        } else if let Some((count, gpus)) = part.split_once(['x', '×']) {
            let (Some(count), Some(gpus)) = (number(count), number(gpus)) else {
                return bad(format!(
                    "{part:?} is not NODESxGPUS (e.g. 4x8: four nodes of eight GPUs)"
                ));
            };
            if count > MAX_NODES as u64 {
                return bad(format!(
                    "{count} nodes is more than the {MAX_NODES} a cluster may hold"
                ));
            }
            let first = out.len();
            out.extend((0..count).map(|i| NodeSpec {
                name: format!("node-{}", first as u64 + i + 1),
                gpus,
            }));
        } else {
            return bad(format!(
                "{part:?} is neither NODESxGPUS (4x8) nor NAME:GPUS (gpu-a:8)"
            ));
        }
        if out.len() > MAX_NODES {
            return bad(format!(
                "more than the {MAX_NODES} nodes a cluster may hold"
            ));
        }
    }
    if out.is_empty() {
        return bad("give nodes as NODESxGPUS (4x8) or NAME:GPUS,… (gpu-a:8,gpu-b:4)".into());
    }
    check_names(&out)?;
    Ok(out)
}

/// Node names are unique and not empty.
pub(crate) fn check_names(nodes: &[NodeSpec]) -> Result<()> {
    let mut seen = std::collections::BTreeSet::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.name.trim().is_empty() || n.gpus == 0 {
            return Err(Error::new(
                ErrorKind::Syntax,
                "a node needs a name and at least one GPU",
            )
            .in_field(format!("nodes[{i}]")));
        }
        if !seen.insert(n.name.as_str()) {
            return Err(Error::new(
                ErrorKind::DuplicateName,
                format!("two nodes are named {:?}", n.name),
            )
            .in_field(format!("nodes[{i}]")));
        }
    }
    Ok(())
}

/// `4x8` for four nodes of eight GPUs named `node-1` …, else `name:gpus,…`: what [`parse_nodes`] reads back.
pub fn nodes_to_text(nodes: &[NodeSpec]) -> String {
    let uniform = nodes.first().is_some_and(|first| {
        nodes
            .iter()
            .enumerate()
            .all(|(i, n)| n.gpus == first.gpus && n.name == format!("node-{}", i + 1))
    });
    if uniform {
        return format!("{}x{}", nodes.len(), nodes[0].gpus);
    }
    nodes
        .iter()
        .map(|n| format!("{}:{}", n.name, n.gpus))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lists_read_and_write_back() {
        let four = parse_nodes("4x8").unwrap();
        assert_eq!(four.len(), 4);
        assert_eq!(
            four[3],
            NodeSpec {
                name: "node-4".into(),
                gpus: 8
            }
        );
        assert_eq!(nodes_to_text(&four), "4x8");
        let named = parse_nodes("gpu-a:8, gpu-b:4").unwrap();
        assert_eq!(nodes_to_text(&named), "gpu-a:8,gpu-b:4");
        for bad in ["", "4x0", "0x8", "x8", "a:0", ":4", "a:8,a:4", "four"] {
            let e = parse_nodes(bad).unwrap_err();
            assert!(
                e.field.as_deref().is_some_and(|f| f.starts_with("nodes")),
                "{bad}: {e}"
            );
        }
    }
}
