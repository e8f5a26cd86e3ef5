//! `gpu-share pack`: many asks onto GPUs, printed as one line per GPU; with `--svg`, also drawn.

use super::write_json;
use crate::args::{Format, PackConfig, SvgTo};
use crate::env::Env;
use crate::exit::{CliError, Code};
use crate::output::{printable, table, Style};
use gpu_share_core::api::{
    self, bytes_text, grouped, DeviceEngines, GpuLayout, OptimizeReport, PackResponse, PackResult,
    Recording, Share, Tenants, WarningGroup,
};
use gpu_share_svg::SvgOptions;
use std::io::Write;
use std::path::PathBuf;

/// `pack --json`: the core's response, and where it was recorded.
#[derive(serde::Serialize)]
struct PackJson<'a> {
    #[serde(flatten)]
    response: &'a PackResponse,
    #[serde(skip_serializing_if = "Option::is_none")]
    recorded: Option<Recorded>,
}

#[derive(serde::Serialize)]
struct Recorded {
    ledger: PathBuf,
    /// Uses recorded: one per placed ask.
    records: usize,
    /// `None`: open until `gpu-share release NAME` (asks with their own hours ran that long).
    seconds: Option<u64>,
}

pub fn run(
    cfg: PackConfig,
    env: &Env,
    style: Style,
    out: &mut impl Write,
) -> Result<Code, CliError> {
    let response = api::pack(&cfg.request)?;
    // The diagram is written before anything is recorded, so a file that cannot be written
    // leaves the ledger as it was.
    let svg = cfg.svg.as_ref().map(|to| {
        (
            to,
            gpu_share_svg::render(&response.result, &SvgOptions::default()),
        )
    });
    if let Some((SvgTo::File(path), text)) = &svg {
        super::write_file(path, text)?;
    }
    let recorded = match cfg.record {
        Some(record) => {
            let when = Recording::new(env.now, record.seconds)?;
            let entries = api::record_pack(&cfg.request, &response, when);
            Some(Recorded {
                ledger: super::append_recording(env, &entries, record)?,
                records: entries.len(),
                seconds: record.seconds,
            })
        }
        None => None,
    };
    match (svg, cfg.format) {
        // `--svg -`: the diagram is standard output (`--json` beside it was refused).
        (Some((SvgTo::Stdout, text)), _) => out.write_all(text.as_bytes())?,
        (_, Format::Json) => write_json(
            out,
            &PackJson {
                response: &response,
                recorded,
            },
        )?,
        (_, Format::Text) => write_report(out, &response, recorded, style)?,
    }
    Ok(if response.all_placed() {
        Code::Ok
    } else {
        Code::Unplaced
    })
}

/// The text report: where the caps came from, the packing, the optimizer, what was recorded.
fn write_report(
    out: &mut impl Write,
    response: &PackResponse,
    recorded: Option<Recorded>,
    style: Style,
) -> std::io::Result<()> {
    if let Some(from) = &response.caps_from {
        super::plan::write_caps_from(out, from)?;
    }
    write_text(out, &response.result, style)?;
    write_warnings(out, &response.warnings, style)?;
    if let Some(report) = &response.optimize {
        write_optimize(out, &response.result, report)?;
    }
    write_engines(out, &response.engines)?;
    if let Some(r) = recorded {
        let how_long = match r.seconds {
            Some(s) => format!("{:.2} h each", s as f64 / 3600.0),
            None => "open until `gpu-share release NAME`".to_string(),
        };
        writeln!(
            out,
            "recorded {} use{} in {} ({how_long}); tenants of one GPU are billed at most the GPU",
            r.records,
            if r.records == 1 { "" } else { "s" },
            r.ledger.display()
        )?;
    }
    Ok(())
}

/// Each device's engines in start order, with the utilisation and flags each starts with.
fn write_engines(out: &mut impl Write, devices: &[DeviceEngines]) -> std::io::Result<()> {
    for d in devices {
        let instance = d
            .instance
            .as_deref()
            .map(|i| format!(", {i}"))
            .unwrap_or_default();
        writeln!(
            out,
            "engines on GPU {}{instance} ({}):",
            d.gpu,
            bytes_text(d.total_bytes)
        )?;
        for e in &d.engines {
            writeln!(
                out,
                "  {}. {}  --gpu-memory-utilization {}  KV {}, {} sequences  flags: {}",
                e.start_order,
                e.ask,
                e.gpu_memory_utilization,
                bytes_text(e.kv_cache_bytes),
                grouped(e.max_concurrency),
                e.args.join(" ")
            )?;
        }
        for line in &d.why {
            writeln!(out, "  {line}")?;
        }
    }
    Ok(())
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
        r.utilisation.percent_of(gpu_share_core::api::Share::ONE),
        r.unplaced.len()
    )?;
    for note in &r.notes {
        writeln!(out, "  {}", printable(note))?;
    }
    let rows: Vec<Vec<String>> = r.gpus.iter().map(gpu_row).collect();
    let text = table(&rows);
    for (line, gpu) in text.lines().zip(&r.gpus) {
        // Colour after alignment, so escape codes do not upset the column widths.
        let m = gpu.mechanism().as_str();
        writeln!(
            out,
            "  {}",
            line.replacen(m, &style.mechanism(gpu.mechanism()), 1)
        )?;
    }
    for n in &r.nodes {
        let what = match n.role {
            Some(role) => format!(
                "{role}, {} of {} GPUs: {}",
                n.gpus.len(),
                n.capacity,
                gpu_share_core::api::gpu_ranges(&n.gpus)
            ),
            None => format!("unused, {} GPUs", n.capacity),
        };
        writeln!(out, "  node {}: {what}", printable(&n.name))?;
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
    Ok(())
}

/// Each warning once, naming the asks it concerns (grouped by the core, as on the page).
fn write_warnings(
    out: &mut impl Write,
    groups: &[WarningGroup],
    style: Style,
) -> std::io::Result<()> {
    for g in groups {
        let asks: Vec<String> = g.asks.iter().map(|a| printable(a)).collect();
        let line = format!("⚠ {} — applies to {}", printable(&g.text), asks.join(", "));
        writeln!(out, "{}", style.warning(&line))?;
    }
    Ok(())
}

fn gpu_row(g: &GpuLayout) -> Vec<String> {
    let asks = match g.tenants() {
        Tenants::Mig(instances) => instances
            .iter()
            .map(|i| format!("{} {}@{}", printable(&i.ask), i.profile, i.start))
            .collect::<Vec<_>>()
            .join(", "),
        Tenants::Mps(slots) | Tenants::Timeslice(slots) => slots
            .iter()
            .map(|s| format!("{} {:.2}", printable(&s.ask), s.share))
            .collect::<Vec<_>>()
            .join(", "),
        Tenants::Whole(ask) => format!("{} {:.2}", printable(ask), Share::ONE),
    };
    vec![
        match &g.node {
            Some(node) => format!("GPU {} on {}", g.index, printable(node)),
            None => format!("GPU {}", g.index),
        },
        g.mechanism().to_string(),
        match g.memory() {
            Some(m) => format!(
                "{:.2} used, {} of {} memory",
                g.used_fraction(),
                gpu_share_core::api::mib_text(m.used_mib),
                gpu_share_core::api::mib_text(m.budget_mib)
            ),
            None => format!("{:.2} used", g.used_fraction()),
        },
        asks,
    ]
}
