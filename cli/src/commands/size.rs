//! `gpu-share size`: the GPU memory a model needs from its config.json — a table of the parts
//! with why, the total, then the core's notes; with `--fit`, whether it fits and how far.

use super::write_json;
use crate::args::{Format, SizeConfig};
use crate::exit::{CliError, Code};
use crate::output::{table, Style};
use gpu_share_core::api::{self, bytes_text, grouped, Engine, SizeResponse};
use std::io::Write;

pub fn run(
    cfg: SizeConfig,
    style: Style,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<Code, CliError> {
    let response = api::size(&cfg.request).map_err(|e| in_file(e, &cfg.config_name))?;
    match cfg.format {
        Format::Json => write_json(out, &response)?,
        Format::Text => {
            write_text(out, &response, style)?;
            if let Some(e) = &response.engine {
                write_engine(out, e, style)?;
            }
        }
    }
    match &response.engine {
        Some(e) if !e.starts => {
            let why = e.why.last().map_or("", String::as_str);
            writeln!(err, "gpu-share: {} would not start as asked: {why}", e.name)?;
            Ok(Code::EngineRefuses)
        }
        _ => Ok(Code::Ok),
    }
}

/// The engine's memory on one GPU, term by term, whether it starts and the flags to pass.
fn write_engine(out: &mut impl Write, e: &Engine, style: Style) -> Result<(), CliError> {
    let title = format!(
        "{} {} at --gpu-memory-utilization {}, max_model_len {}, TP {}:",
        e.name,
        e.version,
        e.gpu_memory_utilization,
        grouped(e.max_model_len),
        e.tensor_parallel_size
    );
    writeln!(out, "{}", style.bold(&title))?;
    let rows: Vec<Vec<String>> = e
        .per_gpu
        .terms()
        .iter()
        .map(|(name, bytes)| vec![name.to_string(), bytes_text(*bytes)])
        .collect();
    for line in table(&rows).lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(
        out,
        "  {} KV tokens: {} sequences of {} tokens at once",
        grouped(e.kv_cache_tokens),
        grouped(e.max_concurrency),
        grouped(e.max_model_len)
    )?;
    for line in &e.why {
        writeln!(out, "  {line}")?;
    }
    if e.starts {
        writeln!(out, "flags: {}", e.args.join(" "))?;
    }
    Ok(())
}

/// An error about the config's own fields says which file they are in.
fn in_file(e: gpu_share_core::api::Error, name: &str) -> gpu_share_core::api::Error {
    let about_config = e
        .field
        .as_deref()
        .is_some_and(|f| f == "config" || f.starts_with("config."));
    if about_config {
        gpu_share_core::api::Error {
            message: format!("{} (in {name})", e.message),
            ..e
        }
    } else {
        e
    }
}

fn write_text(out: &mut impl Write, r: &SizeResponse, style: Style) -> Result<(), CliError> {
    let title = format!("{}: {} parameters", r.architecture, grouped(r.parameters));
    writeln!(out, "{}", style.bold(&title))?;
    let mut rows = vec![
        vec![
            "weights".to_string(),
            bytes_text(r.weights_bytes),
            r.weights_why.clone(),
        ],
        vec![
            "KV cache".to_string(),
            bytes_text(r.kv_cache_bytes),
            r.kv_cache_why.clone(),
        ],
    ];
    for o in &r.overheads {
        rows.push(vec![o.name.clone(), bytes_text(o.bytes), o.why.clone()]);
    }
    rows.push(vec![
        "total".to_string(),
        bytes_text(r.total_bytes),
        format!("an ask of {}:{}", r.ask_name, r.ask_memory),
    ]);
    for line in table(&rows).lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(out, "notes:")?;
    for line in &r.explanation {
        writeln!(out, "  {line}")?;
    }
    if let Some(plan) = &r.plan {
        writeln!(out, "plan:")?;
        if let Some(from) = &plan.caps_from {
            super::plan::write_caps_from(out, from)?;
        }
        super::plan::write_choice(out, &plan.choice, style)?;
    }
    if let Some(f) = r.fit.as_ref().filter(|f| !f.fits) {
        let line = format!(
            "⚠ {} does not fit the budget of {}",
            bytes_text(r.total_bytes),
            bytes_text(f.budget_bytes)
        );
        writeln!(out, "{}", style.warning(&line))?;
    }
    Ok(())
}
