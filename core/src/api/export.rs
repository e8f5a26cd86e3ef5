//! The export use case: pack a request, then write the plan for the tool that makes it real. The
//! text always describes exactly the packing in the response, because both come from one request.

use super::pack::{pack, PackRequest, PackResponse};
use crate::error::Result;
use crate::export::{self, ExportFormat, ExportOptions};

/// A scenario to pack and the format to write it in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportRequest {
    pub format: ExportFormat,
    pub pack: PackRequest,
    pub options: ExportOptions,
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
/// Invalid options (field `namespace`, `image`, `config_name`), the packer's errors, and a plan
/// the format cannot express.
pub fn export(request: &ExportRequest) -> Result<ExportResponse> {
    request.options.validate()?;
    let packed = pack(&request.pack)?;
    let text = export::export(&packed.result, request.format, &request.options)?;
    Ok(ExportResponse {
        text,
        pack: packed,
        file_name: request.format.file_name(),
        media_type: request.format.media_type(),
    })
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
            Some("namespace")
        );
    }
}
