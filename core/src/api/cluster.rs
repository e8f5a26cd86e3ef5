//! The cluster a request plans on: caps given, or read from discovery output (`discover.rs`).

use super::discover::{caps_summary, read, DetectInput};
use crate::caps::ClusterGpuCaps;
use crate::discover::Inventory;
use crate::error::{Error, Result};

/// Where a request's caps come from. In JSON: the caps object itself, or `{"detected": {"inputs":
/// […], "turn_on_mig": false}}`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(
        untagged,
        expecting = "the cluster's caps (an object of ClusterGpuCaps fields), or {\"detected\": {\"inputs\": [...]}}"
    )
)]
pub enum Cluster {
    /// Caps the user gave.
    Given(ClusterGpuCaps),
    /// Caps read from discovery output.
    Detected { detected: Detected },
}

/// Discovery output to read the caps from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Detected {
    /// nvidia-smi or kubectl output, one text per machine (or cluster).
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "super::discover::texts::one_or_many")
    )]
    #[cfg_attr(feature = "ts", ts(type = "string | Array<string>"))]
    pub inputs: Vec<DetectInput>,
    /// Plan with MIG on GPUs that support it but have it disabled (the caps leave it out
    /// otherwise, since enabling it needs the GPUs idle and reset).
    #[cfg_attr(feature = "serde", serde(default))]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub turn_on_mig: bool,
}

impl Default for Cluster {
    fn default() -> Self {
        Cluster::Given(ClusterGpuCaps::default())
    }
}

impl From<ClusterGpuCaps> for Cluster {
    fn from(caps: ClusterGpuCaps) -> Self {
        Cluster::Given(caps)
    }
}

impl Cluster {
    /// The caps of a [`Cluster::Given`], from code that never reads discovery output (see
    /// [`super::pack_given_leaving_out`]).
    ///
    /// # Errors
    /// `Syntax` (field `cluster`) for a detected cluster.
    pub fn given_caps(&self) -> Result<&ClusterGpuCaps> {
        match self {
            Cluster::Given(caps) => Ok(caps),
            Cluster::Detected { .. } => Err(Error::new(
                crate::error::ErrorKind::Syntax,
                "this plan takes the cluster's caps as given, not read from discovery output",
            )
            .in_field("cluster")),
        }
    }

    /// The caps, and for detected ones where they came from.
    ///
    /// # Errors
    /// Discovery errors, naming the input they are about.
    pub fn caps(&self) -> Result<(ClusterGpuCaps, Option<CapsFrom>)> {
        self.caps_with(None)
    }

    /// [`Cluster::caps`] with a GPU count given beside them, which overrides the caps' own (and,
    /// for detected caps, the count found and the nodes that held it).
    ///
    /// # Errors
    /// As [`Cluster::caps`].
    pub fn caps_with(&self, gpu_count: Option<u64>) -> Result<(ClusterGpuCaps, Option<CapsFrom>)> {
        match self {
            Cluster::Given(caps) => Ok((caps.clone().counted(gpu_count), None)),
            Cluster::Detected { detected } => {
                let mut inventory = read(&detected.inputs)?;
                let mut caps = inventory.caps();
                if detected.turn_on_mig {
                    turn_on(&mut caps, &mut inventory)?;
                }
                if gpu_count.is_some() {
                    caps.gpu_count = gpu_count;
                    // A count given overrides the one found, and with it the nodes that held it.
                    if caps.nodes.take().is_some() {
                        inventory.notes.push("a GPU count was given, so the plan does not use the nodes read (one sharing configuration per node)".into());
                    }
                }
                let from = CapsFrom {
                    files: detected.inputs.iter().map(|i| i.label.clone()).collect(),
                    summary: caps_summary(&caps, &inventory),
                    caps: caps.clone(),
                    notes: inventory.notes,
                };
                Ok((caps, Some(from)))
            }
        }
    }
}

/// Checks caps as the catalogue reads them (the model and its profiles, the nodes, the counts):
/// npm's `ClusterGpuCaps` constructor.
///
/// # Errors
/// What planning on them would refuse before any ask is seen.
pub fn check_caps(caps: &ClusterGpuCaps) -> Result<()> {
    caps.resolve(&[]).map(|_| ())
}

/// MIG on, as asked, for detected GPUs whose model has it: a note says the GPUs must have it
/// enabled first where they do not.
///
/// # Errors
/// `OutOfRange` (field `supports_mig`) when the detected model has no MIG, or none is known.
fn turn_on(caps: &mut ClusterGpuCaps, inventory: &mut Inventory) -> Result<()> {
    let model = caps
        .gpu_model
        .as_deref()
        .and_then(crate::catalog::find_model);
    if !model.is_some_and(crate::catalog::GpuModel::is_mig_capable) {
        let name = caps
            .gpu_model
            .as_deref()
            .unwrap_or("the model found (none known)");
        return Err(Error::new(
            crate::error::ErrorKind::OutOfRange,
            format!("{name} does not support MIG, so MIG cannot be turned on"),
        )
        .in_field("supports_mig"));
    }
    let disabled = inventory.mig_disabled_gpus();
    if !caps.supports_mig && disabled > 0 {
        inventory.notes.push(format!(
            "MIG turned on as asked: it is disabled on {disabled} GPU{} now, so enable it there before applying the plan (each GPU idle, then reset)",
            if disabled == 1 { "" } else { "s" }
        ));
    }
    caps.supports_mig = true;
    Ok(())
}

/// Caps read from discovery output: the inputs, the caps, what was assumed, and the caps in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct CapsFrom {
    pub files: Vec<String>,
    pub caps: ClusterGpuCaps,
    pub notes: Vec<String>,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub summary: String,
}
