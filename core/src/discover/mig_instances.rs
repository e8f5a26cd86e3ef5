//! `nvidia-smi mig -lgi` (the "GPU instances" table: each GPU instance's profile, ID and placement) and
//! `nvidia-smi mig -lci` (the "Compute instances" table: each compute instance with its GPU instance's ID).
//!
//! ```text
//! | GPU   Name               Profile  Instance   Placement  |       (-lgi)
//! |                            ID       ID       Start:Size |
//! |   3  MIG 1g.10gb           19        7          0:1     |
//!
//! | GPU     GPU       Name             Profile   Instance   Placement  |     (-lci)
//! |       Instance                       ID        ID       Start:Size |
//! |         ID                                                         |
//! |   0      3       MIG 1c.2g.10gb       0         1          1:1     |
//! ```
//!
//! `-lgi` is the one nvidia-smi format that shows where each GPU instance sits: `Start:Size` in memory
//! slices, as NVML's placements (docs/hardware-facts.md §1.1, §4). A `-lci` placement is in compute
//! slices within its GPU instance. Older drivers print both tables without the placement column.

use super::inventory::SourceFormat;
use super::raw::{RawDevice, RawGpu, RawInstance};
use super::values;
use crate::error::{Error, ErrorKind, Result};
use std::collections::HashMap;

const GI_TITLE: &str = "GPU instances:";
const CI_TITLE: &str = "Compute instances:";
/// What nvidia-smi prints instead of a table when there is nothing to list.
const NONE_FOUND: [&str; 2] = ["No GPU instances found", "No compute instances found"];

/// Whether `text` is `-lgi` or `-lci` output.
pub(super) fn looks_like(text: &str) -> bool {
    text.lines().any(|l| {
        l.contains(GI_TITLE) || l.contains(CI_TITLE) || NONE_FOUND.iter().any(|n| l.contains(n))
    })
}

/// The formats `text` holds (one input may hold both tables; told by their titles or their rows),
/// `-lgi` when it shows neither.
pub(super) fn formats(text: &str) -> Vec<SourceFormat> {
    let (mut gi, mut ci) = (false, false);
    for line in text.lines() {
        gi |= line.contains(GI_TITLE) || line.contains(NONE_FOUND[0]);
        ci |= line.contains(CI_TITLE) || line.contains(NONE_FOUND[1]);
        match split_row(line) {
            Some(Row {
                gpu_instance: None, ..
            }) => gi = true,
            Some(Row {
                gpu_instance: Some(_),
                ..
            }) => ci = true,
            None => {}
        }
    }
    let mut out = Vec::new();
    if gi || !ci {
        out.push(SourceFormat::SmiMigGpuInstances);
    }
    if ci {
        out.push(SourceFormat::SmiMigComputeInstances);
    }
    out
}

/// The cells of a `-lgi` or `-lci` row, unchecked.
struct Row<'a> {
    gpu: &'a str,
    /// The GPU instance column, which only `-lci` rows have.
    gpu_instance: Option<&'a str>,
    name: &'a str,
    profile_id: &'a str,
    id: &'a str,
    placement: Option<&'a str>,
}

/// `|   3  MIG 1g.10gb   19   7   0:1   |` or `|   0   3   MIG 1c.2g.10gb   0   1   1:1   |`; `None` for
/// any other line, `-lgip`/`-lcip` rows (`19  7/7  4.75 …`, the same shape) included.
fn split_row(line: &str) -> Option<Row<'_>> {
    let inner = line.trim().strip_prefix('|')?;
    let tokens: Vec<&str> = inner.split_whitespace().filter(|t| *t != "|").collect();
    let (gpu, gpu_instance, name, rest) = match tokens.as_slice() {
        [gpu, "MIG", name, rest @ ..] => (*gpu, None, *name, rest),
        [gpu, gi, "MIG", name, rest @ ..] => (*gpu, Some(*gi), *name, rest),
        _ => return None,
    };
    let (profile_id, id, placement) = match rest {
        [profile_id, id] => (*profile_id, *id, None),
        [profile_id, id, place, ..] => (*profile_id, *id, Some(*place)),
        _ => return None,
    };
    (!id.contains('/')).then_some(Row {
        gpu,
        gpu_instance,
        name,
        profile_id,
        id,
        placement,
    })
}

/// `0:1` → (0, 1); a start below 64 and a size of 1 to 64, as NVML placements are.
fn placement(cell: &str) -> Option<(u8, u8)> {
    let (start, size) = cell.split_once(':')?;
    let start = start.trim().parse::<u8>().ok().filter(|&s| s < 64)?;
    let size = size
        .trim()
        .parse::<u8>()
        .ok()
        .filter(|&s| (1..=64).contains(&s))?;
    Some((start, size))
}

/// Reads both tables' rows. `first_line` is the line of `text` within the caller's input.
pub(super) fn parse(text: &str, first_line: usize) -> Result<Vec<RawGpu>> {
    let mut gpus: Vec<RawGpu> = Vec::new();
    let mut at: HashMap<u64, usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = first_line + i;
        let err =
            |field: &str, m: String| Error::new(ErrorKind::Syntax, m).in_field(field).at_line(n);
        let Some(Row {
            gpu,
            gpu_instance: gi_column,
            name,
            profile_id,
            id,
            placement: place,
        }) = split_row(line)
        else {
            continue;
        };
        let gpu: u64 = values::number(gpu)
            .map_err(|m| err("GPU", m))?
            .ok_or_else(|| err("GPU", "the GPU index is missing".into()))?;
        // A `*` marks the default compute-instance profile in some listings.
        values::number::<u32>(profile_id.trim_end_matches('*'))
            .map_err(|m| err("Profile ID", m))?;
        let id: u32 = values::number(id)
            .map_err(|m| err("Instance ID", m))?
            .ok_or_else(|| err("Instance ID", "the instance ID is missing".into()))?;
        let place = match place {
            Some(p) => Some(placement(p).ok_or_else(|| {
                err(
                    "Placement",
                    format!("expected a placement such as 4:4 (start:size), got {p:?}"),
                )
            })?),
            None => None,
        };
        let k = match at.get(&gpu) {
            Some(&k) => k,
            None => {
                values::room_for_gpu(gpus.len(), n)?;
                at.insert(gpu, gpus.len());
                gpus.push(RawGpu {
                    index: gpu,
                    ..RawGpu::default()
                });
                gpus.len() - 1
            }
        };
        let Some(g) = gpus.get_mut(k) else { continue };
        let name = name.to_string();
        match gi_column {
            None => g.instances.get_or_insert_with(Vec::new).push(RawInstance {
                gpu_instance_id: id,
                profile: name,
                start: place.map(|(s, _)| s),
                size: place.map(|(_, s)| s),
            }),
            Some(gi) => {
                let gi: u32 = values::number(gi)
                    .map_err(|m| err("GPU Instance ID", m))?
                    .ok_or_else(|| {
                        err("GPU Instance ID", "the GPU instance ID is missing".into())
                    })?;
                g.devices.get_or_insert_with(Vec::new).push(RawDevice {
                    profile: Some(name),
                    gpu_instance_id: Some(gi),
                    compute_instance_id: Some(id),
                    start: place.map(|(s, _)| s),
                    ..RawDevice::default()
                });
            }
        }
    }
    if gpus.is_empty() {
        let why = match NONE_FOUND.iter().find(|n| text.contains(*n)) {
            Some(n) => format!("nvidia-smi mig says {n:?}: it lists no GPU"),
            None => "no GPU instance rows (`|   0  MIG 3g.40gb   9   2   4:4   |`) or compute instance rows (`|   0   2   MIG 3g.40gb   2   0   0:3   |`)".to_string(),
        };
        return Err(Error::new(ErrorKind::Syntax, why).at_line(first_line));
    }
    Ok(gpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_of_both_tables() {
        let text = "\
| GPU instances:                                          |
|=========================================================|
|   3  MIG 1g.10gb           19       12          5:1     |
+---------------------------------------------------------+
| GPU     GPU       Name             Profile   Instance   Placement  |
|   3      12      MIG 1g.10gb          0         0          0:1     |
|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |
";
        let gpus = parse(text, 10).unwrap();
        assert_eq!(gpus.len(), 1);
        assert_eq!(gpus[0].index, 3);
        let gi = &gpus[0].instances.as_ref().unwrap()[0];
        assert_eq!(
            (gi.gpu_instance_id, gi.profile.as_str(), gi.start, gi.size),
            (12, "1g.10gb", Some(5), Some(1))
        );
        let ci = &gpus[0].devices.as_ref().unwrap()[0];
        assert_eq!(
            (ci.gpu_instance_id, ci.compute_instance_id, ci.start),
            (Some(12), Some(0), Some(0))
        );
        let bad = parse("|   0  MIG 3g.40gb   9   2   4:x   |\n", 7).unwrap_err();
        assert_eq!(
            (bad.line, bad.field.as_deref()),
            (Some(7), Some("Placement"))
        );
        assert!(parse("No GPU instances found: Not Found\n", 1).is_err());
        assert_eq!(
            formats(text),
            [
                SourceFormat::SmiMigGpuInstances,
                SourceFormat::SmiMigComputeInstances
            ]
        );
    }
}
