//! The DRA export read back by a real YAML reader: the claims each mechanism gets, the API shape per Kubernetes version, the errors that write nothing.

use super::*;
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::error::ErrorKind;
use crate::export::{export, ExportFormat, ExportOptions};
use crate::pack::bin_pack;
use crate::plan::Mechanism;
use serde_norway::Value;

fn pack(specs: &[&str], caps: ClusterGpuCaps) -> PackResult {
    let asks: Vec<FractionalAsk> = specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect();
    bin_pack(&asks, &caps).unwrap()
}

fn mig_caps(model: &str) -> ClusterGpuCaps {
    ClusterGpuCaps {
        supports_mig: true,
        gpu_model: Some(model.into()),
        ..Default::default()
    }
}

/// MIG with 1g.10gb only, so that larger shares go to `other` sharing.
fn mig_and(model: &str, timeslicing: bool, mps: bool) -> ClusterGpuCaps {
    ClusterGpuCaps {
        mig_profiles: Some(vec!["1g.10gb".into()]),
        supports_timeslicing: timeslicing,
        supports_mps: mps,
        ..mig_caps(model)
    }
}

fn with_version(version: &str) -> ExportOptions {
    ExportOptions {
        dra: DraOptions {
            kubernetes_version: version.into(),
            ..DraOptions::default()
        },
        ..ExportOptions::default()
    }
}

/// Every YAML document of the export.
fn documents(text: &str) -> Vec<Value> {
    text.split("\n---\n")
        .skip(1)
        .map(|d| serde_norway::from_str(d).unwrap_or_else(|e| panic!("{e}\n{d}")))
        .collect()
}

fn of_kind<'a>(docs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

#[test]
fn mig_gpus_are_one_claim_each_held_on_one_gpu() {
    let r = pack(
        &[
            "llm:3g.40gb",
            "embed:2g.20gb",
            "ocr:1g.10gb",
            "tiny:1g.10gb",
        ],
        mig_caps("A100-80GB-PCIe"),
    );
    let text = export(&r, ExportFormat::Dra, &ExportOptions::default()).unwrap();
    let docs = documents(&text);
    let claims = of_kind(&docs, "ResourceClaim");
    assert_eq!(claims.len(), r.gpus_used as usize, "{text}");
    let claim = claims[0];
    assert_eq!(claim["apiVersion"], "resource.k8s.io/v1");
    let requests = claim["spec"]["devices"]["requests"].as_sequence().unwrap();
    assert_eq!(requests.len(), 4, "{text}");
    // Largest first, each a MIG device of its profile on the planned board.
    assert_eq!(requests[0]["name"], "llm");
    for r in requests {
        let exactly = &r["exactly"];
        assert_eq!(exactly["deviceClassName"], "mig.nvidia.com");
        assert_eq!(exactly["count"], 1);
        let cel = exactly["selectors"][0]["cel"]["expression"]
            .as_str()
            .unwrap();
        assert!(
            cel.contains("productName == 'NVIDIA A100 80GB PCIe'"),
            "{cel}"
        );
        assert!(cel.contains(".profile == '"), "{cel}");
    }
    let constraint = &claim["spec"]["devices"]["constraints"][0];
    assert_eq!(constraint["matchAttribute"], PARENT_UUID);
    assert_eq!(constraint["requests"].as_sequence().unwrap().len(), 4);
    // Each Deployment takes its own request of the shared claim.
    let deployments = of_kind(&docs, "Deployment");
    assert_eq!(deployments.len(), 4);
    for d in deployments {
        let pod = &d["spec"]["template"]["spec"];
        assert_eq!(
            pod["resourceClaims"][0]["resourceClaimName"],
            claim["metadata"]["name"]
        );
        let ask = d["metadata"]["annotations"]["gpu-share/ask"]
            .as_str()
            .unwrap();
        assert_eq!(
            pod["containers"][0]["resources"]["claims"][0]["request"],
            ask
        );
        assert_eq!(d["spec"]["strategy"]["type"], "Recreate");
    }
    assert!(text.contains("gpu-share export mig-parted"), "{text}");
}

#[test]
fn time_sliced_tenants_share_one_claim_with_a_time_slicing_config() {
    let r = pack(
        &["a:0.5", "b:0.25", "c:0.25"],
        ClusterGpuCaps {
            supports_timeslicing: true,
            gpu_model: Some("l4".into()),
            ..Default::default()
        },
    );
    assert_eq!(r.gpus_used, 1);
    let mut options = ExportOptions::default();
    options.dra.time_slice_interval = TimeSliceInterval::Long;
    let text = export(&r, ExportFormat::Dra, &options).unwrap();
    let docs = documents(&text);
    let claims = of_kind(&docs, "ResourceClaim");
    assert_eq!(claims.len(), 1, "{text}");
    assert!(of_kind(&docs, "ResourceClaimTemplate").is_empty());
    let config = &claims[0]["spec"]["devices"]["config"][0]["opaque"];
    assert_eq!(config["driver"], "gpu.nvidia.com");
    let params = &config["parameters"];
    assert_eq!(params["apiVersion"], GPU_CONFIG_API);
    assert_eq!(params["kind"], "GpuConfig");
    assert_eq!(params["sharing"]["strategy"], "TimeSlicing");
    assert_eq!(params["sharing"]["timeSlicingConfig"]["interval"], "Long");
    let name = &claims[0]["metadata"]["name"];
    for d in of_kind(&docs, "Deployment") {
        let pod = &d["spec"]["template"]["spec"];
        assert_eq!(&pod["resourceClaims"][0]["resourceClaimName"], name);
        assert!(pod["containers"][0]["resources"]["claims"][0]["request"].is_null());
    }
    assert!(text.contains("TimeSlicingSettings"), "{text}");
}

#[test]
fn mps_claims_carry_the_largest_share_and_tenants_lower_theirs() {
    let r = pack(
        &["big:0.5", "small:0.2"],
        ClusterGpuCaps {
            supports_mps: true,
            gpu_model: Some("H100-80GB-HBM3".into()),
            ..Default::default()
        },
    );
    let text = export(&r, ExportFormat::Dra, &ExportOptions::default()).unwrap();
    let docs = documents(&text);
    let claims = of_kind(&docs, "ResourceClaim");
    assert_eq!(claims.len(), 1, "{text}");
    let sharing = &claims[0]["spec"]["devices"]["config"][0]["opaque"]["parameters"]["sharing"];
    assert_eq!(sharing["strategy"], "MPS");
    assert_eq!(sharing["mpsConfig"]["defaultActiveThreadPercentage"], 50);
    assert!(sharing["mpsConfig"]["defaultPinnedDeviceMemoryLimit"]
        .as_str()
        .unwrap()
        .ends_with("Mi"));
    let small = of_kind(&docs, "Deployment")
        .into_iter()
        .find(|d| d["metadata"]["name"] == "small")
        .unwrap();
    let env = &small["spec"]["template"]["spec"]["containers"][0]["env"][0];
    assert_eq!(env["name"], "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
    assert_eq!(env["value"], "20");
    assert!(text.contains("MPSSupport"), "{text}");
}

#[test]
fn whole_gpus_are_a_template_per_workload() {
    let r = pack(&["train:2", "eval:1"], ClusterGpuCaps::default());
    let text = export(&r, ExportFormat::Dra, &ExportOptions::default()).unwrap();
    let docs = documents(&text);
    let templates = of_kind(&docs, "ResourceClaimTemplate");
    assert_eq!(templates.len(), 2, "{text}");
    assert_eq!(
        templates[0]["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"],
        2
    );
    for d in of_kind(&docs, "Deployment") {
        let claim = &d["spec"]["template"]["spec"]["resourceClaims"][0];
        assert!(claim["resourceClaimTemplateName"].is_string(), "{text}");
    }
    assert!(of_kind(&docs, "ResourceClaim").is_empty());
}

#[test]
fn v1beta1_for_kubernetes_1_32_and_1_33_with_flat_requests() {
    let r = pack(
        &["x:1g.10gb", "y:0.5"],
        mig_and("A100-80GB-PCIe", true, false),
    );
    for version in ["1.32", "1.33.4"] {
        let text = export(&r, ExportFormat::Dra, &with_version(version)).unwrap();
        let docs = documents(&text);
        for claim in of_kind(&docs, "ResourceClaim") {
            assert_eq!(claim["apiVersion"], "resource.k8s.io/v1beta1");
            let request = &claim["spec"]["devices"]["requests"][0];
            assert!(request["exactly"].is_null(), "{text}");
            assert!(request["deviceClassName"].is_string(), "{text}");
        }
        assert!(text.contains("DynamicResourceAllocation"), "{text}");
    }
}

#[test]
fn kubernetes_without_structured_parameters_is_an_error_with_nothing_written() {
    let r = pack(&["x:0.5"], ClusterGpuCaps::default());
    for version in ["1.30", "1.31", "1.26.3"] {
        let e = export(&r, ExportFormat::Dra, &with_version(version)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        assert_eq!(e.field.as_deref(), Some("dra.kubernetes_version"));
        assert!(e.message.contains("1.32"), "{}", e.message);
    }
    let e = export(&r, ExportFormat::Dra, &with_version("latest")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
}

#[test]
fn driver_gates_that_exclude_each_other_are_an_error() {
    let r = pack(
        &["m:1g.10gb", "p:0.3"],
        mig_and("A100-80GB-PCIe", false, true),
    );
    assert!(r.gpus.iter().any(|g| g.mechanism() == Mechanism::Mps));
    let mut options = ExportOptions::default();
    options.dra.mig = MigManagement::Dynamic;
    let e = export(&r, ExportFormat::Dra, &options).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("dra.mig"));
    options.dra.mig = MigManagement::Static;
    options.dra.consumable_memory = true;
    let e = export(&r, ExportFormat::Dra, &options).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("dra.consumable_memory"));
}

#[test]
fn consumable_memory_asks_for_the_tenants_memory() {
    let r = pack(
        &["a:0.5", "b:0.25"],
        ClusterGpuCaps {
            supports_timeslicing: true,
            gpu_model: Some("l4".into()),
            ..Default::default()
        },
    );
    let mut options = ExportOptions::default();
    options.dra.consumable_memory = true;
    let text = export(&r, ExportFormat::Dra, &options).unwrap();
    let docs = documents(&text);
    let claim = of_kind(&docs, "ResourceClaim")[0];
    let memory =
        &claim["spec"]["devices"]["requests"][0]["exactly"]["capacity"]["requests"]["memory"];
    // Three quarters of an L4's memory, rounded up to the MiB.
    let l4 = crate::catalog::find_model("l4").unwrap().memory_mib;
    assert_eq!(
        memory.as_str().unwrap(),
        format!("{}Mi", (l4 * 3).div_ceil(4))
    );
    assert!(text.contains("ConsumableShares"), "{text}");
    let needs = requirements(&r, &options.dra).unwrap();
    assert!(needs
        .gates
        .iter()
        .any(|g| g.name == "DRAConsumableCapacity"));
}

#[test]
fn requirements_say_what_the_comments_say() {
    let r = pack(
        &["a:1g.10gb", "b:0.5"],
        mig_and("A100-80GB-PCIe", true, false),
    );
    let options = DraOptions::default();
    let needs = requirements(&r, &options).unwrap();
    assert_eq!(needs.api_version, "resource.k8s.io/v1");
    assert!(needs.mig_devices_first);
    let names: Vec<&str> = needs.gates.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["TimeSlicingSettings"]);
    let text = export(
        &r,
        ExportFormat::Dra,
        &ExportOptions {
            dra: options,
            ..ExportOptions::default()
        },
    )
    .unwrap();
    for note in &needs.notes {
        let first_words: String = note.split(' ').take(6).collect::<Vec<_>>().join(" ");
        assert!(text.contains(&first_words), "{first_words}\n{text}");
    }
}

#[test]
fn hostile_ask_names_stay_inside_their_scalars() {
    let r = pack(&["Evil: true #x:0.5", "{a: 1}:0.25", "yes:1g.10gb"], {
        let mut c = mig_caps("A100-80GB-PCIe");
        c.supports_timeslicing = true;
        c
    });
    let text = export(&r, ExportFormat::Dra, &ExportOptions::default()).unwrap();
    let docs = documents(&text);
    let asks: Vec<&str> = of_kind(&docs, "Deployment")
        .iter()
        .map(|d| {
            d["metadata"]["annotations"]["gpu-share/ask"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(asks, ["Evil: true #x", "{a: 1}", "yes"]);
}
