//! Kubernetes workloads per placed ask: an `apps/v1` Deployment or a KServe InferenceService with the device plugin's resource and GFD node labels.
//!
//! Resources (docs/hardware-facts.md §2): `nvidia.com/mig-<profile>` with `+` as `.` under the mixed MIG strategy,
//! `nvidia.com/gpu` for whole GPUs and single-strategy MIG, `nvidia.com/gpu.shared` for
//! time-sliced and MPS GPUs (the device-plugin export sets `renameByDefault`). Node selection uses
//! the GPU Feature Discovery labels the plan depends on. Object names are DNS-1035 labels made
//! from the ask names, unique, with the original name kept in the `gpu-share/ask` annotation.

use super::device_plugin::{sharing, Sharing};
use super::yaml::{self, Map, Value};
use super::{is_label_value, ExportOptions, MigStrategy, PlacedAsk, Plan};
use crate::catalog::GpuModel;
use crate::error::{Error, ErrorKind, Result};
use crate::plan::Mechanism;
use std::collections::BTreeSet;

/// The label (and selector) key tying a Deployment to its pods.
pub const NAME_LABEL: &str = "app.kubernetes.io/name";

/// The annotation holding the ask's original name.
pub const ASK_ANNOTATION: &str = "gpu-share/ask";

/// The annotation choosing a KServe InferenceService's deployment mode.
pub const DEPLOYMENT_MODE_ANNOTATION: &str = "serving.kserve.io/deploymentMode";

/// The KServe deployment mode the InferenceServices are written for: a plain Deployment, whose
/// node selector and affinity need no Knative feature flags (docs/hardware-facts.md §2). KServe
/// 0.16 renamed it `Standard` and reads `RawDeployment` as that; older releases know only
/// `RawDeployment`, so it is the value every release accepts.
pub const DEPLOYMENT_MODE: &str = "RawDeployment";

/// One `apps/v1` Deployment per placed ask, as YAML documents separated by `---`.
pub(crate) fn deployments(plan: &Plan, options: &ExportOptions) -> Result<String> {
    workloads(plan, options, false)
}

/// One KServe `serving.kserve.io/v1beta1` InferenceService per placed ask.
pub(crate) fn inference_services(plan: &Plan, options: &ExportOptions) -> Result<String> {
    workloads(plan, options, true)
}

/// A DNS-1035 label from `name` (lower-case letters, digits and `-`, starting with a letter, at
/// most `max` characters), not among `taken`; `-2`, `-3`, … is appended on a clash.
pub fn object_name(name: &str, max: usize, taken: &BTreeSet<String>) -> String {
    let max = max.clamp(8, 63);
    let mut base = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            base.push(c);
        } else if !base.ends_with('-') {
            base.push('-');
        }
    }
    let mut base = base.trim_matches('-').to_string();
    if base.is_empty() {
        base = "ask".into();
    }
    if !base.starts_with(|c: char| c.is_ascii_lowercase()) {
        base = format!("ask-{base}");
    }
    let cut = |s: &str, n: usize| s[..s.len().min(n)].trim_end_matches('-').to_string();
    let first = cut(&base, max);
    if !taken.contains(&first) {
        return first;
    }
    (2u64..)
        .map(|n| {
            let suffix = format!("-{n}");
            format!(
                "{}{suffix}",
                cut(&base, max.saturating_sub(suffix.len()).max(1))
            )
        })
        .find(|c| !taken.contains(c))
        .unwrap_or(first)
}

fn workloads(plan: &Plan, options: &ExportOptions, kserve: bool) -> Result<String> {
    let what = if kserve { "kserve" } else { "kubernetes" };
    let mut out = plan.header(what);
    let mps = sharing(plan, Mechanism::Mps)?;
    if options.mig_strategy == MigStrategy::Single {
        for g in &plan.mig_gpus {
            let profiles = g.distinct_profiles();
            if profiles.len() > 1 {
                return Err(Error::new(
                    ErrorKind::OutOfRange,
                    format!(
                        "GPU {} holds {}: the single MIG strategy needs one profile per GPU (and node); use mixed",
                        g.index,
                        profiles.join(" and ")
                    ),
                )
                .in_field("mig_strategy"));
            }
        }
    }
    let mut intro = if kserve {
        format!("One KServe InferenceService per placed ask (serving.kserve.io/v1beta1), one replica each: the plan reserves GPU for one.\nEach runs in KServe's {DEPLOYMENT_MODE} mode ({DEPLOYMENT_MODE_ANNOTATION}), which creates a plain Deployment: in the default Serverless (Knative) mode the predictor's nodeSelector and affinity are refused unless Knative's kubernetes.podspec-nodeselector and kubernetes.podspec-affinity features are enabled (KServe docs, InferenceService Node Scheduling). {DEPLOYMENT_MODE} does not scale to zero; KServe 0.16 and later call it Standard and still accept {DEPLOYMENT_MODE}.")
    } else {
        String::from("One apps/v1 Deployment per placed ask, one replica each: the plan reserves GPU for one.")
    };
    intro.push_str(&format!(
        "\nResources follow the NVIDIA k8s-device-plugin docs, MIG strategy {}; shared GPUs as nvidia.com/gpu.shared need the device-plugin export's configs (renameByDefault). The image is {}.",
        options.mig_strategy,
        if options.image == super::DEFAULT_IMAGE { "a placeholder: give the image to run" } else { "as given" }
    ));
    yaml::write_comment(&mut out, 0, &intro);
    // KServe's predictor host name `<name>-predictor-<namespace>` must fit a 63-character label.
    let max = if kserve {
        let ns = options.namespace.as_deref().map_or(7, str::len);
        52usize.saturating_sub(ns)
    } else {
        63
    };
    let mut taken = BTreeSet::new();
    for ask in &plan.placed {
        let name = object_name(ask.name, max, &taken);
        taken.insert(name.clone());
        out.push_str("---\n");
        let (comment, doc) = workload(plan, ask, &name, options, kserve, mps.as_ref());
        yaml::write_comment(&mut out, 0, &comment);
        out.push_str(&yaml::document(&doc));
    }
    Ok(out)
}

/// Sanitised `nvidia.com/gpu.product` values for a model (spaces as `-`, docs/hardware-facts.md §2), with
/// `-MIG-<profile>` under the single strategy; only valid label values.
fn products(model: &GpuModel, single_profile: Option<&str>) -> Vec<String> {
    let mut values: Vec<String> = model
        .smi_names
        .iter()
        .map(|n| {
            let base = n.trim().replace(' ', "-");
            match single_profile {
                Some(p) => format!("{base}-MIG-{p}"),
                None => base,
            }
        })
        .filter(|v| is_label_value(v) && !v.is_empty())
        .collect();
    values.dedup();
    values
}

fn workload(
    plan: &Plan,
    ask: &PlacedAsk,
    name: &str,
    options: &ExportOptions,
    kserve: bool,
    mps: Option<&Sharing>,
) -> (String, Map) {
    let c = ask.choice;
    let mut pod = PodParts {
        comment: format!("ask {}: {}", yaml::quoted(ask.name), c.mechanism),
        resources: Map::new(),
        selector: Map::new(),
        affinity: None,
        env: Vec::new(),
        notes: Vec::new(),
        args: Vec::new(),
    };
    if let Some(engine) = plan.engines.get(ask.name) {
        pod.engine(engine);
    }
    let single_profile = match c.mechanism {
        Mechanism::Mig => pod.mig(ask, options),
        Mechanism::Whole => {
            pod.whole(ask);
            None
        }
        Mechanism::Timeslice => {
            pod.timeslice(ask);
            None
        }
        Mechanism::Mps => {
            pod.mps(ask, mps.map_or(100, |s| s.client_percent));
            None
        }
    };
    pod.select_product(plan.model, single_profile.as_deref());
    let PodParts {
        comment,
        resources,
        selector,
        affinity,
        env,
        notes,
        args,
    } = pod;
    let container = container(&notes, resources, (env, args), options, kserve);
    let containers = Value::Seq(vec![container.into()]);
    let mut metadata = Map::new();
    metadata.insert("name", name);
    if let Some(ns) = &options.namespace {
        metadata.insert("namespace", ns);
    }
    let pod = PodSpec {
        selector,
        affinity,
        containers,
    };
    let doc = if kserve {
        inference_service(metadata, annotations(ask), pod)
    } else {
        deployment(name, metadata, annotations(ask), pod)
    };
    (comment, doc)
}

/// The one container: the notes on it, its name, the image, the GPU resource, the environment
/// and the arguments.
fn container(
    notes: &[String],
    resources: Map,
    (env, args): (Vec<Value>, Vec<String>),
    options: &ExportOptions,
    kserve: bool,
) -> Map {
    let mut container = Map::new();
    for n in notes {
        container.comment(n);
    }
    container.insert(
        "name",
        if kserve {
            "kserve-container"
        } else {
            "workload"
        },
    );
    container.insert("image", &options.image);
    super::serving::insert_args(&mut container, args);
    container.insert("resources", Map::new().with("limits", resources));
    if !env.is_empty() {
        container.insert("env", Value::Seq(env));
    }
    container
}

/// What the plan decides of an ask's pod: the comment before it, the GPU resource, the node
/// selection, the container's environment and the notes on the container.
struct PodParts {
    comment: String,
    resources: Map,
    selector: Map,
    affinity: Option<Map>,
    env: Vec<Value>,
    notes: Vec<String>,
    /// The container's arguments: an engine's, when the ask runs one.
    args: Vec<String>,
}

impl PodParts {
    /// An inference engine (`serving.rs`): its arguments, `MODEL` and note.
    fn engine(&mut self, e: &super::ServedEngine) {
        let engine = super::serving::EngineContainer::of(e);
        self.env.push(engine.env);
        self.args = engine.args;
        self.notes.push(engine.note);
    }

    /// A MIG instance: its profile's resource under the strategy, and where it sits. Returns the
    /// profile under the single strategy (the product label then names it).
    fn mig(&mut self, ask: &PlacedAsk, options: &ExportOptions) -> Option<String> {
        let c = ask.choice;
        let on = super::gpu_list(&ask.gpus);
        let profile = ask
            .instance
            .map(|i| i.profile)
            .or(c.mig_profile.as_deref())
            .unwrap_or_default();
        match ask.instance {
            Some(i) if i.memory_slices > 1 => self.comment.push_str(&format!(
                " {profile} on {on} at memory slices {}-{}",
                i.start,
                u16::from(i.start) + u16::from(i.memory_slices) - 1
            )),
            Some(i) => self
                .comment
                .push_str(&format!(" {profile} on {on} at memory slice {}", i.start)),
            None => self.comment.push_str(&format!(" {profile} on {on}")),
        }
        let mut single_profile = None;
        match options.mig_strategy {
            MigStrategy::Mixed => {
                self.resources
                    .insert(format!("nvidia.com/mig-{}", profile.replace('+', ".")), "1");
            }
            MigStrategy::Single => {
                self.resources.insert("nvidia.com/gpu", "1");
                single_profile = Some(profile.to_string());
            }
        }
        self.selector
            .insert("nvidia.com/mig.strategy", options.mig_strategy.as_str());
        single_profile
    }

    /// Whole GPUs, on nodes that do not share them.
    fn whole(&mut self, ask: &PlacedAsk) {
        let c = ask.choice;
        let plural = if c.gpus == 1 { "" } else { "s" };
        self.comment.push_str(&format!(
            ", {} GPU{plural} ({})",
            c.gpus,
            super::gpu_list(&ask.gpus)
        ));
        self.resources.insert("nvidia.com/gpu", c.gpus.to_string());
        self.selector
            .insert("nvidia.com/gpu.sharing-strategy", "none");
    }

    /// A time-sliced replica.
    fn timeslice(&mut self, ask: &PlacedAsk) {
        self.comment.push_str(&format!(
            ", {} of {} (a planning share: time-slicing enforces no fraction)",
            ask.choice.allocated_fraction,
            super::gpu_list(&ask.gpus)
        ));
        self.resources.insert("nvidia.com/gpu.shared", "1");
        self.selector
            .insert("nvidia.com/gpu.sharing-strategy", "time-slicing");
    }

    /// An MPS replica, with the ask's thread percentage where the plugin's daemon (which gives
    /// each client `daemon` percent) lets a client set it.
    fn mps(&mut self, ask: &PlacedAsk, daemon: u32) {
        let c = ask.choice;
        self.comment.push_str(&format!(
            ", {} of {}",
            c.allocated_fraction,
            super::gpu_list(&ask.gpus)
        ));
        self.resources.insert("nvidia.com/gpu.shared", "1");
        self.selector
            .insert("nvidia.com/gpu.sharing-strategy", "mps");
        match c.mps {
            // A client may only lower the daemon's thread percentage (docs/hardware-facts.md §3).
            Some(limits) if u32::from(limits.active_thread_percentage) <= daemon => {
                self.env.push(
                    Map::new()
                        .with("name", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")
                        .with("value", limits.active_thread_percentage.to_string())
                        .into(),
                );
                self.notes.push(format!(
                    "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: the ask's share, at most the {daemon}% the plugin's daemon gives each client (a client can only lower it), and a ceiling, not a reservation: it limits what the client may use and reserves nothing (NVIDIA MPS docs)."
                ));
            }
            Some(limits) => self.notes.push(format!(
                "⚠ the ask needs {}% of the threads but the plugin's daemon gives each client {daemon}%; a client cannot raise it (NVIDIA MPS docs).",
                limits.active_thread_percentage
            )),
            None => {}
        }
        if let Some(mib) = c.mps.and_then(|l| l.pinned_memory_mib) {
            self.notes.push(format!(
                "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT ({mib} MiB for this ask) is not set: the plugin's daemon already limits each client to total/replicas, and NVIDIA's docs do not say whether a client may change that or which device index it sees (unverified)."
            ));
        }
    }

    /// Nodes of the plan's GPU model, by their `nvidia.com/gpu.product` label: a selector for one
    /// value, a required node affinity for several, a note for none.
    fn select_product(&mut self, model: Option<&GpuModel>, single_profile: Option<&str>) {
        let Some(model) = model else {
            self.notes
                .push("no GPU model in the plan: no nvidia.com/gpu.product selector".into());
            return;
        };
        let values = products(model, single_profile);
        match values.len() {
            0 => self.notes.push(format!(
                "no valid nvidia.com/gpu.product label value for {}: no product selector",
                model.name
            )),
            1 => {
                self.selector
                    .insert("nvidia.com/gpu.product", values[0].clone());
            }
            _ => self.affinity = Some(product_affinity(values)),
        }
        if single_profile.is_some() {
            self.notes.push("gpu.product under the single strategy is <product>-MIG-<profile> (NVIDIA's GPU Feature Discovery docs show it without the NVIDIA- prefix, for an older driver's product name) (unverified).".into());
        }
    }
}

/// A node affinity requiring one of the `nvidia.com/gpu.product` values.
fn product_affinity(values: Vec<String>) -> Map {
    let expression = Map::new()
        .with("key", "nvidia.com/gpu.product")
        .with("operator", "In")
        .with(
            "values",
            Value::Seq(values.into_iter().map(Value::from).collect()),
        );
    let term = Map::new().with("matchExpressions", Value::Seq(vec![expression.into()]));
    let required = Map::new().with("nodeSelectorTerms", Value::Seq(vec![term.into()]));
    Map::new().with(
        "nodeAffinity",
        Map::new().with("requiredDuringSchedulingIgnoredDuringExecution", required),
    )
}

/// The annotations that say which ask a workload is and what the plan chose for it.
fn annotations(ask: &PlacedAsk) -> Map {
    let c = ask.choice;
    let mut annotations = Map::new();
    annotations.insert(ASK_ANNOTATION, ask.name);
    annotations.insert("gpu-share/mechanism", c.mechanism.as_str());
    if let Some(p) = &c.mig_profile {
        annotations.insert("gpu-share/mig-profile", p);
    }
    annotations.insert(
        "gpu-share/requested-fraction",
        c.requested_fraction.to_string(),
    );
    annotations.insert("gpu-share/gpus", super::ranges(&ask.gpus));
    annotations
}

/// The pod spec's parts, in the order they are written: node selector, affinity, containers.
struct PodSpec {
    selector: Map,
    affinity: Option<Map>,
    containers: Value,
}

impl PodSpec {
    /// `start` (a pod spec, or KServe's predictor) with the node selection and the containers.
    fn into_map(self, start: Map) -> Map {
        let mut map = start.with("nodeSelector", self.selector);
        if let Some(a) = self.affinity {
            map.insert("affinity", a);
        }
        map.insert("containers", self.containers);
        map
    }
}

/// A KServe InferenceService in raw deployment mode, one replica.
fn inference_service(mut metadata: Map, mut annotations: Map, pod: PodSpec) -> Map {
    annotations.insert(DEPLOYMENT_MODE_ANNOTATION, DEPLOYMENT_MODE);
    metadata.insert("annotations", annotations);
    let mut doc = Map::new();
    doc.insert("apiVersion", "serving.kserve.io/v1beta1");
    doc.insert("kind", "InferenceService");
    doc.insert("metadata", metadata);
    // The predictor holds a pod spec inline, beside its replica bounds.
    let predictor = pod.into_map(
        Map::new()
            .with("minReplicas", 1u32)
            .with("maxReplicas", 1u32),
    );
    doc.insert("spec", Map::new().with("predictor", predictor));
    doc
}

/// An `apps/v1` Deployment of one replica, its pods labelled with its name.
fn deployment(name: &str, mut metadata: Map, annotations: Map, pod: PodSpec) -> Map {
    let pod = pod.into_map(Map::new());
    let labels = Map::new().with(NAME_LABEL, name);
    metadata.insert("labels", labels.clone());
    metadata.insert("annotations", annotations);
    let mut doc = Map::new();
    doc.insert("apiVersion", "apps/v1");
    doc.insert("kind", "Deployment");
    doc.insert("metadata", metadata);
    let template = Map::new()
        .with("metadata", Map::new().with("labels", labels.clone()))
        .with("spec", pod);
    let spec = Map::new()
        .with("replicas", 1u32)
        .with("selector", Map::new().with("matchLabels", labels))
        .with("template", template);
    doc.insert("spec", spec);
    doc
}

#[cfg(test)]
mod tests {
    use crate::ask::FractionalAsk;
    use crate::caps::ClusterGpuCaps;
    use crate::export::{export, ExportFormat, ExportOptions};
    use crate::pack::bin_pack;

    /// KServe's documentation (kserve/website
    /// `docs/model-serving/node-scheduling/isvc-node-scheduling.md`, "InferenceService Node
    /// Scheduling"): "For serverless deployment mode, you must enable the Knative flags to support
    /// node scheduling features" (`kubernetes.podspec-affinity`, `kubernetes.podspec-nodeselector`,
    /// `kubernetes.podspec-tolerations`), while "For raw deployment mode, no special configuration
    /// is required to enable node scheduling features. Node selector, node affinity, and
    /// tolerations are supported out-of-the-box in standard Kubernetes deployments. To use raw
    /// deployment mode with your `InferenceService`, simply add the following annotation:
    /// `serving.kserve.io/deploymentMode: RawDeployment`". KServe's controller
    /// (kserve/kserve `pkg/controller/v1beta1/inferenceservice/utils/utils.go`, `GetDeploymentMode`)
    /// still reads it in releases that renamed the mode: "LegacyRawDeployment is deprecated, so we
    /// treat it as Standard". So every InferenceService that carries a node selector or affinity
    /// must carry that annotation.
    #[test]
    fn inference_services_with_node_selection_run_in_raw_deployment_mode() {
        let cases: [(&[&str], ClusterGpuCaps); 2] = [
            (
                &["x:3g.40gb", "y:0.5"],
                ClusterGpuCaps {
                    supports_mig: true,
                    supports_timeslicing: true,
                    // Two nvidia-smi names, so the product selector is a node affinity.
                    gpu_model: Some("h100".into()),
                    ..Default::default()
                },
            ),
            (
                &["a:0.5", "b:0.3", "c:1"],
                ClusterGpuCaps {
                    supports_mps: true,
                    gpu_model: Some("l4".into()),
                    ..Default::default()
                },
            ),
        ];
        for (specs, caps) in cases {
            let asks: Vec<FractionalAsk> = specs
                .iter()
                .map(|s| FractionalAsk::parse_spec(s).unwrap())
                .collect();
            let r = bin_pack(&asks, &caps).unwrap();
            let text = export(&r, ExportFormat::KServe, &ExportOptions::default()).unwrap();
            let docs: Vec<&str> = text.split("---\n").skip(1).collect();
            assert_eq!(docs.len(), asks.len(), "{text}");
            for doc in docs {
                assert!(doc.contains("kind: InferenceService"), "{doc}");
                assert!(
                    doc.contains("nodeSelector:") || doc.contains("affinity:"),
                    "{doc}"
                );
                assert!(
                    doc.contains("serving.kserve.io/deploymentMode: RawDeployment\n"),
                    "{doc}"
                );
            }
            assert!(text.contains("kubernetes.podspec-nodeselector"), "{text}");
        }
        // A plain Deployment does not get KServe's annotation.
        let asks = [FractionalAsk::parse_spec("a:0.5").unwrap()];
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            ..Default::default()
        };
        let r = bin_pack(&asks, &caps).unwrap();
        let text = export(&r, ExportFormat::Kubernetes, &ExportOptions::default()).unwrap();
        assert!(!text.contains("deploymentMode"), "{text}");
    }
}
