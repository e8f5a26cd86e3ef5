use super::*;
use crate::catalog::{find_model, models};

fn check(model: &str, profiles: &[&str]) -> MigValidation {
    validate_mig(find_model(model).unwrap(), profiles).unwrap()
}

fn starts_of(v: &MigValidation) -> Vec<(&str, u8)> {
    v.placements
        .iter()
        .map(|p| (p.profile.as_str(), p.start))
        .collect()
}

#[test]
fn three_g_beside_two_two_g_goes_at_four() {
    let v = check("a100-40gb", &["3g.20gb", "2g.10gb", "2g.10gb"]);
    assert!(v.valid, "{v:?}");
    assert_eq!(v.reason, None);
    // Largest first, the plan's placements: 3g.20gb at 4, the two 2g.10gb at 0 and 2.
    assert_eq!(
        starts_of(&v),
        [("3g.20gb", 4), ("2g.10gb", 0), ("2g.10gb", 2)]
    );
    assert_eq!(
        v.commands,
        ["nvidia-smi mig -i 0 -cgi 3g.20gb,2g.10gb,2g.10gb -C"]
    );
    // If the driver put 3g.20gb at 0, one 2g.10gb would find no start: no order is safe.
    assert!(!v.order_works_for_any_placement);
}

#[test]
fn four_g_beside_three_g_is_valid_from_r510_with_a_warning() {
    let v = check("a100-40gb", &["4g.20gb", "3g.20gb"]);
    assert!(v.valid);
    assert_eq!(starts_of(&v), [("4g.20gb", 0), ("3g.20gb", 4)]);
    assert!(v.order_works_for_any_placement, "4g.20gb can only go at 0");
    assert!(v.warnings.iter().any(|w| w.contains("R510")), "{v:?}");
}

#[test]
fn impossible_sets_say_why() {
    let v = check("a100-40gb", &["3g.20gb", "3g.20gb", "1g.5gb"]);
    assert!(!v.valid);
    assert!(v.placements.is_empty() && v.commands.is_empty());
    assert_eq!(
        v.reason.as_deref(),
        Some("3g.20gb ×2 and 1g.5gb: 4+4+1 = 9 memory slices exceed the 8 of A100-SXM4-40GB")
    );

    let v = check("a100-40gb", &["1g.5gb"; 8]);
    assert_eq!(
        v.reason.as_deref(),
        Some("max 7 instances of 1g.5gb per GPU on A100-SXM4-40GB, got 8")
    );
    let v = check("a100-40gb", &["1g.5gb+me", "1g.5gb+me"]);
    assert_eq!(
        v.reason.as_deref(),
        Some("max 1 instance of 1g.5gb+me per GPU on A100-SXM4-40GB, got 2")
    );
    let v = check("a30", &["1g.6gb+me", "2g.12gb+me"]);
    assert!(v.reason.unwrap().contains("media extensions"));
    let v = check(
        "a100-40gb",
        &["2g.10gb", "2g.10gb", "2g.10gb", "1g.5gb", "1g.5gb"],
    );
    assert_eq!(
        v.reason.as_deref(),
        Some(
            "2g.10gb ×3 and 1g.5gb ×2: 2+2+2+1+1 = 8 compute slices exceed the 7 of A100-SXM4-40GB"
        )
    );
    let v = check("rtx-pro-6000", &["2g.48gb+me.all", "1g.24gb"]);
    assert!(v.reason.unwrap().contains("takes every media engine"));
}

#[test]
fn valid_examples() {
    let v = check("a100-40gb", &["7g.40gb"]);
    assert!(v.valid && v.order_works_for_any_placement);
    assert_eq!(starts_of(&v), [("7g.40gb", 0)]);
    let v = check("a100-40gb", &["2g.10gb", "2g.10gb", "2g.10gb", "1g.5gb"]);
    assert!(v.valid, "{v:?}");
    let mut starts: Vec<u8> = v.placements.iter().map(|p| p.start).collect();
    starts.sort_unstable();
    assert_eq!(starts, [0, 2, 4, 6]);
    // Seven 1g.5gb: any placement of each leaves room for the others.
    let v = check("a100-40gb", &["1g.5gb"; 7]);
    assert!(v.valid && v.order_works_for_any_placement);
    // A30: 2g.12gb at 0 or 2 always leaves two 1g.6gb starts.
    let v = check("a30", &["1g.6gb", "2g.12gb", "1g.6gb"]);
    assert!(v.valid && v.order_works_for_any_placement);
    assert_eq!(v.placements[0].profile, "2g.12gb");
    // Names are matched without regard to case or surrounding space.
    assert!(check("a100-40gb", &[" 3G.20GB "]).valid);
    // Nothing to create is trivially valid.
    let v = check("a100-40gb", &[]);
    assert!(v.valid && v.commands.is_empty());
}

#[test]
fn errors_only_for_unknown_profiles_and_models_without_mig() {
    let a100 = find_model("a100-40gb").unwrap();
    let e = validate_mig(a100, &["3g.20gb", "3g.40gb"]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnknownProfile);
    assert_eq!(e.field.as_deref(), Some("profiles[1]"));
    let e = validate_mig(find_model("t4").unwrap(), &[]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfRange);
}

#[test]
fn explicit_placements_are_checked() {
    let a100 = find_model("a100-40gb").unwrap();
    let ok = validate_placements(a100, &[("2g.10gb", 0), ("2g.10gb", 2), ("3g.20gb", 4)]).unwrap();
    assert!(ok.valid);
    assert_eq!(ok.placements[0].profile, "3g.20gb");
    let bad = validate_placements(a100, &[("3g.20gb", 2)]).unwrap();
    assert_eq!(
        bad.reason.as_deref(),
        Some("3g.20gb may not start at memory slice 2 on A100-SXM4-40GB (valid starts: 0, 4)")
    );
    let overlap = validate_placements(a100, &[("3g.20gb", 0), ("2g.10gb", 2)]).unwrap();
    assert_eq!(
        overlap.reason.as_deref(),
        Some("3g.20gb at 0:4 and 2g.10gb at 2:2 share memory slices")
    );
    let too_many = validate_placements(a100, &[("7g.40gb", 0), ("7g.40gb", 0)]).unwrap();
    assert!(!too_many.valid);
}

/// mig-parted's `all-balanced` per board (docs/hardware-facts.md §1.5): 7-slot boards {1g:2, 2g:1, 3g:1},
/// 4-slot boards {1g:2, 2g:1}.
const ALL_BALANCED: &[(&str, &[(&str, usize)])] = &[
    (
        "A100-SXM4-40GB",
        &[("1g.5gb", 2), ("2g.10gb", 1), ("3g.20gb", 1)],
    ),
    // mig-parted keys its configs by PCI device id; a PCIe board's entry is its SXM sibling's.
    (
        "A100-PCIE-40GB",
        &[("1g.5gb", 2), ("2g.10gb", 1), ("3g.20gb", 1)],
    ),
    (
        "A100-SXM4-80GB",
        &[("1g.10gb", 2), ("2g.20gb", 1), ("3g.40gb", 1)],
    ),
    (
        "A100-80GB-PCIe",
        &[("1g.10gb", 2), ("2g.20gb", 1), ("3g.40gb", 1)],
    ),
    (
        "H100-80GB-HBM3",
        &[("1g.10gb", 2), ("2g.20gb", 1), ("3g.40gb", 1)],
    ),
    (
        "H100-PCIe",
        &[("1g.10gb", 2), ("2g.20gb", 1), ("3g.40gb", 1)],
    ),
    (
        "H100-NVL",
        &[("1g.12gb", 2), ("2g.24gb", 1), ("3g.47gb", 1)],
    ),
    (
        "GH200-96GB",
        &[("1g.12gb", 2), ("2g.24gb", 1), ("3g.48gb", 1)],
    ),
    ("H20", &[("1g.12gb", 2), ("2g.24gb", 1), ("3g.48gb", 1)]),
    ("H200", &[("1g.18gb", 2), ("2g.35gb", 1), ("3g.71gb", 1)]),
    (
        "H200-NVL",
        &[("1g.18gb", 2), ("2g.35gb", 1), ("3g.71gb", 1)],
    ),
    (
        "GH200-144GB",
        &[("1g.18gb", 2), ("2g.36gb", 1), ("3g.72gb", 1)],
    ),
    ("B200", &[("1g.23gb", 2), ("2g.45gb", 1), ("3g.90gb", 1)]),
    ("GB200", &[("1g.23gb", 2), ("2g.47gb", 1), ("3g.93gb", 1)]),
    ("B300", &[("1g.34gb", 2), ("2g.67gb", 1), ("3g.135gb", 1)]),
    ("GB300", &[("1g.35gb", 2), ("2g.70gb", 1), ("3g.139gb", 1)]),
    ("A30", &[("1g.6gb", 2), ("2g.12gb", 1)]),
    ("RTX-PRO-6000-Blackwell", &[("1g.24gb", 2), ("2g.48gb", 1)]),
];

#[test]
fn every_all_balanced_config_is_valid() {
    for (model, devices) in ALL_BALANCED {
        let m = find_model(model).unwrap();
        let profiles: Vec<&str> = devices
            .iter()
            .flat_map(|(p, n)| std::iter::repeat_n(*p, *n))
            .collect();
        let v = validate_mig(m, &profiles).unwrap();
        assert!(v.valid, "{model}: {v:?}");
    }
    // Every MIG model of the catalogue appears.
    for m in models().iter().filter(|m| m.is_mig_capable()) {
        assert!(ALL_BALANCED.iter().any(|(n, _)| *n == m.name), "{}", m.name);
    }
}

#[cfg(feature = "serde")]
mod parted {
    use super::*;
    use serde_json::json;

    fn all_balanced_doc() -> serde_json::Value {
        let entries: Vec<serde_json::Value> = ALL_BALANCED
            .iter()
            .map(|(model, devices)| {
                let map: serde_json::Map<String, serde_json::Value> = devices
                    .iter()
                    .map(|(p, n)| (p.to_string(), json!(n)))
                    .collect();
                json!({"device-filter": format!("filter-{model}"), "devices": "all", "mig-enabled": true, "mig-devices": map})
            })
            .collect();
        json!({"version": "v1", "mig-configs": {"all-disabled": [{"devices": "all", "mig-enabled": false}], "all-balanced": entries}})
    }

    #[test]
    fn the_all_balanced_document_is_valid_for_every_model() {
        let doc = all_balanced_doc();
        for (model, _) in ALL_BALANCED {
            let out = validate_mig_parted(&doc, find_model(model).unwrap()).unwrap();
            assert!(!out.is_empty(), "{model}: no entry applied");
            for (name, i, v) in &out {
                assert_eq!(name, "all-balanced");
                assert!(v.valid, "{model} entry {i}: {v:?}");
            }
        }
    }

    #[test]
    fn schema_errors_name_the_path() {
        let a100 = find_model("a100-40gb").unwrap();
        let field = |doc: serde_json::Value| {
            validate_mig_parted(&doc, a100)
                .unwrap_err()
                .field
                .unwrap_or_default()
        };
        assert_eq!(field(json!({"mig-configs": {}})), "version");
        assert_eq!(
            field(json!({"version": "v2", "mig-configs": {}})),
            "version"
        );
        assert_eq!(field(json!({"version": "v1", "extra": 1})), "extra");
        assert_eq!(
            field(json!({"version": "v1", "mig-configs": {}})),
            "mig-configs"
        );
        assert_eq!(
            field(json!({"version": "v1", "mig-configs": {"x": []}})),
            "mig-configs.x"
        );
        assert_eq!(
            field(
                json!({"version": "v1", "mig-configs": {"x": [{"mig-enabled": true, "mig-devices": {}}]}})
            ),
            "mig-configs.x[0].devices"
        );
        assert_eq!(
            field(
                json!({"version": "v1", "mig-configs": {"all-balanced": [{"devices": "all", "mig-enabled": true, "mig-devices": ["1g.5gb"]}]}})
            ),
            "mig-configs.all-balanced[0].mig-devices"
        );
        assert_eq!(
            field(
                json!({"version": "v1", "mig-configs": {"x": [{"devices": "all", "mig-enabled": true}]}})
            ),
            "mig-configs.x[0].mig-devices"
        );
        assert_eq!(
            field(
                json!({"version": "v1", "mig-configs": {"x": [{"devices": "all", "mig-enabled": "yes", "mig-devices": {}}]}})
            ),
            "mig-configs.x[0].mig-enabled"
        );
        assert_eq!(
            field(
                json!({"version": "v1", "mig-configs": {"x": [{"devices": "all", "mig-enabled": true, "mig-devices": {"1g.5gb": -1}}]}})
            ),
            "mig-configs.x[0].mig-devices.1g.5gb"
        );
        assert_eq!(
            field(
                json!({"version": "v1", "mig-configs": {"x": [{"devices": "some", "mig-enabled": false}]}})
            ),
            "mig-configs.x[0].devices"
        );
        assert_eq!(
            field(
                json!({"version": "v1", "mig-configs": {"x": [{"devices": [0], "mig-enabled": false, "mig-devices": {"1g.5gb": 1}}]}})
            ),
            "mig-configs.x[0].mig-devices"
        );
        let e = validate_mig_parted(
            &json!({"version": "v1", "mig-configs": {"x": [{"devices": [0], "mig-enabled": true, "mig-devices": {"3g.40gb": 1}}]}}),
            a100,
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnknownProfile);
        assert_eq!(e.field.as_deref(), Some("mig-configs.x[0].mig-devices"));
    }

    #[test]
    fn invalid_layouts_and_absurd_counts_are_reported_not_expanded() {
        let a100 = find_model("a100-40gb").unwrap();
        let doc = json!({"version": "v1", "mig-configs": {"bad": [
            {"devices": [0], "mig-enabled": true, "mig-devices": {"3g.20gb": 2, "1g.5gb": 1}},
            {"devices": [1], "mig-enabled": true, "mig-devices": {"1g.5gb": 18446744073709551615u64}}
        ]}});
        let out = validate_mig_parted(&doc, a100).unwrap();
        assert_eq!(out.len(), 2);
        assert!(!out[0].2.valid && !out[1].2.valid);
        assert!(out[1]
            .2
            .reason
            .as_deref()
            .unwrap()
            .starts_with("max 7 instances of 1g.5gb"));
    }
}
