//! `gpu-share repartition`: the fewest instances moved that let new asks into live MIG layouts,
//! with the end state, the ordered steps, the nvidia-smi commands and what to drain first.

use super::write_json;
use crate::args::{Format, RepartitionConfig};
use crate::exit::{CliError, Code};
use crate::output::{printable, Style};
use gpu_share_core::api::{self, InstanceStatus, RepartitionResponse};
use std::io::Write;

/// Exit 3 when some ask fits nowhere, as `pack` does.
pub fn run(cfg: RepartitionConfig, style: Style, out: &mut impl Write) -> Result<Code, CliError> {
    let r = api::repartition(&cfg.request)?;
    match cfg.format {
        Format::Json => write_json(out, &r)?,
        Format::Text => write_text(out, &r, style)?,
    }
    Ok(if r.unplaced.is_empty() {
        Code::Ok
    } else {
        Code::Unplaced
    })
}

fn at(node: Option<&str>, gpu: u64) -> String {
    match node {
        Some(n) => format!("{} GPU {gpu}", printable(n)),
        None => format!("GPU {gpu}"),
    }
}

fn write_text(out: &mut impl Write, r: &RepartitionResponse, style: Style) -> Result<(), CliError> {
    writeln!(
        out,
        "{}",
        style.bold(&format!(
            "{} instance{} moved, {} GPU{} touched ({})",
            r.moved,
            if r.moved == 1 { "" } else { "s" },
            r.gpus_touched,
            if r.gpus_touched == 1 { "" } else { "s" },
            r.model
        ))
    )?;
    for g in &r.gpus {
        let list: Vec<String> = g
            .instances
            .iter()
            .map(|i| {
                let what = match (&i.ask, i.status) {
                    (Some(a), _) => format!(" for {}", printable(a)),
                    (None, InstanceStatus::Moved) => " moved".into(),
                    (None, _) => String::new(),
                };
                let status = match i.status {
                    InstanceStatus::Kept => "kept",
                    InstanceStatus::Moved => "moved",
                    InstanceStatus::New => "new",
                };
                let what = if what.trim() == "moved" {
                    String::new()
                } else {
                    what
                };
                format!("{}@{} {status}{what}", i.profile, i.start)
            })
            .collect();
        writeln!(
            out,
            "  {}: {}",
            at(g.node.as_deref(), g.index),
            list.join(", ")
        )?;
    }
    if !r.drain.is_empty() {
        writeln!(out, "first, drain:")?;
        for d in &r.drain {
            writeln!(out, "  {}", printable(d))?;
        }
    }
    if !r.steps.is_empty() {
        writeln!(out, "steps:")?;
    }
    for (n, s) in r.steps.iter().enumerate() {
        writeln!(out, "  {}. {}", n + 1, printable(&s.describe()))?;
    }
    if !r.commands.is_empty() {
        writeln!(out, "commands:")?;
        for c in &r.commands {
            writeln!(out, "  {c}")?;
        }
    }
    if r.gpus_touched > 0 {
        writeln!(
            out,
            "a mig-parted config of the end state is in --json (mig_parted); mig-parted re-creates every instance of a GPU it configures"
        )?;
    }
    for u in &r.unplaced_reasons {
        writeln!(
            out,
            "{}",
            style.warning(&format!(
                "{}: unplaced — {}",
                printable(&u.name),
                printable(&u.reason)
            ))
        )?;
    }
    for n in &r.notes {
        writeln!(out, "{}", style.warning(&format!("note: {}", printable(n))))?;
    }
    Ok(())
}
