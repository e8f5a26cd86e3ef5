//! The DRA plan as YAML documents: ResourceClaims, ResourceClaimTemplates and the Deployments that reference them.
//!
//! Shapes (docs/hardware-facts.md §13): in `resource.k8s.io/v1` a request's `deviceClassName`,
//! `count`, `selectors` and `capacity` sit under `exactly`; in `v1beta1` on the request. A
//! template wraps the claim's spec in `spec.spec`. The driver's `GpuConfig` goes in
//! `spec.devices.config[].opaque` with `driver: gpu.nvidia.com`. A Deployment's pod names its
//! claims in `spec.resourceClaims` (`resourceClaimName` or `resourceClaimTemplateName`) and its
//! container takes them in `resources.claims` (with `request` to take one request of a claim).
//! An ask that runs an inference engine gets its container's arguments (`serving.rs`).

use super::claims::{ClaimKind, DraClaim, DraPlan, DraRequest, DraWorkload, GpuSharing};
use super::options::ResourceApi;
use crate::discover::resource_slice::NVIDIA_DRIVER;
use crate::export::kubernetes::{ASK_ANNOTATION, NAME_LABEL};
use crate::export::serving::{insert_args, EngineContainer};
use crate::export::yaml::{Map, Value};
use crate::export::{ExportOptions, ServedEngine};
use crate::plan::Mechanism;

/// The name a pod gives the claim it references (one per pod).
pub const POD_CLAIM: &str = "gpu";

/// The `matchAttribute` holding a claim's MIG devices on one GPU.
pub const PARENT_UUID: &str = "gpu.nvidia.com/parentUUID";

/// The API group and version of the driver's opaque configs.
pub const GPU_CONFIG_API: &str = "resource.nvidia.com/v1beta1";

fn metadata(name: &str, options: &ExportOptions) -> Map {
    let mut m = Map::new().with("name", name);
    if let Some(ns) = &options.namespace {
        m.insert("namespace", ns);
    }
    m
}

/// One request, in the shape of `api`.
fn request(r: &DraRequest, api: ResourceApi) -> Map {
    let mut fields: Vec<(&str, Value)> = vec![
        ("deviceClassName", r.class.name().into()),
        ("allocationMode", "ExactCount".into()),
        ("count", r.count.into()),
    ];
    if let Some(expression) = r.cel_expression() {
        let selector = Map::new().with("cel", Map::new().with("expression", expression));
        fields.push(("selectors", Value::Seq(vec![selector.into()])));
    }
    if let Some(mib) = r.memory_mib {
        let requests = Map::new().with("memory", format!("{mib}Mi"));
        fields.push(("capacity", Map::new().with("requests", requests).into()));
    }
    let mut out = Map::new().with("name", &r.name);
    match api {
        ResourceApi::V1 => {
            let mut exactly = Map::new();
            for (key, value) in fields {
                exactly.insert(key, value);
            }
            out.insert("exactly", exactly);
        }
        ResourceApi::V1beta1 => {
            for (key, value) in fields {
                out.insert(key, value);
            }
        }
    }
    out
}

/// The driver's `GpuConfig` for a sharing setting.
fn gpu_config(sharing: GpuSharing) -> Map {
    let settings = match sharing {
        GpuSharing::TimeSlicing { interval } => Map::new().with("strategy", "TimeSlicing").with(
            "timeSlicingConfig",
            Map::new().with("interval", interval.as_str()),
        ),
        GpuSharing::Mps {
            active_thread_percentage,
            pinned_memory_mib,
        } => {
            let mut mps = Map::new().with(
                "defaultActiveThreadPercentage",
                u32::from(active_thread_percentage),
            );
            if let Some(mib) = pinned_memory_mib {
                mps.insert("defaultPinnedDeviceMemoryLimit", format!("{mib}Mi"));
            }
            Map::new().with("strategy", "MPS").with("mpsConfig", mps)
        }
    };
    Map::new()
        .with("apiVersion", GPU_CONFIG_API)
        .with("kind", "GpuConfig")
        .with("sharing", settings)
}

/// `spec.devices` of a claim.
fn devices(claim: &DraClaim, api: ResourceApi) -> Map {
    let requests: Vec<Value> = claim
        .requests
        .iter()
        .map(|r| request(r, api).into())
        .collect();
    let mut devices = Map::new().with("requests", Value::Seq(requests));
    if claim.same_gpu {
        let names: Vec<Value> = claim
            .requests
            .iter()
            .map(|r| Value::from(r.name.as_str()))
            .collect();
        let constraint = Map::new()
            .with("requests", Value::Seq(names))
            .with("matchAttribute", PARENT_UUID);
        devices.insert("constraints", Value::Seq(vec![constraint.into()]));
    }
    if let Some(sharing) = claim.sharing {
        let opaque = Map::new()
            .with("driver", NVIDIA_DRIVER)
            .with("parameters", gpu_config(sharing));
        let config = Map::new().with("opaque", opaque);
        devices.insert("config", Value::Seq(vec![config.into()]));
    }
    devices
}

/// A claim as a ResourceClaim or ResourceClaimTemplate document.
pub(crate) fn claim_document(claim: &DraClaim, api: ResourceApi, options: &ExportOptions) -> Map {
    let spec = Map::new().with("devices", devices(claim, api));
    let mut doc = Map::new().with("apiVersion", api.api_version());
    match claim.kind {
        ClaimKind::Shared => {
            doc.insert("kind", "ResourceClaim");
            doc.insert("metadata", metadata(&claim.name, options));
            doc.insert("spec", spec);
        }
        ClaimKind::Template => {
            doc.insert("kind", "ResourceClaimTemplate");
            doc.insert("metadata", metadata(&claim.name, options));
            doc.insert("spec", Map::new().with("spec", spec));
        }
    }
    doc
}

/// The Deployment of one workload.
pub(crate) fn deployment(
    plan: &DraPlan,
    w: &DraWorkload,
    engine: Option<&ServedEngine>,
    options: &ExportOptions,
) -> Map {
    let claim = &plan.claims[w.claim];
    let mut pod_claim = Map::new().with("name", POD_CLAIM);
    match claim.kind {
        ClaimKind::Shared => pod_claim.insert("resourceClaimName", &claim.name),
        ClaimKind::Template => pod_claim.insert("resourceClaimTemplateName", &claim.name),
    };
    let mut container_claim = Map::new().with("name", POD_CLAIM);
    if let Some(r) = &w.request {
        container_claim.insert("request", r);
    }
    let engine = engine.map(EngineContainer::of);
    let mut container = Map::new();
    if let Some(e) = &engine {
        container.comment(&e.note);
    }
    container.insert("name", "workload");
    container.insert("image", &options.image);
    let (mut env, args) = engine.map_or((Vec::new(), Vec::new()), |e| (vec![e.env], e.args));
    insert_args(&mut container, args);
    container.insert(
        "resources",
        Map::new().with("claims", Value::Seq(vec![container_claim.into()])),
    );
    if let Some(pct) = w.mps_thread_percentage {
        container.comment("A client may only lower the MPS daemon's thread percentage (NVIDIA MPS docs): this ask's share, below the claim's default.");
        let var = Map::new()
            .with("name", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")
            .with("value", pct.to_string());
        env.push(var.into());
    }
    if !env.is_empty() {
        container.insert("env", Value::Seq(env));
    }
    let c = w.ask.choice;
    let mut annotations = Map::new()
        .with(ASK_ANNOTATION, w.ask.name)
        .with("gpu-share/mechanism", c.mechanism.as_str());
    if let Some(p) = &c.mig_profile {
        annotations.insert("gpu-share/mig-profile", p);
    }
    annotations.insert(
        "gpu-share/requested-fraction",
        c.requested_fraction.to_string(),
    );
    annotations.insert("gpu-share/gpus", crate::export::ranges(&w.ask.gpus));
    let labels = Map::new().with(NAME_LABEL, &w.object);
    let pod = Map::new()
        .with("resourceClaims", Value::Seq(vec![pod_claim.into()]))
        .with("containers", Value::Seq(vec![container.into()]));
    let template = Map::new()
        .with("metadata", Map::new().with("labels", labels.clone()))
        .with("spec", pod);
    let mut spec = Map::new().with("replicas", 1u32);
    spec.comment("Recreate: a rolling update would start the new pod while the old one holds the claim's devices.");
    spec.insert("strategy", Map::new().with("type", "Recreate"));
    spec.insert("selector", Map::new().with("matchLabels", labels.clone()));
    spec.insert("template", template);
    Map::new()
        .with("apiVersion", "apps/v1")
        .with("kind", "Deployment")
        .with(
            "metadata",
            metadata(&w.object, options)
                .with("labels", labels)
                .with("annotations", annotations),
        )
        .with("spec", spec)
}

/// The comment above a claim: what it stands for and why it is shaped so.
pub(crate) fn claim_comment(claim: &DraClaim, plan: &DraPlan) -> String {
    let users: Vec<String> = plan
        .workloads
        .iter()
        .filter(|w| std::ptr::eq(&plan.claims[w.claim], claim))
        .map(|w| crate::export::yaml::quoted(w.ask.name))
        .collect();
    let gpus = crate::export::gpu_list(&claim.planned_gpus);
    let mechanism = match (claim.kind, claim.sharing, claim.requests.first()) {
        (ClaimKind::Template, ..) => Mechanism::Whole,
        (_, Some(GpuSharing::Mps { .. }), _) => Mechanism::Mps,
        (_, Some(GpuSharing::TimeSlicing { .. }), _) => Mechanism::Timeslice,
        _ => Mechanism::Mig,
    };
    let why = match mechanism {
        Mechanism::Mig if claim.same_gpu => "one ResourceClaim holding every MIG device of the planned GPU, largest first (the scheduler takes requests in order, first fit), kept on one GPU by matchAttribute gpu.nvidia.com/parentUUID; each workload takes its own request",
        Mechanism::Mig => "one ResourceClaim for the planned GPU's MIG device",
        Mechanism::Mps => "one ResourceClaim shared by every tenant's pod (pods share a device only through one claim); GpuConfig MPS with the largest tenant's thread percentage and pinned memory as the daemon's defaults (a ceiling, not a reservation)",
        Mechanism::Timeslice => "one ResourceClaim shared by every tenant's pod (pods share a device only through one claim); GpuConfig TimeSlicing, which enforces no share of compute or memory",
        Mechanism::Whole => "a ResourceClaimTemplate: each pod gets its own claim and GPUs",
    };
    format!("{gpus} ({mechanism}) for {}: {why}.", users.join(", "))
}
