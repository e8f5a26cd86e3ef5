//! One module per subcommand; each takes a checked config and writes to `out`.

pub mod accounting;
pub mod detect;
pub mod export;
pub mod fit;
pub mod models;
pub mod pack;
pub mod plan;
pub mod release;
pub mod repartition;
pub mod replay;
pub mod simulate_dra;
pub mod size;
pub mod validate_mig;

use crate::args::Record;
use crate::env::Env;
use crate::exit::CliError;
use crate::ledger_file;
use gpu_share_core::api::{self, LedgerEntry};
use std::path::PathBuf;

/// The ledger file, or an error saying how to set one.
fn ledger_path(env: &Env) -> Result<PathBuf, CliError> {
    env.ledger_path.clone().ok_or_else(|| {
        CliError::Ledger(
            "no data directory on this platform; set GPU_SHARE_LEDGER to a file path".into(),
        )
    })
}

/// Appends `entries` to the ledger and says where, unless the ledger already holds a use of their
/// asks in those hours (the core's `recorded_before`): that is refused in the core's words, with
/// nothing written, unless `record.again`. The check reads the ledger under the append's lock.
fn append_recording(
    env: &Env,
    entries: &[LedgerEntry],
    record: Record,
) -> Result<PathBuf, CliError> {
    let ledger = ledger_path(env)?;
    if record.again {
        ledger_file::append(&ledger, entries, None)?;
        return Ok(ledger);
    }
    let now = env.now;
    let not_twice = |existing: &[LedgerEntry]| -> Result<(), CliError> {
        match api::recorded_before(existing, entries, now) {
            Ok(None) => Ok(()),
            Ok(Some(before)) => Err(CliError::Input(before.error())),
            Err(e) => Err(CliError::Ledger(format!(
                "corrupt ledger {}: {e}",
                ledger.display()
            ))),
        }
    };
    ledger_file::append_if_readable(&ledger, entries, &not_twice)?;
    Ok(ledger)
}

/// JSON to `out`, pretty-printed, with a final newline.
fn write_json(
    out: &mut impl std::io::Write,
    value: &impl serde::Serialize,
) -> Result<(), CliError> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(|e| CliError::Output(e.into()))?;
    writeln!(out)?;
    Ok(())
}

/// Writes `text` to the file at `path` (`export -o`, `pack --svg`); an error names the file.
fn write_file(path: &std::path::Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| {
        CliError::Output(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", path.display()),
        ))
    })
}
