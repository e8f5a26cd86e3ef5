//! The warnings of many choices, each said once: grouped by text, naming the asks they concern, and
//! told apart as caveats about estimated catalogue data or warnings about the plan itself.

use super::Choice;

/// Marks a warning that a catalogue fact behind the choice is estimated (the planner writes it as
/// `<subject> is uncertain: <why>`), so front ends can show it as provenance, not as a risk.
pub(super) const UNCERTAIN: &str = " uncertain: ";

/// What a warning is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum WarningKind {
    /// Lost capacity, missing isolation, a compute share below the ask.
    Plan,
    /// A catalogue fact behind the choice is estimated, not seen in a real capture.
    EstimatedData,
}

/// One warning text and every ask it applies to, in input order.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WarningGroup {
    pub kind: WarningKind,
    pub text: String,
    pub asks: Vec<String>,
}

/// The choices' warnings, each text once, in order of first appearance.
pub fn warning_groups(choices: &[Choice]) -> Vec<WarningGroup> {
    let mut groups: Vec<WarningGroup> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for c in choices {
        for w in &c.warnings {
            let at = *index.entry(w.as_ref()).or_insert_with(|| {
                groups.push(WarningGroup {
                    kind: if w.contains(UNCERTAIN) {
                        WarningKind::EstimatedData
                    } else {
                        WarningKind::Plan
                    },
                    text: w.to_string(),
                    asks: Vec::new(),
                });
                groups.len() - 1
            });
            if groups[at].asks.last() != Some(&c.name) {
                groups[at].asks.push(c.name.clone());
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::FractionalAsk;
    use crate::caps::ClusterGpuCaps;
    use crate::plan::select_mechanism;

    fn choices(specs: &[&str], caps: &ClusterGpuCaps) -> Vec<Choice> {
        specs
            .iter()
            .map(|s| select_mechanism(&FractionalAsk::parse_spec(s).unwrap(), caps).unwrap())
            .collect()
    }

    #[test]
    fn a_warning_shared_by_several_asks_is_said_once_naming_them() {
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            ..Default::default()
        };
        let groups = warning_groups(&choices(&["a:0.5", "b:0.3", "c:1.5", "d:0.2"], &caps));
        let timeslice: Vec<&WarningGroup> = groups
            .iter()
            .filter(|g| g.text.starts_with("time-slicing sets no memory limit"))
            .collect();
        assert_eq!(timeslice.len(), 1);
        assert_eq!(timeslice[0].asks, ["a", "b", "d"]);
        assert_eq!(timeslice[0].kind, WarningKind::Plan);
        let rounded = groups.iter().find(|g| g.asks == ["c"]).unwrap();
        assert!(rounded.text.contains("wasted"), "{}", rounded.text);
        let total: usize = groups.iter().map(|g| g.asks.len()).sum();
        let all: usize = choices(&["a:0.5", "b:0.3", "c:1.5", "d:0.2"], &caps)
            .iter()
            .map(|c| c.warnings.len())
            .sum();
        assert_eq!(total, all, "every warning of every ask is in a group");
    }

    #[test]
    fn estimated_catalogue_data_is_told_apart() {
        // The A100-80GB's total memory is assumed, not seen in a capture (catalog/models.rs).
        let caps = ClusterGpuCaps {
            supports_mig: true,
            gpu_model: Some("A100-SXM4-80GB".into()),
            ..Default::default()
        };
        let groups = warning_groups(&choices(&["x:3g.40gb", "y:1g.10gb"], &caps));
        let estimated: Vec<&WarningGroup> = groups
            .iter()
            .filter(|g| g.kind == WarningKind::EstimatedData)
            .collect();
        assert!(!estimated.is_empty(), "{groups:?}");
        assert!(estimated.iter().all(|g| g.text.contains(UNCERTAIN)));
        assert!(estimated.iter().any(|g| g.asks == ["x", "y"]), "{groups:?}");
    }
}
