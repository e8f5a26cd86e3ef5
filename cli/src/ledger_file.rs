//! The ledger file: JSON lines appended under an exclusive lock, read under a shared one, never rewritten.

use crate::exit::CliError;
use gpu_share_core::api::{format_entry, parse_ledger, LedgerEntry, MAX_LEDGER_BYTES};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

fn ledger_error(path: &Path, what: &str, e: impl std::fmt::Display) -> CliError {
    CliError::Ledger(format!("{what} {}: {e}", path.display()))
}

fn open_for_append(path: &Path) -> Result<File, CliError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| ledger_error(dir, "cannot create", e))?;
    }
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| ledger_error(path, "cannot open", e))?;
    file.lock()
        .map_err(|e| ledger_error(path, "cannot lock", e))?;
    Ok(file)
}

/// Reads and checks the whole ledger (missing file: empty ledger).
///
/// # Errors
/// `Ledger` for an unreadable file or any corrupt line (with its line number); nothing is changed.
pub fn read(path: &Path) -> Result<Vec<LedgerEntry>, CliError> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ledger_error(path, "cannot open", e)),
    };
    file.lock_shared()
        .map_err(|e| ledger_error(path, "cannot lock", e))?;
    read_locked(&mut file, path)
}

fn read_locked(file: &mut File, path: &Path) -> Result<Vec<LedgerEntry>, CliError> {
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0))
        .map_err(|e| ledger_error(path, "cannot read", e))?;
    // A runaway file is refused by its size, not loaded; and whatever it is, at most one byte
    // over the core's limit is read.
    let limit = MAX_LEDGER_BYTES as u64 + 1;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size < limit {
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| ledger_error(path, "cannot read", e))?;
    }
    if size >= limit || bytes.len() as u64 >= limit {
        return Err(ledger_error(
            path,
            "ledger too large",
            format!(
                "over {MAX_LEDGER_BYTES} bytes (1 GiB): archive it (rename it) and start a new one"
            ),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        // A write cut short inside a multi-byte character: name its line, like any corrupt line.
        let bad = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..bad].iter().filter(|&&b| b == b'\n').count();
        ledger_error(
            path,
            "corrupt ledger",
            format!("line {line}: not UTF-8 text (a write cut short?)"),
        )
    })?;
    parse_ledger(&text).map_err(|e| ledger_error(path, "corrupt ledger", e))
}

/// A test an append must pass against the ledger as it is, read under the append's own lock.
pub type Check<'a> = &'a dyn Fn(&[LedgerEntry]) -> Result<(), CliError>;

/// Appends entries as one write under an exclusive lock. With a `check`, the current ledger is
/// read and checked first, under the same lock, so no other process can change it in between.
///
/// # Errors
/// `Ledger` when the file cannot be opened, locked, read or written, or `check` refuses.
pub fn append(
    path: &Path,
    entries: &[LedgerEntry],
    check: Option<Check<'_>>,
) -> Result<(), CliError> {
    let mut file = open_for_append(path)?;
    if let Some(check) = check {
        check(&read_locked(&mut file, path)?)?;
    }
    write_entries(&mut file, path, entries)
}

/// What [`append_made`] appends, made from the ledger as it is.
pub type Make<'a> = &'a dyn Fn(&[LedgerEntry]) -> Result<Vec<LedgerEntry>, CliError>;

/// Appends the entries `make` makes of the ledger as it is, read under the append's own lock (so
/// no other process changes it in between): an entry the core derives from the ledger, such as
/// a release of the open use.
///
/// # Errors
/// As [`append`], and `make`'s own.
pub fn append_made(path: &Path, make: Make<'_>) -> Result<Vec<LedgerEntry>, CliError> {
    let mut file = open_for_append(path)?;
    let entries = make(&read_locked(&mut file, path)?)?;
    write_entries(&mut file, path, &entries)?;
    Ok(entries)
}

/// Appends entries as [`append`] does, after `check` of the ledger as it is — when it reads: a
/// ledger with a corrupt line (a write torn by a crash) is appended to unchecked, as always, and
/// every reader goes on naming the bad line.
///
/// # Errors
/// As [`append`].
pub fn append_if_readable(
    path: &Path,
    entries: &[LedgerEntry],
    check: Check<'_>,
) -> Result<(), CliError> {
    let mut file = open_for_append(path)?;
    if let Ok(existing) = read_locked(&mut file, path) {
        check(&existing)?;
    }
    write_entries(&mut file, path, entries)
}

/// One write of `entries` at the end of the locked `file`, synced.
fn write_entries(file: &mut File, path: &Path, entries: &[LedgerEntry]) -> Result<(), CliError> {
    let mut text = String::new();
    // A write cut short by a crash leaves a last line without its newline; start on a fresh line
    // so the torn line stays on its own (and is reported), instead of corrupting this entry too.
    if file.metadata().map(|m| m.len()).unwrap_or(0) > 0 && !ends_with_newline(file) {
        text.push('\n');
    }
    for entry in entries {
        text.push_str(&format_entry(entry));
        text.push('\n');
    }
    file.write_all(text.as_bytes())
        .map_err(|e| ledger_error(path, "cannot write", e))?;
    file.sync_data()
        .map_err(|e| ledger_error(path, "cannot sync", e))
}

fn ends_with_newline(file: &mut File) -> bool {
    let mut last = [0u8; 1];
    file.seek(SeekFrom::End(-1)).is_ok() && file.read_exact(&mut last).is_ok() && last[0] == b'\n'
}
