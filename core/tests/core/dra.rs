//! The DRA export and the first-fit simulation on ResourceSlices in the shape the NVIDIA DRA driver publishes (tests/fixtures/resourceslices, with their sources).
//!
//! Every CEL selector the export writes is evaluated by a CEL engine (the `cel` crate, cel-spec
//! grammar) against every device of the fixtures, behind the driver's DeviceClass selectors
//! (docs/hardware-facts.md §13): each MIG request matches exactly the devices of its profile on its
//! board. The simulation reproduces dra-driver-nvidia-gpu#932: seven pods each with a template
//! asking one 1g.10gb, on four H100 PCIe with dynamic MIG.

use cel::{Context, Program, Value as Cel};
use gpu_share_core::internals::discover::resource_slice::{
    resource_slices_from_value, Attribute, ResourceSlices, SliceDevice,
};
use gpu_share_core::internals::discover::{detect, SourceFormat};
use gpu_share_core::internals::export::dra::allocator::{compare, simulate, SliceOrder};
use gpu_share_core::internals::export::dra::{claims_for as claims, DeviceClass, DraOptions};
use gpu_share_core::internals::pack::{bin_pack, PackResult};
use gpu_share_core::internals::ClusterGpuCaps;
use std::collections::{BTreeSet, HashMap};

use crate::common::{asks, caps, fixture};

/// The dynamic-MIG fixture (JSON).
fn dynamic_text() -> String {
    fixture("resourceslices/h100-pcie-dynamic-mig.json")
}

/// Both fixtures as slices; the YAML one read by a real YAML reader into JSON values.
fn slices(name: &str) -> ResourceSlices {
    let text = fixture(&format!("resourceslices/{name}"));
    let value: serde_json::Value = if name.ends_with(".yaml") {
        serde_norway::from_str(&text).unwrap()
    } else {
        serde_json::from_str(&text).unwrap()
    };
    resource_slices_from_value(&value).unwrap()
}

fn pack(specs: &[&str], caps: &ClusterGpuCaps) -> PackResult {
    bin_pack(&asks(specs), caps).unwrap()
}

/// `device` as Kubernetes' DRA CEL environment sees it: `driver`, and `attributes` by domain.
fn device_value(driver: &str, d: &SliceDevice) -> Cel {
    let mut domains: HashMap<String, HashMap<String, Cel>> = HashMap::new();
    for (key, value) in &d.attributes {
        let (domain, name) = key.split_once('/').unwrap();
        let v = match value {
            Attribute::String(s) | Attribute::Version(s) => Cel::from(s.clone()),
            Attribute::Int(n) => Cel::from(*n),
            Attribute::Bool(b) => Cel::from(*b),
        };
        domains
            .entry(domain.to_string())
            .or_default()
            .insert(name.to_string(), v);
    }
    let attributes: HashMap<String, Cel> = domains
        .into_iter()
        .map(|(k, m)| (k, Cel::from(m)))
        .collect();
    let mut device: HashMap<String, Cel> = HashMap::new();
    device.insert("driver".into(), Cel::from(driver.to_string()));
    device.insert("attributes".into(), Cel::from(attributes));
    Cel::from(device)
}

fn eval(program: &Program, device: &Cel) -> bool {
    let mut context = Context::default();
    context.add_variable_from_value("device", device.clone());
    match program.execute(&context) {
        Ok(Cel::Bool(b)) => b,
        other => panic!("a selector gave {other:?}"),
    }
}

/// The NVIDIA driver's DeviceClass selector (its Helm chart's deviceclass templates).
fn class_selector(class: DeviceClass) -> Program {
    Program::compile(&format!(
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == '{}'",
        class.device_type()
    ))
    .unwrap()
}

/// Devices (by name) that the class and the request's CEL select.
fn cel_matches(slices: &ResourceSlices, class: DeviceClass, expression: &str) -> BTreeSet<String> {
    let class = class_selector(class);
    let request = Program::compile(expression).unwrap_or_else(|e| panic!("{expression}: {e:?}"));
    let mut out = BTreeSet::new();
    for s in &slices.slices {
        for d in &s.devices {
            let value = device_value(&s.driver, d);
            if eval(&class, &value) && eval(&request, &value) {
                out.insert(format!("{}/{}", s.pool, d.name));
            }
        }
    }
    out
}

/// What the request means: devices of its type, profile and board, by their attributes.
fn by_attributes(
    slices: &ResourceSlices,
    class: DeviceClass,
    profile: Option<&str>,
    boards: &[String],
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in &slices.slices {
        for d in &s.devices {
            let fits = d.nvidia("type") == Some(class.device_type())
                && profile.is_none_or(|p| d.nvidia("profile") == Some(p))
                && d.nvidia("productName")
                    .is_some_and(|n| boards.iter().any(|b| b == n));
            if fits {
                out.insert(format!("{}/{}", s.pool, d.name));
            }
        }
    }
    out
}

/// Every selector of `result`'s claims, evaluated by CEL on `slices`, selects exactly what it means.
fn check_selectors(result: &PackResult, slices: &ResourceSlices, expect_matches: bool) -> usize {
    let mut checked = 0;
    for claim in claims(result, &DraOptions::default()).unwrap() {
        for r in &claim.requests {
            let expression = r.cel_expression().expect("every request selects its board");
            let matched = cel_matches(slices, r.class, &expression);
            let meant = by_attributes(slices, r.class, r.profile.as_deref(), &r.product_names);
            assert_eq!(matched, meant, "{expression}");
            assert_eq!(
                !matched.is_empty(),
                expect_matches,
                "{expression}: {matched:?}"
            );
            if let Some(p) = &r.profile {
                for m in &matched {
                    let device = m.split('/').nth(1).unwrap();
                    assert!(device.contains(&p.replace('.', "")), "{p}: {device}");
                }
            }
            checked += 1;
        }
    }
    checked
}

#[test]
fn mig_selectors_match_only_their_profile_on_their_board() {
    let a100 = slices("a100-80gb-pcie-static-mig.yaml");
    let h100 = slices("h100-pcie-dynamic-mig.json");
    let mig = |model: &str| caps(true, false, false, model);
    let a100_plan = pack(
        &["a:3g.40gb", "b:2g.20gb", "c:1g.10gb", "d:1g.10gb"],
        &mig("A100-80GB-PCIe"),
    );
    assert_eq!(check_selectors(&a100_plan, &a100, true), 4);
    // The same profiles on another board select nothing here.
    let h100_plan = pack(
        &["a:3g.40gb", "b:2g.20gb", "c:1g.10gb", "e:1g.20gb"],
        &mig("H100-PCIe"),
    );
    assert_eq!(check_selectors(&h100_plan, &a100, false), 4);
    assert_eq!(check_selectors(&h100_plan, &h100, true), 4);
    // 1g.10gb does not select 1g.10gb+me (a profile of its own).
    let all = claims(&h100_plan, &DraOptions::default()).unwrap();
    let small = all
        .iter()
        .flat_map(|c| &c.requests)
        .find(|r| r.profile.as_deref() == Some("1g.10gb"))
        .unwrap();
    let one = cel_matches(&h100, DeviceClass::Mig, &small.cel_expression().unwrap());
    assert_eq!(one.len(), 4 * 7, "{one:?}");
}

#[test]
fn shared_and_whole_selectors_match_only_whole_gpus_of_the_board() {
    let a100 = slices("a100-80gb-pcie-static-mig.yaml");
    let caps = caps(false, false, true, "A100-80GB-PCIe");
    let plan = pack(&["a:0.5", "b:0.25", "w:2"], &caps);
    assert_eq!(check_selectors(&plan, &a100, true), 2);
    let all = claims(&plan, &DraOptions::default()).unwrap();
    let expression = all[0].requests[0].cel_expression().unwrap();
    // The MIG node's GPUs are advertised whole too (dra-driver-nvidia-gpu#719): four whole GPUs.
    assert_eq!(cel_matches(&a100, DeviceClass::Gpu, &expression).len(), 4);
}

#[test]
fn a_wrong_selector_is_caught() {
    // The check can fail: a 2g.20gb selector does not match the 1g.10gb devices.
    let a100 = slices("a100-80gb-pcie-static-mig.yaml");
    let wrong = cel_matches(
        &a100,
        DeviceClass::Mig,
        "device.attributes['gpu.nvidia.com'].profile == '2g.20gb'",
    );
    let meant = by_attributes(
        &a100,
        DeviceClass::Mig,
        Some("1g.10gb"),
        &["NVIDIA A100 80GB PCIe".into()],
    );
    assert!(!wrong.is_empty() && wrong.is_disjoint(&meant));
}

#[test]
fn detect_reads_dynamic_mig_slices_as_profiles_on_offer() {
    let inv = detect(&dynamic_text()).unwrap();
    assert_eq!(inv.sources, vec![SourceFormat::KubectlResourceSlices]);
    assert_eq!(inv.gpus.len(), 4);
    for (i, g) in inv.gpus.iter().enumerate() {
        assert_eq!(g.index, i as u64);
        assert_eq!(g.node.as_deref(), Some("gpu-node-1"));
        assert_eq!(g.model.as_deref(), Some("H100-PCIe"));
        assert_eq!(g.memory_mib, Some(81152));
        assert!(g.mig_capable && !g.mig_enabled && g.mig_devices.is_empty());
        assert_eq!(
            g.pci_bus_id.as_deref(),
            Some(format!("0000:{:02x}:00.0", 0x17 + 0x20 * i).as_str())
        );
    }
    let mut profiles = inv.mig_profiles.clone();
    profiles.sort();
    assert_eq!(
        profiles,
        [
            "1g.10gb",
            "1g.10gb+me",
            "1g.20gb",
            "2g.20gb",
            "3g.40gb",
            "4g.40gb",
            "7g.80gb"
        ]
    );
    let caps = inv.caps();
    assert!(caps.supports_mig);
    assert_eq!(caps.gpu_model.as_deref(), Some("H100-PCIe"));
    assert_eq!(caps.gpu_count, Some(4));
    assert_eq!(inv.nodes.len(), 1);
    assert!(
        inv.notes.iter().any(|n| n.contains("DynamicMIG")),
        "{:?}",
        inv.notes
    );
}

#[test]
fn detect_reads_static_mig_slices_as_the_live_layout() {
    let text = serde_json::to_string(
        &serde_norway::from_str::<serde_json::Value>(&fixture(
            "resourceslices/a100-80gb-pcie-static-mig.yaml",
        ))
        .unwrap(),
    )
    .unwrap();
    let inv = detect(&text).unwrap();
    assert_eq!(inv.gpus.len(), 4);
    assert_eq!(inv.nodes.len(), 2);
    let mig: Vec<_> = inv.gpus.iter().filter(|g| g.mig_enabled).collect();
    assert_eq!(mig.len(), 2);
    let layout = |g: &gpu_share_core::internals::discover::DiscoveredGpu| {
        let mut l: Vec<(String, Option<u8>)> = g
            .mig_devices
            .iter()
            .map(|d| (d.profile.clone(), d.start))
            .collect();
        l.sort();
        l
    };
    let s = |p: &str, at: u8| (p.to_string(), Some(at));
    assert_eq!(
        layout(mig[0]),
        [
            s("1g.10gb", 2),
            s("1g.10gb", 3),
            s("2g.20gb", 0),
            s("3g.40gb", 4)
        ]
    );
    assert_eq!(
        layout(mig[1]),
        [
            s("1g.10gb", 6),
            s("2g.20gb", 0),
            s("2g.20gb", 2),
            s("2g.20gb", 4)
        ]
    );
    assert_eq!(mig[0].mig_devices[0].memory_mib, Some(9728));
    assert!(
        inv.notes.iter().any(|n| n.contains("#719")),
        "{:?}",
        inv.notes
    );
    let caps = inv.caps();
    assert!(caps.supports_mig);
    assert_eq!(caps.gpu_model.as_deref(), Some("A100-80GB-PCIe"));
}

/// dra-driver-nvidia-gpu#932: seven 1g.10gb, one pod each.
fn case_932() -> (ResourceSlices, PackResult) {
    let slices = slices("h100-pcie-dynamic-mig.json");
    let caps = detect(&dynamic_text()).unwrap().caps();
    let names: Vec<String> = (1..=7).map(|i| format!("mig-claim-{i}:1g.10gb")).collect();
    let specs: Vec<&str> = names.iter().map(String::as_str).collect();
    (slices, pack(&specs, &caps))
}

#[test]
fn first_fit_strands_the_932_case_and_gpu_share_claims_do_not() {
    let (slices, plan) = case_932();
    assert_eq!(plan.gpus_used, 1);
    let options = DraOptions {
        mig: gpu_share_core::internals::export::dra::MigManagement::Dynamic,
        ..DraOptions::default()
    };
    let spread = compare(&slices, &plan, &options, SliceOrder::Spread).unwrap();
    assert_eq!(spread.planned_gpus_used, 1);
    assert_eq!(spread.planned_stranded_memory_slices, 1);
    assert_eq!(spread.planned_whole_gpus_left, Some(3));
    // A template per pod, slices visited emptiest first: every GPU broken up.
    assert!(spread.per_ask.claims.iter().all(|c| c.allocated));
    assert_eq!(spread.per_ask.gpus_used, 4);
    assert_eq!(spread.per_ask.whole_gpus_left, 0);
    assert_eq!(spread.per_ask.stranded_memory_slices, 4);
    for g in &spread.per_ask.gpus {
        assert_eq!(g.stranded_memory_slices, vec![7], "{g:?}");
        assert_eq!(g.largest_creatable.as_deref(), Some("3g.40gb"), "{g:?}");
    }
    // gpu-share's claim holds the seven on one GPU whatever the order.
    for order in [SliceOrder::Spread, SliceOrder::Listed] {
        let r = compare(&slices, &plan, &options, order).unwrap();
        assert_eq!(r.gpu_share.gpus_used, 1, "{order:?}");
        assert_eq!(r.gpu_share.whole_gpus_left, 3, "{order:?}");
        assert_eq!(r.gpu_share.stranded_memory_slices, 1, "{order:?}");
        let devices = &r.gpu_share.claims[0].devices;
        assert_eq!(devices.len(), 7);
        let gpus: BTreeSet<_> = devices.iter().map(|d| d.gpu.clone()).collect();
        assert_eq!(gpus.len(), 1);
    }
    // In list order the templates pack too: the stranding comes from the order.
    let listed = compare(&slices, &plan, &options, SliceOrder::Listed).unwrap();
    assert_eq!(listed.per_ask.gpus_used, 1);
}

#[test]
fn counters_stop_overlapping_placements() {
    // The shared counters keep partitions of one GPU apart: the claims of a plan take as many
    // GPUs as it planned (a 7g.80gb shares its GPU with nothing), and five copies of it do not
    // fit on four GPUs.
    let slices = slices("h100-pcie-dynamic-mig.json");
    let caps = detect(&dynamic_text()).unwrap().caps();
    let plan = pack(
        &["big:7g.80gb", "a:1g.10gb", "b:4g.40gb", "c:3g.40gb"],
        &caps,
    );
    let ours = claims(&plan, &DraOptions::default()).unwrap();
    let r = simulate(&slices, &ours, SliceOrder::Listed).unwrap();
    assert!(r.claims.iter().all(|c| c.allocated), "{r:?}");
    let by_gpu: BTreeSet<_> = r.claims.iter().map(|c| c.devices[0].gpu.clone()).collect();
    assert_eq!(by_gpu.len() as u64, plan.gpus_used);
    let mut all = claims(&plan, &DraOptions::default()).unwrap();
    all.extend(claims(&plan, &DraOptions::default()).unwrap());
    all.extend(claims(&plan, &DraOptions::default()).unwrap());
    all.extend(claims(&plan, &DraOptions::default()).unwrap());
    all.extend(claims(&plan, &DraOptions::default()).unwrap());
    let r = simulate(&slices, &all, SliceOrder::Listed).unwrap();
    let failed = r.claims.iter().filter(|c| !c.allocated).count();
    assert!(
        failed > 0,
        "four GPUs cannot hold five copies of a plan that needs {}",
        plan.gpus_used
    );
}

#[test]
fn on_static_mig_the_held_claim_finds_the_gpu_with_the_layout() {
    let slices = slices("a100-80gb-pcie-static-mig.yaml");
    let caps = caps(true, false, false, "A100-80GB-PCIe");
    let plan = pack(&["a:2g.20gb", "b:2g.20gb", "c:2g.20gb", "d:1g.10gb"], &caps);
    assert_eq!(plan.gpus_used, 1);
    let r = compare(&slices, &plan, &DraOptions::default(), SliceOrder::Listed).unwrap();
    // Templates take the first devices of each profile: GPU 0's 2g.20gb, then GPU 1's.
    assert_eq!(r.per_ask.gpus_used, 2, "{:?}", r.per_ask.claims);
    assert_eq!(r.gpu_share.gpus_used, 1, "{:?}", r.gpu_share.claims);
    let gpu = &r.gpu_share.claims[0].devices[0].gpu;
    assert!(r.gpu_share.claims[0].devices.iter().all(|d| &d.gpu == gpu));
    let idle: usize = r.gpu_share.gpus.iter().map(|g| g.idle_devices.len()).sum();
    assert_eq!(idle, 4, "GPU 0's four MIG devices stay free");
}

#[test]
fn time_sliced_tenants_get_a_gpu_each_from_templates_and_one_from_the_shared_claim() {
    // Under DRA a template gives every pod its own device (a Deployment of N replicas with a template
    // asks for N GPUs); gpu-share's shared claim puts the four tenants on one. On these slices the
    // fourth template even takes a GPU of the MIG node, advertised whole beside its MIG devices
    // (dra-driver-nvidia-gpu#719).
    let slices = slices("a100-80gb-pcie-static-mig.yaml");
    let caps = caps(false, false, true, "A100-80GB-PCIe");
    let plan = pack(&["a:0.25", "b:0.25", "c:0.25", "d:0.25"], &caps);
    assert_eq!(plan.gpus_used, 1);
    let r = compare(&slices, &plan, &DraOptions::default(), SliceOrder::Listed).unwrap();
    assert_eq!(r.per_ask.gpus_used, 4);
    let nodes: BTreeSet<&str> = r
        .per_ask
        .claims
        .iter()
        .map(|c| c.devices[0].node.as_str())
        .collect();
    assert_eq!(nodes.len(), 2);
    assert_eq!(r.gpu_share.gpus_used, 1);
    assert_eq!(r.gpu_share.claims.len(), 1);
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A cut or mangled ResourceSlice list is an error or a reading, never a panic, and the
        /// simulation runs on whatever was read.
        #[test]
        fn mangled_slices_never_panic(cut in 0usize..10_000, at in 0usize..10_000, byte in any::<u8>()) {
            let text = dynamic_text();
            let mut bytes = text.into_bytes();
            let at = at % bytes.len();
            bytes[at] = byte;
            bytes.truncate(bytes.len() - cut.min(bytes.len()));
            let text = String::from_utf8_lossy(&bytes).to_string();
            let _ = detect(&text);
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) {
                if let Ok(slices) = resource_slices_from_value(&value) {
                    let (_, plan) = case_932();
                    let ours = claims(&plan, &DraOptions::default()).unwrap();
                    let _ = simulate(&slices, &ours, SliceOrder::Spread);
                }
            }
        }
    }
}
