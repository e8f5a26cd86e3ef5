//! The detect use case: what discovery output (nvidia-smi, kubectl) shows, the caps it implies, and
//! the same summary for every front end. The readers are `crate::discover`'s.

use crate::caps::ClusterGpuCaps;
use crate::discover::{detect_labelled, failed_input, Inventory};
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// One text to read (nvidia-smi or kubectl output) and the label errors and GPUs are named by
/// (a file name, "pasted text"). In JSON: the text alone, or `{"label", "text"}`; a text without
/// a label is named by its place in the request (`inputs[1]`; `inputs` when it is the only one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DetectInput {
    pub label: String,
    pub text: String,
}

/// Discovery output to read: npm `detect(inputs)`, `gpu-share detect --from FILE…`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct DetectRequest {
    /// One text per machine (or cluster); one text alone, or a list.
    #[cfg_attr(feature = "serde", serde(deserialize_with = "texts::one_or_many"))]
    pub inputs: Vec<DetectInput>,
}

/// The request's inputs, each labelled: a text given without a label is named by its place.
pub(crate) fn labelled(inputs: &[DetectInput], field: &str) -> Vec<DetectInput> {
    let sole = inputs.len() == 1;
    (inputs.iter().enumerate())
        .map(|(i, input)| DetectInput {
            label: match (input.label.is_empty(), sole) {
                (false, _) => input.label.clone(),
                (true, true) => field.to_string(),
                (true, false) => format!("{field}[{i}]"),
            },
            text: input.text.clone(),
        })
        .collect()
}

#[cfg(feature = "serde")]
pub(crate) mod texts {
    //! Discovery texts in JSON: a text, `{"label", "text"}`, or a list of them.
    use super::DetectInput;
    use serde::{Deserialize, Deserializer};

    #[derive(Deserialize)]
    #[serde(
        untagged,
        expecting = "a text, {\"label\", \"text\"}, or a list of them"
    )]
    enum Text {
        Plain(String),
        Labelled { label: String, text: String },
    }

    impl From<Text> for DetectInput {
        fn from(t: Text) -> DetectInput {
            match t {
                Text::Plain(text) => DetectInput {
                    label: String::new(),
                    text,
                },
                Text::Labelled { label, text } => DetectInput { label, text },
            }
        }
    }

    #[derive(Deserialize)]
    #[serde(
        untagged,
        expecting = "a text, {\"label\", \"text\"}, or a list of them"
    )]
    enum OneOrMany {
        One(Text),
        Many(Vec<Text>),
    }

    /// A text or a list of texts, each labelled or not.
    pub fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<DetectInput>, D::Error> {
        Ok(match OneOrMany::deserialize(d)? {
            OneOrMany::One(t) => vec![t.into()],
            OneOrMany::Many(list) => list.into_iter().map(DetectInput::from).collect(),
        })
    }
}
/// What `detect` found: the inventory, the caps it implies, and a summary for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetectResponse {
    pub inventory: Inventory,
    pub caps: ClusterGpuCaps,
    /// One line per group of like GPUs, e.g. `8 × H100-80GB-HBM3, MIG capable (disabled)`.
    pub gpu_groups: Vec<String>,
    /// Other facts: nodes, existing MIG devices, listed profiles, what was read.
    pub facts: Vec<String>,
    /// The caps in one line, assumptions marked: `H100-80GB-HBM3 ×1; MIG; no MPS; time-slicing (assumed)`.
    pub summary: String,
}

#[cfg(feature = "serde")]
impl serde::Serialize for DetectResponse {
    /// The inventory's fields, then `caps`: the JSON of `gpu-share detect --json`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct Json<'a> {
            #[serde(flatten)]
            inventory: &'a Inventory,
            caps: &'a ClusterGpuCaps,
        }
        Json {
            inventory: &self.inventory,
            caps: &self.caps,
        }
        .serialize(s)
    }
}

/// Reads the inputs (one machine or cluster each) into an inventory, its caps and a summary.
///
/// # Errors
/// `Syntax` for no input or text no reader recognises; the error names the input by its label.
pub fn detect(request: &DetectRequest) -> Result<DetectResponse> {
    let inventory = read(&labelled(&request.inputs, "inputs"))?;
    let caps = inventory.caps();
    Ok(DetectResponse {
        gpu_groups: gpu_groups(&inventory),
        facts: facts(&inventory),
        summary: caps_summary(&caps, &inventory),
        caps,
        inventory,
    })
}

/// Discovery over labelled inputs; an error names the input it is about by its label in the
/// message (its field keeps the path, `inputs[1].…`).
pub(crate) fn read(inputs: &[DetectInput]) -> Result<Inventory> {
    let named: Vec<(&str, &str)> = inputs
        .iter()
        .map(|i| (i.label.as_str(), i.text.as_str()))
        .collect();
    detect_labelled(&named).map_err(|e| match failed_input(&e) {
        Some((i, _)) => {
            let label = inputs.get(i).map_or("?", |d| d.label.as_str());
            Error {
                message: format!("{} (in {label})", e.message),
                ..e
            }
        }
        None => e,
    })
}

/// The caps in one line: model and count, then each mechanism, marked `(assumed)` where no
/// node label said so.
pub fn caps_summary(caps: &ClusterGpuCaps, inv: &Inventory) -> String {
    let assumed = if inv.nodes.iter().any(|n| n.sharing_strategy.is_some()) {
        ""
    } else {
        " (assumed)"
    };
    let mut parts = vec![match (&caps.gpu_model, caps.gpu_count) {
        (Some(m), Some(n)) => format!("{m} ×{n}"),
        (Some(m), None) => m.clone(),
        (None, Some(n)) => format!("model unknown ×{n}"),
        (None, None) => "model and count unknown".into(),
    }];
    parts.push(match (caps.supports_mig, &caps.mig_profiles) {
        (false, _) if inv.mig_disabled_gpus() > 0 => {
            let assumed = inv
                .gpus
                .iter()
                .any(|g| g.mig_capable && !g.mig_enabled && !g.mig_mode_shown);
            if assumed {
                "MIG off (capable; mode not shown, taken as disabled)".into()
            } else {
                "MIG off (capable, disabled)".into()
            }
        }
        (false, _) => "no MIG".into(),
        (true, None) => "MIG".into(),
        (true, Some(p)) => format!("MIG ({})", p.join(" ")),
    });
    parts.push(if caps.supports_mps {
        format!("MPS{assumed}")
    } else {
        "no MPS".into()
    });
    parts.push(if caps.supports_timeslicing {
        format!("time-slicing{assumed}")
    } else {
        "no time-slicing".into()
    });
    parts.join("; ")
}

/// GPUs grouped by model (or reported name) and MIG capability, in first-seen order.
fn gpu_groups(inv: &Inventory) -> Vec<String> {
    // (model or name, MIG capable, MIG mode assumed) → (GPUs, MIG-enabled GPUs)
    type Group = ((String, bool, bool), (usize, usize));
    let mut groups: Vec<Group> = Vec::new();
    for g in &inv.gpus {
        // A GPU whose MIG mode the input does not show is told apart: its "disabled" is assumed.
        let assumed = g.mig_capable && !g.mig_enabled && !g.mig_mode_shown;
        let key = (
            g.model.clone().unwrap_or_else(|| g.name.clone()),
            g.mig_capable,
            assumed,
        );
        let enabled = usize::from(g.mig_enabled);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, (n, e))) => {
                *n += 1;
                *e += enabled;
            }
            None => groups.push((key, (1, enabled))),
        }
    }
    groups
        .into_iter()
        .map(|((name, capable, assumed), (n, enabled))| {
            let mig = match (capable, enabled) {
                (false, _) => "no MIG".to_string(),
                (true, 0) if assumed => {
                    "MIG capable (mode not shown: taken as disabled)".to_string()
                }
                (true, 0) => "MIG capable (disabled)".to_string(),
                (true, e) if e == n => "MIG enabled".to_string(),
                (true, e) => format!("MIG enabled on {e} of {n}"),
            };
            format!("{n} × {name}, {mig}")
        })
        .collect()
}

/// Nodes, existing MIG devices, listed profiles and what was read.
fn facts(inv: &Inventory) -> Vec<String> {
    let mut facts = Vec::new();
    if !inv.nodes.is_empty() {
        let names: Vec<String> = inv.nodes.iter().map(|n| n.name.clone()).collect();
        facts.push(format!(
            "{} node{}: {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            some_of(&names, 8)
        ));
    }
    let devices: Vec<String> = inv
        .gpus
        .iter()
        .flat_map(|g| g.mig_devices.iter().map(|d| d.profile.clone()))
        .collect();
    if !devices.is_empty() {
        facts.push(format!("existing MIG devices: {}", counted(devices)));
    } else {
        // Kubernetes nodes report MIG devices as counts per profile.
        let mut per_profile: BTreeMap<&str, u64> = BTreeMap::new();
        for n in &inv.nodes {
            for (p, c) in &n.mig_device_counts {
                *per_profile.entry(p.as_str()).or_default() += c;
            }
        }
        if !per_profile.is_empty() {
            let list: Vec<String> = per_profile
                .into_iter()
                .map(|(p, c)| format!("{c} × {p}"))
                .collect();
            facts.push(format!("existing MIG devices: {}", list.join(", ")));
        }
    }
    if !inv.mig_profiles.is_empty() {
        facts.push(format!(
            "MIG profiles listed: {}",
            some_of(&inv.mig_profiles, 20)
        ));
    }
    if !inv.sources.is_empty() {
        let read: Vec<&str> = inv.sources.iter().map(|s| s.command()).collect();
        facts.push(format!("read from: {}", read.join(", ")));
    }
    facts
}

/// `1 × a` / `2 × a, 1 × b` from counts, in first-seen order.
fn counted(items: impl IntoIterator<Item = String>) -> String {
    let mut order: Vec<(String, usize)> = Vec::new();
    for item in items {
        match order.iter_mut().find(|(k, _)| *k == item) {
            Some((_, n)) => *n += 1,
            None => order.push((item, 1)),
        }
    }
    order
        .into_iter()
        .map(|(k, n)| format!("{n} × {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// At most `max` names, then how many more.
fn some_of(names: &[String], max: usize) -> String {
    if names.len() <= max {
        names.join(", ")
    } else {
        format!("{} and {} more", names[..max].join(", "), names.len() - max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Cluster, Detected};

    fn input(text: &str) -> Vec<DetectInput> {
        vec![DetectInput {
            label: "smi.txt".into(),
            text: text.into(),
        }]
    }

    fn request(text: &str) -> DetectRequest {
        DetectRequest {
            inputs: input(text),
        }
    }

    #[test]
    fn errors_name_the_input() {
        let e = detect(&request("not nvidia-smi output")).unwrap_err();
        assert!(e.message.ends_with("(in smi.txt)"), "{e}");
    }

    #[test]
    fn detected_caps_say_where_they_came_from() {
        let text = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1)\nGPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-2)\n";
        let d = detect(&request(text)).unwrap();
        // `nvidia-smi -L` lists an enabled GPU without instances as it lists a disabled one
        // (gpu-share#55 item 6): "disabled" is an assumption, and said to be one.
        assert_eq!(
            d.gpu_groups,
            ["2 × A100-SXM4-40GB, MIG capable (mode not shown: taken as disabled)"]
        );
        assert_eq!(
            d.summary,
            "A100-SXM4-40GB ×2; MIG off (capable; mode not shown, taken as disabled); MPS (assumed); time-slicing (assumed)"
        );
        // MIG capable but disabled: left out, so nothing moves onto MIG unasked; the note says why.
        assert!(!d.caps.supports_mig);
        assert_eq!(d.inventory.mig_disabled_gpus(), 2);
        assert!(
            d.inventory.notes.iter().any(|n| n.starts_with(
                "MIG is supported, and its mode not shown (so taken as disabled), on"
            ) && n.contains("GPU reset")),
            "{:?}",
            d.inventory.notes
        );
        let cluster = Cluster::Detected {
            detected: Detected {
                inputs: input(text),
                turn_on_mig: false,
            },
        };
        let (caps, from) = cluster.caps_with(Some(5)).unwrap();
        assert_eq!(caps.gpu_count, Some(5));
        let from = from.unwrap();
        assert_eq!(from.files, ["smi.txt"]);
        assert!(from.summary.contains("×5"), "{}", from.summary);
        // Turned on as asked: MIG planned, and the note says the GPUs need it enabled first.
        let on = Cluster::Detected {
            detected: Detected {
                inputs: input(text),
                turn_on_mig: true,
            },
        };
        let (caps, from) = on.caps().unwrap();
        assert!(caps.supports_mig);
        let from = from.unwrap();
        assert!(
            from.notes
                .iter()
                .any(|n| n.starts_with("MIG turned on as asked: it is disabled on 2 GPUs")),
            "{:?}",
            from.notes
        );
        assert!(from.summary.contains("; MIG;"), "{}", from.summary);
        // A board without MIG cannot have it turned on.
        let t4 = Cluster::Detected {
            detected: Detected {
                inputs: input("GPU 0: Tesla T4 (UUID: GPU-9)\n"),
                turn_on_mig: true,
            },
        };
        assert_eq!(
            t4.caps().unwrap_err().field.as_deref(),
            Some("supports_mig")
        );
    }
}
