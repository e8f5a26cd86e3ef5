//! Packing what can be packed: asks that would fail the whole request (a name used twice, a MIG
//! profile the GPU model does not offer) are left out with their error and a suggested fix, and
//! every other ask is still planned. The page plans this way, so one bad row never blanks the plan.

use super::cluster::CapsFrom;
use super::pack::{PackRequest, PackResponse};
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::caps::ResolvedCaps;
use crate::catalog::{find_model, GpuModel};
use crate::error::{Error, ErrorKind, Result};
use crate::parse::AskEntry;

/// An ask left out of the plan, with why and what would let it in. (The page's; the npm package
/// and the CLI refuse such requests, so it has no TypeScript type.)
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LeftOut {
    /// Its position in the request's asks (0-based).
    pub index: usize,
    pub name: String,
    /// Why, with the field it is about (`name`, `mig_profile`).
    pub error: Error,
    /// A change that would let it in, when there is one.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub fix: Option<Fix>,
}

/// A change to one ask that resolves its error.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "do", rename_all = "snake_case"))]
pub enum Fix {
    /// Rename the ask to this unused name.
    Rename { name: String },
    /// Ask for this profile, the model's nearest to the one named.
    UseProfile { profile: String },
}

impl PackRequest {
    /// The request a plan of [`pack_leaving_out`] was made of: these asks (by `index`) taken
    /// out, the rest in order, so that what is made from the plan shown (an export, a fit, a
    /// recording) has exactly its asks.
    pub fn without(&self, left_out: &[LeftOut]) -> PackRequest {
        let out: std::collections::BTreeSet<usize> = left_out.iter().map(|l| l.index).collect();
        PackRequest {
            asks: self
                .asks
                .iter()
                .enumerate()
                .filter(|(i, _)| !out.contains(i))
                .map(|(_, e)| e.clone())
                .collect(),
            ..self.clone()
        }
    }
}

/// Packs every ask that can be packed. Asks named like an earlier one, asks naming a MIG
/// profile the given GPU model lacks, and asks for memory no GPU of the cluster holds (or
/// memory without a GPU model) are left out (`PackResponse::left_out`, in request order);
/// the rest are packed as [`pack`](super::pack) packs them.
///
/// # Errors
/// What fails the request as a whole: caps the catalogue refuses (an unknown model, a GPU count
/// of 0, profiles no model offers together when no model is given), too many asks.
pub fn pack_leaving_out(request: &PackRequest) -> Result<PackResponse> {
    let (caps, caps_from) = request.cluster.caps_with(request.gpu_count)?;
    leaving_out(request, &caps, caps_from)
}

/// [`pack_leaving_out`] of a request whose cluster is [`Cluster::Given`](super::Cluster::Given):
/// the same answer, from code that never reads discovery output, so a front end whose caps are
/// always given (the page's plan) does not carry discovery's parsers in what it loads first.
///
/// # Errors
/// As [`pack_leaving_out`]; `Syntax` (field `cluster`) for a detected cluster.
pub fn pack_given_leaving_out(request: &PackRequest) -> Result<PackResponse> {
    let caps = request
        .cluster
        .given_caps()?
        .clone()
        .counted(request.gpu_count);
    leaving_out(request, &caps, None)
}

fn leaving_out(
    request: &PackRequest,
    caps: &ClusterGpuCaps,
    caps_from: Option<CapsFrom>,
) -> Result<PackResponse> {
    let model = caps.gpu_model.as_deref().and_then(find_model);
    // Memory is judged against the resolved caps (the model and the CUDA context); caps that do
    // not resolve fail the pack below with their own error.
    let resolved = caps.resolve(&[]).ok();
    let mut left_out = Vec::new();
    let mut kept: Vec<FractionalAsk> = Vec::with_capacity(request.asks.len());
    let mut names = std::collections::BTreeSet::new();
    for (index, entry) in request.asks.iter().enumerate() {
        let name = entry.ask.name();
        let problem = if names.contains(name) {
            Some(duplicate(name, &request.asks))
        } else {
            model
                .and_then(|m| unknown_profile(m, entry))
                .or_else(|| resolved.as_ref().and_then(|r| memory_problem(r, entry)))
        };
        match problem {
            Some((error, fix)) => left_out.push(LeftOut {
                index,
                name: name.to_string(),
                error,
                fix,
            }),
            None => {
                names.insert(name);
                kept.push(entry.ask.clone());
            }
        }
    }
    super::pack::no_models(&request.options)?;
    let mut response = super::pack::pack_on(&kept, &request.options, caps, caps_from)?.grouped();
    response.left_out = left_out;
    Ok(response)
}

fn duplicate(name: &str, asks: &[AskEntry]) -> (Error, Option<Fix>) {
    let first = asks.iter().position(|e| e.ask.name() == name).unwrap_or(0);
    let error = Error::new(
        ErrorKind::DuplicateName,
        format!(
            "ask {} is also named {name:?}; names must be unique",
            first + 1
        ),
    )
    .in_field("name");
    let taken: Vec<&str> = asks.iter().map(|e| e.ask.name()).collect();
    let fix = Some(crate::ask::unused_name(name, 2, &taken))
        .filter(|unused| unused != name)
        .map(|name| Fix::Rename { name });
    (error, fix)
}

/// Memory no GPU of the cluster holds, or memory without a GPU model (the error's hint says to
/// give one); field `memory`.
fn memory_problem(caps: &ResolvedCaps, entry: &AskEntry) -> Option<(Error, Option<Fix>)> {
    let error = crate::plan::memory::check(std::slice::from_ref(&entry.ask), caps).err()?;
    Some((
        Error {
            field: None,
            ..error
        }
        .in_field("memory"),
        None,
    ))
}

fn unknown_profile(model: &GpuModel, entry: &AskEntry) -> Option<(Error, Option<Fix>)> {
    let profile = entry.ask.mig_profile()?;
    let error = model
        .require_profile(profile)
        .err()?
        .in_field("mig_profile");
    let fix = model.nearest_profile(profile).map(|p| Fix::UseProfile {
        profile: p.name.to_string(),
    });
    Some((error, fix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{pack, Cluster, DetectInput};
    use crate::ask::FractionalAsk;
    use crate::caps::ClusterGpuCaps;

    fn request(specs: &[&str], model: Option<&str>) -> PackRequest {
        let asks = specs
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect();
        let caps = ClusterGpuCaps {
            supports_mig: model.is_some(),
            supports_timeslicing: true,
            gpu_model: model.map(str::to_string),
            ..Default::default()
        };
        PackRequest::new(asks, caps)
    }

    #[test]
    fn memory_no_gpu_holds_is_left_out_and_the_rest_planned() {
        let mut r = request(&["a:0.5", "big:40GiB", "m:1GiB"], None);
        r.cluster = Cluster::Given(ClusterGpuCaps {
            supports_timeslicing: true,
            gpu_model: Some("T4".into()),
            ..Default::default()
        });
        let packed = pack_leaving_out(&r).unwrap();
        assert_eq!(packed.left_out.len(), 1);
        assert_eq!(packed.left_out[0].name, "big");
        assert_eq!(packed.left_out[0].error.field.as_deref(), Some("memory"));
        assert_eq!(packed.result.choices.len(), 2);
        let no_model = pack_leaving_out(&request(&["a:0.5", "m:1GiB"], None)).unwrap();
        assert_eq!(no_model.left_out[0].name, "m");
        assert!(no_model.left_out[0].error.hint.is_some());
    }

    #[test]
    fn a_name_used_twice_leaves_the_later_ask_out_and_plans_the_rest() {
        let r = request(&["a:0.5", "b:0.3", "a:0.4", "a-2:0.1"], None);
        assert_eq!(
            pack(&r).unwrap_err().kind,
            ErrorKind::DuplicateName,
            "the strict use case refuses"
        );
        let packed = pack_leaving_out(&r).unwrap();
        assert_eq!(packed.left_out.len(), 1);
        let out = &packed.left_out[0];
        assert_eq!((out.index, out.name.as_str()), (2, "a"));
        assert_eq!(out.error.field.as_deref(), Some("name"));
        assert!(out.error.message.contains("ask 1"), "{}", out.error.message);
        assert_eq!(
            out.fix,
            Some(Fix::Rename { name: "a-3".into() }),
            "a-2 is taken"
        );
        let planned: Vec<&str> = packed
            .result
            .choices
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(planned, ["a", "b", "a-2"]);
        // The request the plan was made of: the strict use cases take it as it is.
        let kept = r.without(&packed.left_out);
        assert_eq!(kept.ask_list().len(), 3);
        assert_eq!(pack(&kept).unwrap().result, packed.result);
    }

    #[test]
    fn a_profile_the_model_lacks_is_left_out_with_the_nearest_one() {
        // 3g.40gb is an A100-80GB profile; on an A100-40GB the nearest is 3g.20gb.
        let r = request(&["x:3g.40gb", "y:1g.5gb", "z:0.5"], Some("A100-40GB"));
        assert_eq!(pack(&r).unwrap_err().kind, ErrorKind::UnknownProfile);
        let packed = pack_leaving_out(&r).unwrap();
        assert_eq!(packed.left_out.len(), 1);
        let out = &packed.left_out[0];
        assert_eq!(
            (out.index, out.error.field.as_deref()),
            (0, Some("mig_profile"))
        );
        assert_eq!(
            out.fix,
            Some(Fix::UseProfile {
                profile: "3g.20gb".into()
            })
        );
        assert_eq!(packed.result.choices.len(), 2);
        assert!(packed.result.unplaced.is_empty());
    }

    #[test]
    fn a_valid_request_packs_as_the_strict_use_case_does() {
        let r = request(&["x:3g.20gb", "y:1g.5gb", "z:0.5"], Some("A100-40GB"));
        assert_eq!(pack_leaving_out(&r).unwrap(), pack(&r).unwrap());
    }

    #[test]
    fn given_caps_pack_as_the_use_case_does_and_detected_ones_are_refused() {
        let mixed = ["x:3g.20gb", "x:0.25", "y:1g.5gb", "z:0.5", "w:2g.99gb"];
        for r in [
            request(&mixed, Some("A100-40GB")),
            request(&["a:0.5", "m:1GiB"], None),
        ] {
            assert_eq!(pack_given_leaving_out(&r), pack_leaving_out(&r));
        }
        let mut detected = request(&["a:0.5"], None);
        detected.cluster = Cluster::Detected {
            detected: super::super::Detected {
                inputs: vec![DetectInput {
                    label: "smi.txt".into(),
                    text: "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1)\n".into(),
                }],
                turn_on_mig: false,
            },
        };
        assert!(pack_leaving_out(&detected)
            .unwrap()
            .result
            .unplaced
            .is_empty());
        let refused = pack_given_leaving_out(&detected).unwrap_err();
        assert_eq!(
            (refused.kind, refused.field.as_deref()),
            (ErrorKind::Syntax, Some("cluster"))
        );
    }

    #[test]
    fn request_wide_errors_still_fail() {
        let mut r = request(&["a:0.5"], None);
        if let super::super::Cluster::Given(caps) = &mut r.cluster {
            caps.gpu_count = Some(0);
        }
        assert_eq!(
            pack_leaving_out(&r).unwrap_err().field.as_deref(),
            Some("gpu_count")
        );
    }
}
