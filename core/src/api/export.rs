//! The export use case: pack a request, then write the plan for the tool that makes it real. The
//! text always describes exactly the packing in the response, because both come from one request.

use super::pack::{pack, PackOptions, PackRequest, PackResponse};
use crate::error::{Error, Result};
use crate::export::{self, ExportFormat, ExportOptions};

/// A scenario to pack and the format to write it in: npm `exportPlan(format, asks, gpuCount, caps,
/// options)`, `gpu-share export FORMAT`. In JSON the packing's fields sit beside `format`, and the
/// packing's options (`optimize`, `time_limit_ms`) among the export's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportRequest {
    pub format: ExportFormat,
    pub pack: PackRequest,
    pub options: ExportOptions,
}

/// The options of an export as written beside its asks: the packing's (`optimize`,
/// `time_limit_ms`) and the format's ([`ExportOptions`]) in one object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportSettings {
    pub pack: PackOptions,
    pub export: ExportOptions,
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for ExportSettings {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        use serde_json::{Map, Value};
        fn read<T: serde::de::DeserializeOwned>(map: Map<String, Value>) -> serde_json::Result<T> {
            serde_json::from_value(Value::Object(map))
        }
        let mut export = Map::deserialize(d)?;
        let mut pack = Map::new();
        for key in super::pack::PACK_OPTION_KEYS {
            if let Some(v) = export.remove(key) {
                pack.insert(key.into(), v);
            }
        }
        Ok(ExportSettings {
            pack: read(pack).map_err(D::Error::custom)?,
            export: read(export).map_err(D::Error::custom)?,
        })
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for ExportRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        /// The request as written: the packing's fields beside `format`.
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            format: ExportFormat,
            asks: Vec<crate::parse::AskEntry>,
            #[serde(default)]
            gpu_count: Option<u64>,
            #[serde(default, rename = "caps")]
            cluster: super::Cluster,
            #[serde(default)]
            options: ExportSettings,
        }
        let w = Written::deserialize(d)?;
        Ok(ExportRequest {
            format: w.format,
            pack: PackRequest {
                asks: w.asks,
                gpu_count: w.gpu_count,
                cluster: w.cluster,
                options: w.options.pack,
            },
            options: w.options.export,
        })
    }
}

/// The exported text, the packing it describes, and how to save it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportResponse {
    pub text: String,
    pub pack: PackResponse,
    /// The file name a download gets (`gpu-share-k8s.yaml`, …).
    pub file_name: &'static str,
    pub media_type: &'static str,
}

/// Checks the options, packs, and writes the plan. Unplaced asks are listed in a leading
/// comment, never exported; the response's `pack` says which.
///
/// # Errors
/// Invalid options (field `options.namespace`, `options.image`, `options.config_name`, …), the
/// packer's errors, and a plan the format cannot express.
pub fn export(request: &ExportRequest) -> Result<ExportResponse> {
    request
        .options
        .validate()
        .map_err(|e| e.in_field("options"))?;
    let packed = pack(&request.pack)?;
    #[cfg(feature = "serde")]
    let engines = super::serve::served_engines(&packed, &request.pack.options);
    #[cfg(not(feature = "serde"))]
    let engines = std::collections::BTreeMap::new();
    let text = match request.format {
        #[cfg(feature = "serde")]
        ExportFormat::Launch => super::serve::launch(&packed, &request.pack.options)?,
        format => export::export_serving(&packed.result, format, &request.options, &engines)
            .map_err(in_options)?,
    };
    Ok(ExportResponse {
        text,
        pack: packed,
        file_name: request.format.file_name(),
        media_type: request.format.media_type(),
    })
}

/// An error the format writes about one of its options, named as a field of `options`.
fn in_options(e: Error) -> Error {
    const OPTIONS: [&str; 6] = [
        "mig_strategy",
        "namespace",
        "image",
        "config_name",
        "slurm_version",
        "dra",
    ];
    let ours = e.field.as_deref().is_some_and(|f| {
        let first = f.split(['.', '[']).next().unwrap_or(f);
        OPTIONS.contains(&first)
    });
    if ours {
        e.in_field("options")
    } else {
        e
    }
}

/// GPU indices as people read them: `0, 2-4, 7` (sorted first; duplicates once).
pub fn gpu_ranges(indices: &[u64]) -> String {
    let mut sorted = indices.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    export::ranges(&sorted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::FractionalAsk;
    use crate::caps::ClusterGpuCaps;

    #[test]
    fn ranges_read_well() {
        assert_eq!(gpu_ranges(&[4, 0, 2, 3, 7, 3]), "0, 2-4, 7");
        assert_eq!(gpu_ranges(&[1, 2]), "1, 2");
        assert_eq!(gpu_ranges(&[]), "");
    }

    #[test]
    fn the_text_describes_the_packing_in_the_response() {
        let asks = ["x:3g.20gb", "y:2g.10gb", "z:9g.99gb"]
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect();
        let caps = ClusterGpuCaps {
            supports_mig: true,
            ..Default::default()
        };
        let request = ExportRequest {
            format: ExportFormat::MigParted,
            pack: PackRequest::new(asks, caps),
            options: ExportOptions::default(),
        };
        // 9g.99gb is no profile of the inferred A100: an error, not a guess.
        assert!(export(&request).is_err());
    }

    #[test]
    fn bad_options_fail_before_packing() {
        let request = ExportRequest {
            format: ExportFormat::Kubernetes,
            pack: PackRequest::default(),
            options: ExportOptions {
                namespace: Some("Not A Label".into()),
                ..Default::default()
            },
        };
        assert_eq!(
            export(&request).unwrap_err().field.as_deref(),
            Some("options.namespace")
        );
    }
}
