//! `gpu-share simulate-dra`: the Kubernetes DRA allocator's first fit of a plan's claims on
//! ResourceSlices, beside gpu-share's placement; the core writes the text.

use super::write_json;
use crate::args::{Format, SimulateDraConfig};
use crate::exit::{CliError, Code};
use gpu_share_core::api;
use std::io::Write;

/// Exit 3 when some ask was not placed (and so not simulated), as `pack` does.
pub fn run(cfg: SimulateDraConfig, out: &mut impl Write) -> Result<Code, CliError> {
    let response = api::simulate_dra(&cfg.request)?;
    match cfg.format {
        Format::Json => write_json(out, &response)?,
        Format::Text => out.write_all(response.text.as_bytes())?,
    }
    Ok(if response.pack.result.unplaced.is_empty() {
        Code::Ok
    } else {
        Code::Unplaced
    })
}
