//! Model rows of a CSV ask list: a row whose `model` cell names a config.json is a model to
//! serve (`pack`'s models), not an ask. The core reads no files, so the row keeps the path as
//! written; the front end that was given the list reads it (relative to the list's folder).

use crate::error::{Error, ErrorKind, Result};

use super::AskEntry;

/// An ask list: its asks, and the models its rows name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AskList {
    pub asks: Vec<AskEntry>,
    pub models: Vec<ListedModel>,
}

/// A model row: its name, its config.json's path as written, what it must serve, and its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedModel {
    pub name: String,
    pub config_path: String,
    pub context: Option<u64>,
    pub concurrency: Option<u64>,
    pub line: usize,
}

/// A model row's cells: `[context, concurrency]` as written.
pub(super) fn model_row(
    name: &str,
    config: &str,
    sized: bool,
    [context, concurrency]: [Option<&str>; 2],
    line: usize,
) -> Result<ListedModel> {
    if name.is_empty() {
        return Err(Error::new(ErrorKind::Syntax, "a model row needs a name").in_field("name"));
    }
    if sized {
        return Err(Error::new(
            ErrorKind::Syntax,
            "a row names a model to serve or a size, not both (the model's engine decides its memory)",
        )
        .in_field("model"));
    }
    Ok(ListedModel {
        name: name.to_string(),
        config_path: config.to_string(),
        context: count(context, "context")?,
        concurrency: count(concurrency, "concurrency")?,
        line,
    })
}

/// A whole number from 1 up, or blank.
fn count(cell: Option<&str>, field: &str) -> Result<Option<u64>> {
    cell.map(|c| {
        c.replace(['_', ','], "")
            .parse::<u64>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Syntax,
                    format!("expected a whole number from 1, got {c:?}"),
                )
                .in_field(field)
            })
    })
    .transpose()
}

/// The error of a model row where only asks are taken (its config file cannot be read there).
pub(super) fn not_here(m: &ListedModel) -> Error {
    Error::new(
        ErrorKind::Syntax,
        format!(
            "{} names a model to serve ({}): only a list read beside its config files takes model rows",
            m.name, m.config_path
        ),
    )
    .in_field("model")
    .at_line(m.line)
}
