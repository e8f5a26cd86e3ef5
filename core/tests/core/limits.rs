//! Resource limits: absurd input (a 100 MB paste, millions of asks, 10⁹ GPUs) is a clear error, never exhausted memory.

use gpu_share_core::internals::account::{
    format_entry, parse_ledger, parse_ledger_any, LedgerEntry, UsageRecord, MAX_LEDGER_BYTES,
};
use gpu_share_core::internals::caps::MAX_GPU_COUNT;
use gpu_share_core::internals::pack::MAX_ASKS;
use gpu_share_core::internals::parse::{parse_asks, MAX_INPUT_BYTES};
use gpu_share_core::internals::{
    bin_pack, detect, detect_all, ClusterGpuCaps, ErrorKind, FractionalAsk, Scenario, Share,
};
use std::time::{Duration, Instant};

/// Every text reader refuses input one byte over the limit, and does so before reading it: the
/// text below would be valid (or at least long to read) if it were read.
#[test]
fn every_text_reader_refuses_more_than_64_mib() {
    let csv = "a,0.5\n".repeat(MAX_INPUT_BYTES / 6 + 1);
    assert!(csv.len() > MAX_INPUT_BYTES);
    let started = Instant::now();
    let err = parse_asks(&csv).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge, "{err}");
    assert!(err.message.contains("the limit is 67108864"), "{err}");
    assert_eq!(
        parse_ledger_any(&csv).unwrap_err().kind,
        ErrorKind::TooLarge
    );
    assert_eq!(detect(&csv).unwrap_err().kind, ErrorKind::TooLarge);
    let all = detect_all(&["GPU 0: Tesla T4 (UUID: GPU-1)\n", &csv]).unwrap_err();
    assert_eq!(
        (all.kind, all.field.as_deref()),
        (ErrorKind::TooLarge, Some("inputs[1]"))
    );
    let query = "ask=a:0.5&".repeat(MAX_INPUT_BYTES / 10 + 1);
    assert_eq!(
        Scenario::from_query(&query).unwrap_err().kind,
        ErrorKind::TooLarge
    );
    // Refused by length alone: no reader looked at the text.
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // Exactly at the limit is still read.
    let at_limit = format!("a,0.5\n{}", "#".repeat(MAX_INPUT_BYTES - 6));
    assert_eq!(parse_asks(&at_limit).unwrap().len(), 1);
}

/// A list with one ask too many is refused at that ask, by count, in CSV, JSON and a scenario query.
#[test]
fn more_than_max_asks_is_refused_by_count() {
    let rows = MAX_ASKS + 1;
    let csv = "a,1/8\n".repeat(rows);
    let err = parse_asks(&csv).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge, "{err}");
    assert_eq!(err.line, Some(rows), "refused at the first ask too many");
    assert!(err.message.contains("more than 2000000 asks"), "{err}");

    let mut json = String::from("[");
    for i in 0..rows {
        json.push_str(if i == 0 { "" } else { "," });
        json.push_str(r#"{"name":"a","fraction":1}"#);
    }
    json.push(']');
    assert!(json.len() < MAX_INPUT_BYTES);
    let err = parse_asks(&json).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge, "{err}");
    // The same under {"asks": [...]}, and with the rest of the document never read: the text
    // after the first ask too many is not even JSON.
    let wrapped = format!("{{\"asks\":{}", &json[..json.len() - 1]) + ", this is never read";
    assert_eq!(parse_asks(&wrapped).unwrap_err().kind, ErrorKind::TooLarge);

    let query = "ask=a:1&".repeat(rows);
    let err = Scenario::from_query(&query).unwrap_err();
    assert_eq!(
        (err.kind, err.field.as_deref()),
        (ErrorKind::TooLarge, Some("ask"))
    );
}

/// 3,000,000 tiny asks as JSON do not fit in 64 MiB: refused by size before any is built.
#[test]
fn three_million_json_asks_are_refused_before_parsing() {
    let one = r#"{"name":"a","fraction":0.00001},"#;
    let json = format!("[{}]", one.repeat(3_000_000).trim_end_matches(','));
    let started = Instant::now();
    let err = parse_asks(&json).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge, "{err}");
    assert!(started.elapsed() < Duration::from_millis(500));
}

#[test]
fn a_billion_gpus_is_out_of_range() {
    for spec in ["a:1000000000", "a:100001", "a:1e9", "a:1000000000/1"] {
        let err = FractionalAsk::parse_spec(spec).unwrap_err();
        assert!(
            matches!(err.kind, ErrorKind::OutOfRange | ErrorKind::Syntax),
            "{spec}: {err}"
        );
        assert_eq!(err.field.as_deref(), Some("fraction"), "{spec}");
    }
    // The largest ask allowed is 100,000 GPUs; 10⁹ units of a GPU is a valid tiny ask.
    assert!(FractionalAsk::parse_spec("a:100000").is_ok());
    assert!(FractionalAsk::fraction("a", Share::from_units(1_000_000_000)).is_ok());
    assert_eq!(
        FractionalAsk::fraction("a", Share::from_units(u64::MAX))
            .unwrap_err()
            .kind,
        ErrorKind::OutOfRange
    );

    let asks = [FractionalAsk::parse_spec("a:0.5").unwrap()];
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let err = bin_pack(&asks, &caps.clone().with_gpu_count(Some(1_000_000_000))).unwrap_err();
    assert_eq!(
        (err.kind, err.field.as_deref()),
        (ErrorKind::OutOfRange, Some("gpu_count"))
    );
    assert!(err.message.contains("between 1 and 1000000"), "{err}");
    assert!(bin_pack(&asks, &caps.clone().with_gpu_count(Some(MAX_GPU_COUNT))).is_ok());
    let scenario = Scenario::from_query("ask=a:0.5&gpus=1000000000&timeslice").unwrap();
    assert!(bin_pack(&scenario.asks, &scenario.caps).is_err());
}

/// Without a GPU limit, asks for more GPUs than the planner lists end unplaced, not in memory.
#[test]
fn whole_gpu_asks_stop_at_the_planners_gpu_limit() {
    let asks: Vec<FractionalAsk> = (0..12)
        .map(|i| FractionalAsk::parse_spec(&format!("big{i}:100000")).unwrap())
        .collect();
    let r = bin_pack(&asks, &ClusterGpuCaps::default()).unwrap();
    assert_eq!(r.gpus_used, MAX_GPU_COUNT);
    assert_eq!(r.unplaced.len(), 2);
    assert!(
        r.unplaced[0].reason.contains("planner's limit"),
        "{:?}",
        r.unplaced
    );
}

/// A JSON Lines ledger (the CLI's own file) may outgrow the 64 MiB of an import: it is refused only
/// above 1 GiB, by length, before reading.
#[test]
fn a_ledger_file_may_grow_past_the_import_limit() {
    let ask = FractionalAsk::parse_spec("a:0.5").unwrap();
    let choice =
        gpu_share_core::internals::select_mechanism(&ask, &ClusterGpuCaps::default()).unwrap();
    let entry = LedgerEntry::Usage(UsageRecord::from_choice(&choice, 0, Some(3600)));
    let line = format_entry(&entry);
    let big = format!("{line}\n").repeat(MAX_INPUT_BYTES / line.len() + 1);
    assert!(big.len() > MAX_INPUT_BYTES);
    assert_eq!(
        parse_ledger(&big).map(|e| e.len()).ok(),
        Some(MAX_INPUT_BYTES / line.len() + 1)
    );
    assert_eq!(
        parse_ledger_any(&big).unwrap_err().kind,
        ErrorKind::TooLarge
    );
    let huge = " ".repeat(MAX_LEDGER_BYTES + 1);
    let started = Instant::now();
    let err = parse_ledger(&huge).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge, "{err}");
    assert!(started.elapsed() < Duration::from_secs(2));
}
