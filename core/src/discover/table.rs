//! `nvidia-smi` with no arguments: the summary table (`| NVIDIA-SMI …` banner) and its "MIG devices" block.

use super::raw::{RawDevice, RawGpu};
use super::values;
use crate::error::{Error, ErrorKind, Result};
use std::collections::HashMap;

/// Whether `text` holds the table's banner.
pub(super) fn looks_like(text: &str) -> bool {
    text.lines().any(is_banner)
}

fn is_banner(line: &str) -> bool {
    line.trim_start().starts_with('|') && line.contains("NVIDIA-SMI ")
}

/// The cells of a `| a | b | c |` row.
fn cells(line: &str) -> Vec<&str> {
    let inner = line.trim();
    let inner = inner.strip_prefix('|').unwrap_or(inner);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    inner.split('|').collect()
}

/// A `+---+` or `|---|` separator.
fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('+') || t.starts_with("|-")
}

/// The `Y` of `X / Y` (`59MiB /  81559MiB`, `98W /  700W`), where a cell has one.
fn after_slash(cell: &str) -> Option<&str> {
    cell.rfind(" / ")
        .and_then(|at| cell.get(at + 3..))
        .and_then(|s| s.split_whitespace().next())
}

/// Reads the GPU rows and the MIG devices. `first_line` is the line of `text` within the caller's input.
pub(super) fn parse(text: &str, first_line: usize) -> Result<Vec<RawGpu>> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (first_line + i, l))
        .collect();
    let Some(banner) = lines.iter().position(|(_, l)| is_banner(l)) else {
        return Err(Error::new(
            ErrorKind::Syntax,
            "no `| NVIDIA-SMI …` banner: not the nvidia-smi summary table",
        )
        .at_line(first_line));
    };
    let banner_line = lines.get(banner).map_or(first_line, |(n, _)| *n);
    let rest = lines.get(banner..).unwrap_or_default();
    let (mut gpus, end_of_block) = gpu_block(rest)?;
    if gpus.is_empty() {
        return Err(
            Error::new(ErrorKind::Syntax, "the nvidia-smi table has no GPU rows")
                .at_line(banner_line),
        );
    }
    if let Some(devices) = mig_devices(rest.get(end_of_block..).unwrap_or_default())? {
        attach_devices(&mut gpus, devices)?;
    }
    Ok(gpus)
}

/// The GPUs of the GPU block (its rows after the first `|===` line, until a line that is not part
/// of a table), and where the block ends in `rest`.
fn gpu_block(rest: &[(usize, &str)]) -> Result<(Vec<RawGpu>, usize)> {
    let mut gpus: Vec<RawGpu> = Vec::new();
    let start = rest
        .iter()
        .position(|(_, l)| l.trim_start().starts_with("|="));
    // Which row of its GPU's box a row is (1 the row with the index; 0 outside a box).
    let mut row_in_gpu = 0;
    let mut end_of_block = rest.len();
    if let Some(start) = start {
        for (k, (n, line)) in rest.iter().enumerate().skip(start + 1) {
            let t = line.trim();
            if t.is_empty() || !(t.starts_with('|') || t.starts_with('+')) {
                end_of_block = k;
                break;
            }
            if is_separator(t) {
                row_in_gpu = 0;
                continue;
            }
            let cs = cells(t);
            let first = cs.first().map_or("", |c| c.trim());
            if first.starts_with(|c: char| c.is_ascii_digit()) {
                let gpu = gpu_row(first, &cs, gpus.len(), *n)?;
                gpus.push(gpu);
                row_in_gpu = 1;
            } else if let Some(gpu) = gpus.last_mut().filter(|_| row_in_gpu > 0) {
                row_in_gpu += 1;
                gpu_detail_row(gpu, row_in_gpu, &cs, *n)?;
            }
        }
    }
    Ok((gpus, end_of_block))
}

/// A syntax error in `field` at line `n`.
fn field_error(field: &str, message: String, n: usize) -> Error {
    Error::new(ErrorKind::Syntax, message)
        .in_field(field)
        .at_line(n)
}

/// A GPU's first row, `| 0  NVIDIA H100 80GB HBM3  On | 00000000:19:00.0 Off | … |`: its index,
/// name (without the persistence mode) and bus ID; `before` GPUs were read already.
fn gpu_row(first: &str, cs: &[&str], before: usize, n: usize) -> Result<RawGpu> {
    let mut tokens = first.split_whitespace();
    let index = tokens.next().unwrap_or("");
    let index: u64 = index
        .parse()
        .map_err(|_| field_error("GPU", format!("expected a GPU index, got {index:?}"), n))?;
    values::room_for_gpu(before, n)?;
    let mut words: Vec<&str> = tokens.collect();
    if matches!(words.last(), Some(&("On" | "Off"))) {
        words.pop();
    }
    Ok(RawGpu {
        index,
        name: (!words.is_empty()).then(|| words.join(" ")),
        pci_bus_id: cs
            .get(1)
            .and_then(|c| c.split_whitespace().next())
            .and_then(values::text),
        ..RawGpu::default()
    })
}

/// A GPU's later rows: the second has the memory total and the power cap, the third the MIG mode.
fn gpu_detail_row(gpu: &mut RawGpu, row_in_gpu: u32, cs: &[&str], n: usize) -> Result<()> {
    let err = |field: &str, m: String| field_error(field, m, n);
    if row_in_gpu == 2 {
        if let Some(total) = cs.get(1).and_then(|c| after_slash(c)) {
            gpu.memory_mib = values::mib(total).map_err(|m| err("Memory-Usage", m))?;
        }
        if let Some(cap) = cs.first().and_then(|c| after_slash(c)) {
            gpu.power_limit_w = values::watts(cap).map_err(|m| err("Pwr:Usage/Cap", m))?;
        }
    } else if row_in_gpu == 3 {
        if let Some(mode) = cs.get(2).and_then(|c| c.split_whitespace().last()) {
            gpu.mig_current = values::mig_mode(mode).map_err(|m| err("MIG M.", m))?;
        }
    }
    Ok(())
}

/// Puts the MIG block's devices on their GPUs; with a MIG block, every GPU has a device list
/// (empty when it shows none).
fn attach_devices(gpus: &mut [RawGpu], devices: Vec<(u64, usize, RawDevice)>) -> Result<()> {
    let mut at: HashMap<u64, usize> = HashMap::new();
    for (i, g) in gpus.iter_mut().enumerate() {
        g.devices = Some(Vec::new());
        at.entry(g.index).or_insert(i);
    }
    for (gpu_index, line, device) in devices {
        let Some(g) = at.get(&gpu_index).and_then(|&i| gpus.get_mut(i)) else {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!("a MIG device on GPU {gpu_index}, which the table does not list"),
            )
            .at_line(line));
        };
        g.devices.get_or_insert_with(Vec::new).push(device);
    }
    Ok(())
}

/// The "MIG devices:" block, if there is one: (GPU index, line, device) per device row. Each row is one
/// compute instance; rows with the same GI ID are compute instances of one GPU instance.
fn mig_devices(lines: &[(usize, &str)]) -> Result<Option<Vec<(u64, usize, RawDevice)>>> {
    let Some(title) = lines.iter().position(|(_, l)| l.contains("MIG devices:")) else {
        return Ok(None);
    };
    let after = lines.get(title..).unwrap_or_default();
    let Some(start) = after
        .iter()
        .position(|(_, l)| l.trim_start().starts_with("|="))
    else {
        return Ok(Some(Vec::new()));
    };
    let mut devices = Vec::new();
    for (n, line) in after.iter().skip(start + 1) {
        let t = line.trim();
        if t.is_empty() || !(t.starts_with('|') || t.starts_with('+')) {
            break;
        }
        if is_separator(t) {
            continue;
        }
        let cs = cells(t);
        let ids: Vec<&str> = cs
            .first()
            .map_or(Vec::new(), |c| c.split_whitespace().collect());
        // Rows without the four ids are the BAR1 continuation lines (or "No MIG devices found").
        let [gpu, gi, ci, dev] = ids.as_slice() else {
            continue;
        };
        let err = |field: &str, m: String| field_error(field, m, *n);
        let gpu: u64 = values::number(gpu)
            .map_err(|m| err("GPU", m))?
            .ok_or_else(|| err("GPU", "the GPU index is missing".into()))?;
        let memory_mib = match cs.get(1).and_then(|c| after_slash(c)) {
            Some(total) => values::mib(total).map_err(|m| err("Memory-Usage", m))?,
            None => None,
        };
        let multiprocessors = match cs.get(2).and_then(|c| c.split_whitespace().next()) {
            Some(sm) => values::number(sm).map_err(|m| err("SM", m))?,
            None => None,
        };
        devices.push((
            gpu,
            *n,
            RawDevice {
                device_index: values::number(dev).map_err(|m| err("MIG Dev", m))?,
                profile: None,
                gpu_instance_id: values::number(gi).map_err(|m| err("GI ID", m))?,
                compute_instance_id: values::number(ci).map_err(|m| err("CI ID", m))?,
                memory_mib,
                multiprocessors,
                start: None,
            },
        ));
    }
    Ok(Some(devices))
}
