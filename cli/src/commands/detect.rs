//! `gpu-share detect`: the GPUs that nvidia-smi or kubectl output shows, and the caps they imply.

use super::write_json;
use crate::args::{DetectConfig, DetectFrom, Format};
use crate::exit::{CliError, Code};
use crate::output::{printable, table, Style};
use gpu_share_core::api::{
    self, ClusterGpuCaps, DetectInput, DetectRequest, DetectResponse, DiscoveredGpu,
};
use std::io::Write;

const NOT_FOUND: &str = "nvidia-smi not found on PATH; pass --from FILE (output of nvidia-smi -q -x, nvidia-smi, kubectl get nodes -o json …) or give caps with flags to plan/pack";

pub fn run(cfg: DetectConfig, style: Style, out: &mut impl Write) -> Result<Code, CliError> {
    let inputs = match cfg.from {
        DetectFrom::Files(files) => files,
        DetectFrom::NvidiaSmi => vec![DetectInput {
            label: "nvidia-smi -q -x".to_string(),
            text: run_nvidia_smi()?,
        }],
    };
    let response = api::detect(&DetectRequest { inputs })?;
    match cfg.format {
        Format::Json => write_json(out, &response)?,
        Format::Text => write_text(out, &response, style)?,
    }
    Ok(Code::Ok)
}

/// `nvidia-smi -q -x`, run from PATH: the CLI's only process.
fn run_nvidia_smi() -> Result<String, CliError> {
    let output = std::process::Command::new("nvidia-smi")
        .args(["-q", "-x"])
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => CliError::Usage(NOT_FOUND.into()),
            _ => CliError::Usage(format!("cannot run nvidia-smi: {e}")),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let why = stderr
            .lines()
            .chain(stdout.lines())
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(CliError::Usage(format!(
            "nvidia-smi -q -x failed ({}): {}; pass --from FILE instead",
            output.status,
            printable(why.trim())
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn write_text(out: &mut impl Write, d: &DetectResponse, style: Style) -> std::io::Result<()> {
    let (inv, caps) = (&d.inventory, &d.caps);
    let sources: Vec<&str> = inv.sources.iter().map(|s| s.command()).collect();
    let mut what = vec![plural(inv.gpus.len(), "GPU")];
    if !inv.nodes.is_empty() {
        what.insert(0, plural(inv.nodes.len(), "node"));
    }
    writeln!(
        out,
        "{} from {}",
        style.bold(&what.join(", ")),
        sources.join(", ")
    )?;
    if !inv.gpus.is_empty() {
        let with_node = inv.gpus.iter().any(|g| g.node.is_some());
        let mut rows = vec![Vec::new()];
        if with_node {
            rows[0].push("node".to_string());
        }
        rows[0].extend(["GPU", "model", "memory", "MIG", "MIG devices"].map(String::from));
        for g in &inv.gpus {
            let mut row = Vec::new();
            if with_node {
                row.push(printable(g.node.as_deref().unwrap_or("-")));
            }
            row.extend([
                g.index.to_string(),
                model(g),
                g.memory_mib.map_or("-".into(), |m| format!("{m} MiB")),
                mig_mode(g),
                devices(g),
            ]);
            rows.push(row);
        }
        for line in table(&rows).lines() {
            writeln!(out, "  {line}")?;
        }
    }
    if !inv.nodes.is_empty() {
        writeln!(out, "nodes:")?;
        let mut rows = vec![[
            "node",
            "GPUs",
            "sharing",
            "replicas",
            "MIG strategy",
            "MIG config",
            "MIG devices",
        ]
        .map(String::from)
        .to_vec()];
        for n in &inv.nodes {
            let counts: Vec<String> = n
                .mig_device_counts
                .iter()
                .map(|(p, c)| format!("{c}× {p}"))
                .collect();
            let or_dash = |s: Option<&str>| printable(s.unwrap_or("-"));
            rows.push(vec![
                printable(&n.name),
                n.gpu_count.to_string(),
                or_dash(n.sharing_strategy.as_deref()),
                n.replicas.map_or("-".into(), |r| r.to_string()),
                or_dash(n.mig_strategy.as_deref()),
                or_dash(n.mig_config.as_deref()),
                if counts.is_empty() {
                    "-".into()
                } else {
                    printable(&counts.join(", "))
                },
            ]);
        }
        for line in table(&rows).lines() {
            writeln!(out, "  {line}")?;
        }
    }
    if !inv.mig_profiles.is_empty() {
        writeln!(
            out,
            "MIG profiles (nvidia-smi mig -lgip): {}",
            printable(&inv.mig_profiles.join(" "))
        )?;
    }
    writeln!(out, "caps: {}", printable(&d.summary))?;
    writeln!(out, "  as flags: {}", caps_flags(caps))?;
    if !inv.notes.is_empty() {
        writeln!(out, "notes:")?;
        for n in &inv.notes {
            writeln!(out, "  {}", printable(n))?;
        }
    }
    Ok(())
}

fn model(g: &DiscoveredGpu) -> String {
    match &g.model {
        Some(m) => m.clone(),
        None => format!("{} (not in the catalogue)", printable(&g.name)),
    }
}

fn mig_mode(g: &DiscoveredGpu) -> String {
    if !g.mig_capable {
        return "n/a".into();
    }
    if !g.mig_enabled && !g.mig_mode_shown {
        return "not shown (taken as off)".into();
    }
    let now = if g.mig_enabled { "on" } else { "off" };
    match g.mig_pending {
        Some(p) if p != g.mig_enabled => {
            format!("{now} ({} after reset)", if p { "on" } else { "off" })
        }
        _ => now.into(),
    }
}

fn devices(g: &DiscoveredGpu) -> String {
    if g.mig_devices.is_empty() {
        return "-".into();
    }
    // One name per GPU instance (`@start` where the input gives its placement), with the number of
    // compute instances when it holds more than one: `3g.71gb[2 CIs]`.
    let names: Vec<String> = g
        .mig_devices
        .iter()
        .map(|d| {
            let mut name = match d.start {
                Some(s) => format!("{}@{s}", d.profile),
                None => d.profile.clone(),
            };
            if d.compute_instances.len() > 1 {
                name.push_str(&format!("[{} CIs]", d.compute_instances.len()));
            }
            name
        })
        .collect();
    printable(&names.join(" "))
}

/// The caps as `plan`/`pack` flags.
fn caps_flags(caps: &ClusterGpuCaps) -> String {
    let mut flags = Vec::new();
    if let Some(m) = &caps.gpu_model {
        let m = printable(m);
        flags.push(if m.contains(' ') {
            format!("--gpu-model \"{m}\"")
        } else {
            format!("--gpu-model {m}")
        });
    }
    if caps.supports_mig {
        flags.push("--mig-capable".into());
    }
    if let Some(p) = &caps.mig_profiles {
        flags.push(format!("--mig-profiles {}", printable(&p.join(","))));
    }
    if caps.supports_mps {
        flags.push("--mps".into());
    }
    if caps.supports_timeslicing {
        flags.push("--timeslice".into());
    }
    if let Some(n) = caps.gpu_count {
        flags.push(format!("(pack: --gpus {n})"));
    }
    if flags.is_empty() {
        "none (whole GPUs only)".into()
    } else {
        flags.join(" ")
    }
}
