//! `gpu-share release`: closes the latest open allocation of a workload.

use super::{ledger_path, write_json};
use crate::args::ReleaseArgs;
use crate::env::Env;
use crate::exit::{CliError, Code};
use crate::ledger_file;
use crate::output::printable;
use gpu_share_core::account::resolve;
use gpu_share_core::LedgerEntry;
use std::io::Write;

pub fn run(args: &ReleaseArgs, env: &Env, out: &mut impl Write) -> Result<Code, CliError> {
    let name = gpu_share_core::ask::validate_name(&args.name)?;
    let path = ledger_path(env)?;
    let release = LedgerEntry::Release {
        ask: name.clone(),
        at: env.now,
    };
    let check = |existing: &[LedgerEntry]| -> Result<(), CliError> {
        let mut with_release = existing.to_vec();
        with_release.push(release.clone());
        resolve(&with_release, env.now).map(|_| ()).map_err(|_| {
            CliError::Input(gpu_share_core::Error::new(
                gpu_share_core::ErrorKind::Ledger,
                format!("{name:?} has no open allocation to release"),
            ))
        })
    };
    ledger_file::append(&path, std::slice::from_ref(&release), Some(&check))?;
    if args.json {
        write_json(
            out,
            &serde_json::json!({ "released": name, "at": env.now, "ledger": path }),
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
