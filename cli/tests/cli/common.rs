//! The one way the tests run `gpu-share`: in a clean environment, so nothing of the machine or the
//! shell running the tests (NO_COLOR, HOME, PATH, a GPU_SHARE_* of the user's own) changes what
//! the binary does. Only what the CLI reads is set: `GPU_SHARE_LEDGER`, a temporary file the test
//! chooses; `GPU_SHARE_NOW`, a fixed clock. A test that needs more (`PATH` for a stand-in
//! nvidia-smi, `NO_COLOR`, another clock) adds it to the command.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The fixed clock of every command (`GPU_SHARE_NOW`), so recorded lines and reports are known exactly.
pub const NOW: i64 = 1_000_000;

/// A ledger path for commands that never touch the ledger (`detect`).
pub fn no_ledger() -> &'static Path {
    Path::new("/nonexistent/gpu-share-tests/ledger.jsonl")
}

/// `gpu-share` in a clean environment, recording to `ledger`, for `spawn`ing (no time limit).
pub fn process(ledger: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("gpu-share"));
    cmd.env_clear()
        .env("GPU_SHARE_LEDGER", ledger)
        .env("GPU_SHARE_NOW", NOW.to_string());
    cmd
}

/// `gpu-share` in a clean environment, recording to `ledger`; any run longer than a minute fails.
pub fn gpu_share(ledger: &Path) -> Command {
    let mut cmd = Command::from_std(process(ledger));
    cmd.timeout(Duration::from_secs(60));
    cmd
}

/// [`gpu_share`] run in `dir` (relative file names are in it), recording to `dir/ledger`.
pub fn gpu_share_in(dir: &Path) -> Command {
    let mut cmd = gpu_share(&dir.join("ledger"));
    cmd.current_dir(dir);
    cmd
}

/// The stdout of a successful run.
pub fn stdout(cmd: &mut Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

/// The stdout of a successful run, as JSON.
pub fn json(cmd: &mut Command) -> Value {
    serde_json::from_slice(&cmd.assert().success().get_output().stdout).unwrap()
}
