//! What makes two ledger entries the same, and the ledger changes built on it: merging an imported
//! ledger without adding an entry twice, taking back exactly the entries just recorded, and finding
//! the uses a new recording would count a second time.
//!
//! Entries carry no ids: the CLI appends lines from many processes under a lock and the core has
//! no clock or randomness to mint one, so an entry's identity is its whole content — kind, ask,
//! mechanism, shares, MIG profile, GPU model, start, duration and GPU placement (with the id of
//! the packing that recorded it), or a release's ask and time. Two entries equal in all of that
//! cannot be told apart by anything the ledger holds, so equal entries count as many times as
//! they occur (a multiset): two identical releases closing two identical open uses stay two.

use super::{resolve, LedgerEntry, UsageStatus};
use crate::error::{Error, ErrorKind, Result};
use std::collections::HashMap;

/// How many times each entry occurs.
fn counts(entries: &[LedgerEntry]) -> HashMap<&LedgerEntry, usize> {
    let mut n: HashMap<&LedgerEntry, usize> = HashMap::new();
    for e in entries {
        *n.entry(e).or_default() += 1;
    }
    n
}

/// `existing`, then the entries of `incoming` it does not already hold, in their order; and how
/// many of `incoming` it already held. Each entry ends up as many times as the larger of its
/// counts in the two, so merging a ledger into itself, or twice, adds nothing.
pub fn merge_entries(
    existing: &[LedgerEntry],
    incoming: &[LedgerEntry],
) -> (Vec<LedgerEntry>, usize) {
    let mut present = counts(existing);
    let mut merged = existing.to_vec();
    let mut already = 0;
    for entry in incoming {
        match present.get_mut(entry) {
            Some(n) if *n > 0 => {
                *n -= 1;
                already += 1;
            }
            _ => merged.push(entry.clone()),
        }
    }
    (merged, already)
}

/// `entries` without `gone`: for each entry of `gone`, its latest occurrence (a recording is
/// appended, so that is the one just made) — an undo of a recording, nothing more.
///
/// # Errors
/// `Ledger` when an entry of `gone` is not (or no longer) in `entries`, or when a later release
/// closes one of them (taking it back would leave that release closing nothing); nothing is
/// removed then.
pub fn remove_entries(
    entries: &[LedgerEntry],
    gone: &[LedgerEntry],
    now: i64,
) -> Result<Vec<LedgerEntry>> {
    let mut left = counts(gone);
    let mut kept: Vec<LedgerEntry> = Vec::with_capacity(entries.len());
    for entry in entries.iter().rev() {
        match left.get_mut(entry) {
            Some(n) if *n > 0 => *n -= 1,
            _ => kept.push(entry.clone()),
        }
    }
    if left.values().any(|&n| n > 0) {
        return Err(Error::new(
            ErrorKind::Ledger,
            "the entries to take back are no longer all in the ledger",
        ));
    }
    kept.reverse();
    resolve(&kept, now).map_err(|_| {
        Error::new(
            ErrorKind::Ledger,
            "a use to take back was released since; the release would then close nothing",
        )
    })?;
    Ok(kept)
}

/// A use in the ledger that a new recording would count again.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct AlreadyRecorded {
    pub ask: String,
    /// When the use in the ledger was recorded, Unix seconds: the end of a finished run (it was
    /// recorded as it finished), the start of an open one.
    pub recorded_at: i64,
}

/// The seconds a use covers, `[start, end)`; an open one has no end yet.
fn span(start: i64, seconds: Option<u64>) -> (i64, i64) {
    let end = seconds.map_or(i64::MAX, |s| {
        start.saturating_add(i64::try_from(s).unwrap_or(i64::MAX))
    });
    (start, end)
}

/// Two spans share a second, or are the same span (two runs of no time at one moment are that
/// moment recorded twice; a use released the second it began is over before the next starts).
fn overlap(a: (i64, i64), b: (i64, i64)) -> bool {
    a == b || (a.0 < b.1 && b.0 < a.1)
}

/// For each use of `new` (entries about to be recorded), the latest use of the same ask in
/// `entries` whose time overlaps it, settled at `now` (an open use runs until released).
///
/// This is what a recording pressed twice looks like: the same ask at the same time, counted twice.
/// The rule is the ask and the time, not the whole entry — a finished run's start is `now − its
/// hours`, so pressing again a minute later gives other starts, and an edited plan (another share,
/// another GPU) still describes the same workload in the same hours. Runs of the same ask that do
/// not overlap (yesterday's, or after a release) are new uses and are not reported.
///
/// # Errors
/// `Ledger`, naming the entry, when `entries` releases a use that is not open.
pub fn already_recorded(
    entries: &[LedgerEntry],
    new: &[LedgerEntry],
    now: i64,
) -> Result<Vec<AlreadyRecorded>> {
    let usages = resolve(entries, now)?;
    let mut found = Vec::new();
    for entry in new {
        let LedgerEntry::Usage(r) = entry else {
            continue;
        };
        let mine = span(r.started_at, r.seconds);
        let latest = usages
            .iter()
            .filter(|u| u.record.ask == r.ask)
            .filter(|u| {
                let seconds = (u.status == UsageStatus::Closed).then_some(u.seconds);
                overlap(mine, span(u.record.started_at, seconds))
            })
            .map(|u| {
                let ran = i64::try_from(u.record.seconds.unwrap_or(0)).unwrap_or(i64::MAX);
                u.record.started_at.saturating_add(ran)
            })
            .max();
        if let Some(recorded_at) = latest {
            found.push(AlreadyRecorded {
                ask: r.ask.clone(),
                recorded_at,
            });
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests;
