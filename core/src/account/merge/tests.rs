//! Entry identity: merging adds nothing twice (a property over random ledgers, also through
//! `api::import` and both file forms), undo takes back exactly what was recorded, and a recording
//! that overlaps the same ask's use in the ledger is found.

use super::*;
use crate::account::UsageRecord;
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::plan::select_mechanism;
use proptest::prelude::*;

fn usage(ask: &str, started_at: i64, seconds: Option<u64>) -> LedgerEntry {
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let spec = format!("{ask}:0.5");
    let choice = select_mechanism(&FractionalAsk::parse_spec(&spec).unwrap(), &caps).unwrap();
    LedgerEntry::Usage(UsageRecord::from_choice(&choice, started_at, seconds))
}

fn release(ask: &str, at: i64) -> LedgerEntry {
    LedgerEntry::Release {
        ask: ask.into(),
        at,
    }
}

#[test]
fn equal_entries_count_as_often_as_they_occur() {
    let a = usage("a", 0, Some(60));
    let b = usage("b", 0, None);
    // Two equal runs in the file, one in the ledger: one is added.
    let (merged, already) =
        merge_entries(std::slice::from_ref(&a), &[a.clone(), a.clone(), b.clone()]);
    assert_eq!(merged, [a.clone(), a.clone(), b]);
    assert_eq!(already, 1);
    // Two identical releases closing two identical open uses stay two: nothing is left open.
    let open = usage("j", 0, None);
    let file = [open.clone(), open, release("j", 60), release("j", 60)];
    let (merged, already) = merge_entries(&[], &file);
    assert_eq!((merged.as_slice(), already), (&file[..], 0));
    let settled = resolve(&merged, 1000).unwrap();
    assert!(settled.iter().all(|u| u.status == UsageStatus::Closed));
}

#[test]
fn undo_takes_back_exactly_the_entries_just_recorded() {
    let a = usage("a", 0, Some(60));
    let ledger = vec![a.clone(), usage("b", 10, Some(60)), a.clone()];
    // The latest `a` goes (the one a recording appended), the first stays.
    let left = remove_entries(&ledger, std::slice::from_ref(&a), 100).unwrap();
    assert_eq!(left, ledger[..2]);
    let left = remove_entries(&ledger, &[a.clone(), a.clone()], 100).unwrap();
    assert_eq!(left, [ledger[1].clone()]);
    // Three `a`s cannot be taken from a ledger of two; nothing is removed.
    let e = remove_entries(&ledger, &[a.clone(), a.clone(), a], 100).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Ledger);
    assert!(e.message.contains("no longer all in the ledger"), "{e:?}");
    // An open use released since cannot be taken back alone: its release would close nothing.
    let open = usage("j", 0, None);
    let ledger = vec![open.clone(), release("j", 50)];
    let e = remove_entries(&ledger, &[open], 100).unwrap_err();
    assert!(e.message.contains("released since"), "{e:?}");
}

#[test]
fn a_recording_that_overlaps_the_same_asks_use_is_found() {
    // `a` ran 0..3600 (recorded at 3600); `b` is open since 100; `c` ran 0..60.
    let ledger = [
        usage("a", 0, Some(3600)),
        usage("b", 100, None),
        usage("c", 0, Some(60)),
    ];
    let now = 4000;
    let new = [
        // Pressed again 400 s later with the same hours: 400..4000 overlaps 0..3600.
        usage("a", 400, Some(3600)),
        // Open again while the first is still running.
        usage("b", now, None),
        // c's earlier run ended long ago: a new run, not a double count.
        usage("c", 3000, Some(1000)),
        usage("d", 0, Some(60)),
    ];
    let found = already_recorded(&ledger, &new, now).unwrap();
    let want = [
        AlreadyRecorded {
            ask: "a".into(),
            recorded_at: 3600,
        },
        AlreadyRecorded {
            ask: "b".into(),
            recorded_at: 100,
        },
    ];
    assert_eq!(found, want);
    // Released at 200, b is no longer running: recording it open at 4000 is a new use.
    let mut released = ledger.to_vec();
    released.push(release("b", 200));
    let found = already_recorded(&released, &new, now).unwrap();
    assert_eq!(found, want[..1]);
    // The same moment twice counts even for runs of no time; a use released the second it began
    // is over before an open one recorded that second.
    let zero = [usage("z", 50, Some(0))];
    assert_eq!(already_recorded(&zero, &zero, 50).unwrap().len(), 1);
    let brief = [usage("z", 50, None), release("z", 50)];
    assert_eq!(
        already_recorded(&brief, &[usage("z", 50, None)], 50).unwrap(),
        []
    );
    // A broken ledger is said, not guessed around.
    assert!(already_recorded(&[release("x", 1)], &new, now).is_err());
}

/// A ledger of usage records from a small pool (so equal entries occur), with some of its open
/// uses released at the end: always valid.
fn ledger() -> impl Strategy<Value = Vec<LedgerEntry>> {
    let record = (0usize..3, 0i64..3, prop::option::of(0u64..3));
    (prop::collection::vec(record, 0..12), any::<u16>()).prop_map(|(records, close)| {
        let mut entries: Vec<LedgerEntry> = records
            .iter()
            .map(|&(ask, start, secs)| {
                usage(["a", "b", "c"][ask], start * 100, secs.map(|s| s * 60))
            })
            .collect();
        let opens: Vec<(String, i64)> = entries
            .iter()
            .filter_map(|e| match e {
                LedgerEntry::Usage(r) if r.seconds.is_none() => Some((r.ask.clone(), r.started_at)),
                _ => None,
            })
            .collect();
        for (i, (ask, start)) in opens.into_iter().enumerate() {
            if close & (1 << (i % 16)) != 0 {
                entries.push(release(&ask, start + 500));
            }
        }
        entries
    })
}

fn count(entries: &[LedgerEntry]) -> HashMap<&LedgerEntry, usize> {
    counts(entries)
}

#[cfg(feature = "serde")]
fn text(entries: &[LedgerEntry], document: bool) -> String {
    if document {
        crate::account::ledger_document(entries, None)
    } else {
        entries
            .iter()
            .map(|e| crate::account::format_entry(e) + "\n")
            .collect()
    }
}

proptest! {
    /// The merge is a multiset union: the ledger first and unchanged, each entry as often as in
    /// whichever side holds it more, and every entry of the file either added or already present.
    #[test]
    fn merging_is_a_union_that_adds_nothing_twice(x in ledger(), t in ledger()) {
        let (once, already) = merge_entries(&x, &t);
        prop_assert_eq!(&once[..x.len()], &x[..]);
        prop_assert_eq!(once.len() - x.len() + already, t.len());
        let (cx, ct, co) = (count(&x), count(&t), count(&once));
        for (e, n) in &co {
            let want = (*cx.get(e).unwrap_or(&0)).max(*ct.get(e).unwrap_or(&0));
            prop_assert_eq!(*n, want);
        }
        let (twice, again) = merge_entries(&once, &t);
        prop_assert_eq!(&twice, &once);
        prop_assert_eq!(again, t.len());
        // Into an empty ledger: the file itself, every occurrence.
        prop_assert_eq!(merge_entries(&[], &t), (t.clone(), 0));
    }

    /// Through the use case and the files people keep: importing a ledger into itself, or the same
    /// file twice, adds nothing the second time; into an empty ledger it gives the file's entries.
    #[cfg(feature = "serde")]
    #[test]
    fn importing_twice_adds_nothing_the_second_time(
        x in ledger(),
        t in ledger(),
        document in any::<bool>(),
    ) {
        use crate::api::{import, ImportRequest};
        let file = text(&t, document);
        if t.is_empty() {
            prop_assert!(import(&ImportRequest::new(&x, &file, 10_000)).is_err(), "a file with no entries is refused");
            return Ok(());
        }
        let fresh = import(&ImportRequest::new(&[], &file, 10_000)).unwrap();
        prop_assert_eq!((&fresh.entries, fresh.added, fresh.already_present), (&t, t.len(), 0));
        let own = import(&ImportRequest::new(&t, &file, 10_000)).unwrap();
        prop_assert_eq!((&own.entries, own.added, own.already_present), (&t, 0, t.len()));
        // Two ledgers can disagree (a release of a use the other already closed): that is refused
        // whole. When the merge stands, a second import of the same file adds nothing.
        if let Ok(once) = import(&ImportRequest::new(&x, &file, 10_000)) {
            prop_assert_eq!(once.added + once.already_present, t.len());
            let twice = import(&ImportRequest::new(&once.entries, &file, 10_000)).unwrap();
            prop_assert_eq!(twice.added, 0);
            prop_assert_eq!(twice.already_present, t.len());
            prop_assert_eq!(&twice.entries, &once.entries);
        }
    }

    /// Undo after a recording gives back the ledger as it was.
    #[test]
    fn undo_after_a_recording_restores_the_ledger(x in ledger(), new in ledger()) {
        // A recording appends usage records only.
        let new: Vec<LedgerEntry> =
            new.into_iter().filter(|e| matches!(e, LedgerEntry::Usage(_))).collect();
        let mut after = x.clone();
        after.extend(new.iter().cloned());
        prop_assert_eq!(remove_entries(&after, &new, 10_000).unwrap(), x);
    }
}
