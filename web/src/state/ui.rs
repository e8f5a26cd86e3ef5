//! The page's own state, shared through context: what it says beside the scenario and where the
//! focus goes, none of which is in the link or the plan.

use leptos::prelude::*;

/// What the last capture read said of MIG that the plan does not follow by itself (the discovery
/// box sets it; the cluster form and the summary say it beside MIG and the plan).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DetectedMig {
    /// MIG-capable GPUs with MIG disabled: a plan with MIG needs them reset first.
    pub disabled_gpus: usize,
    /// GPU instances that exist already, which a plan from empty GPUs ignores.
    pub instances: usize,
}

/// The page's notices and focus.
#[derive(Clone, Copy)]
pub struct PageUi {
    /// What the link held that could not be read (each dropped, the rest loaded).
    pub link_dropped: RwSignal<Vec<String>>,
    /// The row whose name field takes the focus once drawn (a row just added; after a removal,
    /// its neighbour), or `u64::MAX` for the "Add ask" button.
    pub focus_row: RwSignal<Option<u64>>,
    pub detected_mig: RwSignal<DetectedMig>,
}

impl PageUi {
    /// The page as it opens: saying what the link held that could not be read (`link_dropped`).
    pub fn new(link_dropped: Vec<String>) -> PageUi {
        PageUi {
            link_dropped: RwSignal::new(link_dropped),
            focus_row: RwSignal::new(None),
            detected_mig: RwSignal::new(DetectedMig::default()),
        }
    }
}
