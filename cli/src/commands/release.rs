//! `gpu-share release`: closes the latest open allocation of a workload.

use super::{ledger_path, write_json};
use crate::args::ReleaseArgs;
use crate::env::Env;
use crate::exit::{CliError, Code};
use crate::ledger_file;
use crate::output::printable;
use gpu_share_core::api::{self, LedgerEntry};
use std::io::Write;

/// `release --json`.
#[derive(serde::Serialize)]
struct Released<'a> {
    released: &'a str,
    at: i64,
    ledger: &'a std::path::Path,
}

pub fn run(args: &ReleaseArgs, env: &Env, out: &mut impl Write) -> Result<Code, CliError> {
    let name = gpu_share_core::api::validate_name(&args.name)?;
    let path = ledger_path(env)?;
    let release = LedgerEntry::Release {
        ask: name.clone(),
        at: env.now,
    };
    // Checked under the ledger's lock, against what is there when the entry is appended.
    let check = |existing: &[LedgerEntry]| -> Result<(), CliError> {
        api::release(existing, &name, env.now)?;
        Ok(())
    };
    ledger_file::append(&path, std::slice::from_ref(&release), Some(&check))?;
    if args.json {
        write_json(
            out,
            &Released {
                released: &name,
                at: env.now,
                ledger: &path,
            },
        )?;
    } else {
        writeln!(
            out,
            "released {} at {} (ledger {})",
            printable(&name),
            env.now,
            path.display()
        )?;
    }
    Ok(Code::Ok)
}
