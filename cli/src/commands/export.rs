//! `gpu-share export`: pack like `pack`, then write the plan in one of the core's export formats.

use crate::args::ExportConfig;
use crate::exit::{CliError, Code};
use crate::output::printable;
use gpu_share_core::api;
use std::io::Write;

pub fn run(
    cfg: ExportConfig,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<Code, CliError> {
    let response = api::export(&cfg.request)?;
    let (text, result) = (&response.text, &response.pack.result);
    match &cfg.output {
        Some(path) => super::write_file(path, text)?,
        None => out.write_all(text.as_bytes())?,
    }
    if result.unplaced.is_empty() {
        return Ok(Code::Ok);
    }
    let names: Vec<String> = result
        .unplaced
        .iter()
        .map(|u| format!("{:?}", printable(&u.name)))
        .collect();
    let n = names.len();
    let _ = writeln!(
        err,
        "gpu-share: warning: {n} ask{} unplaced and not exported: {}",
        if n == 1 { "" } else { "s" },
        names.join(", ")
    );
    Ok(Code::Unplaced)
}
