//! `gpu-share validate-mig`: whether MIG profiles fit on one GPU, where, and the commands creating them.

use super::write_json;
use crate::args::{Format, ValidateMigConfig, ValidateMigInput};
use crate::exit::{CliError, Code};
use crate::output::{printable, Style};
use gpu_share_core::api::{self, MigValidation};
use std::io::Write;

pub fn run(cfg: ValidateMigConfig, style: Style, out: &mut impl Write) -> Result<Code, CliError> {
    let all_valid = match cfg.input {
        ValidateMigInput::Profiles(request) => {
            let v = api::validate_mig(&request)?;
            match cfg.format {
                Format::Json => write_json(out, &v)?,
                Format::Text => write_text(out, None, &v, style)?,
            }
            v.valid
        }
        ValidateMigInput::File(request) => {
            let r = api::validate_mig_parted(&request)?;
            match cfg.format {
                Format::Json => write_json(out, &r.entries)?,
                Format::Text if r.entries.is_empty() => writeln!(
                    out,
                    "no MIG-enabled entry of the file applies to {}",
                    r.model
                )?,
                Format::Text => {
                    for e in &r.entries {
                        write_text(out, Some(&e.entry), &e.validation, style)?;
                    }
                }
            }
            r.all_valid()
        }
    };
    Ok(if all_valid { Code::Ok } else { Code::Input })
}

fn write_text(
    out: &mut impl Write,
    entry: Option<&str>,
    v: &MigValidation,
    style: Style,
) -> std::io::Result<()> {
    let at = entry
        .map(|e| format!("{}: ", printable(e)))
        .unwrap_or_default();
    let list = if v.profiles.is_empty() {
        "no instances".to_string()
    } else {
        v.profiles.join(", ")
    };
    if v.valid {
        writeln!(out, "{at}valid: {list} on {}", v.model)?;
    } else {
        writeln!(
            out,
            "{at}{}: {list} on {}",
            style.warning("invalid"),
            v.model
        )?;
        if let Some(reason) = &v.reason {
            writeln!(out, "  why: {reason}")?;
        }
        return Ok(());
    }
    for p in &v.placements {
        let end = u16::from(p.start) + u16::from(p.memory_slices) - 1;
        writeln!(
            out,
            "  {:<10} memory slices {}-{end} (placement {}:{})",
            p.profile, p.start, p.start, p.memory_slices
        )?;
    }
    for c in &v.commands {
        writeln!(out, "  create: {c}")?;
    }
    if !v.commands.is_empty() {
        let order = if v.order_works_for_any_placement {
            "works whatever free placement the driver picks"
        } else {
            "largest first; works if the driver picks the placements above (its rule is not documented)"
        };
        writeln!(out, "  order: {order}")?;
    }
    for w in &v.warnings {
        writeln!(out, "  {}", style.warning(&format!("⚠ {w}")))?;
    }
    Ok(())
}
