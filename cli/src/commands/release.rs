//! `gpu-share release`: closes the latest open allocation of a workload.

use super::{ledger_path, write_json};
use crate::args::ReleaseArgs;
use crate::env::Env;
use crate::exit::{CliError, Code};
use crate::ledger_file;
use crate::output::printable;
use gpu_share_core::api::{self, LedgerEntry, ReleaseRequest};
use std::io::Write;

/// `release --json`.
#[derive(serde::Serialize)]
struct Released<'a> {
    released: &'a str,
    at: i64,
    ledger: &'a std::path::Path,
}

pub fn run(args: &ReleaseArgs, env: &Env, out: &mut impl Write) -> Result<Code, CliError> {
    // A name that is no name is refused before the ledger file is touched.
    api::validate_name(&args.name)?;
    let path = ledger_path(env)?;
    // Made under the ledger's lock, from what is there when the entry is appended.
    let release = |existing: &[LedgerEntry]| -> Result<Vec<LedgerEntry>, CliError> {
        Ok(vec![api::release(&ReleaseRequest::new(
            existing, &args.name, env.now,
        ))?])
    };
    let made = ledger_file::append_made(&path, &release)?;
    let name = match made.first() {
        Some(LedgerEntry::Release { ask, .. }) => ask.clone(),
        _ => args.name.trim().to_string(),
    };
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
