//! `gpu-share pack`: many asks onto GPUs, printed as one line per GPU.

use super::write_json;
use crate::args::{Format, PackConfig};
use crate::exit::{CliError, Code};
use crate::output::{printable, table, Style};
use gpu_share_core::api::{self, OptimizeReport};
use gpu_share_core::{GpuLayout, Mechanism, PackResult};
use std::collections::BTreeSet;
use std::io::Write;

pub fn run(cfg: PackConfig, style: Style, out: &mut impl Write) -> Result<Code, CliError> {
    let response = api::pack(&cfg.request)?;
    match cfg.format {
        Format::Json => write_json(out, &response)?,
        Format::Text => {
            if let Some(from) = &response.caps_from {
                super::plan::write_caps_from(out, from)?;
            }
            write_text(out, &response.result, style)?;
            if let Some(report) = &response.optimize {
                write_optimize(out, &response.result, report)?;
            }
        }
    }
    Ok(if response.all_placed() {
        Code::Ok
    } else {
        Code::Unplaced
    })
}

fn write_optimize(
    out: &mut impl Write,
    result: &PackResult,
    r: &OptimizeReport,
) -> std::io::Result<()> {
    let verdict = if r.proven_optimal {
        "proven optimal (meets the lower bound)".to_string()
    } else {
        format!(
            "{} GPU(s) above the lower bound; no proof that fewer is possible",
            r.gap
        )
    };
    writeln!(
        out,
        "optimize: {} GPUs (first-fit-decreasing: {}); {verdict}",
        result.gpus_used, r.ffd_gpus
    )
}

fn write_text(out: &mut impl Write, r: &PackResult, style: Style) -> std::io::Result<()> {
    let placed = r.choices.len() - r.unplaced.len();
    let plural = |n: usize, w: &str| {
        if n == 1 {
            format!("{n} {w}")
        } else {
            format!("{n} {w}s")
        }
    };
    writeln!(
        out,
        "{} on {} (lower bound {}, utilisation {}%), {} unplaced",
        plural(placed, "ask"),
        plural(r.gpus_used as usize, "GPU"),
        r.lower_bound,
        r.utilisation().percent_of(gpu_share_core::Share::ONE),
        r.unplaced.len()
    )?;
    for note in &r.notes {
        writeln!(out, "  {}", printable(note))?;
    }
    let rows: Vec<Vec<String>> = r.gpus.iter().map(gpu_row).collect();
    let text = table(&rows);
    for (line, gpu) in text.lines().zip(&r.gpus) {
        // Colour after alignment, so escape codes do not upset the column widths.
        let m = gpu.mechanism.as_str();
        writeln!(
            out,
            "  {}",
            line.replacen(m, &style.mechanism(gpu.mechanism), 1)
        )?;
    }
    if !r.unplaced.is_empty() {
        writeln!(out, "{}", style.warning("unplaced:"))?;
        for u in &r.unplaced {
            writeln!(
                out,
                "  {} ({}): {}",
                printable(&u.name),
                u.mechanism,
                printable(&u.reason)
            )?;
        }
    }
    let mut warnings = BTreeSet::new();
    for c in &r.choices {
        for w in &c.warnings {
            let key = if c.mechanism == Mechanism::Whole {
                format!("{}: {w}", c.name)
            } else {
                w.clone()
            };
            warnings.insert(key);
        }
    }
    for w in warnings {
        writeln!(out, "{}", style.warning(&format!("⚠ {}", printable(&w))))?;
    }
    Ok(())
}

fn gpu_row(g: &GpuLayout) -> Vec<String> {
    let asks = if g.instances.is_empty() {
        g.slots
            .iter()
            .map(|s| format!("{} {:.2}", printable(&s.ask), s.share))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        g.instances
            .iter()
            .map(|i| format!("{} {}@{}", printable(&i.ask), i.profile, i.start))
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![
        format!("GPU {}", g.index),
        g.mechanism.to_string(),
        format!("{:.2} used", g.used_fraction),
        asks,
    ]
}
