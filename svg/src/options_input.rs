//! The diagram's options as a front end reads them from JSON (the npm package's `renderSvg`):
//! every field optional, numbers as JavaScript holds them. The front end checks each value and
//! makes the renderer's [`crate::SvgOptions`] of them, saying what is out of range where the
//! renderer would clamp.

/// The diagram's options as given: each optional, with the renderer's defaults.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SvgOptions", rename_all = "camelCase"))]
pub struct SvgOptionsInput {
    /// The diagram's heading and `<title>` (default "GPU packing").
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub title: Option<String>,
    /// GPU lanes drawn (default 500); the GPUs beyond are counted in one line "… N more GPUs,
    /// listed in the plan".
    #[cfg_attr(feature = "ts", ts(optional))]
    pub max_gpus: Option<f64>,
    /// The first GPU drawn, by position in the packing (default 0): a window of lanes, the GPUs
    /// before it counted in one line "… N GPUs before these, listed in the plan".
    #[cfg_attr(feature = "ts", ts(optional))]
    pub first_gpu: Option<f64>,
    /// Width in pixels, a whole number from 320 to 10000 (default 720); the height follows the
    /// content.
    #[cfg_attr(feature = "ts", ts(optional))]
    pub width: Option<f64>,
    /// Prefix of the ids of the diagram's `<title>` and `<desc>` (default "gpu-share":
    /// `gpu-share-title`), so that two diagrams inlined into one page keep unique ids: ASCII
    /// letters, digits, `-` and `_`, starting with a letter.
    #[cfg_attr(feature = "ts", ts(optional))]
    pub id_prefix: Option<String>,
}
