//! Running commands from the workspace root, echoing them first so a CI log reads like a script.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (xtask lives one folder below it). `cargo run` sets `CARGO_MANIFEST_DIR` for
/// the checkout it runs in; the compile-time value is only a fallback, since two checkouts sharing
/// one `target/` (as `.ci/run` does) can run a binary built in the other one.
pub fn root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// A command line to run at the workspace root.
pub struct Cmd {
    program: String,
    args: Vec<String>,
    path: Option<OsString>,
    env: Vec<(String, String)>,
    /// Run where the caller is rather than at the workspace root.
    in_caller_dir: bool,
}

impl Cmd {
    pub fn new(program: &str) -> Cmd {
        Cmd {
            program: program.into(),
            args: Vec::new(),
            path: None,
            env: Vec::new(),
            in_caller_dir: false,
        }
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, args: I) -> Cmd {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_string()));
        self
    }

    /// Runs with this `PATH` (tools installed by set-up first).
    pub fn path(mut self, path: &OsString) -> Cmd {
        self.path = Some(path.clone());
        self
    }

    /// Runs with the variable `key` set to `value`.
    pub fn env(mut self, key: &str, value: &str) -> Cmd {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Runs in the caller's folder, not the workspace root: for a command given paths as the
    /// caller wrote them.
    pub fn in_caller_dir(mut self) -> Cmd {
        self.in_caller_dir = true;
        self
    }

    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args);
        if !self.in_caller_dir {
            c.current_dir(root());
        }
        if let Some(p) = &self.path {
            c.env("PATH", p);
        }
        c.envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }
}

pub fn cargo<I: IntoIterator<Item = S>, S: AsRef<str>>(args: I) -> Cmd {
    Cmd::new(&std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())).args(args)
}

/// Runs a command to completion, failing on a non-zero exit.
pub fn run(cmd: Cmd) -> Result<(), String> {
    eprintln!("$ {} {}", cmd.program, cmd.args.join(" "));
    let status = cmd
        .command()
        .status()
        .map_err(|e| format!("cannot run {}: {e}", cmd.program))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{} {}` failed ({status})",
            cmd.program,
            cmd.args.join(" ")
        ))
    }
}

/// Runs a command and returns its stdout, or `None` if it cannot start or fails.
pub fn output(cmd: Cmd) -> Option<String> {
    let out = cmd.command().output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Raw and `gzip -9` sizes of a file, in bytes, for the size lines the build prints.
pub fn sizes(path: &Path) -> (u64, u64) {
    let raw = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let script = format!("gzip -9 -c '{}' | wc -c", path.display());
    let gzipped = output(Cmd::new("sh").args(["-c", &script]))
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    (raw, gzipped)
}
