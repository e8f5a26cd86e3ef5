//! `gpu-share validate-mig`: whether MIG profiles fit on one GPU, where, and the commands creating them.

use super::write_json;
use crate::args::{Format, ValidateMigConfig, ValidateMigInput};
use crate::exit::{CliError, Code};
use crate::output::{printable, Style};
use gpu_share_core::validate_mig::{validate_mig, validate_mig_parted, MigValidation};
use gpu_share_core::{Error, ErrorKind};
use std::io::Write;

pub fn run(cfg: ValidateMigConfig, style: Style, out: &mut impl Write) -> Result<Code, CliError> {
    let model = cfg.model;
    let checked: Vec<(Option<String>, MigValidation)> = match &cfg.input {
        ValidateMigInput::Profiles(profiles) => {
            let names: Vec<&str> = profiles.iter().map(String::as_str).collect();
            let v = validate_mig(model, &names).map_err(|e| {
                // A profile by its place in the list, like `--ask #N`; `gpu_model` is named
                // `--gpu-model` with every other flag (`args::flags`).
                let field = match e.field.as_deref() {
                    Some(f) => f
                        .strip_prefix("profiles[")
                        .and_then(|i| i.trim_end_matches(']').parse::<usize>().ok())
                        .map(|i| format!("PROFILE #{}", i + 1))
                        .or_else(|| Some(f.to_string())),
                    None => None,
                };
                Error { field, ..e }
            })?;
            vec![(None, v)]
        }
        ValidateMigInput::File(name, text) => {
            let doc: serde_json::Value = serde_norway::from_str(text).map_err(|e| {
                let mut err = Error::new(
                    ErrorKind::Syntax,
                    format!("not valid YAML: {e} (in {name})"),
                )
                .in_field("--file");
                if let Some(at) = e.location() {
                    err = err.at_line(at.line());
                }
                err
            })?;
            validate_mig_parted(&doc, model)
                .map_err(|e| Error {
                    message: format!("{} (in {name})", e.message),
                    ..e
                })?
                .into_iter()
                .map(|(config, i, v)| (Some(format!("mig-configs.{config}[{i}]")), v))
                .collect()
        }
    };
    let all_valid = checked.iter().all(|(_, v)| v.valid);
    match cfg.format {
        Format::Json => match &cfg.input {
            ValidateMigInput::Profiles(_) => write_json(out, &checked[0].1)?,
            ValidateMigInput::File(..) => {
                let list: Vec<serde_json::Value> = checked
                    .iter()
                    .map(|(entry, v)| {
                        let mut json = serde_json::to_value(v).unwrap_or_default();
                        if let Some(map) = json.as_object_mut() {
                            map.insert("entry".into(), entry.clone().into());
                        }
                        json
                    })
                    .collect();
                write_json(out, &list)?;
            }
        },
        Format::Text => {
            if checked.is_empty() {
                writeln!(
                    out,
                    "no MIG-enabled entry of the file applies to {}",
                    model.name
                )?;
            }
            for (entry, v) in &checked {
                write_text(out, entry.as_deref(), v, style)?;
            }
        }
    }
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
