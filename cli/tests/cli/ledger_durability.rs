//! The ledger file under stress, through the real binary: hundreds of processes recording at once,
//! processes SIGKILLed while they append, torn writes and corrupt lines. Every check reads the file
//! with the core's own reader (`parse_ledger`), the one `gpu-share accounting` uses.

use crate::common::{gpu_share, process, NOW};
use gpu_share_core::api::{
    self, format_entry, parse_ledger, ClusterGpuCaps, FractionalAsk, LedgerEntry, PlanRequest,
    Share, UsageRecord,
};
use predicates::str::contains;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// `gpu-share plan NAME --fraction F --timeslice --record --hours 1`, started and not waited for.
fn spawn_record(ledger: &Path, name: &str, fraction: &str) -> Child {
    process(ledger)
        .args([
            "plan",
            name,
            "--fraction",
            fraction,
            "--timeslice",
            "--record",
            "--hours",
            "1",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn record(ledger: &Path, name: &str, fraction: &str) {
    gpu_share(ledger)
        .args([
            "plan",
            name,
            "--fraction",
            fraction,
            "--timeslice",
            "--record",
            "--hours",
            "1",
        ])
        .assert()
        .success();
}

/// The exact line `record(_, name, fraction)` appends (without its newline), built by the core.
fn expected_line(name: &str, fraction: &str) -> String {
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let ask = FractionalAsk::fraction(name, Share::parse(fraction).unwrap()).unwrap();
    let request = PlanRequest {
        ask,
        cluster: caps.into(),
    };
    let choice = api::plan(&request).unwrap().choice;
    format_entry(&LedgerEntry::Usage(UsageRecord::from_choice(
        &choice,
        NOW - 3600,
        Some(3600),
    )))
}

fn ask_of(entry: &LedgerEntry) -> &str {
    match entry {
        LedgerEntry::Usage(u) => &u.ask,
        LedgerEntry::Release { ask, .. } => ask,
    }
}

/// How many times each ask appears in the ledger (which must read whole).
fn counts(entries: &[LedgerEntry]) -> BTreeMap<String, usize> {
    let mut seen = BTreeMap::new();
    for e in entries {
        *seen.entry(ask_of(e).to_string()).or_insert(0) += 1;
    }
    seen
}

/// A 128-character name (the longest allowed) of 4-byte characters: the longest line a record
/// can write, about 600 bytes in one write(2).
fn long_name(i: usize) -> String {
    let head = format!("victim-{i:03}-");
    let tail: String = std::iter::repeat_n('𝔾', 128 - head.chars().count()).collect();
    head + &tail
}

/// A deterministic sequence (xorshift64*) for the kill delays: the same delays on every run.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[test]
fn three_hundred_concurrent_records_are_all_kept_exactly_once() {
    const N: usize = 300;
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("ledger.jsonl");
    // Tenths from 0.1 to 0.9: every record's fraction is checked too, not only its name.
    let fraction = |i: usize| format!("0.{}", i % 9 + 1);
    let started = Instant::now();
    let children: Vec<Child> = (0..N)
        .map(|i| spawn_record(&l, &format!("job{i:03}"), &fraction(i)))
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "job{i:03}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    eprintln!(
        "{N} concurrent `plan --record` processes took {:?}",
        started.elapsed()
    );

    let text = std::fs::read_to_string(&l).unwrap();
    let entries = parse_ledger(&text).unwrap();
    assert_eq!(text.lines().count(), N, "one line per record, nothing else");
    assert_eq!(entries.len(), N);
    let seen = counts(&entries);
    let expected: BTreeMap<String, usize> = (0..N).map(|i| (format!("job{i:03}"), 1)).collect();
    assert_eq!(seen, expected, "every record present exactly once");
    for e in &entries {
        let LedgerEntry::Usage(u) = e else {
            panic!("only usages were recorded")
        };
        let i: usize = u.ask[3..].parse().unwrap();
        assert_eq!(u.requested_fraction, Share::parse(&fraction(i)).unwrap());
        assert_eq!(u.seconds, Some(3600));
    }

    let out = gpu_share(&l)
        .args(["accounting", "--json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let totals = &v["summary"]["totals"];
    assert_eq!(totals["records"], N);
    assert_eq!(totals["running"], 0);
    // Σ (i % 9 + 1) / 10 GPU for one hour each.
    let tenths: usize = (0..N).map(|i| i % 9 + 1).sum();
    let requested = totals["requested_gpu_hours"].as_f64().unwrap();
    assert!(
        (requested - tenths as f64 / 10.0).abs() < 1e-9,
        "{requested}"
    );
    assert_eq!(v["records"].as_array().unwrap().len(), N);
}

#[cfg(unix)]
#[test]
fn processes_killed_while_appending_never_lose_or_merge_a_record() {
    use std::os::unix::process::ExitStatusExt;
    const ROUNDS: usize = 300;
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("ledger.jsonl");
    let mut delays = Seeded(0x5eed_1ed6_e700_0005);
    // name → its exact line; whether the process exited 0; whether it was held at the lock.
    let mut victims: Vec<(String, String, bool, bool)> = Vec::new();
    let mut normals: Vec<String> = Vec::new();
    let started = Instant::now();
    for i in 0..ROUNDS {
        let name = long_name(i);
        let line = expected_line(&name, "0.5");
        // Every tenth round the test holds the lock itself, so the victim dies waiting for it.
        let held = (i % 10 == 0).then(|| {
            let f = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&l)
                .unwrap();
            f.lock().unwrap();
            f
        });
        let mut victim = spawn_record(&l, &name, "0.5");
        let normal_name = format!("normal-{i:03}");
        let normal = spawn_record(&l, &normal_name, "0.25");
        // 0 to 3 ms: a recording process lives about 2 ms, so kills land before, during and after
        // its append.
        std::thread::sleep(Duration::from_micros(delays.next() % 3000));
        victim.kill().unwrap();
        let status = victim.wait().unwrap();
        drop(held);
        let out = normal.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{normal_name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        normals.push(normal_name);
        assert!(status.success() || status.signal() == Some(9), "{status:?}");
        if i % 10 == 0 {
            assert!(!status.success(), "no record without the lock");
        }
        victims.push((name, line, status.success(), i % 10 == 0));
    }
    let elapsed = started.elapsed();

    // Every line is a whole record some process wrote, or a strict prefix of a victim's (torn) —
    // in bytes: a write torn inside a multi-byte character leaves a line that is not UTF-8.
    let bytes = std::fs::read(&l).unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let whole: BTreeMap<&str, &str> = victims
        .iter()
        .map(|(n, line, ..)| (line.as_str(), n.as_str()))
        .collect();
    let normal_lines: BTreeMap<String, &str> = normals
        .iter()
        .map(|n| (expected_line(n, "0.25"), n.as_str()))
        .collect();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut torn = Vec::new();
    let lines = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    for (n, raw) in lines
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|_| !bytes.is_empty())
    {
        let line = std::str::from_utf8(raw).unwrap_or("");
        if let Some(name) = whole
            .get(line)
            .copied()
            .or_else(|| normal_lines.get(line).copied())
        {
            *seen.entry(name).or_insert(0) += 1;
            assert_eq!(parse_ledger(line).unwrap().len(), 1);
        } else {
            assert!(
                whole.keys().any(|w| w.as_bytes().starts_with(raw)),
                "line {}: neither a record nor a torn one: {}",
                n + 1,
                String::from_utf8_lossy(raw)
            );
            torn.push(n + 1);
        }
    }
    assert!(text.is_empty() || text.ends_with('\n') || !torn.is_empty());
    for n in &normals {
        assert_eq!(seen.get(n.as_str()), Some(&1), "{n}");
    }
    let (mut finished, mut killed_after_write, mut killed_before) = (0, 0, 0);
    for (name, _, success, held) in &victims {
        let times = seen.get(name.as_str()).copied().unwrap_or(0);
        assert!(times <= 1, "{name} recorded {times} times");
        if *success {
            assert_eq!(times, 1, "{name} exited 0 without its record");
            finished += 1;
        } else if times == 1 {
            assert!(!held);
            killed_after_write += 1;
        } else {
            killed_before += 1;
        }
    }
    eprintln!(
        "{ROUNDS} rounds in {elapsed:?}: victims finished {finished}, killed after their write \
         {killed_after_write}, killed before it {killed_before}; torn lines {}",
        torn.len()
    );
    assert!(killed_before >= ROUNDS / 10, "the kills were real");

    // The reader agrees: the whole ledger reads, or it names the first torn line.
    match torn.first() {
        None => assert_eq!(
            parse_ledger(&text).unwrap().len(),
            normals.len() + finished + killed_after_write
        ),
        Some(line) => assert_eq!(parse_ledger(&text).unwrap_err().line, Some(*line)),
    }
    // Appending afterwards works and starts on a line of its own.
    let before = std::fs::read(&l).unwrap();
    record(&l, "after-the-kills", "0.5");
    let after = std::fs::read(&l).unwrap();
    assert!(after.starts_with(&before));
    let tail = String::from_utf8(after[before.len()..].to_vec()).unwrap();
    assert_eq!(
        tail.trim_start_matches('\n'),
        format!("{}\n", expected_line("after-the-kills", "0.5"))
    );
    if torn.is_empty() {
        let out = gpu_share(&l)
            .args(["accounting", "--json"])
            .assert()
            .success();
        let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(
            v["summary"]["totals"]["records"],
            normals.len() + finished + killed_after_write + 1
        );
    } else {
        gpu_share(&l)
            .args(["accounting"])
            .assert()
            .code(4)
            .stderr(contains(format!("line {}", torn[0])));
    }
}

/// A write cut short (a crash, a full disk) leaves a last line without its newline. Kills alone do
/// not tear a line here (one write(2) of a record is under a page), so the torn tail is made by
/// hand from a real record: cut in ASCII, and cut inside a 4-byte character.
#[test]
fn a_torn_write_stays_on_its_own_line_and_is_reported_by_line() {
    let name = long_name(7);
    let full = expected_line(&name, "0.5");
    let inside_a_char = full.find('𝔾').unwrap() + 2;
    for cut in [full.len() / 2, inside_a_char, 1] {
        let dir = tempfile::tempdir().unwrap();
        let l = dir.path().join("ledger.jsonl");
        record(&l, "first", "0.5");
        record(&l, "second", "0.25");
        let mut bytes = std::fs::read(&l).unwrap();
        bytes.extend_from_slice(&full.as_bytes()[..cut]);
        std::fs::write(&l, &bytes).unwrap();
        for later in ["third", "fourth"] {
            record(&l, later, "0.5");
        }
        let after = std::fs::read(&l).unwrap();
        assert!(
            after.starts_with(&bytes),
            "cut {cut}: nothing before changes"
        );
        let mut want = bytes.clone();
        want.push(b'\n');
        for later in ["third", "fourth"] {
            want.extend_from_slice(expected_line(later, "0.5").as_bytes());
            want.push(b'\n');
        }
        assert_eq!(
            after, want,
            "cut {cut}: the torn line keeps a line of its own"
        );

        // Reported with its line number (3), whether the cut left valid UTF-8 or not.
        let err = gpu_share(&l)
            .args(["accounting"])
            .assert()
            .code(4)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(err).unwrap();
        assert!(
            err.contains("corrupt ledger") && err.contains("line 3"),
            "cut {cut}: {err}"
        );
        // A release must read the ledger first: it refuses, naming the line, and writes nothing.
        gpu_share(&l)
            .args(["release", "third"])
            .assert()
            .code(4)
            .stderr(contains("line 3"));
        assert_eq!(std::fs::read(&l).unwrap(), want);
        // The records after the torn line are all there, whole.
        let tail = String::from_utf8_lossy(&want);
        let later: Vec<&str> = tail.lines().skip(3).collect();
        let entries = parse_ledger(&later.join("\n")).unwrap();
        assert_eq!(
            entries.iter().map(ask_of).collect::<Vec<_>>(),
            ["third", "fourth"]
        );
    }
}

/// A corrupt line in the middle is reported with its line number and the file is never rewritten.
/// `plan --record` still appends (appending never reads or rewrites what is there: the use is kept
/// and the corrupt line stays reported); `release`, which must read the ledger, refuses.
#[test]
fn a_corrupt_line_is_reported_by_line_and_the_file_is_never_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let l = dir.path().join("ledger.jsonl");
    record(&l, "first", "0.5");
    let mut bytes = std::fs::read(&l).unwrap();
    bytes.extend_from_slice(b"{\"v\":1,\"kind\":\"usage\",\"ask\":\"broken\",oops}\n");
    bytes.extend_from_slice(format!("{}\n", expected_line("third", "0.5")).as_bytes());
    std::fs::write(&l, &bytes).unwrap();

    for args in [
        &["accounting"][..],
        &["accounting", "--json"],
        &["accounting", "--csv"],
        &["accounting", "--ledger-csv"],
        &["release", "first"],
    ] {
        let out = gpu_share(&l).args(args).assert().code(4);
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(
            err.contains("corrupt ledger") && err.contains("line 2"),
            "{args:?}: {err}"
        );
        assert!(out.get_output().stdout.is_empty(), "{args:?}");
        let now = std::fs::read(&l).unwrap();
        assert_eq!(now.len(), bytes.len(), "{args:?}");
        assert_eq!(now, bytes, "{args:?}: the ledger is never rewritten");
    }

    record(&l, "fourth", "0.25");
    let after = std::fs::read(&l).unwrap();
    assert_eq!(
        &after[..bytes.len()],
        &bytes[..],
        "appending leaves every byte"
    );
    assert_eq!(
        String::from_utf8(after[bytes.len()..].to_vec()).unwrap(),
        format!("{}\n", expected_line("fourth", "0.25"))
    );
    gpu_share(&l)
        .args(["accounting"])
        .assert()
        .code(4)
        .stderr(contains("line 2"));
    assert_eq!(std::fs::read(&l).unwrap(), after);
}
