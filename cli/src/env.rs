//! What the CLI reads from its surroundings, gathered once so commands and tests stay pure of globals.

use std::path::PathBuf;

/// The process environment the commands depend on.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// `$GPU_SHARE_LEDGER`, else the platform data directory's `gpu-share/ledger.jsonl`.
    pub ledger_path: Option<PathBuf>,
    /// Whether stdout is a terminal (colour is used only then).
    pub stdout_is_terminal: bool,
    /// Whether stderr is a terminal (clap's argument errors are coloured only then).
    pub stderr_is_terminal: bool,
    /// `$NO_COLOR` is set and non-empty.
    pub no_color: bool,
    /// The current time in Unix seconds; `$GPU_SHARE_NOW` overrides the clock for reproducible reports.
    pub now: i64,
}

impl Env {
    pub fn from_process() -> Env {
        use std::io::IsTerminal;
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        let ledger_path = var("GPU_SHARE_LEDGER")
            .map(PathBuf::from)
            .or_else(|| dirs::data_dir().map(|d| d.join("gpu-share").join("ledger.jsonl")));
        let clock = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let now = var("GPU_SHARE_NOW")
            .and_then(|v| v.to_str().and_then(|s| s.trim().parse().ok()))
            .unwrap_or(clock);
        Env {
            ledger_path,
            stdout_is_terminal: std::io::stdout().is_terminal(),
            stderr_is_terminal: std::io::stderr().is_terminal(),
            no_color: var("NO_COLOR").is_some(),
            now,
        }
    }

    /// The one colour rule, for every message the CLI writes (its own output and clap's help and
    /// argument errors alike): colour only on a terminal, and never when `NO_COLOR` is set.
    pub fn colour(&self, stream: Stream) -> bool {
        let terminal = match stream {
            Stream::Stdout => self.stdout_is_terminal,
            Stream::Stderr => self.stderr_is_terminal,
        };
        terminal && !self.no_color
    }
}

/// The stream a message goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}
