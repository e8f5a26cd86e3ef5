//! `gpu-share accounting`: the ledger summarised by workload and mechanism, as text, JSON or CSV.

use super::{ledger_path, write_json};
use crate::args::{AccountingConfig, AccountingOutput};
use crate::env::Env;
use crate::exit::{CliError, Code};
use crate::ledger_file;
use crate::output::{printable, table, Style};
use gpu_share_core::api::{
    self, ledger_csv, summary_csv, Rates, Summary, SummaryRequest, SummaryResponse, SummaryRow,
};
use std::io::Write;
use std::path::Path;

/// `accounting --json`: the ledger file and the core's summary of it.
#[derive(serde::Serialize)]
struct AccountingJson<'a> {
    ledger: &'a Path,
    #[serde(flatten)]
    response: &'a SummaryResponse,
}

pub fn run(
    cfg: AccountingConfig,
    env: &Env,
    style: Style,
    out: &mut impl Write,
) -> Result<Code, CliError> {
    let path = ledger_path(env)?;
    let entries = ledger_file::read(&path)?;
    let response = api::summarise(&SummaryRequest::new(&entries, env.now, cfg.rates.clone()))
        .map_err(|e| CliError::Ledger(format!("inconsistent ledger {}: {e}", path.display())))?;
    let (summary, usages) = (&response.summary, &response.records);
    match cfg.output {
        AccountingOutput::Json => write_json(
            out,
            &AccountingJson {
                ledger: &path,
                response: &response,
            },
        )?,
        AccountingOutput::SummaryCsv => out.write_all(summary_csv(summary).as_bytes())?,
        AccountingOutput::LedgerCsv => out.write_all(ledger_csv(usages).as_bytes())?,
        AccountingOutput::Text if usages.is_empty() => {
            writeln!(out, "no usage recorded yet in {}", path.display())?;
        }
        AccountingOutput::Text => write_text(&cfg.rates, &path, summary, style, out)?,
    }
    Ok(Code::Ok)
}

/// The summary as a table (by workload, by mechanism, totals), then what the table leaves out:
/// shared GPUs' idle capacity, the notes, and the rates energy and carbon were reckoned at.
fn write_text(
    rates: &Rates,
    path: &Path,
    summary: &Summary,
    style: Style,
    out: &mut impl Write,
) -> Result<(), CliError> {
    out.write_all(table(&summary_rows(summary, rates.cost_per_gpu_hour().is_some())).as_bytes())?;
    if !summary.shared_gpus.is_empty() {
        let n = summary.shared_gpus.len();
        writeln!(
            out,
            "{n} shared GPU{} billed at most once over (tenants split what they deny each other); idle capacity left on {}: {} GPU-h",
            if n == 1 { "" } else { "s" },
            if n == 1 { "it" } else { "them" },
            summary.idle_gpu_hours.to_fixed(4)
        )?;
    }
    for note in &summary.notes {
        writeln!(out, "{}", style.warning(&format!("⚠ {}", printable(note))))?;
    }
    writeln!(
        out,
        "{}",
        style.bold(&format!(
            "energy at board power limits × PUE {}, carbon at {} gCO2e/kWh (ledger {})",
            rates.pue(),
            rates.grid_g_co2e_per_kwh(),
            path.display()
        ))
    )?;
    Ok(())
}

/// The table's rows: a header and a row per workload, a header and a row per mechanism, the
/// totals; blank rows between. The cost column only when a cost per GPU-hour is given.
fn summary_rows(summary: &Summary, cost: bool) -> Vec<Vec<String>> {
    let header = |first: &str| {
        let mut header: Vec<String> = [
            first,
            "records",
            "requested GPU-h",
            "allocated GPU-h",
            "wasted GPU-h",
            "energy kWh",
            "CO2e kg",
        ]
        .map(String::from)
        .to_vec();
        if cost {
            header.push("cost".into());
        }
        header
    };
    let row = |r: &SummaryRow| summary_row(r, cost);
    let mut rows = vec![header("workload")];
    rows.extend(summary.by_workload.iter().map(row));
    rows.push(vec![]);
    rows.push(header("mechanism"));
    rows.extend(summary.by_mechanism.iter().map(row));
    rows.push(vec![]);
    rows.push(row(&summary.totals));
    rows
}

/// One workload's, mechanism's or the totals' cells.
fn summary_row(r: &SummaryRow, cost: bool) -> Vec<String> {
    let running = if r.running > 0 {
        format!(" ({} running)", r.running)
    } else {
        String::new()
    };
    let mut cells = vec![
        printable(&r.key),
        format!("{}{running}", r.records),
        r.requested_gpu_hours.to_fixed(4),
        r.allocated_gpu_hours.to_fixed(4),
        r.wasted_gpu_hours.to_fixed(4),
        format!("{:.4}", r.energy_kwh),
        format!("{:.4}", r.co2e_kg),
    ];
    if cost {
        cells.push(r.cost.map(|c| format!("{c:.2}")).unwrap_or_default());
    }
    cells
}
