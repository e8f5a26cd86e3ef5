//! `gpu-share export`: pack like `pack`, then write the plan in one of the core's export formats.

use crate::args::ExportConfig;
use crate::exit::{CliError, Code};
use crate::output::printable;
use gpu_share_core::export::export;
use gpu_share_core::pack::bin_pack_with;
use gpu_share_core::FractionalAsk;
use std::io::Write;

pub fn run(
    cfg: ExportConfig,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<Code, CliError> {
    let pack = cfg.pack;
    let asks: Vec<FractionalAsk> = pack.asks.into_iter().map(|e| e.ask).collect();
    let packed = bin_pack_with(&asks, pack.gpu_count, &pack.caps, &pack.options)?;
    let result = &packed.result;
    let text = export(result, &asks, cfg.format, &cfg.options)?;
    match &cfg.output {
        Some(path) => std::fs::write(path, &text).map_err(|e| {
            CliError::Output(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", path.display()),
            ))
        })?,
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
