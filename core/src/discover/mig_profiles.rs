//! `nvidia-smi mig -lgip` (the "GPU instance profiles" table) and `-lgipp` (`GPU  0 Profile ID 9 Placements: {0,4}:4`).

use super::values;
use crate::error::{Error, ErrorKind, Result};

/// One row of `-lgip`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ProfileRow {
    pub gpu: u32,
    /// Without `MIG ` (`1g.5gb+me`).
    pub name: String,
    /// nvidia-smi's profile ID: device-specific, so only used to name `-lgipp` lines (docs/hardware-facts.md §1.1).
    pub id: u32,
    pub free: u32,
    pub total: u32,
}

/// One line of `-lgipp`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PlacementRow {
    pub gpu: u32,
    pub id: u32,
    pub starts: Vec<u8>,
    pub size: u8,
    pub line: usize,
}

const NO_MIG: &str = "No MIG-enabled devices found";

/// Whether `text` is `-lgip` or `-lgipp` output.
pub(super) fn looks_like(text: &str) -> bool {
    text.lines().any(|l| {
        l.contains("GPU instance profiles:") || l.contains(NO_MIG) || placement_line(l).is_some()
    })
}

/// `GPU  0 Profile ID 19 Placements: {0,1,2,3,4,5,6}:1` (also `Placement : {0}:8`).
fn placement_line(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.trim().strip_prefix("GPU")?;
    let (gpu, rest) = rest.split_once("Profile ID")?;
    let (id, rest) = rest.split_once("Placement")?;
    let (_, placements) = rest.split_once(':')?;
    Some((gpu.trim(), id.trim(), placements.trim()))
}

/// Profile rows, placement rows, and notes.
pub(super) type Parsed = (Vec<ProfileRow>, Vec<PlacementRow>, Vec<String>);

/// Reads the rows. `first_line` is the line of `text` within the caller's input.
pub(super) fn parse(text: &str, first_line: usize) -> Result<Parsed> {
    let mut profiles = Vec::new();
    let mut placements = Vec::new();
    let mut notes = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = first_line + i;
        let err =
            |field: &str, m: String| Error::new(ErrorKind::Syntax, m).in_field(field).at_line(at);
        if let Some((gpu, id, set)) = placement_line(line) {
            let bad = || {
                err(
                    "placements",
                    format!("expected placements such as {{0,2,4}}:2, got {set:?}"),
                )
            };
            let (starts, size) = set
                .strip_prefix('{')
                .and_then(|s| s.split_once("}:"))
                .ok_or_else(bad)?;
            let starts: Vec<u8> = if starts.trim().is_empty() {
                Vec::new()
            } else {
                starts
                    .split(',')
                    .map(|s| s.trim().parse::<u8>().ok().filter(|&s| s < 64))
                    .collect::<Option<_>>()
                    .ok_or_else(bad)?
            };
            let size = size
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|&s| s > 0 && s <= 64)
                .ok_or_else(bad)?;
            placements.push(PlacementRow {
                gpu: number(gpu).map_err(|m| err("GPU", m))?,
                id: number(id).map_err(|m| err("Profile ID", m))?,
                starts,
                size,
                line: at,
            });
            continue;
        }
        let t = line.trim();
        let Some(inner) = t.strip_prefix('|') else {
            continue;
        };
        let tokens: Vec<&str> = inner.split_whitespace().collect();
        // `|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |`
        let [gpu, "MIG", name, id, counts, ..] = tokens.as_slice() else {
            continue;
        };
        let (free, total) = counts.split_once('/').ok_or_else(|| {
            err(
                "Instances",
                format!("expected free/total instances, got {counts:?}"),
            )
        })?;
        profiles.push(ProfileRow {
            gpu: number(gpu).map_err(|m| err("GPU", m))?,
            name: (*name).to_string(),
            id: number(id).map_err(|m| err("ID", m))?,
            free: number(free).map_err(|m| err("Instances", m))?,
            total: number(total).map_err(|m| err("Instances", m))?,
        });
    }
    if profiles.is_empty() && placements.is_empty() {
        if text.contains(NO_MIG) {
            notes.push(format!("nvidia-smi mig -lgip: {NO_MIG}"));
        } else {
            return Err(Error::new(
                ErrorKind::Syntax,
                "no profile rows (`|   0  MIG 1g.5gb   19   7/7 …|`) or placements (`GPU  0 Profile ID 19 Placements: {…}:1`)",
            )
            .at_line(first_line));
        }
    }
    Ok((profiles, placements, notes))
}

fn number(s: &str) -> Result<u32, String> {
    values::number(s)?.ok_or_else(|| format!("expected a whole number, got {s:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_mig_guide_lgipp_lines() {
        // -lgipp text as quoted in docs/hardware-facts.md §1.2 (A100-40GB, from NVIDIA's MIG guide).
        let text = "GPU  0 Profile ID 19 Placements: {0,1,2,3,4,5,6}:1\nGPU  0 Profile ID  5 Placement : {0}:4\n";
        let (profiles, placements, _) = parse(text, 1).unwrap();
        assert!(profiles.is_empty());
        assert_eq!(placements.len(), 2);
        assert_eq!(placements[0].starts, vec![0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(
            (placements[1].id, placements[1].size, placements[1].line),
            (5, 4, 2)
        );
        let bad = parse("GPU  0 Profile ID 19 Placements: {0,x}:1\n", 7).unwrap_err();
        assert_eq!(bad.line, Some(7));
    }
}
