//! Input size limits end to end: a file or stdin above 64 MiB is an input error (exit 1) naming it,
//! refused before (or while) reading, never read whole — even an endless stream.

use crate::common::{gpu_share_in, process};
use predicates::str::contains;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const OVER: u64 = 100 * 1000 * 1000;

/// A 100 MB file that takes no disk space (sparse): refused by its size alone.
fn huge_file(dir: &Path, name: &str) -> String {
    let file = std::fs::File::create(dir.join(name)).unwrap();
    file.set_len(OVER).unwrap();
    name.to_string()
}

#[test]
fn every_file_option_refuses_a_100_mb_file_by_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let big = huge_file(dir.path(), "big.txt");
    let runs: [&[&str]; 6] = [
        &["pack", "--asks-file", &big, "--timeslice"],
        &["export", "k8s", "--asks-file", &big, "--timeslice"],
        &["detect", "--from", &big],
        &["plan", "a", "--fraction", "0.5", "--caps-from", &big],
        &["pack", "--ask", "a:0.5", "--caps-from", &big],
        &["validate-mig", "--gpu-model", "a100", "--file", &big],
    ];
    for args in runs {
        let started = Instant::now();
        gpu_share_in(dir.path())
            .args(args)
            .assert()
            .code(1)
            .stderr(contains(
                "gpu-share: error: big.txt is larger than 64 MiB (67108864 bytes)",
            ));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{args:?} took {:?}",
            started.elapsed()
        );
    }
}

/// Exactly at the limit is read (and here refused for what it says, not for its size).
#[test]
fn a_file_of_exactly_64_mib_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("a,0.5\n");
    text.push_str(&"#".repeat(64 * 1024 * 1024 - text.len()));
    std::fs::write(dir.path().join("edge.csv"), text).unwrap();
    gpu_share_in(dir.path())
        .args(["pack", "--asks-file", "edge.csv", "--timeslice"])
        .assert()
        .success()
        .stdout(contains("a"));
}

/// An endless stream on stdin (or from a device): gpu-share stops reading at the limit.
#[test]
fn an_endless_stdin_is_cut_at_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = process(&dir.path().join("ledger"))
        .args(["pack", "--asks-file", "-", "--timeslice"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Writes until gpu-share closes the pipe (at most a few seconds past 64 MiB), else 1 GB.
    let writer = std::thread::spawn(move || {
        let chunk = "a,0.5\n".repeat(10_000);
        let mut written = 0usize;
        while written < 1_000_000_000 && stdin.write_all(chunk.as_bytes()).is_ok() {
            written += chunk.len();
        }
        written
    });
    let output = child.wait_with_output().unwrap();
    let written = writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("stdin is larger than 64 MiB"), "{stderr}");
    assert!(written < 200_000_000, "read {written} bytes of stdin");
    assert!(started.elapsed() < Duration::from_secs(30));

    gpu_share_in(dir.path())
        .args(["detect", "--from", "/dev/zero"])
        .assert()
        .code(1)
        .stderr(contains("/dev/zero is larger than 64 MiB"));
}

/// A YAML "billion laughs" (aliases that expand exponentially) is refused by the YAML reader.
#[test]
fn a_yaml_alias_bomb_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut yaml = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (i, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
        let prev = ["a", "b", "c", "d", "e", "f", "g", "h"][i];
        let refs = vec![format!("*{prev}"); 9].join(",");
        yaml.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    std::fs::write(dir.path().join("bomb.yaml"), yaml).unwrap();
    let started = Instant::now();
    gpu_share_in(dir.path())
        .args(["validate-mig", "--gpu-model", "a100", "--file", "bomb.yaml"])
        .assert()
        .code(1);
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// The ledger may outgrow an import (64 MiB) but not 1 GiB: a bigger file is a ledger error (exit 4),
/// refused by its size without being read, and left as it is.
#[test]
fn a_ledger_over_1_gib_is_refused_by_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    std::fs::File::create(&ledger)
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    let started = Instant::now();
    gpu_share_in(dir.path())
        .arg("accounting")
        .assert()
        .code(4)
        .stderr(contains("ledger too large"));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(std::fs::metadata(&ledger).unwrap().len(), (1 << 30) + 1);
}
