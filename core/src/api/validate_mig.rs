//! The validate-MIG use cases: whether MIG instances fit on one GPU, why not, and where each goes —
//! for a list of profiles, or for every MIG-enabled entry of a mig-parted config.

use crate::catalog::require_model;
use crate::error::Result;
use crate::validate_mig::MigValidation;

/// MIG instances to check on one GPU.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ValidateMigRequest {
    /// The GPU model: canonical, nvidia-smi or short name.
    pub model: String,
    /// One entry per instance (`3g.20gb`), or comma-separated lists of them (`3g.20gb,2g.10gb`);
    /// blanks around names and empty entries are ignored.
    pub profiles: Vec<String>,
}

/// Checks MIG instances on one GPU of the request's model: whether they fit, why not, and where
/// each goes.
///
/// # Errors
/// `UnknownModel` (field `model`), `UnknownProfile` (field `profiles[i]`, `i` counting the
/// profiles named), `OutOfRange` for a model without MIG.
pub fn validate_mig(request: &ValidateMigRequest) -> Result<MigValidation> {
    let model = require_model(&request.model).map_err(|e| e.in_field("model"))?;
    let profiles: Vec<&str> = request
        .profiles
        .iter()
        .flat_map(|p| p.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    // The one error without a field is the model's: it has no MIG.
    crate::validate_mig::validate_mig(model, &profiles).map_err(|e| match e.field {
        Some(_) => e,
        None => e.in_field("model"),
    })
}

#[cfg(feature = "serde")]
pub use parted::{validate_mig_parted, MigPartedEntry, MigPartedRequest, MigPartedResponse};

#[cfg(feature = "serde")]
mod parted {
    use super::*;
    use crate::error::Error;

    /// A mig-parted config (its YAML read into a JSON value by the front end) to check against
    /// one GPU model.
    #[derive(Clone, Debug, PartialEq)]
    pub struct MigPartedRequest {
        pub model: String,
        /// What errors name the config by (its file name).
        pub label: String,
        pub config: serde_json::Value,
    }

    /// One MIG-enabled entry of the config and its check.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
    pub struct MigPartedEntry {
        /// Where it is in the config: `mig-configs.all-balanced[0]`.
        pub entry: String,
        #[serde(flatten)]
        pub validation: MigValidation,
    }

    /// Every MIG-enabled entry that applies to the model, in config-name order.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct MigPartedResponse {
        /// The model's catalogue name.
        pub model: String,
        pub entries: Vec<MigPartedEntry>,
    }

    impl MigPartedResponse {
        /// Whether every entry fits.
        pub fn all_valid(&self) -> bool {
            self.entries.iter().all(|e| e.validation.valid)
        }
    }

    /// Checks every MIG-enabled entry of a mig-parted config against the request's model, with
    /// mig-parted's own schema rules (`crate::validate_mig`).
    ///
    /// # Errors
    /// `UnknownModel` (field `model`); the config's schema errors, naming their path and, in the
    /// message, the request's label.
    pub fn validate_mig_parted(request: &MigPartedRequest) -> Result<MigPartedResponse> {
        let model = require_model(&request.model).map_err(|e| e.in_field("model"))?;
        let entries = crate::validate_mig::validate_mig_parted(&request.config, model)
            .map_err(|e| Error {
                message: format!("{} (in {})", e.message, request.label),
                ..e
            })?
            .into_iter()
            .map(|(config, i, validation)| MigPartedEntry {
                entry: format!("mig-configs.{config}[{i}]"),
                validation,
            })
            .collect();
        Ok(MigPartedResponse {
            model: model.name.to_string(),
            entries,
        })
    }
}
