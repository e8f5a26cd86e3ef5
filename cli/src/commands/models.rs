//! `gpu-share models`: the GPU catalogue, or one model's MIG profiles.

use super::write_json;
use crate::args::{flags::at_flag, ModelsArgs};
use crate::exit::{CliError, Code};
use crate::output::table;
use gpu_share_core::api::{self, Certainty, GpuModel, ProfileSms};
use std::io::Write;

pub fn run(args: &ModelsArgs, out: &mut impl Write) -> Result<Code, CliError> {
    match &args.model {
        Some(name) => {
            let model = api::require_model(name).map_err(|e| at_flag(e, "MODEL"))?;
            if args.json {
                write_json(out, model)?;
            } else {
                write_model(out, model)?;
            }
        }
        None if args.json => write_json(out, &api::models())?,
        None => {
            let mut rows = vec![vec![
                "model".into(),
                "memory".into(),
                "power".into(),
                "MIG".into(),
                "profiles".into(),
                "certainty".into(),
            ]];
            for m in api::models() {
                rows.push(vec![
                    m.name.into(),
                    format!("{} MiB", m.memory_mib),
                    power(m),
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

/// The board's default power limit, or `?` where no source gives one (accounting then counts no
/// energy for it unless a power is given).
fn power(m: &GpuModel) -> String {
    m.power_limit_w
        .map_or_else(|| "?".into(), |w| format!("{w} W"))
}

fn certainty(c: Certainty) -> &'static str {
    match c {
        Certainty::Known => "known",
        Certainty::Uncertain(_) => "uncertain",
    }
}

fn write_model(out: &mut impl Write, m: &GpuModel) -> std::io::Result<()> {
    let power = match m.power_limit_w {
        Some(w) => format!("{w} W default power limit"),
        None => "no known power limit".into(),
    };
    writeln!(
        out,
        "{} — {} MiB, {power}; nvidia-smi names: {}",
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
    // SMs per profile where a real `nvidia-smi mig -lgip` on this board shows them, as a count of
    // the full-GPU instance's where that is known too (docs/hardware-facts.md §1.3).
    let sm_table = m.multiprocessors();
    let mut header: Vec<String> = [
        "profile",
        "compute",
        "memory slices",
        "max",
        "starts",
        "share",
    ]
    .map(String::from)
    .to_vec();
    if sm_table.is_some() {
        header.push("SMs".into());
    }
    let mut rows = vec![header];
    for p in m.profiles {
        let starts: Vec<String> = p.starts.iter().map(u8::to_string).collect();
        let mut row = vec![
            p.name.into(),
            format!("{}/{}", p.compute_slices, g.compute_slices),
            format!("{}/{}", p.memory_slices, g.memory_slices),
            p.max_count.to_string(),
            format!("{{{}}}:{}", starts.join(","), p.memory_slices),
            format!("{:.4}", m.profile_share(p)),
        ];
        if sm_table.is_some() {
            row.push(match m.profile_sms(p) {
                Some(ProfileSms {
                    sms,
                    gpu: Some(gpu),
                    ..
                }) => format!("{sms}/{gpu}"),
                Some(ProfileSms { sms, gpu: None, .. }) => sms.to_string(),
                None => "?".into(),
            });
        }
        rows.push(row);
    }
    out.write_all(table(&rows).as_bytes())?;
    writeln!(
        out,
        "share: the larger of the compute-slice and memory-slice shares (NVIDIA's MIG slices), not of the SMs"
    )?;
    match sm_table {
        Some(t) => {
            writeln!(out, "SMs of {}: {}", t.board, t.source)?;
            if let Certainty::Uncertain(why) = t.certainty {
                writeln!(out, "SM counts uncertain: {why}")?;
            }
        }
        None => writeln!(
            out,
            "SMs per profile: not known for this board (no real nvidia-smi mig -lgip seen)"
        )?,
    }
    if let Some(Certainty::Uncertain(why)) = m.profiles.first().map(|p| p.certainty) {
        writeln!(out, "placements uncertain: {why}")?;
    }
    Ok(())
}
