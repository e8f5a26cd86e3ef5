//! Tests of `account`.

use super::*;
use crate::account::Rates;
use crate::api::pack;
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::plan::select_mechanism;

fn plan(ask: &FractionalAsk, caps: &ClusterGpuCaps) -> crate::error::Result<Choice> {
    select_mechanism(ask, caps)
}

fn timeslice() -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    }
}

#[test]
fn a_finished_run_started_its_duration_ago_an_open_one_now() {
    let choice = plan(&FractionalAsk::parse_spec("a:0.5").unwrap(), &timeslice()).unwrap();
    let LedgerEntry::Usage(r) = record_plan(&RecordPlanRequest::at(
        &choice,
        Recording::new(10_000, Some(3600)).unwrap(),
    ))
    .unwrap() else {
        panic!()
    };
    assert_eq!((r.started_at, r.seconds), (6400, Some(3600)));
    let LedgerEntry::Usage(r) = record_plan(&RecordPlanRequest::at(
        &choice,
        Recording::new(10_000, None).unwrap(),
    ))
    .unwrap() else {
        panic!()
    };
    assert_eq!((r.started_at, r.seconds), (10_000, None));
    assert!(Recording::new(0, Some(MAX_SECONDS + 1)).is_err());
    assert!(Recording::new(MAX_UNIX_SECONDS + 1, None).is_err());
}

#[test]
fn a_packing_records_its_placed_asks_with_their_own_durations() {
    let caps = ClusterGpuCaps {
        gpu_count: Some(1),
        ..timeslice()
    };
    let mut request = PackRequest::new(
        ["a:0.5", "b:0.4", "c:0.2"]
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect(),
        caps,
    );
    request.asks[0].seconds = Some(60);
    let response = pack(&request).unwrap();
    let entries = record_pack(
        &request,
        &response,
        Recording::new(1000, Some(7200)).unwrap(),
    );
    let got: Vec<(String, Option<u64>)> = entries
        .iter()
        .map(|e| match e {
            LedgerEntry::Usage(r) => (r.ask.clone(), r.seconds),
            LedgerEntry::Release { .. } => unreachable!(),
        })
        .collect();
    // c (the smallest, placed last) does not fit beside a and b on the one GPU.
    assert_eq!(got, [("a".into(), Some(60)), ("b".into(), Some(7200))]);
}

/// Issue #13, rule 8: each MIG instance denies others max(compute, memory) of the GPU, and
/// 3g.20gb + 2g.10gb + 2g.10gb on an A100-40GB add up to 0.5 + 2/7 + 2/7 = 1.07 — but they
/// share one GPU, and the layout leaves no room for any further instance (NVIDIA MIG User
/// Guide: A100-40GB has 7 compute and 8 memory slices), so together they bill exactly one
/// GPU-hour per hour, split 0.5 : 2/7 : 2/7.
#[test]
fn tenants_of_one_gpu_never_bill_more_than_the_gpu() {
    let caps = ClusterGpuCaps {
        supports_mig: true,
        ..Default::default()
    };
    let request = PackRequest::new(
        ["x:3g.20gb", "y:2g.10gb", "z:2g.10gb"]
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect(),
        caps,
    );
    let response = pack(&request).unwrap();
    assert_eq!(response.result.gpus_used, 1);
    let mut entries = record_pack(
        &request,
        &response,
        Recording::new(7200, Some(3600)).unwrap(),
    );
    let s = summarise(&SummaryRequest {
        entries: Cow::Borrowed(&entries),
        now: 7200,
        rates: Rates::default(),
    })
    .unwrap();
    assert_eq!(s.summary.totals.allocated_gpu_hours.to_fixed(6), "1.000000");
    let x = &s.records[0];
    assert_eq!(x.allocated_gpu_hours().to_fixed(4), "0.4667"); // 0.5 / (0.5 + 4/7) = 7/15
    assert_eq!(s.summary.shared_gpus.len(), 1);
    assert_eq!(s.summary.idle_gpu_hours.to_fixed(6), "0.000000");
    // The same three planned one by one (no shared GPU known) bill their own shares: 1.07.
    let alone: Vec<LedgerEntry> = entries
        .iter()
        .map(|e| match e {
            LedgerEntry::Usage(r) => LedgerEntry::Usage(UsageRecord {
                gpu: None,
                ..r.clone()
            }),
            other => other.clone(),
        })
        .collect();
    let s = summarise(&SummaryRequest {
        entries: Cow::Borrowed(&alone),
        now: 7200,
        rates: Rates::default(),
    })
    .unwrap();
    assert_eq!(s.summary.totals.allocated_gpu_hours.to_fixed(4), "1.0714");
    // x runs an hour longer: that hour it is alone on a GPU with room left, billed its 0.5,
    // and the other half of the GPU is idle.
    if let LedgerEntry::Usage(r) = &mut entries[0] {
        r.started_at -= 3600;
        r.seconds = Some(7200);
    }
    let s = summarise(&SummaryRequest {
        entries: Cow::Borrowed(&entries),
        now: 7200,
        rates: Rates::default(),
    })
    .unwrap();
    assert_eq!(s.summary.totals.allocated_gpu_hours.to_fixed(6), "1.500000");
    assert_eq!(s.summary.idle_gpu_hours.to_fixed(6), "0.500000");
}

/// A use of `a` opened at 100 and released at 200; releasing `a` in an empty ledger is refused.
fn opened_and_released() -> (LedgerEntry, LedgerEntry) {
    let choice = plan(&FractionalAsk::parse_spec("a:0.5").unwrap(), &timeslice()).unwrap();
    let open = record_plan(&RecordPlanRequest::at(
        &choice,
        Recording::new(100, None).unwrap(),
    ))
    .unwrap();
    assert_eq!(
        release(&ReleaseRequest::new(&[], "a", 200))
            .unwrap_err()
            .kind,
        ErrorKind::Ledger
    );
    let released = release(&ReleaseRequest::new(std::slice::from_ref(&open), "a", 200)).unwrap();
    (open, released)
}

#[test]
fn only_an_open_use_can_be_released() {
    let (open, released) = opened_and_released();
    assert_eq!(
        released,
        LedgerEntry::Release {
            ask: "a".into(),
            at: 200
        }
    );
    assert!(
        release(&ReleaseRequest::new(&[open, released], "a", 300)).is_err(),
        "released once"
    );
}

#[cfg(feature = "serde")]
#[test]
fn release_needs_an_open_use_and_import_adds_nothing_twice() {
    let (open, released) = opened_and_released();
    let ledger = vec![open, released];
    let text: String = ledger
        .iter()
        .map(|e| crate::account::format_entry(e) + "\n")
        .collect();
    let again = import(&ImportRequest::new(&ledger, &text, 300)).unwrap();
    assert_eq!((again.added, again.already_present), (0, 2));
    assert_eq!(again.entries, ledger);
    let fresh = import(&ImportRequest::new(&[], &text, 300)).unwrap();
    assert_eq!(fresh.added, 2);
    assert!(import(&ImportRequest::new(&ledger, "", 300)).is_err());
}
