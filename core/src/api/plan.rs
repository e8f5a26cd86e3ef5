//! The plan use case: the mechanism that serves one ask on a cluster.

use super::cluster::{CapsFrom, Cluster};
use crate::ask::FractionalAsk;
use crate::error::Result;
use crate::plan::Choice;

/// One ask to plan on a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanRequest {
    pub ask: FractionalAsk,
    pub cluster: Cluster,
}

/// The mechanism that serves the ask, and where the caps came from when they were detected.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct PlanResponse {
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub choice: Choice,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub caps_from: Option<CapsFrom>,
}

/// Plans one ask on the cluster: the mechanism that serves it, with notes and warnings.
///
/// # Errors
/// Caps the catalogue refuses (an unknown model where MIG needs one, a profile the model lacks),
/// discovery errors.
pub fn plan(request: &PlanRequest) -> Result<PlanResponse> {
    let (caps, caps_from) = request.cluster.caps()?;
    Ok(PlanResponse {
        choice: crate::plan::select_mechanism(&request.ask, &caps)?,
        caps_from,
    })
}
