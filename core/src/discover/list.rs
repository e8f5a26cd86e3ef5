//! `nvidia-smi -L`: `GPU 0: NAME (UUID: GPU-…)` lines, each followed by its `  MIG 3g.40gb  Device  0: (UUID: MIG-…)` lines.

use super::raw::{RawDevice, RawGpu};
use crate::error::{Error, ErrorKind, Result};

/// Whether `line` is a `-L` GPU line.
pub(super) fn is_gpu_line(line: &str) -> bool {
    gpu_line(line).is_some()
}

/// `GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)` → (0, name, uuid).
fn gpu_line(line: &str) -> Option<(u64, &str, Option<&str>)> {
    let rest = line.trim().strip_prefix("GPU ")?;
    let (index, rest) = rest.split_once(':')?;
    let index = index.trim().parse().ok()?;
    let rest = rest.trim();
    let (name, uuid) = match rest.rfind(" (UUID:") {
        Some(at) => {
            let uuid = rest.get(at + 7..)?.trim().strip_suffix(')')?.trim();
            (rest.get(..at)?.trim(), Some(uuid))
        }
        None => (rest, None),
    };
    (!name.is_empty()).then_some((index, name, uuid))
}

/// `  MIG 3g.40gb     Device  0: (UUID: MIG-…)` → (profile, device index).
fn mig_line(line: &str) -> Option<(&str, u32)> {
    let rest = line.trim().strip_prefix("MIG ")?;
    let (profile, rest) = rest.trim().split_once(char::is_whitespace)?;
    let rest = rest.trim().strip_prefix("Device")?;
    let (index, _) = rest.split_once(':')?;
    Some((profile, index.trim().parse().ok()?))
}

/// Reads the list. `first_line` is the line of `text` within the caller's input.
pub(super) fn parse(text: &str, first_line: usize) -> Result<Vec<RawGpu>> {
    let mut gpus: Vec<RawGpu> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = first_line + i;
        if line.trim().is_empty() {
            continue;
        }
        if let Some((index, name, uuid)) = gpu_line(line) {
            super::values::room_for_gpu(gpus.len(), at)?;
            gpus.push(RawGpu {
                index,
                name: Some(name.to_string()),
                uuid: uuid.map(str::to_string),
                ..RawGpu::default()
            });
        } else if let Some((profile, device)) = mig_line(line) {
            let Some(gpu) = gpus.last_mut() else {
                return Err(
                    Error::new(ErrorKind::Syntax, "a MIG device line before any GPU line")
                        .at_line(at),
                );
            };
            gpu.devices.get_or_insert_with(Vec::new).push(RawDevice {
                device_index: Some(device),
                profile: Some(profile.to_string()),
                ..RawDevice::default()
            });
        } else {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!(
                    "expected `GPU <index>: <name> (UUID: …)` or `  MIG <profile> Device <n>: …` (nvidia-smi -L), got {:?}",
                    line.trim()
                ),
            )
            .at_line(at));
        }
    }
    if gpus.is_empty() {
        return Err(Error::new(ErrorKind::Syntax, "nvidia-smi -L lists no GPU").at_line(first_line));
    }
    Ok(gpus)
}
