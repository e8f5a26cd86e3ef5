//! CSV exports of the ledger and its summary, safe to open in a spreadsheet.

use super::{Summary, SummaryRow, Usage};

/// One CSV cell: quoted when it holds a comma, quote or line break, and prefixed with `'` when it
/// starts with `=`, `+`, `-`, `@`, tab or CR, so a spreadsheet shows it as text instead of running
/// it as a formula (OWASP "CSV injection").
pub fn csv_cell(text: &str) -> String {
    let neutral = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if neutral.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", neutral.replace('"', "\"\""))
    } else {
        neutral
    }
}

fn money(v: Option<f64>) -> String {
    v.map(|c| format!("{c:.2}")).unwrap_or_default()
}

fn row(group: &str, r: &SummaryRow) -> String {
    [
        csv_cell(group),
        csv_cell(&r.key),
        r.records.to_string(),
        r.running.to_string(),
        r.requested_gpu_hours.to_fixed(4),
        r.allocated_gpu_hours.to_fixed(4),
        r.wasted_gpu_hours.to_fixed(4),
        money(r.cost),
        format!("{:.4}", r.energy_kwh),
        format!("{:.4}", r.co2e_kg),
    ]
    .join(",")
}

/// The summary as CSV: a header, then one row per workload, per mechanism, and the total.
pub fn summary_csv(summary: &Summary) -> String {
    let mut out = String::from(
        "group,key,records,running,requested_gpu_hours,allocated_gpu_hours,wasted_gpu_hours,cost,energy_kwh,co2e_kg\n",
    );
    for r in &summary.by_workload {
        out.push_str(&row("workload", r));
        out.push('\n');
    }
    for r in &summary.by_mechanism {
        out.push_str(&row("mechanism", r));
        out.push('\n');
    }
    out.push_str(&row("total", &summary.totals));
    out.push('\n');
    out
}

/// The settled ledger as CSV, one row per usage record.
pub fn ledger_csv(usages: &[Usage]) -> String {
    let mut out = String::from(
        "ask,mechanism,isolation,mig_profile,gpu_model,requested_fraction,allocated_fraction,started_at,seconds,status,requested_gpu_hours,allocated_gpu_hours\n",
    );
    for u in usages {
        let r = &u.record;
        let cells = [
            csv_cell(&r.ask),
            r.mechanism.to_string(),
            r.isolation.to_string(),
            csv_cell(r.mig_profile.as_deref().unwrap_or("")),
            csv_cell(r.gpu_model.as_deref().unwrap_or("")),
            r.requested_fraction.to_string(),
            r.allocated_fraction.to_string(),
            r.started_at.to_string(),
            u.seconds.to_string(),
            format!("{:?}", u.status).to_lowercase(),
            u.requested_gpu_hours().to_fixed(4),
            u.allocated_gpu_hours().to_fixed(4),
        ];
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}
