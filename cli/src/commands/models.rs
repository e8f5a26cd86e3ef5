//! `gpu-share models`: the GPU catalogue, or one model's MIG profiles.

use super::write_json;
use crate::args::{flags::at_flag, ModelsArgs};
use crate::exit::{CliError, Code};
use crate::output::table;
use gpu_share_core::catalog::{self, Certainty, GpuModel};
use std::io::Write;

pub fn run(args: &ModelsArgs, out: &mut impl Write) -> Result<Code, CliError> {
    match &args.model {
        Some(name) => {
            let model = catalog::require_model(name).map_err(|e| at_flag(e, "MODEL"))?;
            if args.json {
                write_json(out, model)?;
            } else {
                write_model(out, model)?;
            }
        }
        None if args.json => write_json(out, &catalog::models())?,
        None => {
            let mut rows = vec![vec![
                "model".into(),
                "memory".into(),
                "MIG".into(),
                "profiles".into(),
                "certainty".into(),
            ]];
            for m in catalog::models() {
                rows.push(vec![
                    m.name.into(),
                    format!("{} MiB", m.memory_mib),
                    m.mig.map_or("no".into(), |g| {
                        format!("{}g/{} mem slices", g.compute_slices, g.memory_slices)
                    }),
                    m.profiles
                        .iter()
                        .filter(|p| p.is_plain())
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(" "),
                    certainty(m.certainty).into(),
                ]);
            }
            out.write_all(table(&rows).as_bytes())?;
        }
    }
    Ok(Code::Ok)
}

fn certainty(c: Certainty) -> &'static str {
    match c {
        Certainty::Known => "known",
        Certainty::Uncertain(_) => "uncertain",
    }
}

fn write_model(out: &mut impl Write, m: &GpuModel) -> std::io::Result<()> {
    writeln!(
        out,
        "{} — {} MiB; nvidia-smi names: {}",
        m.name,
        m.memory_mib,
        m.smi_names.join(", ")
    )?;
    writeln!(out, "source: {}", m.source)?;
    if let Certainty::Uncertain(why) = m.certainty {
        writeln!(out, "uncertain: {why}")?;
    }
    let Some(g) = m.mig else {
        writeln!(out, "no MIG: shared by MPS or time-slicing, or used whole")?;
        return Ok(());
    };
    let mut rows = vec![vec![
        "profile".into(),
        "compute".into(),
        "memory slices".into(),
        "max".into(),
        "starts".into(),
        "share".into(),
    ]];
    for p in m.profiles {
        let starts: Vec<String> = p.starts.iter().map(u8::to_string).collect();
        rows.push(vec![
            p.name.into(),
            format!("{}/{}", p.compute_slices, g.compute_slices),
            format!("{}/{}", p.memory_slices, g.memory_slices),
            p.max_count.to_string(),
            format!("{{{}}}:{}", starts.join(","), p.memory_slices),
            format!("{:.4}", m.profile_share(p)),
        ]);
    }
    out.write_all(table(&rows).as_bytes())?;
    if let Some(Certainty::Uncertain(why)) = m.profiles.first().map(|p| p.certainty) {
        writeln!(out, "placements uncertain: {why}")?;
    }
    Ok(())
}
