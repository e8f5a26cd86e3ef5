use super::kubernetes::object_name;
use super::*;
use crate::ask::FractionalAsk;
use crate::caps::ClusterGpuCaps;
use crate::pack::bin_pack;
use std::collections::BTreeSet;

fn asks(specs: &[&str]) -> Vec<FractionalAsk> {
    specs
        .iter()
        .map(|s| FractionalAsk::parse_spec(s).unwrap())
        .collect()
}

#[test]
fn formats_parse_and_display() {
    assert_eq!(
        "k8s".parse::<ExportFormat>().unwrap(),
        ExportFormat::Kubernetes
    );
    assert_eq!(
        " KServe ".parse::<ExportFormat>().unwrap(),
        ExportFormat::KServe
    );
    for f in ExportFormat::NAMED {
        assert_eq!(f.to_string().parse::<ExportFormat>().unwrap(), f);
    }
    let e = "helm".parse::<ExportFormat>().unwrap_err();
    assert_eq!(e.field.as_deref(), Some("format"));
    assert_eq!(
        "single".parse::<MigStrategy>().unwrap(),
        MigStrategy::Single
    );
    assert_eq!(MigStrategy::default(), MigStrategy::Mixed);
    assert!("both".parse::<MigStrategy>().is_err());
}

#[test]
fn options_are_validated_naming_the_field() {
    assert!(ExportOptions::default().validate().is_ok());
    let field = |o: ExportOptions| o.validate().unwrap_err().field.unwrap();
    let ns = |s: &str| ExportOptions {
        namespace: Some(s.into()),
        ..Default::default()
    };
    assert!(ns("team-a").validate().is_ok());
    for bad in ["Bad_NS", "", "-a", "a-", &"a".repeat(64), "a.b", "ä"] {
        assert_eq!(field(ns(bad)), "namespace", "{bad:?}");
    }
    for bad in ["", "a b", "img\nx", "tab\t"] {
        let o = ExportOptions {
            image: bad.into(),
            ..Default::default()
        };
        assert_eq!(field(o), "image");
    }
    for bad in ["", "-x", "a b", "x:y", &"c".repeat(51)] {
        let o = ExportOptions {
            config_name: bad.into(),
            ..Default::default()
        };
        assert_eq!(field(o), "config_name");
    }
}

#[test]
fn object_names_are_dns_labels_and_unique() {
    let mut taken = BTreeSet::new();
    let mut take = |n: &str| {
        let name = object_name(n, 63, &taken);
        assert!(
            is_dns_label(&name) && name.starts_with(|c: char| c.is_ascii_lowercase()),
            "{name}"
        );
        taken.insert(name.clone());
        name
    };
    assert_eq!(take("JPCP"), "jpcp");
    assert_eq!(take("jpcp"), "jpcp-2");
    assert_eq!(take("a b_c"), "a-b-c");
    assert_eq!(take("evil: true\n- x"), "evil-true-x");
    assert_eq!(take("{a: 1}"), "a-1");
    assert_eq!(take("9lives"), "ask-9lives");
    assert_eq!(take("日本"), "ask");
    assert_eq!(take("🙂"), "ask-2");
    let long = take(&"x".repeat(100));
    assert_eq!(long.len(), 63);
    let long2 = take(&"x".repeat(100));
    assert_eq!(long2, format!("{}-2", "x".repeat(61)));
}

#[test]
fn the_exported_asks_are_the_results_own_in_their_order() {
    let a = asks(&["b:0.3", "a:0.5", "c:2"]);
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let r = bin_pack(&a, &caps.clone().with_gpu_count(Some(1))).unwrap();
    let text = export(&r, ExportFormat::Slurm, &ExportOptions::default()).unwrap();
    let at = |name: &str| text.find(&format!("# \"{name}\":")).unwrap_or(usize::MAX);
    assert!(at("b") < at("a") && at("a") < usize::MAX, "{text}");
    assert!(
        text.contains("2 asks on 1 GPU; 1 unplaced, not exported:\n#   \"c\" (whole)"),
        "{text}"
    );
}

#[test]
fn a_mig_gpu_without_a_mig_capable_model_is_an_error() {
    let a = asks(&["x:3g.20gb"]);
    let caps = ClusterGpuCaps {
        supports_mig: true,
        ..Default::default()
    };
    let mut r = bin_pack(&a, &caps).unwrap();
    for model in [Some("T4".to_string()), Some("no such GPU".into()), None] {
        r.gpu_model = model;
        let e = export(&r, ExportFormat::MigParted, &ExportOptions::default()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("gpus[0]"));
        assert_eq!(e.kind, ErrorKind::UnknownModel);
    }
}

#[test]
fn an_impossible_mig_layout_is_an_error_not_output() {
    let a = asks(&["x:3g.20gb", "y:2g.10gb", "z:2g.10gb"]);
    let caps = ClusterGpuCaps {
        supports_mig: true,
        ..Default::default()
    };
    let mut r = bin_pack(&a, &caps.clone().with_gpu_count(Some(1))).unwrap();
    for f in ExportFormat::ALL {
        assert!(export(&r, f, &ExportOptions::default()).is_ok(), "{f}");
    }
    // Move the 3g.20gb to start 0, over the 2g.10gb instances.
    let inst = r.gpus[0]
        .instances_mut()
        .iter_mut()
        .find(|i| i.profile == "3g.20gb")
        .unwrap();
    inst.start = 0;
    for f in ExportFormat::ALL {
        let e = export(&r, f, &ExportOptions::default()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("gpus[0].instances"), "{f}");
        assert!(e.message.contains("share memory slices"), "{}", e.message);
    }
    r.gpus[0].instances_mut()[0].start = 1;
    assert!(export(&r, ExportFormat::MigParted, &ExportOptions::default()).is_err());
}

#[test]
fn single_strategy_needs_one_profile_per_gpu() {
    let a = asks(&["x:3g.20gb", "y:2g.10gb"]);
    let caps = ClusterGpuCaps {
        supports_mig: true,
        ..Default::default()
    };
    let r = bin_pack(&a, &caps.clone().with_gpu_count(Some(1))).unwrap();
    let single = ExportOptions {
        mig_strategy: MigStrategy::Single,
        ..Default::default()
    };
    let e = export(&r, ExportFormat::Kubernetes, &single).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("mig_strategy"));
    let plugin = export(&r, ExportFormat::DevicePlugin, &single).unwrap();
    assert!(
        plugin.contains("⚠ GPU 0 holds 2g.10gb and 3g.20gb"),
        "{plugin}"
    );
}

#[test]
fn output_is_deterministic() {
    let a = asks(&["a:0.5", "b:0.3", "c:0.4", "d:1g.5gb"]);
    let caps = ClusterGpuCaps {
        supports_mig: true,
        supports_timeslicing: true,
        ..Default::default()
    };
    let r = bin_pack(&a, &caps).unwrap();
    for f in ExportFormat::ALL {
        let one = export(&r, f, &ExportOptions::default()).unwrap();
        let two = export(&r, f, &ExportOptions::default()).unwrap();
        assert_eq!(one, two);
    }
}

#[test]
fn ranges_are_compact() {
    assert_eq!(ranges(&[]), "");
    assert_eq!(ranges(&[0]), "0");
    assert_eq!(ranges(&[0, 1]), "0, 1");
    assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7, 8");
}
