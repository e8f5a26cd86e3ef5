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
    /// `--record` refused: the ledger already holds a use of these asks in these hours.
    AlreadyRecorded = 5,
    /// `size --engine` ran, but the engine would not start as asked (or not serve the
    /// concurrency asked at any utilisation).
    EngineRefuses = 6,
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
    Input(gpu_share_core::api::Error),
    /// Invalid flags that clap cannot catch (conflicting values, unreadable files).
    Usage(String),
    Ledger(String),
    /// Writing the output failed (a closed pipe, a full disk).
    Output(std::io::Error),
}

impl CliError {
    pub fn code(&self) -> Code {
        match self {
            CliError::Input(e) if e.kind == gpu_share_core::api::ErrorKind::AlreadyRecorded => {
                Code::AlreadyRecorded
            }
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
            CliError::Input(e) => match &e.hint {
                Some(hint) => write!(f, "{e}; {}", hint_words(hint)),
                None => write!(f, "{e}"),
            },
            CliError::Usage(m) | CliError::Ledger(m) => f.write_str(m),
            CliError::Output(e) => write!(f, "cannot write output: {e}"),
        }
    }
}

impl std::error::Error for CliError {}

/// The core's structured hint in the CLI's words: the flag that gives the input.
fn hint_words(hint: &gpu_share_core::api::Hint) -> String {
    let gpu_share_core::api::Hint::Give { input } = hint;
    format!("give {}", giving(*input))
}

/// The flag that gives an input the core asks for in a hint. It lives beside [`CliError`], whose
/// message uses it, rather than with the flag naming in `args::flags` (which builds on
/// `CliError`), so that the two modules do not import each other.
fn giving(input: gpu_share_core::api::Input) -> &'static str {
    use gpu_share_core::api::Input;
    match input {
        Input::GpuModel => "--gpu-model",
        Input::GpuCount => "--gpus",
        Input::MigProfiles => "--mig-profiles",
        Input::Image => "--image",
        Input::RecordAgain => "--record-again",
    }
}

impl From<gpu_share_core::api::Error> for CliError {
    /// A discovery error's message already names its file, so its field keeps only what is
    /// inside the file (`inputs[1].gpu` → `gpu`).
    fn from(mut e: gpu_share_core::api::Error) -> Self {
        if let Some((_, inner)) = gpu_share_core::api::failed_input(&e) {
            e.field = inner.map(str::to_string);
        }
        CliError::Input(e)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Output(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_name_the_flag() {
        let caps = gpu_share_core::api::ClusterGpuCaps {
            supports_mig: true,
            mig_profiles: Some(vec!["3g.40gb".into(), "1g.5gb".into()]),
            ..Default::default()
        };
        let e = caps.resolve(&[]).unwrap_err();
        assert!(e.hint.is_some(), "{e:?}");
        let text = CliError::Input(e).to_string();
        assert!(text.ends_with("; give --gpu-model"), "{text}");
    }
}
