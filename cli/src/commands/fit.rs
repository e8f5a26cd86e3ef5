//! `gpu-share fit`: per MIG GPU as it is, what can still be created where and what is stranded;
//! with asks, where each goes without moving an instance.

use super::write_json;
use crate::args::{FitConfig, Format};
use crate::exit::{CliError, Code};
use crate::output::{printable, table, Style};
use gpu_share_core::api::{self, FitResponse, GpuFit};
use std::io::Write;

/// Exit 3 when some ask found no room, as `pack` does.
pub fn run(cfg: FitConfig, style: Style, out: &mut impl Write) -> Result<Code, CliError> {
    let response = api::fit(&cfg.request)?;
    match cfg.format {
        Format::Json => write_json(out, &response)?,
        Format::Text => write_text(out, &response, style)?,
    }
    Ok(if response.unplaced.is_empty() {
        Code::Ok
    } else {
        Code::Unplaced
    })
}

fn slices(s: &[u8]) -> String {
    if s.is_empty() {
        "none".into()
    } else {
        s.iter().map(u8::to_string).collect::<Vec<_>>().join(", ")
    }
}

fn gpu_title(g: &GpuFit) -> String {
    let at = g
        .node
        .as_deref()
        .map(|n| format!("{} ", printable(n)))
        .unwrap_or_default();
    format!("{at}GPU {} ({})", g.index, g.model)
}

fn write_gpu(out: &mut impl Write, g: &GpuFit, style: Style) -> Result<(), CliError> {
    writeln!(out, "{}", style.bold(&gpu_title(g)))?;
    let held: Vec<String> = g
        .instances
        .iter()
        .map(|i| match i.gpu_instance_id {
            Some(id) => format!("{}@{} (GI {id})", i.profile, i.start),
            None => format!("{}@{}", i.profile, i.start),
        })
        .collect();
    let held = if held.is_empty() {
        "none".into()
    } else {
        held.join(", ")
    };
    let mut rows = vec![
        vec!["instances".to_string(), held],
        vec![
            "free".to_string(),
            format!(
                "memory slices {}; {} compute slices",
                slices(&g.free_memory_slices),
                g.free_compute_slices
            ),
        ],
    ];
    let creatable: Vec<String> = g
        .creatable
        .iter()
        .map(|c| format!("{} at {}", c.profile, slices(&c.starts)))
        .collect();
    let creatable = if creatable.is_empty() {
        "nothing".into()
    } else {
        creatable.join("; ")
    };
    rows.push(vec!["can create".to_string(), creatable]);
    rows.push(vec![
        "stranded".to_string(),
        format!("memory slices {}", slices(&g.stranded_memory_slices)),
    ]);
    if let Some(s) = &g.stranded_for_asks {
        rows.push(vec![
            "stranded for the asks".to_string(),
            format!("memory slices {}", slices(s)),
        ]);
    }
    for line in table(&rows).lines() {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

fn write_text(out: &mut impl Write, r: &FitResponse, style: Style) -> Result<(), CliError> {
    if r.gpus.is_empty() {
        writeln!(
            out,
            "No GPU the input shows MIG-enabled with known placements."
        )?;
    }
    for g in &r.gpus {
        write_gpu(out, g, style)?;
    }
    for p in &r.placed {
        let at = p
            .node
            .as_deref()
            .map(|n| format!("{} ", printable(n)))
            .unwrap_or_default();
        writeln!(
            out,
            "{}: {} at memory slice {} of {at}GPU {}",
            printable(&p.ask),
            p.profile,
            p.start,
            p.gpu
        )?;
    }
    for u in &r.unplaced {
        let line = format!("{}: unplaced — {}", printable(&u.name), u.reason);
        writeln!(out, "{}", style.warning(&line))?;
    }
    for n in &r.notes {
        writeln!(out, "{}", style.warning(&format!("note: {}", printable(n))))?;
    }
    Ok(())
}
