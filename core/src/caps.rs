//! `ClusterGpuCaps`: what the cluster can do, and its resolution against the catalogue.

use crate::catalog::{self, GpuModel, MigProfile, DEFAULT_MIG_MODEL};
use crate::error::{Error, ErrorKind, Hint, Input, Result};
pub(crate) mod nodes;

use nodes::{check_names, NodeSpec, MAX_NODES};

/// The CUDA context each process holds, in MiB, unless the cluster says otherwise
/// (docs/hardware-facts.md §10: "each CUDA context is about 500 MB", pytorch/serve#2128).
pub const DEFAULT_CONTEXT_MIB: u64 = 500;

/// The most GPUs a cluster description may hold.
pub const MAX_GPU_COUNT: u64 = 1_000_000;

/// What the cluster supports, as the seed names it. All flags off means whole GPUs only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct ClusterGpuCaps {
    /// MIG-capable GPUs that may be partitioned.
    pub supports_mig: bool,
    /// The MIG profiles the cluster allows; `None` allows every profile of the model.
    pub mig_profiles: Option<Vec<String>>,
    /// The MPS control daemon is available (partial isolation).
    pub supports_mps: bool,
    /// Time-slicing is configured (soft sharing).
    pub supports_timeslicing: bool,
    /// The GPU model, by canonical, nvidia-smi or short name.
    pub gpu_model: Option<String>,
    /// How many GPUs there are; `None` means as many as needed (or, with `nodes`, the nodes' GPUs).
    pub gpu_count: Option<u64>,
    /// The nodes and their GPUs, when the plan must respect them: one sharing configuration per
    /// node, a multi-GPU ask on one node (`pack/nodes.rs`). `None`: GPUs without nodes.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub nodes: Option<Vec<NodeSpec>>,
    /// The CUDA context each process holds besides the memory it asks for, in MiB; `None`:
    /// [`DEFAULT_CONTEXT_MIB`] (docs/hardware-facts.md §10). Only asks with memory use it.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub context_overhead_mib: Option<u64>,
    /// The NVIDIA driver the GPUs run (`590.48.01`): where real listings of a MIG instance's
    /// memory differ between drivers, the plan uses this driver's listing when one is known, and
    /// otherwise the smallest (docs/hardware-facts.md §1.6). `None`: the smallest.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub driver: Option<String>,
}

/// The most CUDA context overhead a cluster may name, in MiB (64 GiB: beyond any GPU's memory).
pub const MAX_CONTEXT_MIB: u64 = 65_536;

/// Caps checked against the catalogue, with the model settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedCaps {
    /// The model, when known (given, inferred from profile names, or assumed for MIG).
    pub model: Option<&'static GpuModel>,
    /// A model name that the catalogue does not know (only allowed without MIG).
    pub unknown_model: Option<String>,
    /// Says how the model was settled when it was not simply given.
    pub model_note: Option<String>,
    pub mig: bool,
    /// Profiles the planner may choose for fractional asks (all plain ones unless limited).
    pub allowed_profiles: Vec<&'static MigProfile>,
    /// Whether the cluster limited the profiles (named asks must then be among them).
    pub profiles_limited: bool,
    pub mps: bool,
    pub timeslicing: bool,
    /// The GPU limit: given, or the nodes' GPUs.
    pub gpu_count: Option<u64>,
    pub nodes: Option<Vec<NodeSpec>>,
    /// The CUDA context each process with memory holds, in MiB.
    pub context_mib: u64,
    /// The driver the GPUs run, checked (digits and dots), when named.
    pub driver: Option<String>,
}

impl ClusterGpuCaps {
    /// The same caps with a GPU count (`None`: as many as needed).
    #[must_use]
    pub fn with_gpu_count(self, gpu_count: Option<u64>) -> Self {
        ClusterGpuCaps { gpu_count, ..self }
    }

    /// The same caps with `gpu_count` in place of their own when one is given.
    #[must_use]
    pub fn counted(self, gpu_count: Option<u64>) -> Self {
        ClusterGpuCaps {
            gpu_count: gpu_count.or(self.gpu_count),
            ..self
        }
    }

    /// Settles the GPU model and the allowed profiles. `asked_profiles` are profile names from
    /// the asks; they help infer a model when none is given.
    ///
    /// # Errors
    /// `UnknownModel` for an unknown model where MIG needs one; `UnknownProfile` for profile names
    /// the model does not offer; `OutOfRange` for a GPU count of 0 or above [`MAX_GPU_COUNT`];
    /// `OutOfRange` for MIG on a model without it, or for an empty list of allowed profiles.
    pub fn resolve(&self, asked_profiles: &[&str]) -> Result<ResolvedCaps> {
        let gpu_count = self.checked_gpu_count()?;
        let context_mib = self.checked_context_mib()?;
        let driver = self.checked_driver()?;
        let limited = self.limited_profiles()?;
        let (model, unknown_model, model_note) = self.settle_model(asked_profiles, &limited)?;
        if self.supports_mig {
            if let Some(m) = model.filter(|m| !m.is_mig_capable()) {
                return Err(Error::new(
                    ErrorKind::OutOfRange,
                    format!("{} does not support MIG", m.name),
                )
                .in_field("supports_mig"));
            }
        }
        let allowed_profiles = allowed_profiles(model, &limited, asked_profiles)?;
        Ok(ResolvedCaps {
            model,
            unknown_model,
            model_note,
            mig: self.supports_mig,
            allowed_profiles,
            profiles_limited: !limited.is_empty(),
            mps: self.supports_mps,
            timeslicing: self.supports_timeslicing,
            gpu_count,
            nodes: self.nodes.clone(),
            context_mib,
            driver,
        })
    }

    /// The driver version, trimmed, when named: one to four dot-separated numbers, as
    /// `nvidia-smi` prints it (`590.48.01`).
    fn checked_driver(&self) -> Result<Option<String>> {
        let Some(text) = self.driver.as_deref().map(str::trim) else {
            return Ok(None);
        };
        let parts: Vec<&str> = text.split('.').collect();
        let numeric =
            |p: &&str| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit());
        if parts.len() > 4 || !parts.iter().all(numeric) {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!("{text:?} is not a driver version: numbers and dots, as nvidia-smi prints it (590.48.01)"),
            )
            .in_field("driver"));
        }
        Ok(Some(text.to_string()))
    }

    /// The GPU count (given or the nodes'), between 1 and [`MAX_GPU_COUNT`] when there is one.
    fn checked_gpu_count(&self) -> Result<Option<u64>> {
        let gpu_count = self.node_gpu_count()?;
        if let Some(n) = gpu_count {
            if n == 0 || n > MAX_GPU_COUNT {
                return Err(Error::new(
                    ErrorKind::OutOfRange,
                    format!("must be between 1 and {MAX_GPU_COUNT}, got {n}"),
                )
                .in_field("gpu_count"));
            }
        }
        Ok(gpu_count)
    }

    /// The CUDA context per process in MiB: given or the default, at most [`MAX_CONTEXT_MIB`].
    fn checked_context_mib(&self) -> Result<u64> {
        let context_mib = self.context_overhead_mib.unwrap_or(DEFAULT_CONTEXT_MIB);
        if context_mib > MAX_CONTEXT_MIB {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("must be at most {MAX_CONTEXT_MIB} MiB, got {context_mib}"),
            )
            .in_field("context_overhead_mib"));
        }
        Ok(context_mib)
    }

    /// The profile names the cluster limits MIG to, trimmed; empty when it does not limit them.
    fn limited_profiles(&self) -> Result<Vec<&str>> {
        if self.mig_profiles.as_ref().is_some_and(Vec::is_empty) {
            // An empty allow-list would otherwise read as "no limit": say so rather than allow all.
            return Err(Error::new(
                ErrorKind::OutOfRange,
                "no MIG profile is allowed: allow at least one, or lift the limit",
            )
            .in_field("mig_profiles"));
        }
        Ok(self
            .mig_profiles
            .iter()
            .flatten()
            .map(|p| p.trim())
            .collect())
    }

    /// The model (given, or inferred from profile names when MIG or a profile needs one), a name
    /// the catalogue does not know (allowed only where nothing needs MIG), and how it was settled.
    fn settle_model(
        &self,
        asked_profiles: &[&str],
        limited: &[&str],
    ) -> Result<(Option<&'static GpuModel>, Option<String>, Option<String>)> {
        let needs_model = self.supports_mig || !asked_profiles.is_empty() || !limited.is_empty();
        let given = self
            .gpu_model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty());
        Ok(match given {
            Some(name) => match catalog::find_model(name) {
                Some(m) => (Some(m), None, None),
                None if !self.supports_mig && asked_profiles.is_empty() && limited.is_empty() => {
                    let note =
                        format!("{name} is not in the catalogue: planned as a GPU without MIG");
                    (None, Some(name.to_string()), Some(note))
                }
                None => {
                    return Err(catalog::require_model(name)
                        .unwrap_err()
                        .in_field("gpu_model"))
                }
            },
            None if needs_model => {
                let names: Vec<&str> = limited.iter().chain(asked_profiles).copied().collect();
                let (m, note) = infer_model(&names)?;
                (Some(m), None, Some(note))
            }
            None => (None, None, None),
        })
    }

    /// The GPU count, checked against the nodes: theirs when none is given.
    fn node_gpu_count(&self) -> Result<Option<u64>> {
        let Some(nodes) = &self.nodes else {
            return Ok(self.gpu_count);
        };
        let err = |m: String| Err(Error::new(ErrorKind::OutOfRange, m).in_field("nodes"));
        if nodes.is_empty() || nodes.len() > MAX_NODES {
            return err(format!("give between 1 and {MAX_NODES} nodes"));
        }
        check_names(nodes)?;
        let total = nodes.iter().try_fold(0u64, |t, n| {
            t.checked_add(n.gpus).filter(|&t| t <= MAX_GPU_COUNT)
        });
        let Some(total) = total else {
            return err(format!("the nodes hold more than {MAX_GPU_COUNT} GPUs"));
        };
        match self.gpu_count {
            Some(n) if n != total => err(format!(
                "the nodes hold {total} GPUs but the GPU count is {n}: give one or the other"
            )),
            _ => Ok(Some(total)),
        }
    }
}

/// The profiles the planner may choose on a MIG-capable `model`: the cluster's list (each checked,
/// without repeats), else every plain profile; the asks' profile names must be the model's too.
fn allowed_profiles(
    model: Option<&'static GpuModel>,
    limited: &[&str],
    asked_profiles: &[&str],
) -> Result<Vec<&'static MigProfile>> {
    let mut allowed_profiles = Vec::new();
    if let Some(m) = model.filter(|m| m.is_mig_capable()) {
        for p in limited {
            let profile = m
                .require_profile(p)
                .map_err(|e| e.in_field("mig_profiles"))?;
            if !allowed_profiles.contains(&profile) {
                allowed_profiles.push(profile);
            }
        }
        for p in asked_profiles {
            m.require_profile(p)
                .map_err(|e| e.in_field("mig_profile"))?;
        }
        if limited.is_empty() {
            allowed_profiles = m.profiles.iter().filter(|p| p.is_plain()).collect();
        }
    }
    Ok(allowed_profiles)
}

/// Picks the model that offers every named profile: the only one; among boards that share one
/// profile table (an SXM board and its PCIe sibling), the first in catalogue order, saying which
/// others fit; else the default among several, or the first in catalogue order. With no names,
/// the default.
fn infer_model(names: &[&str]) -> Result<(&'static GpuModel, String)> {
    let default =
        catalog::find_model(DEFAULT_MIG_MODEL).expect("the default model is in the catalogue");
    if names.is_empty() {
        return Ok((
            default,
            format!("{DEFAULT_MIG_MODEL} assumed: no GPU model given"),
        ));
    }
    let candidates = catalog::models_with_profiles(names.iter().copied());
    match candidates.as_slice() {
        [] => {
            if let Some(unknown) = names
                .iter()
                .find(|n| catalog::models_with_profiles([**n]).is_empty())
            {
                let e = default.require_profile(unknown).unwrap_err();
                return Err(Error::new(
                    ErrorKind::UnknownProfile,
                    format!(
                        "{} (no GPU model given; no model in the catalogue offers it)",
                        e.message
                    ),
                )
                .in_field("mig_profile"));
            }
            Err(Error::new(
                ErrorKind::UnknownProfile,
                format!("no GPU model offers all of {}", names.join(", ")),
            )
            .in_field("mig_profiles")
            .with_hint(Hint::Give {
                input: Input::GpuModel,
            }))
        }
        [only] => Ok((
            only,
            format!("{} inferred from the profile names", only.name),
        )),
        [first, rest @ ..] if rest.iter().all(|m| m.same_profiles(first)) => {
            // Boards of one profile table differ in power (docs/hardware-facts.md §7): say so.
            let others: Vec<&str> = rest.iter().map(|m| m.name).collect();
            Ok((
                first,
                format!(
                    "{} inferred from the profile names; {} {} the same profiles, give a GPU model to tell them apart",
                    first.name,
                    others.join(", "),
                    if others.len() == 1 { "has" } else { "have" }
                ),
            ))
        }
        several => {
            let chosen = several
                .iter()
                .find(|m| m.name == DEFAULT_MIG_MODEL)
                .unwrap_or(&several[0]);
            let all: Vec<&str> = several.iter().map(|m| m.name).collect();
            Ok((
                chosen,
                format!(
                    "{} assumed: the profile names fit {}; give a GPU model to be sure",
                    chosen.name,
                    all.join(", ")
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mig(profiles: &[&str]) -> ClusterGpuCaps {
        ClusterGpuCaps {
            supports_mig: true,
            mig_profiles: (!profiles.is_empty())
                .then(|| profiles.iter().map(|s| s.to_string()).collect()),
            ..Default::default()
        }
    }

    #[test]
    fn assumes_the_default_model_and_says_so() {
        let r = mig(&[]).resolve(&[]).unwrap();
        assert_eq!(r.model.unwrap().name, "A100-SXM4-40GB");
        assert!(r.model_note.unwrap().contains("assumed"));
        assert!(r.allowed_profiles.iter().all(|p| p.is_plain()));
    }

    #[test]
    fn an_empty_allow_list_allows_nothing_and_says_so() {
        let caps = ClusterGpuCaps {
            mig_profiles: Some(Vec::new()),
            ..mig(&[])
        };
        let e = caps.resolve(&[]).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("mig_profiles"));
        assert!(
            e.message.contains("no MIG profile is allowed"),
            "{}",
            e.message
        );
    }

    #[test]
    fn infers_the_model_from_profile_names() {
        let r = mig(&["3g.71gb"]).resolve(&[]).unwrap();
        assert_eq!(r.model.unwrap().name, "H200");
        let r = mig(&[]).resolve(&["1g.5gb"]).unwrap();
        assert_eq!(r.model.unwrap().name, "A100-SXM4-40GB");
        let r = mig(&["3g.40gb"]).resolve(&[]).unwrap();
        assert_eq!(r.model.unwrap().name, "A100-SXM4-80GB");
        assert!(r.model_note.unwrap().contains("H100-80GB-HBM3"));
        let r = mig(&["1g.12gb"]).resolve(&[]).unwrap();
        assert_eq!(r.model.unwrap().name, "H100-NVL");
    }

    #[test]
    fn boards_sharing_a_profile_table_are_named_in_the_note() {
        // The A100-SXM4-40GB and the A100-PCIE-40GB offer the same profiles but not the same
        // power (400 W and 250 W, docs/hardware-facts.md §7): the SXM4 board is taken, as before
        // the PCIe board was a model of its own, and the note names the other.
        let r = mig(&[]).resolve(&["2g.10gb"]).unwrap();
        assert_eq!(r.model.unwrap().name, "A100-SXM4-40GB");
        assert_eq!(
            r.model_note.as_deref(),
            Some("A100-SXM4-40GB inferred from the profile names; A100-PCIE-40GB has the same profiles, give a GPU model to tell them apart")
        );
        let r = mig(&["4g.71gb"]).resolve(&[]).unwrap();
        assert_eq!(r.model.unwrap().name, "H200");
        assert!(r
            .model_note
            .unwrap()
            .contains("H200-NVL has the same profiles"));
    }

    #[test]
    fn rejects_contradictions() {
        let err = mig(&["9g.9gb"]).resolve(&[]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::UnknownProfile);
        assert!(err.message.contains("1g.5gb"), "{}", err.message);
        assert!(mig(&["1g.5gb", "3g.71gb"]).resolve(&[]).is_err());
        let t4 = ClusterGpuCaps {
            gpu_model: Some("t4".into()),
            ..mig(&[])
        };
        assert_eq!(
            t4.resolve(&[]).unwrap_err().field.as_deref(),
            Some("supports_mig")
        );
        let zero = ClusterGpuCaps {
            gpu_count: Some(0),
            ..Default::default()
        };
        assert_eq!(
            zero.resolve(&[]).unwrap_err().field.as_deref(),
            Some("gpu_count")
        );
        let unknown = ClusterGpuCaps {
            gpu_model: Some("Voodoo".into()),
            ..mig(&[])
        };
        assert_eq!(
            unknown.resolve(&[]).unwrap_err().kind,
            ErrorKind::UnknownModel
        );
    }

    #[test]
    fn unknown_model_without_mig_is_usable() {
        let caps = ClusterGpuCaps {
            gpu_model: Some("NVIDIA GeForce RTX 4090".into()),
            supports_timeslicing: true,
            ..Default::default()
        };
        let r = caps.resolve(&[]).unwrap();
        assert!(r.model.is_none());
        assert_eq!(r.unknown_model.as_deref(), Some("NVIDIA GeForce RTX 4090"));
    }
}
