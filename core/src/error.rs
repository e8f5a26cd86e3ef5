//! The core's one error type: what went wrong, and where (field, line) in the caller's input.

use std::fmt;

/// What kind of input was wrong. Front ends map these to their own conventions
/// (exit codes in the CLI, `RangeError`/`TypeError` in JavaScript).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ErrorKind {
    /// A value has the right type but is out of range (a fraction ≤ 0, too many GPUs, …).
    OutOfRange,
    /// A value cannot be read at all (not a number, not valid JSON, wrong shape, …).
    Syntax,
    /// A GPU model that the catalogue does not know, where one is needed.
    UnknownModel,
    /// A MIG profile name that the GPU model does not offer.
    UnknownProfile,
    /// Two asks share a name, so results could not say which is which.
    DuplicateName,
    /// The input is larger than the planner accepts.
    TooLarge,
    /// A ledger entry contradicts the rest of the ledger.
    Ledger,
    /// Recording would count uses the ledger already holds for the same asks and hours a second
    /// time (a recording made twice); recording again is the caller's explicit choice.
    AlreadyRecorded,
}

/// An error in the caller's input. `Display` gives one line such as
/// `line 3, field "fraction": must be greater than 0, got "-1"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Error {
    pub kind: ErrorKind,
    /// The field (or ask name) the error is about, when there is one.
    pub field: Option<String>,
    /// The 1-based line of a multi-line input (CSV, JSON lines, ledger), when there is one.
    pub line: Option<usize>,
    pub message: String,
    /// What the user can do about it, in no front end's words: each front end names the input
    /// its own way (`--gpu-model` in the CLI, the "GPU model" field on the page, `gpuModel` in npm).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub hint: Option<Hint>,
}

/// An input a user can give; front ends name it in their own terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Input {
    /// The cluster's GPU model (`ClusterGpuCaps::gpu_model`).
    GpuModel,
    /// The GPU count (`ClusterGpuCaps::gpu_count`).
    GpuCount,
    /// The allowed MIG profiles (`ClusterGpuCaps::mig_profiles`).
    MigProfiles,
    /// The container image of exported workloads (`ExportOptions::image`).
    Image,
    /// The choice to record uses the ledger already holds for these hours once more.
    RecordAgain,
}

impl Input {
    /// The core's name of the input: the field of the request type that holds it.
    pub fn field(self) -> &'static str {
        match self {
            Input::GpuModel => "gpu_model",
            Input::GpuCount => "gpu_count",
            Input::MigProfiles => "mig_profiles",
            Input::Image => "image",
            Input::RecordAgain => "again",
        }
    }
}

/// What would resolve an error.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "do", rename_all = "snake_case"))]
pub enum Hint {
    /// Give this input (e.g. name the GPU model when profile names do not settle it).
    Give { input: Input },
}

/// Shorthand used throughout the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            field: None,
            line: None,
            message: message.into(),
            hint: None,
        }
    }

    /// Says what the user can do about the error.
    #[must_use]
    pub fn with_hint(mut self, hint: Hint) -> Self {
        self.hint = Some(hint);
        self
    }

    /// Names the field the error is about; an inner field becomes a path (`asks[1].fraction`).
    #[must_use]
    pub fn in_field(mut self, field: impl Into<String>) -> Self {
        let outer = field.into();
        self.field = Some(match self.field.take() {
            Some(inner) => format!("{outer}.{inner}"),
            None => outer,
        });
        self
    }

    /// Sets the 1-based line of the input the error is on, unless an inner layer already did.
    #[must_use]
    pub fn at_line(mut self, line: usize) -> Self {
        if self.line.is_none() {
            self.line = Some(line);
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, &self.field) {
            (Some(line), Some(field)) => write!(f, "line {line}, field {field:?}: ")?,
            (Some(line), None) => write!(f, "line {line}: ")?,
            (None, Some(field)) => write!(f, "field {field:?}: ")?,
            (None, None) => {}
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_line_and_field() {
        let e = Error::new(ErrorKind::OutOfRange, "must be greater than 0")
            .in_field("fraction")
            .at_line(3);
        assert_eq!(
            e.to_string(),
            "line 3, field \"fraction\": must be greater than 0"
        );
    }

    #[test]
    fn fields_nest_into_a_path() {
        let e = Error::new(ErrorKind::Syntax, "bad")
            .in_field("fraction")
            .in_field("asks[1]");
        assert_eq!(e.field.as_deref(), Some("asks[1].fraction"));
    }
}
