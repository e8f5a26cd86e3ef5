//! `gpu-share plan`: the mechanism for one ask, optionally recorded in the ledger.

use super::{append_recording, write_json};
use crate::args::{Format, PlanConfig};
use crate::env::Env;
use crate::exit::{CliError, Code};
use crate::output::{printable, Style};
use gpu_share_core::api::{
    self, CapsFrom, Choice, LedgerEntry, Mechanism, PlanResponse, RecordPlanRequest, Recording,
};
use std::io::Write;
use std::path::PathBuf;

/// `plan --json`: the core's response, and where it was recorded.
#[derive(serde::Serialize)]
struct PlanJson<'a> {
    #[serde(flatten)]
    response: &'a PlanResponse,
    #[serde(skip_serializing_if = "Option::is_none")]
    recorded: Option<Recorded>,
}

/// The first line of text output with `--caps-from`.
pub fn write_caps_from(out: &mut impl Write, from: &CapsFrom) -> std::io::Result<()> {
    let flags: Vec<String> = from.files.iter().map(|f| format!("--from {f}")).collect();
    writeln!(
        out,
        "caps from {}: {} (notes: gpu-share detect {})",
        printable(&from.files.join(", ")),
        printable(&from.summary),
        printable(&flags.join(" "))
    )
}

#[derive(serde::Serialize)]
struct Recorded {
    ledger: PathBuf,
    started_at: i64,
    /// `None`: open until `gpu-share release`.
    seconds: Option<u64>,
}

pub fn run(
    cfg: PlanConfig,
    env: &Env,
    style: Style,
    out: &mut impl Write,
) -> Result<Code, CliError> {
    let response = api::plan(&cfg.request)?;
    let mut gpu_hours = None;
    let recorded = match cfg.record {
        Some(record) => {
            let when = Recording::new(env.now, record.seconds)?;
            let entry = api::record_plan(&RecordPlanRequest::at(&response.choice, when))?;
            if let LedgerEntry::Usage(u) = &entry {
                gpu_hours = u.allocated_gpu_hours();
            }
            Some(Recorded {
                ledger: append_recording(env, &[entry], record)?,
                started_at: when.started_at(),
                seconds: record.seconds,
            })
        }
        None => None,
    };
    match cfg.format {
        Format::Json => write_json(
            out,
            &PlanJson {
                response: &response,
                recorded,
            },
        )?,
        Format::Text => {
            if let Some(from) = &response.caps_from {
                write_caps_from(out, from)?;
            }
            let choice = &response.choice;
            write_choice(out, choice, style)?;
            if let Some(r) = recorded {
                let when = match (r.seconds, gpu_hours) {
                    (Some(s), Some(h)) => format!(
                        "{:.2} h, {} GPU-h allocated",
                        s as f64 / 3600.0,
                        h.to_fixed(2)
                    ),
                    _ => format!("open until `gpu-share release {}`", printable(&choice.name)),
                };
                writeln!(out, "  recorded in {} ({when})", r.ledger.display())?;
            }
        }
    }
    Ok(Code::Ok)
}

/// The seed's three-part text: a headline, the notes, and the ⚠ warnings.
pub fn write_choice(out: &mut impl Write, c: &Choice, style: Style) -> std::io::Result<()> {
    let gpus = if c.allocated_fraction > gpu_share_core::api::Share::ONE {
        "GPUs"
    } else {
        "GPU"
    };
    let amount = format!("{:.2} {gpus}", c.allocated_fraction);
    let mut detail = match (c.mechanism, &c.mig_profile) {
        (Mechanism::Mig, Some(p)) => format!("{p}, {amount}"),
        _ => amount,
    };
    if let Some(mib) = c.held_memory_mib {
        detail.push_str(&format!(", holds {}", gpu_share_core::api::mib_text(mib)));
    }
    writeln!(
        out,
        "{}: {} (isolation: {}) — {detail}",
        style.bold(&printable(&c.name)),
        style.mechanism(c.mechanism),
        c.isolation
    )?;
    for note in &c.notes {
        writeln!(out, "  {}", printable(note))?;
    }
    for warning in &c.warnings {
        writeln!(
            out,
            "  {}",
            style.warning(&format!("⚠ {}", printable(warning)))
        )?;
    }
    Ok(())
}
