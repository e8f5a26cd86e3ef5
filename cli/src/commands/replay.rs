//! `gpu-share replay`: a table of each policy's allocation at 100% of arrived demand and at the
//! tune (mean over the seeds, with their spread), the pods that failed, and the bound; with
//! `--svg`, the allocation chart; with `--json`, every run's curves.

use super::write_json;
use crate::args::{Format, ReplayConfig, SvgTo};
use crate::exit::{CliError, Code};
use crate::output::{table, Style};
use gpu_share_core::api::{self, Percent, Replay};
use gpu_share_svg::SvgOptions;
use std::io::Write;

pub fn run(cfg: ReplayConfig, style: Style, out: &mut impl Write) -> Result<Code, CliError> {
    let replay = api::replay(&cfg.request).map_err(|e| in_file(e, &cfg))?;
    let svg = cfg.svg.as_ref().map(|to| {
        (
            to,
            gpu_share_svg::render_replay(&replay, &SvgOptions::default()),
        )
    });
    if let Some((SvgTo::File(path), text)) = &svg {
        super::write_file(path, text)?;
    }
    match (svg, cfg.format) {
        (Some((SvgTo::Stdout, text)), _) => out.write_all(text.as_bytes())?,
        (_, Format::Json) => write_json(out, &replay)?,
        (_, Format::Text) => write_text(out, &replay, style)?,
    }
    Ok(Code::Ok)
}

/// An error about a list's lines says which file they are in.
fn in_file(e: gpu_share_core::api::Error, cfg: &ReplayConfig) -> gpu_share_core::api::Error {
    let file = match e.field.as_deref() {
        Some(f) if f == "nodes" || f.starts_with("nodes.") => &cfg.nodes_name,
        Some(f) if f == "pods" || f.starts_with("pods.") => &cfg.pods_name,
        _ => return e,
    };
    gpu_share_core::api::Error {
        message: format!("{} (in {file})", e.message),
        ..e
    }
}

fn percent(p: Option<Percent>) -> String {
    p.map_or("—".into(), |p| p.to_string())
}

fn write_text(out: &mut impl Write, r: &Replay, style: Style) -> Result<(), CliError> {
    let title = gpu_share_svg::replay_summary(r);
    writeln!(out, "{}", style.bold(&title))?;
    let tune = format!("at {}%", (r.tune * 100.0).round());
    let mut rows = vec![vec![
        "policy".to_string(),
        "at 100%".to_string(),
        tune,
        "± (seeds)".to_string(),
        "failed: shares".to_string(),
        "whole".to_string(),
        "no GPU".to_string(),
    ]];
    for p in &r.policies {
        rows.push(vec![
            p.policy.name().to_string(),
            percent(p.at_100),
            percent(p.at_tune),
            percent(p.spread_at_tune),
            p.mean_failed.share.to_string(),
            p.mean_failed.whole.to_string(),
            p.mean_failed.no_gpu.to_string(),
        ]);
    }
    for line in table(&rows).lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(
        out,
        "allocation: GPU allocated over the cluster's GPU capacity when the arrivals asked 100% and {}% of it (mean over the seeds)",
        (r.tune * 100.0).round()
    )?;
    writeln!(
        out,
        "at best: between {} (a placement that exists: the same arrivals largest first) and {} (no placement can exceed it)",
        percent(Some(r.bound.offline)),
        percent(Some(r.bound.upper))
    )?;
    Ok(())
}
