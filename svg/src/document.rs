//! The whole document: the root `<svg>` with its `<title>`, `<desc>` and style sheet, a header
//! with the summary, the lanes, a line for GPUs not drawn, the unplaced asks with their reasons,
//! the legend and a line on how to read the diagram. Everything is laid out top to bottom in
//! whole pixels; the height is known once the last line is placed.

use crate::draw;
use crate::geometry::{columns_in, Bar, LANE_HEIGHT, LINE, MARGIN, MEMORY_EXTRA};
use crate::lanes::{lanes, Lane};
use crate::palette::{Colouring, PALETTE};
use crate::style::ROOT_CLASS;
use crate::text::{ellipsis, escape, width, wrap};
use crate::SvgOptions;
use gpu_share_core::api::{PackResult, Share, Unplaced};
use std::fmt::Write;

/// The most unplaced asks listed; the rest are counted in one line.
pub const MAX_UNPLACED: usize = 500;

/// The longest ask name a legend entry shows (the full name is in its `<title>`).
const LEGEND_COLUMNS: usize = 24;

const HINT: &str = "MIG lanes show the GPU's memory slices: each instance sits at its real start and width. Time-sliced and MPS lanes stack each ask's share, with a thin memory bar beneath when asks give memory; whole GPUs are full. Hover or focus a block for details.";

/// The body of the document as it is written, and the top of the next line.
pub(crate) struct Body {
    pub out: String,
    pub y: u32,
    pub width: u32,
}

impl Body {
    /// A line of text at the next line's place.
    pub fn line(&mut self, class: &str, text: &str, step: u32) {
        self.y += step;
        let text = ellipsis(
            text,
            columns_in(u64::from(self.width - 2 * MARGIN) * 100, 0),
        );
        let _ = writeln!(
            self.out,
            "<text class=\"{class}\" x=\"{MARGIN}\" y=\"{}\">{}</text>",
            self.y,
            escape(&text)
        );
    }

    /// Wrapped text, one `<text>` per line.
    pub fn paragraph(&mut self, class: &str, text: &str) {
        let columns = columns_in(u64::from(self.width - 2 * MARGIN) * 100, 0);
        for line in wrap(text, columns) {
            self.line(class, &line, LINE);
        }
    }
}

/// The diagram of `result`, as [`render`](crate::render) documents it.
pub fn document(result: &PackResult, options: &SvgOptions) -> String {
    let width = options.width.clamp(crate::MIN_WIDTH, crate::MAX_WIDTH);
    let first = options.first_gpu.min(result.gpus.len());
    let drawn = lanes(result, first, options.max_gpus);
    let colours = Colouring::new(
        drawn
            .iter()
            .map(|l| l.blocks.iter().filter_map(|b| b.ask.as_deref()).collect()),
        PALETTE.len(),
    );
    let title = options
        .title
        .clone()
        .unwrap_or_else(|| crate::DEFAULT_TITLE.to_string());
    let desc = summary(result);
    let mut body = Body {
        out: String::new(),
        y: 0,
        width,
    };
    body.line("heading", &title, 24);
    let utilisation = result.utilisation.percent_of(Share::ONE);
    body.line("muted", &format!("{desc}; utilisation {utilisation}%"), 20);
    body.y += 8;
    lanes_part(&mut body, &drawn, first, result.gpus.len(), &colours);
    unplaced(&mut body, &result.unplaced);
    legend(&mut body, &colours);
    body.y += 8;
    body.paragraph("muted", HINT);
    root(width, body.y + MARGIN, options, &title, &desc, &body.out)
}

/// `3 GPUs used, lower bound 2, 0 unplaced, model A100-SXM4-40GB`.
pub fn summary(r: &PackResult) -> String {
    let gpus = if r.gpus_used == 1 { "GPU" } else { "GPUs" };
    format!(
        "{} {gpus} used, lower bound {}, {} unplaced, model {}",
        r.gpus_used,
        r.lower_bound,
        r.unplaced.len(),
        r.gpu_model.as_deref().unwrap_or("not specified")
    )
}

pub(crate) fn root(
    width: u32,
    height: u32,
    options: &SvgOptions,
    title: &str,
    desc: &str,
    body: &str,
) -> String {
    let id = id_prefix(&options.id_prefix);
    let mut out = String::with_capacity(body.len() + 4096);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{ROOT_CLASS}\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-labelledby=\"{id}-title {id}-desc\">"
    );
    let _ = writeln!(out, "<title id=\"{id}-title\">{}</title>", escape(title));
    let _ = writeln!(out, "<desc id=\"{id}-desc\">{}</desc>", escape(desc));
    let _ = writeln!(out, "<style>{}</style>", crate::style_sheet());
    out.push_str("<rect class=\"bg\" width=\"100%\" height=\"100%\"/>\n");
    out.push_str(body);
    out.push_str("</svg>\n");
    out
}

/// The prefix of the document's ids, or the default for one that is not valid.
fn id_prefix(given: &str) -> &str {
    if valid_id_prefix(given) {
        given
    } else {
        crate::DEFAULT_ID_PREFIX
    }
}

/// Whether `prefix` makes valid, unsurprising ids: ASCII letters, digits, `-` and `_`, starting
/// with a letter.
pub fn valid_id_prefix(prefix: &str) -> bool {
    prefix.starts_with(|c: char| c.is_ascii_alphabetic())
        && prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn lanes_part(body: &mut Body, drawn: &[Lane], first: usize, total: usize, colours: &Colouring) {
    let bar = Bar::of(body.width);
    let gpus = |n: usize| if n == 1 { "GPU" } else { "GPUs" };
    if first > 0 {
        body.line(
            "muted",
            &format!("… {first} {} before these, listed in the plan", gpus(first)),
            LINE,
        );
    }
    for l in drawn {
        draw::lane(&mut body.out, l, body.y, bar, colours);
        body.y += LANE_HEIGHT;
        if !l.memory.is_empty() {
            body.y += MEMORY_EXTRA;
        }
    }
    if total == 0 {
        body.line("muted", "No GPU in use.", LINE);
    }
    let hidden = total.saturating_sub(first + drawn.len());
    if hidden > 0 {
        body.line(
            "muted",
            &format!("… {hidden} more {}, listed in the plan", gpus(hidden)),
            LINE,
        );
    }
}

fn unplaced(body: &mut Body, list: &[Unplaced]) {
    body.y += 8;
    if list.is_empty() {
        body.line("muted", "Every ask is placed.", LINE);
        return;
    }
    let _ = writeln!(
        body.out,
        "<g class=\"unplaced\" data-count=\"{}\">",
        list.len()
    );
    body.line(
        "subheading warn",
        &format!("Unplaced ({})", list.len()),
        LINE + 2,
    );
    for u in list.iter().take(MAX_UNPLACED) {
        let text = format!("{} ({}): {}", u.name, u.mechanism, u.reason);
        let _ = writeln!(
            body.out,
            "<g data-ask=\"{}\"><title>{}</title>",
            escape(&u.name),
            escape(&text)
        );
        body.paragraph("reason", &text);
        body.out.push_str("</g>\n");
    }
    let more = list.len().saturating_sub(MAX_UNPLACED);
    if more > 0 {
        body.line(
            "muted",
            &format!("… {more} more unplaced asks, listed in the plan"),
            LINE,
        );
    }
    body.out.push_str("</g>\n");
}

/// A swatch and name for `free` and each ask, in first-appearance order, flowing in rows.
fn legend(body: &mut Body, colours: &Colouring) {
    body.y += 8;
    body.line("subheading", "Legend", LINE + 2);
    body.out.push_str("<g class=\"legend\">\n");
    let entries = std::iter::once(None).chain(colours.order.iter().map(Some));
    let right = body.width - MARGIN;
    let (mut x, mut top) = (MARGIN, body.y + 6);
    for ask in entries {
        let name = ask.map_or("free".to_string(), |a| ellipsis(a, LEGEND_COLUMNS));
        let entry = 12 + 5 + width(&name) as u32 * crate::geometry::COLUMN_PX + 14;
        if x > MARGIN && x + entry > right {
            (x, top) = (MARGIN, top + LINE + 2);
        }
        let _ = match ask {
            Some(a) => write!(
                body.out,
                "<g class=\"legend-entry c{}\" data-ask=\"{}\"><title>{}</title>",
                colours.of(a),
                escape(a),
                escape(a)
            ),
            None => write!(body.out, "<g class=\"legend-entry free\">"),
        };
        let _ = writeln!(
            body.out,
            "<rect x=\"{x}\" y=\"{top}\" width=\"12\" height=\"12\" rx=\"2\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
            x + 17,
            top + 10,
            escape(&name)
        );
        x += entry;
    }
    body.out.push_str("</g>\n");
    body.y = top + 12;
}
