//! Text output helpers: colour only on a terminal without `NO_COLOR`, and aligned tables.

use crate::env::{Env, Stream};
use gpu_share_core::api::Mechanism;

/// Whether to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    Colour,
}

impl Style {
    /// The style of stdout, by [`Env::colour`].
    pub fn detect(env: &Env) -> Style {
        if env.colour(Stream::Stdout) {
            Style::Colour
        } else {
            Style::Plain
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        match self {
            Style::Plain => text.to_string(),
            Style::Colour => format!("\x1b[{code}m{text}\x1b[0m"),
        }
    }

    pub fn warning(self, text: &str) -> String {
        self.paint("33", text)
    }

    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn mechanism(self, m: Mechanism) -> String {
        let code = match m {
            Mechanism::Mig => "32",
            Mechanism::Mps => "36",
            Mechanism::Timeslice => "35",
            Mechanism::Whole => "34",
        };
        self.paint(code, m.as_str())
    }
}

/// Renders rows as columns padded to the widest cell (by characters), two spaces apart.
pub fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Replaces control characters so a name can never move the cursor or clear the screen.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns() {
        let t = table(&[
            vec!["a".into(), "long".into(), "x".into()],
            vec!["bbb".into(), "s".into(), "y".into()],
        ]);
        assert_eq!(t, "a    long  x\nbbb  s     y\n");
    }

    #[test]
    fn plain_style_has_no_escapes() {
        assert_eq!(Style::Plain.warning("w"), "w");
        assert!(Style::Colour.warning("w").contains('\x1b'));
    }
}
