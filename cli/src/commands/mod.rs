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
pub mod size;
pub mod validate_mig;

use crate::env::Env;
use crate::exit::CliError;
use std::path::PathBuf;

/// The ledger file, or an error saying how to set one.
fn ledger_path(env: &Env) -> Result<PathBuf, CliError> {
    env.ledger_path.clone().ok_or_else(|| {
        CliError::Ledger(
            "no data directory on this platform; set GPU_SHARE_LEDGER to a file path".into(),
        )
    })
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
