//! The DRA simulation through the door (`api::simulate_dra`): the dra-driver-nvidia-gpu#932 case
//! (seven pods, a template each asking one 1g.10gb, on four H100 PCIe with dynamic MIG) from the
//! request's JSON to the text, and bad slices named by their field.

use gpu_share_core::api::{
    simulate_dra, DetectInput, ErrorKind, PackRequest, SimulateDraRequest, SimulateDraResponse,
    SimulationOptions, SliceOrder,
};
use serde_json::json;

use crate::common::{asks, fixture};

fn dynamic_text() -> String {
    fixture("resourceslices/h100-pcie-dynamic-mig.json")
}

/// The #932 request as JSON: seven 1g.10gb, no caps (they come from the slices), dynamic MIG.
fn request_932(order: Option<&str>) -> SimulateDraRequest {
    let asks: Vec<_> = (1..=7)
        .map(|i| json!({"name": format!("mig-claim-{i}"), "mig_profile": "1g.10gb"}))
        .collect();
    let mut options = json!({"dra": {"mig": "dynamic"}});
    if let Some(order) = order {
        options["order"] = json!(order);
    }
    serde_json::from_value(json!({
        "slices": dynamic_text(),
        "asks": asks,
        "options": options,
    }))
    .unwrap()
}

fn run(order: Option<&str>) -> SimulateDraResponse {
    simulate_dra(&request_932(order)).unwrap()
}

#[test]
fn the_932_case_strands_slices_with_templates_and_not_with_gpu_share_claims() {
    let r = run(None);
    assert_eq!(r.pack.result.gpus_used, 1);
    assert_eq!(
        r.pack.caps_from.as_ref().map(|c| c.files.clone()),
        Some(vec!["slices".to_string()]),
        "the caps are the slices'"
    );
    let orders: Vec<SliceOrder> = r.simulations.iter().map(|s| s.per_ask.order).collect();
    assert_eq!(orders, [SliceOrder::Listed, SliceOrder::Spread]);
    let spread = &r.simulations[1];
    assert_eq!(spread.planned_gpus_used, 1);
    assert_eq!(spread.planned_whole_gpus_left, Some(3));
    assert_eq!(
        (
            spread.per_ask.gpus_used,
            spread.per_ask.whole_gpus_left,
            spread.per_ask.stranded_memory_slices
        ),
        (4, 0, 4)
    );
    assert_eq!(
        (
            spread.gpu_share.gpus_used,
            spread.gpu_share.whole_gpus_left,
            spread.gpu_share.stranded_memory_slices
        ),
        (1, 3, 1)
    );
    assert_eq!(
        r.simulations[0].per_ask.gpus_used, 1,
        "list order packs too"
    );
    assert!(r.text.contains("gpu-share's plan: 7 asks on 1 GPU; 3 of the slices' 4 GPUs left whole; 1 memory slice stranded."), "{}", r.text);
    assert!(r.text.contains("a template per workload: 7 of 7 claims allocated on 4 GPUs; 0 GPUs left whole; 4 memory slices stranded ("), "{}", r.text);
    assert!(r.text.contains("Stranding in the spread order: claims written a template per workload use 3 more GPUs and strand 3 more memory slices than gpu-share's claims"), "{}", r.text);
    assert!(!r.text.contains("Stranding in list order"), "{}", r.text);
}

#[test]
fn one_order_is_simulated_when_asked_and_the_json_says_so() {
    let r = run(Some("spread"));
    assert_eq!(r.simulations.len(), 1);
    assert_eq!(r.simulations[0].per_ask.order, SliceOrder::Spread);
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(
        json["simulations"][0]["per_ask"]["stranded_memory_slices"],
        4
    );
    assert_eq!(json["simulations"][0]["gpu_share"]["gpus_used"], 1);
    assert_eq!(json["pack"]["gpus_used"], 1);
    assert_eq!(json["text"], json!(r.text));
    let listed = run(Some("listed"));
    assert!(
        listed.text.contains("do as well as gpu-share's claims"),
        "{}",
        listed.text
    );
}

#[test]
fn caps_given_are_used_instead_of_the_slices() {
    let mut request = request_932(Some("spread"));
    request.pack.cluster = crate::common::caps(true, false, false, "H100-PCIe").into();
    let r = simulate_dra(&request).unwrap();
    assert!(r.pack.caps_from.is_none());
    assert_eq!(r.simulations[0].per_ask.stranded_memory_slices, 4);
}

fn error_of(slices: Vec<DetectInput>) -> gpu_share_core::api::Error {
    let request = SimulateDraRequest {
        slices,
        pack: PackRequest::new(
            asks(&["a:1g.10gb"]),
            gpu_share_core::api::Cluster::default(),
        ),
        options: SimulationOptions::default(),
    };
    simulate_dra(&request).unwrap_err()
}

fn text(t: &str) -> DetectInput {
    DetectInput {
        label: String::new(),
        text: t.into(),
    }
}

#[test]
fn bad_slices_are_errors_naming_the_field() {
    let e = error_of(Vec::new());
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (ErrorKind::Syntax, Some("slices"))
    );
    let e = error_of(vec![text("{")]);
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (ErrorKind::Syntax, Some("slices")),
        "{e:?}"
    );
    assert!(e.message.contains("not valid JSON"), "{}", e.message);
    // nvidia-smi output is not ResourceSlices.
    let smi = fixture("nvidia-smi/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt");
    let e = error_of(vec![text(&smi)]);
    assert_eq!(
        e.field.as_deref().map(|f| f.starts_with("slices")),
        Some(true),
        "{e:?}"
    );
    // A list with no NVIDIA device, and an empty one.
    let e = error_of(vec![text(r#"{"kind": "List", "items": []}"#)]);
    assert_eq!(e.field.as_deref(), Some("slices"), "{e:?}");
    assert!(e.message.contains("gpu.nvidia.com"), "{}", e.message);
    let e = error_of(vec![text(&dynamic_text()), text("[1]")]);
    assert_eq!(
        e.field.as_deref().map(|f| f.starts_with("slices[1]")),
        Some(true),
        "{e:?}"
    );
}

#[test]
fn bad_requests_are_refused_by_field() {
    let bad = |v: serde_json::Value| serde_json::from_value::<SimulateDraRequest>(v).unwrap_err();
    let e = bad(json!({"slices": "x", "asks": [], "options": {"order": "random"}}));
    assert!(e.to_string().contains("random"), "{e}");
    bad(json!({"slices": "x", "asks": [], "options": {"odrer": "spread"}}));
    bad(json!({"slices": "x", "asks": [], "sliecs": 1}));
    bad(json!({"asks": []}));
    let mut request = request_932(None);
    request.options.dra.kubernetes_version = "1.20".into();
    let e = simulate_dra(&request).unwrap_err();
    assert_eq!(
        e.field.as_deref(),
        Some("options.dra.kubernetes_version"),
        "{e:?}"
    );
}
