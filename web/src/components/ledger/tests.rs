//! The ledger component's pure changes: recording (held back when it would count twice, undone
//! exactly), releasing, importing by identity, and rates checked by the core, also as stored.

use super::*;
use crate::state::AppState;
use crate::storage::LoadError;
use gpu_share_core::api::{self, Rates, SummaryRequest};

const SEED: &str = "ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice";
const NOW: i64 = 1_800_000_000;

fn usage(entry: &LedgerEntry) -> (&str, i64, Option<u64>) {
    match entry {
        LedgerEntry::Usage(r) => (r.ask.as_str(), r.started_at, r.seconds),
        LedgerEntry::Release { .. } => panic!("a release: {entry:?}"),
    }
}

/// Records the page's plan with these hours per row into `entries` at `now`.
fn record_at(entries: &[LedgerEntry], hours: [&str; 3], now: i64) -> Result<Recorded, String> {
    let state = AppState::new(SEED);
    state.asks.rows.with_untracked(|rows| {
        for (row, h) in rows.iter().zip(hours) {
            row.hours.set(h.into());
        }
    });
    let request = state.planned.request.get_untracked();
    recorded(entries, &request, &state.planned.plan.get_untracked(), now)
}

/// The ledger and words of a recording that was added (not held back).
fn record_seed(entries: &[LedgerEntry], hours: [&str; 3]) -> (Vec<LedgerEntry>, String) {
    match record_at(entries, hours, NOW) {
        Ok(Recorded::Added { all, said, .. }) => (all, said),
        other => panic!("not recorded: {other:?}"),
    }
}

#[test]
fn without_storage_the_ledger_still_works_and_says_it_will_not_persist() {
    let why = "local storage is not available in this browser (SecurityError: denied)";
    let l = LedgerState::new(Err(LoadError::Unavailable(why.into())), None, 0);
    assert!(l.writable.get_untracked());
    let Some(Notice::Error(n)) = l.notice.get_untracked() else {
        panic!("no notice");
    };
    assert!(n.starts_with(why) && n.contains("will not persist"), "{n}");
    // An unreadable stored ledger is another matter: it is left alone until cleared.
    let l = LedgerState::new(Err(LoadError::Unreadable("line 2".into())), None, 0);
    assert!(!l.writable.get_untracked());
    assert_eq!(
        l.notice.get_untracked(),
        Some(Notice::Error(
            "line 2. It is left untouched; clear it to start a new one.".into()
        ))
    );
    assert_eq!(l.entries.with_untracked(Vec::len), 0);
}

#[test]
fn a_recorded_run_started_its_hours_ago_and_a_use_without_hours_is_open() {
    let (entries, said) = record_seed(&[], ["2", "", "0.5"]);
    assert_eq!(said, "recorded 3 uses");
    let got: Vec<_> = entries.iter().map(usage).collect();
    assert_eq!(
        got,
        [
            ("a", NOW - 7200, Some(7200)),
            ("b", NOW, None),
            ("c", NOW - 1800, Some(1800)),
        ]
    );
    // A second run of the same plan, after the first (b released), is recorded as such.
    let (with_release, _) = released(&entries, "b", NOW + 60).unwrap();
    let Ok(Recorded::Added { all, new, .. }) =
        record_at(&with_release, ["1", "1", "1"], NOW + 7200)
    else {
        panic!("a later run is a new use");
    };
    assert_eq!(all.len(), 7);
    assert_eq!(all[..4], with_release[..]);
    assert_eq!(all[4..], new[..]);
}

#[test]
fn recording_the_same_hours_again_is_held_and_undo_takes_back_exactly_it() {
    let (entries, _) = record_seed(&[], ["2", "", "0.5"]);
    // Pressed again a minute later: every ask already has a use for these hours.
    let Ok(Recorded::Held { new, said }) = record_at(&entries, ["2", "", "0.5"], NOW + 60) else {
        panic!("recording twice must not add silently");
    };
    assert_eq!(new.len(), 3);
    assert_eq!(
        said,
        "already recorded at 2027-01-15 08:00 UTC: a, b, c (3 of 3 uses) have a use in the ledger \
         for these hours; recording again counts them twice. Record again?"
    );
    // "Record again" adds them as they were made, and says how many.
    let Recorded::Added {
        all,
        new: again,
        said,
    } = recorded_anyway(&entries, new.clone())
    else {
        panic!()
    };
    assert_eq!((all.len(), said.as_str()), (6, "recorded 3 uses"));
    assert_eq!(again, new);
    // Undo removes exactly those three, leaving the first recording.
    let (left, said) = undone(&all, &again, NOW + 120).unwrap();
    assert_eq!(left, entries);
    assert_eq!(said, "undone: removed the 3 uses just recorded");
    // Once gone they cannot be undone again.
    let e = undone(&left, &again, NOW + 120).unwrap_err();
    assert!(e.starts_with("undo failed, nothing changed: "), "{e}");
    // Only b's open use overlaps a one-hour run recorded three hours later.
    let Ok(Recorded::Held { said, .. }) = record_at(&entries, ["1", "1", "1"], NOW + 3 * 3600)
    else {
        panic!("b is still running");
    };
    assert!(said.contains(": b (1 of 3 uses) has a use"), "{said}");
}

#[test]
fn unplaced_asks_are_left_out_and_a_broken_plan_records_nothing() {
    let state = AppState::new("ask=a:0.6&ask=b:0.6&gpus=1&timeslice");
    let request = state.planned.request.get_untracked();
    let Ok(Recorded::Added { all, said, .. }) =
        recorded(&[], &request, &state.planned.plan.get_untracked(), NOW)
    else {
        panic!()
    };
    assert_eq!(all.len(), 1);
    assert_eq!(said, "recorded 1 use (1 unplaced left out)");
    let broken = AppState::new("ask=a:0.5&gpu-model=nonsense&mig-capable");
    let request = broken.planned.request.get_untracked();
    assert_eq!(
        recorded(&[], &request, &broken.planned.plan.get_untracked(), NOW),
        Err("the plan has an error; fix it before recording".into())
    );
}

#[test]
fn only_an_open_use_is_released() {
    let (entries, _) = record_seed(&[], ["2", "", "0.5"]);
    let (after, said) = released(&entries, "b", NOW + 60).unwrap();
    assert_eq!(said, "released b");
    assert_eq!(
        after.last(),
        Some(&LedgerEntry::Release {
            ask: "b".into(),
            at: NOW + 60
        })
    );
    let e = released(&after, "b", NOW + 120).unwrap_err();
    assert!(e.contains("no open allocation"), "{e}");
    // A use released since cannot be undone alone (b's open use is the second entry).
    let e = undone(&after, &entries[1..2], NOW + 120).unwrap_err();
    assert!(e.contains("released since"), "{e}");
}

#[test]
fn importing_ones_own_backup_adds_nothing_twice() {
    let (entries, _) = record_seed(&[], ["2", "1", "0.5"]);
    let backup = storage::to_text(&entries);
    let (merged, said) = imported(&[], &backup, NOW).unwrap();
    assert_eq!(merged.as_deref(), Some(&entries[..]));
    assert_eq!(said, "added 3 entries, 0 already present");
    let (merged, said) = imported(&entries, &backup, NOW).unwrap();
    assert_eq!(merged, None);
    assert_eq!(said, "added 0 entries, 3 already present");
    let (more, _) = record_seed(&[], ["4", "4", "4"]);
    let (merged, said) = imported(&entries[..1], &storage::to_text(&more), NOW).unwrap();
    assert_eq!(merged.map(|m| m.len()), Some(4));
    assert_eq!(said, "added 3 entries, 0 already present");
    let e = imported(&entries, "this is not a ledger\n", NOW).unwrap_err();
    assert!(
        e.starts_with("import failed, nothing changed: line 1"),
        "{e}"
    );
    let e = imported(&entries, "\n", NOW).unwrap_err();
    assert!(e.contains("no ledger entries"), "{e}");
}

#[test]
fn rates_are_checked_by_the_core_and_worded_as_the_form_says_them() {
    let r = build_rates("2.5", "", "1.2", "").unwrap();
    assert_eq!(r.cost_per_gpu_hour(), Some(2.5));
    assert_eq!(r.watts(), None);
    assert_eq!(r.pue(), 1.2);
    assert_eq!(
        r.grid_g_co2e_per_kwh(),
        Rates::default().grid_g_co2e_per_kwh()
    );
    assert_eq!(
        build_rates("", "", "0.5", "").unwrap_err(),
        "PUE: must be a number ≥ 1, got 0.5"
    );
    assert!(build_rates("-1", "", "", "")
        .unwrap_err()
        .starts_with("cost per GPU-hour: "));
    assert!(build_rates("", "", "", "-5")
        .unwrap_err()
        .starts_with("grid intensity: "));
    assert!(build_rates("", "-300", "", "")
        .unwrap_err()
        .starts_with("watts: "));
    assert!(build_rates("cheap", "", "", "")
        .unwrap_err()
        .starts_with("cost per GPU-hour: expected a number"));
}

#[test]
fn stored_rates_come_back_checked_by_the_core_and_a_refused_value_is_noted() {
    let typed = RateTexts {
        cost: "2.5".into(),
        watts: "300".into(),
        pue: "1.2".into(),
        grid: "400".into(),
    };
    let l = LedgerState::new(Ok(Vec::new()), Some(&typed.to_stored()), NOW);
    assert_eq!(untrack(|| l.rates_text.texts()), typed);
    assert_eq!(l.rates_note.get_untracked(), None);
    assert_eq!(
        l.rates.get_untracked().unwrap().cost_per_gpu_hour(),
        Some(2.5)
    );
    // A missing box is its default; nothing stored is the defaults.
    assert_eq!(
        RateTexts::from_stored(r#"{"cost":"3"}"#).unwrap(),
        RateTexts {
            cost: "3".into(),
            ..RateTexts::default()
        }
    );
    assert_eq!(stored_rates(None), (RateTexts::default(), None));
    // What the core refuses, or what is not the page's format, is ignored and said.
    for (stored, why) in [
        (r#"{"pue":"0.5"}"#, "PUE: must be a number ≥ 1, got 0.5"),
        (r#"{"cost":"-1"}"#, "cost per GPU-hour: "),
        (r#"{"cost":2}"#, "cost is not text"),
        ("[1,2]", "not a JSON object"),
        ("{\"cost\":\"2", "not JSON: "),
    ] {
        let (texts, note) = stored_rates(Some(stored));
        assert_eq!(texts, RateTexts::default(), "{stored}");
        let note = note.unwrap();
        assert!(
            note.starts_with(&format!(
                "The rates stored in this browser could not be used ({why}"
            )) && note.ends_with("; the defaults are shown."),
            "{stored}: {note}"
        );
    }
    let huge = format!(
        "{{\"cost\":\"{}\"}}",
        "9".repeat(crate::storage::record::MAX_RECORD_BYTES)
    );
    assert!(stored_rates(Some(&huge)).1.unwrap().contains("longer than"));
    let l = LedgerState::new(Ok(Vec::new()), Some(r#"{"pue":"0.5"}"#), NOW);
    assert!(l.rates.get_untracked().is_ok(), "the defaults are in force");
    assert!(l.rates_note.get_untracked().is_some());
}

#[test]
fn the_summary_is_the_cores_at_the_components_clock() {
    let (entries, _) = record_seed(&[], ["2", "", "0.5"]);
    let l = LedgerState::new(Ok(entries.clone()), None, NOW + 3600);
    l.rates_text.cost.set("2".into());
    let got = l.summary.get_untracked().unwrap();
    let rates = build_rates("2", "", "1", "475").unwrap();
    let want = api::summarise(&SummaryRequest::new(&entries, NOW + 3600, rates)).unwrap();
    assert_eq!(got, want);
    assert_eq!(got.summary.totals.records, 3);
    assert_eq!(got.summary.totals.running, 1);
    // The open use counts up to the clock.
    let open = |l: &LedgerState| l.summary.get_untracked().unwrap().records[1].seconds;
    assert_eq!(open(&l), 3600);
    l.now.set(NOW + 7200);
    assert_eq!(open(&l), 7200);
    l.rates_text.pue.set("0.5".into());
    assert_eq!(
        l.summary.get_untracked().unwrap_err(),
        "PUE: must be a number ≥ 1, got 0.5"
    );
}
