//! The asks table's rows, shared through context: they change as rows are typed in, added or
//! removed, and say which asks they read as.

use gpu_share_core::api::{AskEntry, FractionalAsk, Scenario};
use leptos::prelude::*;

use super::{AskRow, RowText};

/// The rows of the asks table and what they read as.
#[derive(Clone, Copy)]
pub struct Asks {
    pub rows: RwSignal<Vec<AskRow>>,
    next_id: StoredValue<u64>,
    /// The valid asks, in row order, with each row's duration (rows with errors are left out).
    pub entries: Memo<Vec<AskEntry>>,
    /// The row id of each of `entries`, in the same order.
    pub entry_rows: Memo<Vec<u64>>,
    /// Rows left out of the plan because of an error in them.
    pub invalid_rows: Memo<usize>,
}

impl Asks {
    /// The rows of `scenario`'s asks, each with its duration.
    pub fn new(scenario: &Scenario) -> Asks {
        let rows: Vec<AskRow> = scenario
            .asks
            .iter()
            .enumerate()
            .map(|(i, a)| AskRow::new(i as u64, RowText::from_ask(a, scenario.seconds_of(i))))
            .collect();
        let next_id = StoredValue::new(rows.len() as u64);
        let rows = RwSignal::new(rows);
        let valid = Memo::new(move |_| {
            rows.with(|rows| {
                rows.iter()
                    .filter_map(|r| Some((r.id, r.entry.get()?)))
                    .collect::<Vec<_>>()
            })
        });
        let entries: Memo<Vec<AskEntry>> =
            Memo::new(move |_| valid.with(|v| v.iter().map(|(_, e)| e.clone()).collect()));
        let entry_rows: Memo<Vec<u64>> =
            Memo::new(move |_| valid.with(|v| v.iter().map(|(id, _)| *id).collect()));
        // The rows `valid` leaves out: counted from it, not by reading every row again (each read
        // of a thousand rows' memos is a thousand sources the graph tracks and checks).
        let invalid_rows =
            Memo::new(move |_| rows.with(Vec::len).saturating_sub(valid.with(Vec::len)));
        Asks {
            rows,
            next_id,
            entries,
            entry_rows,
            invalid_rows,
        }
    }

    /// A new row with a fresh id.
    pub fn new_row(&self, t: RowText) -> AskRow {
        let id = self.next_id.get_value();
        self.next_id.set_value(id + 1);
        AskRow::new(id, t)
    }

    /// Replaces all rows (loading a list).
    pub fn replace_rows(&self, texts: Vec<RowText>) {
        let rows: Vec<AskRow> = texts.into_iter().map(|t| self.new_row(t)).collect();
        self.rows.set(rows);
    }

    /// The rows' names as typed (untracked), for picking a name no row has.
    pub fn names(&self) -> Vec<String> {
        self.rows
            .with_untracked(|r| r.iter().map(|r| r.name.get_untracked()).collect())
    }

    /// The valid asks (tracked), for the panels that plan them on GPUs as they are.
    pub fn valid_asks(&self) -> Vec<FractionalAsk> {
        self.entries
            .with(|a| a.iter().map(|e| e.ask.clone()).collect())
    }
}
