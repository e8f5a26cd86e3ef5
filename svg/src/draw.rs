//! One lane as SVG: its group and title, a block per instance, share or free run, and the
//! memory-slice grid of a MIG lane.

use crate::geometry::{
    columns_in, px, Bar, BAR_HEIGHT, BAR_TOP, MARGIN, MEMORY_GAP, MEMORY_HEIGHT,
};
use crate::lanes::{Block, Lane};
use crate::palette::Colouring;
use crate::text::{ellipsis, escape};
use std::fmt::Write;

/// Pixels of a block's width its label does not use (left padding and a little on the right).
const LABEL_PADDING: u32 = 8;

/// Writes `lane` with its top at `y`.
pub fn lane(out: &mut String, lane: &Lane, y: u32, bar: Bar, colours: &Colouring) {
    let node = lane
        .node
        .as_deref()
        .map(|n| format!(" data-node=\"{}\"", escape(n)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<g class=\"lane lane-{m}\" data-gpu=\"{i}\" data-mechanism=\"{m}\"{node} role=\"group\">\n<title>{t}</title>",
        m = lane.mechanism,
        i = lane.index,
        t = escape(&lane.title)
    );
    let title = ellipsis(&lane.title, columns_in(u64::from(bar.width) * 100, 0));
    let _ = writeln!(
        out,
        "<text class=\"lane-title\" x=\"{MARGIN}\" y=\"{}\">{}</text>",
        y + 13,
        escape(&title)
    );
    for b in &lane.blocks {
        block(out, b, lane.index, y + BAR_TOP, bar, colours);
    }
    if let Some(n) = lane.slices {
        grid(out, n, y + BAR_TOP, bar);
    }
    let memory_top = y + BAR_TOP + BAR_HEIGHT + MEMORY_GAP;
    for b in &lane.memory {
        memory_block(out, b, memory_top, bar, colours);
    }
    out.push_str("</g>\n");
}

/// A part of the memory bar: the ask's colour (its details in the `<title>`), or free.
fn memory_block(out: &mut String, b: &Block, top: u32, bar: Bar, colours: &Colouring) {
    let (x0, x1) = (bar.x(b.start), bar.x(b.start + b.width));
    let class = match &b.ask {
        Some(ask) => format!("mem c{}", colours.of(ask)),
        None => "mem free".to_string(),
    };
    let _ = writeln!(
        out,
        "<g class=\"{class}\"><title>{}</title><rect x=\"{}\" y=\"{top}\" width=\"{}\" height=\"{MEMORY_HEIGHT}\" rx=\"2\"/></g>",
        escape(&b.title),
        px(x0 + 50),
        px((x1 - x0).saturating_sub(100)),
    );
}

/// One block: a focusable image of an ask (its details in its `<title>`), or free room.
fn block(out: &mut String, b: &Block, gpu: u64, top: u32, bar: Bar, colours: &Colouring) {
    let (x0, x1) = (bar.x(b.start), bar.x(b.start + b.width));
    let width = x1 - x0;
    match &b.ask {
        Some(ask) => {
            let _ = write!(
                out,
                "<g class=\"block c{}\" tabindex=\"0\" role=\"img\" data-ask=\"{}\" data-gpu=\"{gpu}\">",
                colours.of(ask),
                escape(ask)
            );
        }
        None => {
            let _ = write!(out, "<g class=\"free\" data-gpu=\"{gpu}\">");
        }
    }
    let _ = write!(
        out,
        "<title>{}</title><rect x=\"{}\" y=\"{}.5\" width=\"{}\" height=\"{}\" rx=\"3\"/>",
        escape(&b.title),
        px(x0 + 50),
        top,
        px(width.saturating_sub(100)),
        BAR_HEIGHT - 1
    );
    let label = ellipsis(&b.label, columns_in(width, LABEL_PADDING));
    if !label.is_empty() {
        let _ = write!(
            out,
            "<svg x=\"{}\" y=\"{top}\" width=\"{}\" height=\"{BAR_HEIGHT}\"><text class=\"label\" x=\"5\" y=\"15\">{}</text></svg>",
            px(x0),
            px(width),
            escape(&label)
        );
    }
    out.push_str("</g>\n");
}

/// The lines between memory slices of a MIG lane.
fn grid(out: &mut String, slices: u8, top: u32, bar: Bar) {
    for s in 1..slices {
        let x = px(bar.x(crate::lanes::at_slice(s, slices)));
        let _ = writeln!(
            out,
            "<line class=\"slice-line\" x1=\"{x}\" x2=\"{x}\" y1=\"{top}\" y2=\"{}\"/>",
            top + BAR_HEIGHT
        );
    }
}
