//! The scenario as the link carries it, shared through context: it follows the rows and the
//! cluster form, and says whether the page still shows the example it opens with.

use gpu_share_core::api::Scenario;
use leptos::prelude::*;

use super::{Asks, ClusterForm};

/// The scenario the page edits, as a whole.
#[derive(Clone, Copy)]
pub struct Link {
    /// The scenario as the link carries it.
    pub scenario: Memo<Scenario>,
    /// Whether the page still shows the example it opens with.
    pub is_example: Memo<bool>,
}

impl Link {
    /// The scenario of `asks` on the cluster `form` describes, compared with `example`.
    pub fn new(asks: Asks, form: ClusterForm, example: Scenario) -> Link {
        let entries = asks.entries;
        let scenario = Memo::new(move |_| Scenario {
            asks: entries.with(|a| a.iter().map(|e| e.ask.clone()).collect()),
            caps: form.caps.get(),
            optimize: form.optimize.get(),
            // None for all is no durations at all (the link then has no `hours=`).
            seconds: entries.with(|a| {
                let seconds: Vec<Option<u64>> = a.iter().map(|e| e.seconds).collect();
                if seconds.iter().any(Option::is_some) {
                    seconds
                } else {
                    Vec::new()
                }
            }),
        });
        // A keystroke in a large scenario should not build its whole scenario (a copy of every
        // ask) to learn that it is not the three-ask example: the count says so first, and the
        // scenario is then made only when the link is written.
        let example_asks = example.asks.len();
        let is_example = Memo::new(move |_| {
            entries.with(Vec::len) == example_asks && scenario.with(|s| *s == example)
        });
        Link {
            scenario,
            is_example,
        }
    }
}
