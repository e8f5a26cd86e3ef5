//! `nvidia-smi -q -x`: the XML report (root `nvidia_smi_log`, one `gpu` element per GPU).

use super::raw::{RawDevice, RawGpu};
use super::values;
use crate::error::{Error, ErrorKind, Result};
use roxmltree::{Document, Node, ParsingOptions};

/// Most XML nodes accepted (an 8-GPU report has about 10,000).
const NODES_LIMIT: u32 = 4_000_000;

/// Reads every `gpu` element. `first_line` is the line of `text` within the caller's input.
pub(super) fn parse(text: &str, first_line: usize) -> Result<Vec<RawGpu>> {
    let options = ParsingOptions {
        // nvidia-smi writes `<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">`; roxmltree
        // guards entity expansion itself and never loads the external DTD.
        allow_dtd: true,
        nodes_limit: NODES_LIMIT,
        ..ParsingOptions::default()
    };
    let doc =
        Document::parse_with_options(text, options).map_err(|e| xml_error(&e, text, first_line))?;
    let root = doc.root_element();
    if root.tag_name().name() != "nvidia_smi_log" {
        return Err(Error::new(
            ErrorKind::Syntax,
            format!(
                "the XML's root element is <{}>, expected <nvidia_smi_log> (the output of nvidia-smi -q -x)",
                root.tag_name().name()
            ),
        )
        .at_line(line_of(&doc, root, first_line)));
    }
    let mut gpus = Vec::new();
    for (i, g) in root
        .children()
        .filter(|n| n.has_tag_name("gpu"))
        .enumerate()
    {
        if values::room_for_gpu(gpus.len(), 0).is_err() {
            // The line is found only on error: finding it scans the text.
            values::room_for_gpu(gpus.len(), line_of(&doc, g, first_line))?;
        }
        gpus.push(read_gpu(&doc, g, i, first_line)?);
    }
    Ok(gpus)
}

fn read_gpu(doc: &Document, g: Node, i: usize, first_line: usize) -> Result<RawGpu> {
    let at = |field: &str, node: Node, message: String| {
        Error::new(ErrorKind::Syntax, message)
            .in_field(format!("gpu[{i}].{field}"))
            .at_line(line_of(doc, node, first_line))
    };
    let name = match child_text(g, &["product_name"]) {
        Some((_, t)) if !values::is_na(t) => t.trim().to_string(),
        _ => {
            return Err(at(
                "product_name",
                g,
                "a <gpu> without a <product_name>".into(),
            ))
        }
    };
    let mut gpu = RawGpu {
        index: i as u64,
        name: Some(name),
        ..RawGpu::default()
    };
    if let Some((n, t)) = child_text(g, &["fb_memory_usage", "total"]) {
        gpu.memory_mib = values::mib(t).map_err(|m| at("fb_memory_usage.total", n, m))?;
    }
    if let Some((n, t)) = child_text(g, &["mig_mode", "current_mig"]) {
        gpu.mig_current = values::mig_mode(t).map_err(|m| at("mig_mode.current_mig", n, m))?;
    }
    if let Some((n, t)) = child_text(g, &["mig_mode", "pending_mig"]) {
        gpu.mig_pending = values::mig_mode(t).map_err(|m| at("mig_mode.pending_mig", n, m))?;
    }
    if let Some(devices) = child(g, &["mig_devices"]) {
        let mut list = Vec::new();
        for (j, d) in devices
            .children()
            .filter(|n| n.has_tag_name("mig_device"))
            .enumerate()
        {
            let field = |f: &str| format!("mig_devices.mig_device[{j}].{f}");
            let num = |path: &[&str], f: &str| -> Result<Option<u32>> {
                match child_text(d, path) {
                    Some((n, t)) => values::number(t).map_err(|m| at(&field(f), n, m)),
                    None => Ok(None),
                }
            };
            let memory_mib = match child_text(d, &["fb_memory_usage", "total"]) {
                Some((n, t)) => {
                    values::mib(t).map_err(|m| at(&field("fb_memory_usage.total"), n, m))?
                }
                None => None,
            };
            list.push(RawDevice {
                device_index: num(&["index"], "index")?,
                profile: child_text(d, &["name"]).and_then(|(_, t)| values::text(t)),
                gpu_instance_id: num(&["gpu_instance_id"], "gpu_instance_id")?,
                compute_instance_id: num(&["compute_instance_id"], "compute_instance_id")?,
                memory_mib,
                multiprocessors: num(
                    &["device_attributes", "shared", "multiprocessor_count"],
                    "device_attributes.shared.multiprocessor_count",
                )?,
                start: None,
            });
        }
        gpu.devices = Some(list);
    }
    gpu.uuid = child_text(g, &["uuid"]).and_then(|(_, t)| values::text(t));
    gpu.pci_bus_id = child_text(g, &["pci", "pci_bus_id"])
        .and_then(|(_, t)| values::text(t))
        .or_else(|| g.attribute("id").and_then(values::text));
    gpu.pci_device_id =
        child_text(g, &["pci", "pci_device_id"]).and_then(|(_, t)| values::pci_device_id(t));
    for (path, field) in [
        (
            &["gpu_power_readings", "default_power_limit"][..],
            "gpu_power_readings.default_power_limit",
        ),
        (
            &["power_readings", "default_power_limit"][..],
            "power_readings.default_power_limit",
        ),
        (
            &["power_readings", "power_limit"][..],
            "power_readings.power_limit",
        ),
    ] {
        if let Some((n, t)) = child_text(g, path) {
            if let Some(w) = values::watts(t).map_err(|m| at(field, n, m))? {
                gpu.power_limit_w = Some(w);
                break;
            }
        }
    }
    Ok(gpu)
}

/// The element at `path` below `node` (first match at each step).
fn child<'a, 'i>(node: Node<'a, 'i>, path: &[&str]) -> Option<Node<'a, 'i>> {
    path.iter()
        .try_fold(node, |n, name| n.children().find(|c| c.has_tag_name(*name)))
}

/// The element at `path` and its text (empty when it has none).
fn child_text<'a, 'i>(node: Node<'a, 'i>, path: &[&str]) -> Option<(Node<'a, 'i>, &'a str)> {
    child(node, path).map(|n| (n, n.text().unwrap_or("")))
}

fn line_of(doc: &Document, node: Node, first_line: usize) -> usize {
    let row = doc.text_pos_at(node.range().start).row as usize;
    first_line + row.saturating_sub(1)
}

fn xml_error(e: &roxmltree::Error, text: &str, first_line: usize) -> Error {
    use roxmltree::Error as X;
    let (message, row) = match e {
        X::UnclosedRootNode | X::UnexpectedEndOfStream => (
            "the XML ends before its root element is closed: the input looks truncated".to_string(),
            text.lines().count().max(1),
        ),
        X::NoRootNode => ("the XML has no root element".to_string(), 1),
        other => {
            let full = other.to_string();
            // roxmltree ends messages with "at ROW:COL" relative to this text; the line is reported apart.
            let message = match full.rsplit_once(" at ") {
                Some((m, pos)) if pos.bytes().all(|b| b.is_ascii_digit() || b == b':') => {
                    format!("{m} (column {})", other.pos().col)
                }
                _ => full,
            };
            (message, other.pos().row as usize)
        }
    };
    Error::new(ErrorKind::Syntax, format!("not well-formed XML: {message}"))
        .at_line(first_line + row.saturating_sub(1))
}
