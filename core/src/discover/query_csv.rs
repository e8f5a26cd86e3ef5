//! `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]`: one GPU per row.

use super::raw::RawGpu;
use super::values;
use crate::error::{Error, ErrorKind, Result};

/// The columns read, by nvidia-smi's names and aliases (`nvidia-smi --help-query-gpu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Index,
    Name,
    Uuid,
    BusId,
    DeviceId,
    MemoryTotal,
    MigCurrent,
    MigPending,
    /// `power.default_limit`: preferred over the two below.
    PowerDefault,
    PowerEnforced,
    PowerLimit,
    Other,
}

fn field(header: &str) -> Field {
    // `memory.total [MiB]` → `memory.total`.
    let name = header
        .split_once(" [")
        .map_or(header, |(n, _)| n)
        .trim()
        .to_ascii_lowercase();
    match name.as_str() {
        "index" => Field::Index,
        "name" | "gpu_name" => Field::Name,
        "uuid" | "gpu_uuid" => Field::Uuid,
        "pci.bus_id" | "gpu_bus_id" => Field::BusId,
        "pci.device_id" => Field::DeviceId,
        "memory.total" => Field::MemoryTotal,
        "mig.mode.current" => Field::MigCurrent,
        "mig.mode.pending" => Field::MigPending,
        "power.default_limit" | "gpu.power.default_limit" => Field::PowerDefault,
        "enforced.power.limit" | "gpu.power.current_limit" => Field::PowerEnforced,
        "power.limit" | "gpu.power.requested_limit" => Field::PowerLimit,
        _ => Field::Other,
    }
}

/// The column order read without a header, as in the query the README shows:
/// `--query-gpu=index,name,memory.total,mig.mode.current,mig.mode.pending,uuid,pci.bus_id,power.default_limit`.
/// A row of 3 to 8 cells is read as the first cells of this order, when every cell fits its column.
const NOHEADER_ORDER: [Field; 8] = [
    Field::Index,
    Field::Name,
    Field::MemoryTotal,
    Field::MigCurrent,
    Field::MigPending,
    Field::Uuid,
    Field::BusId,
    Field::PowerDefault,
];

pub(super) const NOHEADER_COLUMNS: &str =
    "index,name,memory.total,mig.mode.current,mig.mode.pending,uuid,pci.bus_id,power.default_limit";

fn split(line: &str) -> Vec<&str> {
    // nvidia-smi separates cells with ", " and never quotes them.
    line.split(',').map(str::trim).collect()
}

fn is_header(cells: &[&str]) -> bool {
    cells.iter().any(|c| field(c) != Field::Other)
        && cells.iter().all(|c| {
            let n = c.split_once(" [").map_or(*c, |(n, _)| n);
            !n.is_empty()
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
        })
}

fn fits_order(cells: &[&str]) -> bool {
    (3..=NOHEADER_ORDER.len()).contains(&cells.len())
        && cells.iter().zip(NOHEADER_ORDER).all(|(c, f)| match f {
            Field::Index => c.parse::<u64>().is_ok(),
            Field::Name => !c.is_empty() && c.parse::<f64>().is_err(),
            Field::MemoryTotal => values::mib(c).is_ok_and(|m| m.is_some()),
            Field::MigCurrent | Field::MigPending => values::mig_mode(c).is_ok(),
            Field::Uuid => c.starts_with("GPU-") || values::is_na(c),
            Field::BusId => c.contains(':') || values::is_na(c),
            Field::PowerDefault => values::watts(c).is_ok(),
            _ => false,
        })
}

/// Reads the rows. `first_line` is the line of `text` within the caller's input.
pub(super) fn parse(text: &str, first_line: usize) -> Result<Vec<RawGpu>> {
    let mut rows = text
        .lines()
        .enumerate()
        .map(|(i, l)| (first_line + i, l))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((head_line, head)) = rows.next() else {
        return Err(Error::new(ErrorKind::Syntax, "the CSV is empty"));
    };
    let head_cells = split(head);
    let (columns, header_line, first_row) = if is_header(&head_cells) {
        let columns: Vec<Field> = head_cells.iter().map(|c| field(c)).collect();
        if !columns
            .iter()
            .any(|f| matches!(f, Field::Name | Field::Index | Field::Uuid | Field::BusId))
        {
            return Err(Error::new(
                ErrorKind::Syntax,
                "the CSV header has none of the columns gpu-share reads (index, name, memory.total, mig.mode.current, …)",
            )
            .at_line(head_line));
        }
        (columns, Some(head_line), None)
    } else if fits_order(&head_cells) {
        (
            NOHEADER_ORDER[..head_cells.len()].to_vec(),
            None,
            Some((head_line, head)),
        )
    } else {
        return Err(Error::new(
            ErrorKind::Syntax,
            format!(
                "a CSV without a header row is read only with the columns {NOHEADER_COLUMNS} (or the first three or more of them), in that order; run nvidia-smi with --format=csv (without noheader) so the header names the columns"
            ),
        )
        .at_line(head_line));
    };
    let mut gpus = Vec::new();
    for (line, row) in first_row.into_iter().chain(rows) {
        values::room_for_gpu(gpus.len(), line)?;
        let cells = split(row);
        if cells.len() != columns.len() {
            let against = match header_line {
                Some(h) => format!("as in the header on line {h}"),
                None => "as in the first row".to_string(),
            };
            return Err(Error::new(
                ErrorKind::Syntax,
                format!(
                    "expected {} columns ({against}), got {}",
                    columns.len(),
                    cells.len()
                ),
            )
            .at_line(line));
        }
        gpus.push(read_row(
            &columns,
            &head_cells,
            &cells,
            gpus.len(),
            line,
            header_line.is_some(),
        )?);
    }
    if gpus.is_empty() {
        return Err(
            Error::new(ErrorKind::Syntax, "the CSV has a header but no GPU rows")
                .at_line(head_line),
        );
    }
    Ok(gpus)
}

fn read_row(
    columns: &[Field],
    head: &[&str],
    cells: &[&str],
    position: usize,
    line: usize,
    has_header: bool,
) -> Result<RawGpu> {
    let mut gpu = RawGpu {
        index: position as u64,
        ..RawGpu::default()
    };
    let mut power: [Option<u32>; 3] = [None; 3];
    for (c, (&f, &cell)) in columns.iter().zip(cells).enumerate() {
        let name = if has_header {
            head.get(c).copied().unwrap_or("?")
        } else {
            NOHEADER_COLUMNS.split(',').nth(c).unwrap_or("?")
        };
        let name = name.split_once(" [").map_or(name, |(n, _)| n);
        let err = |m: String| {
            Error::new(ErrorKind::Syntax, m)
                .in_field(name)
                .at_line(line)
        };
        match f {
            Field::Index => {
                if let Some(i) = values::number::<u64>(cell).map_err(err)? {
                    gpu.index = i;
                }
            }
            Field::Name => gpu.name = values::text(cell),
            Field::Uuid => gpu.uuid = values::text(cell),
            Field::BusId => gpu.pci_bus_id = values::text(cell),
            Field::DeviceId => gpu.pci_device_id = values::pci_device_id(cell),
            Field::MemoryTotal => gpu.memory_mib = values::mib(cell).map_err(err)?,
            Field::MigCurrent => gpu.mig_current = values::mig_mode(cell).map_err(err)?,
            Field::MigPending => gpu.mig_pending = values::mig_mode(cell).map_err(err)?,
            Field::PowerDefault => power[0] = values::watts(cell).map_err(err)?,
            Field::PowerEnforced => power[1] = values::watts(cell).map_err(err)?,
            Field::PowerLimit => power[2] = values::watts(cell).map_err(err)?,
            Field::Other => {}
        }
    }
    gpu.power_limit_w = power.into_iter().flatten().next();
    Ok(gpu)
}
