//! Accounting arithmetic, ledger resolution, exports and the stored format.

use super::*;
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::plan::select_mechanism;

fn record(spec: &str, caps: &ClusterGpuCaps, started_at: i64, seconds: Option<u64>) -> LedgerEntry {
    let choice = select_mechanism(&FractionalAsk::parse_spec(spec).unwrap(), caps).unwrap();
    LedgerEntry::Usage(UsageRecord::from_choice(&choice, started_at, seconds))
}

fn timeslice() -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    }
}

#[test]
fn quarter_gpu_for_two_hours_is_half_a_gpu_hour() {
    let h = fractional_gpu_hours(Share::parse("0.25").unwrap(), 7200);
    assert_eq!(h, fractional_gpu_hours(Share::parse("0.5").unwrap(), 3600));
    assert_eq!(h.to_f64(), 0.5);
    assert_eq!(h.to_fixed(2), "0.50");
}

#[test]
fn gpu_hours_round_half_up_and_never_overflow() {
    // 1/3 GPU for 1 s: 0.0000926 GPU-h; half a unit-hour rounds up.
    let third = fractional_gpu_hours(Share::parse("1/3").unwrap(), 1);
    assert_eq!(third.to_fixed(6), "0.000093");
    assert_eq!(
        GpuHours(3600 * u128::from(UNITS_PER_GPU) / 2).to_fixed(0),
        "1"
    );
    // Found by the ledger fuzz target: an open use of 341,056 GPUs resolved at the end of time.
    // The text saturates instead of overflowing (a panic in a debug build, garbage in release).
    let huge = GpuHours(u128::MAX / 3);
    assert!(huge.to_fixed(4).ends_with(|c: char| c.is_ascii_digit()));
    let hours = (u128::MAX / (3600 * u128::from(UNITS_PER_GPU))).to_string();
    assert!(GpuHours(u128::MAX).to_fixed(2).starts_with(&hours[..20]));
}

#[test]
fn summary_splits_requested_allocated_and_wasted() {
    let entries = [
        record("JPCP:0.25", &ClusterGpuCaps::default(), 0, Some(7200)),
        record("JPCP:0.25", &timeslice(), 0, Some(7200)),
        record("train:2", &timeslice(), 0, Some(3600)),
    ];
    let usages = resolve(&entries, 10_000).unwrap();
    let s = summarize(
        &usages,
        &Rates::new(&RatesInput {
            cost_per_gpu_hour: Some(2.0),
            ..Default::default()
        })
        .unwrap(),
    );
    let jpcp = &s.by_workload[0];
    assert_eq!(jpcp.key, "JPCP");
    assert_eq!(jpcp.requested_gpu_hours.to_fixed(4), "1.0000");
    assert_eq!(jpcp.allocated_gpu_hours.to_fixed(4), "2.5000");
    assert_eq!(jpcp.wasted_gpu_hours.to_fixed(4), "1.5000");
    assert_eq!(s.totals.allocated_gpu_hours.to_fixed(4), "4.5000");
    assert_eq!(s.totals.cost, Some(9.0));
    let mechs: Vec<&str> = s.by_mechanism.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(mechs, ["timeslice", "whole"]);
    // No GPU model was given, so no board power is known: energy and carbon are left out, and
    // a note says so (no power is assumed, docs/hardware-facts.md §7).
    assert_eq!((s.totals.energy_kwh, s.totals.co2e_kg), (0.0, 0.0));
    assert_eq!(
        s.notes,
        ["no GPU model recorded: energy and carbon of 3 records left out (give the board power in watts)"]
    );
    // With the board power given: 4.5 GPU-h at 400 W, PUE 1, 475 g/kWh.
    let s = summarize(
        &usages,
        &Rates::new(&RatesInput {
            watts: Some(400.0),
            ..Default::default()
        })
        .unwrap(),
    );
    assert!((s.totals.energy_kwh - 1.8).abs() < 1e-9);
    assert!((s.totals.co2e_kg - 0.855).abs() < 1e-9);
    assert!(s.notes.is_empty());
}

fn on(model: &str) -> ClusterGpuCaps {
    ClusterGpuCaps {
        gpu_model: Some(model.into()),
        ..timeslice()
    }
}

/// Energy follows the board each record ran on, with that board's own default power limit
/// (docs/hardware-facts.md §7), from the caps through the choice and the ledger to the summary.
#[test]
fn energy_uses_each_boards_own_power() {
    // Half a GPU for two hours is one GPU-hour on each board.
    let entries = [
        record("sxm:0.5", &on("NVIDIA A100-SXM4-40GB"), 0, Some(7200)),
        record("pcie:0.5", &on("NVIDIA A100-PCIE-40GB"), 0, Some(7200)),
        record("h100:0.5", &on("NVIDIA H100 80GB HBM3"), 0, Some(7200)),
        record("h100p:0.5", &on("NVIDIA H100 PCIe"), 0, Some(7200)),
        record("a10:0.5", &on("NVIDIA A10"), 0, Some(7200)),
    ];
    let s = summarize(&resolve(&entries, 10_000).unwrap(), &Rates::default());
    let kwh = |name: &str| {
        s.by_workload
            .iter()
            .find(|r| r.key == name)
            .unwrap()
            .energy_kwh
    };
    // NVIDIA/k8s-test-infra qx-a100.xml: `<default_power_limit>400.00 W</default_power_limit>`.
    assert!((kwh("sxm") - 0.4).abs() < 1e-9);
    // Real nvidia-smi tables of A100-PCIE-40GB boards (CEEMS exporter docs,
    // mahendrapaipuri/ceems): `31W / 250W |     50MiB / 40960MiB`.
    assert!((kwh("pcie") - 0.25).abs() < 1e-9);
    // utkuozdemir/nvidia_gpu_exporter's H100 capture: `Default Power Limit : 700.00 W`.
    assert!((kwh("h100") - 0.7).abs() < 1e-9);
    // NVIDIA H100 PCIe product brief PB-11133-001_v02: "maximum thermal design power (TDP)
    // level of 350 W".
    assert!((kwh("h100p") - 0.35).abs() < 1e-9);
    // leptonai/gpud e2e/mock/nvidia-smi/test_data.go, nvidia-smi -q of an A10:
    // `Default Power Limit : 150.00 W` (not the 400 W once assumed for every unknown board).
    assert!((kwh("a10") - 0.15).abs() < 1e-9);
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

/// A board without a known power figure counts no energy and is named in a note; the `watts`
/// rate, when given, covers it.
#[test]
fn a_board_without_a_power_figure_is_left_out_and_named() {
    let entries = [
        record("rtx:0.5", &on("RTX-PRO-6000-Blackwell"), 0, Some(7200)),
        record("a10:0.5", &on("A10"), 0, Some(7200)),
        record("other:0.5", &on("NVIDIA GeForce RTX 4090"), 0, Some(7200)),
    ];
    let s = summarize(&resolve(&entries, 10_000).unwrap(), &Rates::default());
    assert!((s.totals.energy_kwh - 0.15).abs() < 1e-9);
    assert_eq!(
        s.notes,
        [
            // An unknown model is planned without one (caps.rs), so its record names none.
            "no GPU model recorded: energy and carbon of 1 record left out (give the board power in watts)",
            "no power figure for RTX-PRO-6000-Blackwell: energy and carbon of 1 record left out (give the board power in watts)",
        ]
    );
    // A ledger line naming a model the catalogue does not know.
    let mut foreign = record("x:0.5", &timeslice(), 0, Some(7200));
    if let LedgerEntry::Usage(r) = &mut foreign {
        r.gpu_model = Some("Voodoo 2".into());
    }
    let s2 = summarize(&resolve(&[foreign], 10_000).unwrap(), &Rates::default());
    assert_eq!(
        s2.notes,
        ["Voodoo 2 is not in the catalogue: energy and carbon of 1 record left out (give the board power in watts)"]
    );
    let given = Rates::new(&RatesInput {
        watts: Some(300.0),
        ..Default::default()
    })
    .unwrap();
    let s = summarize(&resolve(&entries, 10_000).unwrap(), &given);
    assert!((s.totals.energy_kwh - 0.9).abs() < 1e-9);
    assert!(s.notes.is_empty());
}

#[test]
fn open_allocations_run_until_released_or_now() {
    let entries = [
        record("a:0.5", &timeslice(), 1000, None),
        record("b:0.5", &timeslice(), 1000, None),
        LedgerEntry::Release {
            ask: "a".into(),
            at: 4600,
        },
    ];
    let usages = resolve(&entries, 8200).unwrap();
    assert_eq!(
        (usages[0].seconds, usages[0].status),
        (3600, UsageStatus::Closed)
    );
    assert_eq!(
        (usages[1].seconds, usages[1].status),
        (7200, UsageStatus::Running)
    );
    let s = summarize(&usages, &Rates::default());
    assert_eq!(s.totals.running, 1);
    let bad = [LedgerEntry::Release {
        ask: "ghost".into(),
        at: 1,
    }];
    let err = resolve(&bad, 2).unwrap_err();
    assert_eq!(
        (err.kind, err.line),
        (crate::error::ErrorKind::Ledger, Some(1))
    );
}

#[test]
fn csv_cells_cannot_become_formulas() {
    assert_eq!(csv_cell("=1+1"), "'=1+1");
    assert_eq!(csv_cell("-2"), "'-2");
    assert_eq!(csv_cell("@SUM(A1)"), "'@SUM(A1)");
    assert_eq!(csv_cell("\tx"), "'\tx");
    assert_eq!(csv_cell("a,b"), "\"a,b\"");
    assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_eq!(csv_cell("plain"), "plain");
    let entries = [record("=HYPERLINK(\"x\"):0.5", &timeslice(), 0, Some(60))];
    let csv = ledger_csv(&resolve(&entries, 0).unwrap());
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("\"'=HYPERLINK(\"\"x\"\")\",timeslice"),
        "{csv}"
    );
}

#[test]
fn rates_are_validated() {
    assert_eq!(Rates::new(&RatesInput::default()), Ok(Rates::default()));
    let bad = RatesInput {
        pue: Some(0.5),
        ..Default::default()
    };
    assert_eq!(Rates::new(&bad).unwrap_err().field.as_deref(), Some("pue"));
    let nan = RatesInput {
        cost_per_gpu_hour: Some(f64::NAN),
        ..Default::default()
    };
    assert!(Rates::new(&nan).is_err());
}

#[cfg(feature = "serde")]
#[test]
fn ledger_lines_round_trip_exactly() {
    let caps = ClusterGpuCaps {
        supports_mig: true,
        ..Default::default()
    };
    let entries = vec![
        record("a:1/3", &timeslice(), 5, Some(60)),
        record("m:0.25", &caps, 5, None),
        LedgerEntry::Release {
            ask: "m".into(),
            at: 99,
        },
    ];
    let text: String = entries.iter().map(|e| format_entry(e) + "\n").collect();
    assert!(text.starts_with("{\"v\":1,"), "{text}");
    assert_eq!(parse_ledger(&text).unwrap(), entries);
}

#[cfg(feature = "serde")]
#[test]
fn corrupt_ledger_lines_are_reported_by_line() {
    let good = format_entry(&record("a:0.5", &timeslice(), 0, Some(1)));
    let text = format!("{good}\n\n{{\"v\":1,\"kind\":\"usage\"\n{good}\n");
    let err = parse_ledger(&text).unwrap_err();
    assert_eq!(err.line, Some(3));
    let future = good.replace("\"v\":1", "\"v\":9");
    assert!(parse_ledger(&future)
        .unwrap_err()
        .message
        .contains("version 9"));
    let bad_name = good.replace("\"ask\":\"a\"", "\"ask\":\"\"");
    assert_eq!(
        parse_ledger(&bad_name).unwrap_err().field.as_deref(),
        Some("ask.name")
    );
}

#[cfg(feature = "serde")]
#[test]
fn ledger_documents_round_trip_and_are_checked() {
    let entries = vec![
        record("a:0.5", &timeslice(), 0, Some(60)),
        LedgerEntry::Usage(match record("b:0.25", &timeslice(), 5, None) {
            LedgerEntry::Usage(u) => u,
            _ => unreachable!(),
        }),
        LedgerEntry::Release {
            ask: "b".into(),
            at: 99,
        },
    ];
    let usages = resolve(&entries, 100).unwrap();
    let summary = summarize(&usages, &Rates::default());
    let doc = ledger_document(&entries, Some(&summary));
    assert!(doc.contains("\"format\": \"gpu-share-ledger\""), "{doc}");
    assert_eq!(parse_ledger_any(&doc).unwrap(), entries);
    let lines: String = entries.iter().map(|e| format_entry(e) + "\n").collect();
    assert_eq!(
        parse_ledger_any(&lines).unwrap(),
        entries,
        "JSON Lines still read"
    );
    let single = format_entry(&entries[0]);
    assert_eq!(
        parse_ledger_any(&single).unwrap(),
        entries[..1],
        "a one-line ledger is JSON Lines"
    );
    let bad = doc.replace("\"version\": 1", "\"version\": 7");
    assert!(parse_ledger_any(&bad)
        .unwrap_err()
        .message
        .contains("version 7"));
    let broken = doc.replacen("\"ask\": \"a\"", "\"ask\": 3", 1);
    assert_eq!(
        parse_ledger_any(&broken).unwrap_err().field.as_deref(),
        Some("entries[0]")
    );
    assert!(parse_ledger_any("{\"format\":\"other\",\"entries\":[]}").is_err());
}
