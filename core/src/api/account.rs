//! The ledger's use cases: record a plan or a packing, release an open use, import a ledger, and
//! summarise it with rates. The caller stores the entries (a file, localStorage) and supplies the
//! time; the rules — when a recorded use started, what may be released, what an import adds —
//! are here, once.

use super::pack::{PackRequest, PackResponse};
use crate::account::GpuPlacement;
use crate::account::LedgerEntry;
use crate::account::UsageRecord;
use crate::account::{resolve, summarize, utc_text, AlreadyRecorded};
use crate::account::{Rates, Summary, Usage};
use crate::ask::validate_name;
use crate::error::{Error, ErrorKind, Hint, Input, Result};
use crate::parse::MAX_SECONDS;
use crate::plan::Choice;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Uses the ledger already holds that a recording would count a second time, and the sentence
/// that says so (every front end shows it as it is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedBefore {
    /// For each new use of such an ask, the use already in the ledger.
    pub twice: Vec<AlreadyRecorded>,
    /// `already recorded at 2026-12-07 14:00 UTC: a, b (2 of 3 uses) have a use in the ledger for
    /// these hours; recording again counts them twice`.
    pub text: String,
}

impl RecordedBefore {
    /// The refusal a recording gets unless the caller records again on purpose.
    pub fn error(&self) -> Error {
        Error::new(ErrorKind::AlreadyRecorded, self.text.clone()).with_hint(Hint::Give {
            input: Input::RecordAgain,
        })
    }
}

/// Whether recording `new` (what [`record_plan`] or [`record_pack`] made) at `now` would count a
/// use of `entries` twice: the same ask in overlapping hours (`account::already_recorded`'s rule,
/// a recording made twice). `None` when it would not.
///
/// # Errors
/// `Ledger` when `entries` releases a use that is not open.
pub fn recorded_before(
    entries: &[LedgerEntry],
    new: &[LedgerEntry],
    now: i64,
) -> Result<Option<RecordedBefore>> {
    let twice = crate::account::already_recorded(entries, new, now)?;
    if twice.is_empty() {
        return Ok(None);
    }
    let text = recorded_before_text(&twice, new.len());
    Ok(Some(RecordedBefore { twice, text }))
}

/// The sentence of [`RecordedBefore::text`]: at most five asks named, the latest time.
fn recorded_before_text(twice: &[AlreadyRecorded], of: usize) -> String {
    const NAMED: usize = 5;
    let mut names: Vec<&str> = Vec::new();
    for t in twice {
        if !names.contains(&t.ask.as_str()) {
            names.push(&t.ask);
        }
    }
    let mut list = names
        .iter()
        .take(NAMED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMED {
        list.push_str(&format!(" and {} more", names.len() - NAMED));
    }
    let at = twice.iter().map(|t| t.recorded_at).max().unwrap_or(0);
    let k = twice.len();
    format!(
        "already recorded at {}: {list} ({k} of {of} use{}) {} a use in the ledger for these \
         hours; recording again counts {} twice",
        utc_text(at),
        if of == 1 { "" } else { "s" },
        if k == 1 { "has" } else { "have" },
        if k == 1 { "it" } else { "them" },
    )
}

/// When a use is recorded and for how long.
///
/// A use with a duration is a run that has just finished: it started `seconds` before `now`. A
/// use without one starts `now` and stays open until it is released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recording {
    now: i64,
    seconds: Option<u64>,
}

/// The earliest and latest Unix second a ledger holds (about 1,200 BC to AD 5,100).
pub const MAX_UNIX_SECONDS: i64 = 100_000_000_000;

impl Recording {
    /// # Errors
    /// `OutOfRange` for a clock beyond ±[`MAX_UNIX_SECONDS`] (field `now`) or a duration above
    /// ten years (field `seconds`).
    pub fn new(now: i64, seconds: Option<u64>) -> Result<Recording> {
        if !(-MAX_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&now) {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("must be a Unix time within ±{MAX_UNIX_SECONDS} seconds, got {now}"),
            )
            .in_field("now"));
        }
        if let Some(s) = seconds.filter(|&s| s > MAX_SECONDS) {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("must be at most {MAX_SECONDS} seconds (ten years), got {s}"),
            )
            .in_field("seconds"));
        }
        Ok(Recording { now, seconds })
    }

    pub fn now(&self) -> i64 {
        self.now
    }

    pub fn seconds(&self) -> Option<u64> {
        self.seconds
    }

    /// When the use started: `now − seconds` for a finished run, `now` for an open one.
    pub fn started_at(&self) -> i64 {
        self.now
            .saturating_sub(i64::try_from(self.seconds.unwrap_or(0)).unwrap_or(i64::MAX))
    }

    fn with_seconds(self, seconds: Option<u64>) -> Recording {
        Recording { seconds, ..self }
    }
}

/// A planned ask to record: npm `Ledger.record(choice, {now, seconds})`, `gpu-share plan --record`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RecordPlanRequest {
    /// What `plan` chose for the ask.
    pub choice: Choice,
    /// The time of the recording, Unix seconds (the caller's clock).
    pub now: i64,
    /// A run of this many seconds that has just finished; `None`: a use open until released.
    #[cfg_attr(feature = "serde", serde(default))]
    pub seconds: Option<u64>,
}

impl RecordPlanRequest {
    /// The request to record `choice` at `when`.
    pub fn at(choice: &Choice, when: Recording) -> RecordPlanRequest {
        RecordPlanRequest {
            choice: choice.clone(),
            now: when.now,
            seconds: when.seconds,
        }
    }
}

/// The ledger entry of one planned ask.
///
/// # Errors
/// `Syntax` for a choice whose name is no name (field `choice.name`); `OutOfRange` for `now` or
/// `seconds` out of range ([`Recording::new`]).
pub fn record_plan(request: &RecordPlanRequest) -> Result<LedgerEntry> {
    validate_name(&request.choice.name).map_err(|e| e.in_field("choice"))?;
    let when = Recording::new(request.now, request.seconds)?;
    Ok(LedgerEntry::Usage(UsageRecord::from_choice(
        &request.choice,
        when.started_at(),
        when.seconds,
    )))
}

/// Every entry's ask is a name (`entries` come from the caller, who may have written them).
///
/// # Errors
/// `Syntax` in field `entries[i].ask`.
fn check_entries(entries: &[LedgerEntry]) -> Result<()> {
    for (i, e) in entries.iter().enumerate() {
        let (LedgerEntry::Usage(UsageRecord { ask, .. }) | LedgerEntry::Release { ask, .. }) = e;
        validate_name(ask)
            .map_err(|e| Error { field: None, ..e }.in_field(format!("entries[{i}].ask")))?;
    }
    Ok(())
}

/// A ledger and uses about to be recorded (or just recorded): npm `Ledger.alreadyRecorded` and
/// `Ledger.undo`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct LedgerChangeRequest<'a> {
    pub entries: Cow<'a, [LedgerEntry]>,
    /// The uses about to be recorded (`already_recorded`) or to take back (`undo`).
    pub change: Cow<'a, [LedgerEntry]>,
    pub now: i64,
}

/// For each use of `change`, the latest use of the same ask in `entries` whose time overlaps it
/// (the rule of [`recorded_before`], as data).
///
/// # Errors
/// `Syntax` for an entry whose ask is no name; `Ledger` when `entries` releases a use that is
/// not open.
pub fn already_recorded(request: &LedgerChangeRequest<'_>) -> Result<Vec<AlreadyRecorded>> {
    check_entries(&request.entries)?;
    crate::account::already_recorded(&request.entries, &request.change, request.now)
}

/// `entries` without the uses of `change`, just recorded: an undo of a recording.
///
/// # Errors
/// `Syntax` for an entry whose ask is no name; `Ledger` when an entry of `change` is not in
/// `entries` or a later release closes it (nothing is removed then).
pub fn undo(request: &LedgerChangeRequest<'_>) -> Result<Vec<LedgerEntry>> {
    check_entries(&request.entries)?;
    crate::account::remove_entries(&request.entries, &request.change, request.now)
}

/// The ledger entries of a packing: one per placed ask, in input order (unplaced asks used
/// nothing), each with its GPU and MIG placement so that tenants of one GPU are billed together
/// (never more than the GPU). Each ask runs for its own duration from the request when it has
/// one, else for `when`'s.
pub fn record_pack(
    request: &PackRequest,
    response: &PackResponse,
    when: Recording,
) -> Vec<LedgerEntry> {
    let unplaced: HashSet<&str> = response
        .result
        .unplaced
        .iter()
        .map(|u| u.name.as_str())
        .collect();
    let seconds: HashMap<&str, Option<u64>> = request
        .asks
        .iter()
        .map(|e| (e.ask.name(), e.seconds))
        .collect();
    let placed = placements(response);
    let plan = plan_id(when.now, &placed);
    response
        .result
        .choices
        .iter()
        .filter(|c| !unplaced.contains(c.name.as_str()))
        .map(|c| {
            let own = seconds.get(c.name.as_str()).copied().flatten();
            let at = when.with_seconds(own.or(when.seconds));
            let mut record = UsageRecord::from_choice(c, at.started_at(), at.seconds);
            record.gpu = placed
                .get(c.name.as_str())
                .map(|&(index, start)| GpuPlacement {
                    plan: plan.clone(),
                    index,
                    start,
                });
            LedgerEntry::Usage(record)
        })
        .collect()
}

/// Each placed ask's GPU (its first, for whole GPUs) and MIG start.
fn placements(response: &PackResponse) -> BTreeMap<&str, (u64, Option<u8>)> {
    let mut placed = BTreeMap::new();
    for g in &response.result.gpus {
        for i in g.instances() {
            placed.insert(i.ask.as_str(), (g.index, Some(i.start)));
        }
        for a in g.asks() {
            placed.entry(a).or_insert((g.index, None));
        }
    }
    placed
}

/// A name for one recorded packing: FNV-1a of the time and every placement, in hex. Records of
/// the same packing share it; two packings recorded apart get different ones.
fn plan_id(now: i64, placed: &BTreeMap<&str, (u64, Option<u8>)>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(&now.to_le_bytes());
    for (name, (gpu, start)) in placed {
        eat(name.as_bytes());
        eat(&[0]);
        eat(&gpu.to_le_bytes());
        eat(&[start.map_or(255, |s| s)]);
    }
    format!("{hash:016x}")
}

/// An open use to close: npm `Ledger.release(ask, at)`, `gpu-share release NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ReleaseRequest<'a> {
    pub entries: Cow<'a, [LedgerEntry]>,
    pub ask: String,
    pub now: i64,
}

impl<'a> ReleaseRequest<'a> {
    pub fn new(entries: &'a [LedgerEntry], ask: &str, now: i64) -> Self {
        ReleaseRequest {
            entries: Cow::Borrowed(entries),
            ask: ask.to_string(),
            now,
        }
    }
}

/// The entry that releases `ask`'s latest open use at `now`.
///
/// # Errors
/// `Syntax` for an invalid name (field `name`) or entry; `Ledger` when `ask` has no open use in
/// `entries`.
pub fn release(request: &ReleaseRequest<'_>) -> Result<LedgerEntry> {
    check_entries(&request.entries)?;
    let (entries, now) = (&request.entries[..], request.now);
    let ask = validate_name(&request.ask)?;
    let release = LedgerEntry::Release {
        ask: ask.clone(),
        at: now,
    };
    let mut with_release = entries.to_vec();
    with_release.push(release.clone());
    resolve(&with_release, now).map_err(|_| {
        Error::new(
            ErrorKind::Ledger,
            format!("{ask:?} has no open allocation to release"),
        )
    })?;
    Ok(release)
}

/// A ledger text to merge into a ledger: npm `Ledger.import(text, {now})`, the page's Import.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ImportRequest<'a> {
    pub entries: Cow<'a, [LedgerEntry]>,
    /// JSON Lines (the CLI's file) or the JSON document of a download.
    pub text: String,
    pub now: i64,
}

impl<'a> ImportRequest<'a> {
    pub fn new(entries: &'a [LedgerEntry], text: &str, now: i64) -> Self {
        ImportRequest {
            entries: Cow::Borrowed(entries),
            text: text.to_string(),
            now,
        }
    }
}

/// A ledger merged with an imported one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Imported {
    /// The whole ledger after the import: the existing entries, then the new ones.
    pub entries: Vec<LedgerEntry>,
    /// Entries the import added.
    pub added: usize,
    /// Entries of the import the ledger already held (not added twice).
    pub already_present: usize,
}

/// Merges the ledger in `text` (JSON Lines or the JSON document) into `existing`: an entry the
/// ledger already holds — the same content, which is an entry's identity
/// ([`crate::account::merge_entries`]) — is not added again, so importing one's own backup, or
/// the same file twice, changes nothing. Equal entries count as many times as they occur (two
/// equal records in the file and one in the ledger add one).
///
/// # Errors
/// The reader's errors (with the line); `Syntax` for a file with no entries; `Ledger` when the
/// merged ledger releases a use that is not open. Nothing is merged on any error.
#[cfg(feature = "serde")]
pub fn import(request: &ImportRequest<'_>) -> Result<Imported> {
    check_entries(&request.entries)?;
    let (existing, now) = (&request.entries[..], request.now);
    let incoming = crate::account::parse_ledger_any(&request.text)?;
    if incoming.is_empty() {
        return Err(Error::new(
            ErrorKind::Syntax,
            "the file holds no ledger entries",
        ));
    }
    let (entries, already_present) = crate::account::merge_entries(existing, &incoming);
    resolve(&entries, now)?;
    Ok(Imported {
        added: entries.len() - existing.len(),
        already_present,
        entries,
    })
}

/// The entries as JSON Lines, the format of the CLI's ledger file, each entry's ask checked.
///
/// # Errors
/// `Syntax` for an entry whose ask is no name (field `entries[i].ask`).
#[cfg(feature = "serde")]
pub fn ledger_json_lines(entries: &[LedgerEntry]) -> Result<String> {
    check_entries(entries)?;
    Ok(entries
        .iter()
        .map(|e| crate::account::format_entry(e) + "\n")
        .collect())
}

/// A ledger to add up at `now`, with rates: npm `Ledger.summarize({now, rates})`, `gpu-share
/// accounting`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SummaryRequest<'a> {
    pub entries: Cow<'a, [LedgerEntry]>,
    pub now: i64,
    #[cfg_attr(feature = "serde", serde(default))]
    pub rates: Rates,
}

impl<'a> SummaryRequest<'a> {
    pub fn new(entries: &'a [LedgerEntry], now: i64, rates: Rates) -> Self {
        SummaryRequest {
            entries: Cow::Borrowed(entries),
            now,
            rates,
        }
    }
}

/// The ledger added up: each use with its duration settled, and the totals.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SummaryResponse {
    pub now: i64,
    pub summary: Summary,
    pub records: Vec<Usage>,
}

/// Settles every use at `now` and adds them up by workload and mechanism.
///
/// # Errors
/// `Ledger`, naming the entry, for a release with no open use before it.
pub fn summarise(request: &SummaryRequest<'_>) -> Result<SummaryResponse> {
    check_entries(&request.entries)?;
    let records = resolve(&request.entries, request.now)?;
    Ok(SummaryResponse {
        now: request.now,
        summary: summarize(&records, &request.rates),
        records,
    })
}

#[cfg(test)]
mod tests;
