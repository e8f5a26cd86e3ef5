//! Exit codes and the CLI's error type.

use std::fmt;
use std::process::ExitCode;

/// The documented exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// Success.
    Ok = 0,
    /// Bad input: an invalid ask, caps or file contents.
    Input = 1,
    /// Bad command-line usage (unknown flag, missing argument).
    Usage = 2,
    /// `pack` ran, but some asks could not be placed.
    Unplaced = 3,
    /// The ledger could not be read or written, or is corrupt.
    Ledger = 4,
}

impl From<Code> for ExitCode {
    fn from(c: Code) -> ExitCode {
        ExitCode::from(c as u8)
    }
}

/// An error with the exit code it maps to.
#[derive(Debug)]
pub enum CliError {
    /// Invalid input, from the core's validation.
    Input(gpu_share_core::Error),
    /// Invalid flags that clap cannot catch (conflicting values, unreadable files).
    Usage(String),
    Ledger(String),
    /// Writing the output failed (a closed pipe, a full disk).
    Output(std::io::Error),
}

impl CliError {
    pub fn code(&self) -> Code {
        match self {
            CliError::Input(_) => Code::Input,
            CliError::Usage(_) => Code::Usage,
            CliError::Ledger(_) => Code::Ledger,
            CliError::Output(_) => Code::Input,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(e) => write!(f, "{e}"),
            CliError::Usage(m) | CliError::Ledger(m) => f.write_str(m),
            CliError::Output(e) => write!(f, "cannot write output: {e}"),
        }
    }
}

impl std::error::Error for CliError {}

impl From<gpu_share_core::Error> for CliError {
    fn from(e: gpu_share_core::Error) -> Self {
        CliError::Input(e)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Output(e)
    }
}
