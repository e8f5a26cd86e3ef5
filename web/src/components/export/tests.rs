//! Tests of the export panel: the box, the formats and their fields, the stored choices, DRA.

#[test]
fn the_box_shows_whole_lines_and_counts_the_rest() {
    let short = "a: 1\nb: 2\n";
    assert_eq!(super::preview(short), (short, 0));
    let line = format!("{}\n", "x".repeat(99));
    let long = line.repeat(2 * super::PREVIEW_BYTES / line.len());
    let (head, rest) = super::preview(&long);
    assert!(head.len() <= super::PREVIEW_BYTES && head.ends_with('\n'));
    assert_eq!(head.lines().count() + rest, long.lines().count());
    // One line longer than the box: nothing of it is shown, and it is counted.
    let one = "é".repeat(super::PREVIEW_BYTES);
    assert_eq!(super::preview(&one), ("", 1));
}

use super::*;
use crate::state::AppState;
use gpu_share_core::api::{DraOptions, TimeSliceInterval};

#[test]
fn every_format_has_its_option_value() {
    for f in ExportFormat::ALL {
        assert_eq!(format_of(key(f)), f);
    }
    // The values the page has always offered (links and tests use them).
    let keys: Vec<&str> = ExportFormat::ALL.into_iter().map(key).collect();
    assert_eq!(
        keys,
        [
            "k8s",
            "kserve",
            "device-plugin",
            "mig-parted",
            "mig-commands",
            "slurm",
            "dra"
        ]
    );
    assert_eq!(format_of("nonsense"), ExportFormat::Kubernetes);
}

#[test]
fn blank_fields_take_the_defaults_and_hidden_fields_count_for_nothing() {
    let k8s = ExportFormat::Kubernetes;
    let o = options(k8s, MigStrategy::Mixed, "  ", "");
    assert_eq!(o.namespace, None);
    assert_eq!(o.image, ExportOptions::default().image);
    assert_eq!(o.mig_strategy, MigStrategy::Mixed);
    let o = options(k8s, MigStrategy::Single, " ml ", "img:1");
    assert_eq!(o.namespace.as_deref(), Some("ml"));
    assert_eq!(o.image, "img:1");
    assert_eq!(o.mig_strategy, MigStrategy::Single);
    // mig-parted writes no workloads: its panel hides the fields, and what they hold is ignored.
    let o = options(
        ExportFormat::MigParted,
        MigStrategy::Single,
        "Bad_NS",
        "img:1",
    );
    assert_eq!(o.namespace, None);
    assert_eq!(o.image, ExportOptions::default().image);
    assert_eq!(o.mig_strategy, MigStrategy::Single);
}

#[test]
fn the_page_exports_its_plans_request() {
    let state = AppState::new("ask=x:3g.20gb&ask=y:2g.10gb&gpus=1&mig-capable");
    let request = state.planned.request.get_untracked();
    let ok = state.planned.plan.with_untracked(Result::is_ok);
    let export = |format: ExportFormat, namespace: &str| {
        render(
            &request,
            ok,
            format,
            options(format, MigStrategy::Mixed, namespace, ""),
        )
    };
    let Exported::Text {
        text: k8s,
        file_name,
        media_type,
    } = export(ExportFormat::Kubernetes, "")
    else {
        panic!("no Kubernetes export");
    };
    assert!(k8s.contains("nvidia.com/mig-3g.20gb"), "{k8s}");
    assert_eq!(
        (file_name, media_type),
        ("gpu-share-k8s.yaml", "application/yaml")
    );
    let Exported::Text { text: parted, .. } = export(ExportFormat::MigParted, "Bad_NS") else {
        panic!("no mig-parted export");
    };
    assert!(parted.contains("mig-devices"), "{parted}");
    // A bad namespace is an error about that field, shown next to it.
    match export(ExportFormat::Kubernetes, "Bad_NS") {
        Exported::FieldError { field, .. } => assert_eq!(field, "namespace"),
        other => panic!("{other:?}"),
    }
    // No plan, nothing to export.
    let broken = AppState::new("ask=a:0.5&gpu-model=nonsense&mig-capable");
    assert!(broken.planned.plan.get_untracked().is_err());
    let request = broken.planned.request.get_untracked();
    let k8s = ExportFormat::Kubernetes;
    assert_eq!(
        render(
            &request,
            false,
            k8s,
            options(k8s, MigStrategy::Mixed, "", "")
        ),
        Exported::NoPlan
    );
}

/// DRA claims from the page: the Kubernetes version picks the `resource.k8s.io` version, a
/// version without structured parameters is an error at its field, and other formats read
/// none of the DRA options.
#[test]
fn the_dra_options_reach_the_claims() {
    let state = AppState::new("ask=x:0.5&ask=y:0.5&gpu-model=A100-SXM4-40GB&timeslice");
    let request = state.planned.request.get_untracked();
    let dra = ExportFormat::Dra;
    let export = |version: &str| {
        let options = ExportOptions {
            dra: dra_options(dra, version, false, TimeSliceInterval::Long, false),
            ..options(dra, MigStrategy::Mixed, "", "")
        };
        render(&request, true, dra, options)
    };
    let Exported::Text { text, .. } = export("") else {
        panic!("no DRA export");
    };
    assert!(text.contains("resource.k8s.io/v1\n"), "{text}");
    assert!(text.contains("Long"), "{text}");
    let Exported::Text { text, .. } = export("1.32") else {
        panic!("no DRA export for 1.32");
    };
    assert!(text.contains("resource.k8s.io/v1beta1"), "{text}");
    match export("1.30") {
        Exported::FieldError { field, message } => {
            assert_eq!(field, "dra.kubernetes_version");
            assert!(!message.is_empty());
        }
        other => panic!("{other:?}"),
    }
    let k8s = ExportFormat::Kubernetes;
    assert_eq!(
        dra_options(k8s, "1.30", true, TimeSliceInterval::Long, true),
        DraOptions::default()
    );
}

/// The panel shows a field exactly for the formats whose text the core changes with it.
#[test]
fn each_format_shows_exactly_the_fields_it_reads() {
    // Two 3g.20gb on one A100-40GB: one profile, so the single strategy is valid too.
    let state = AppState::new("ask=x:3g.20gb&ask=y:3g.20gb&gpus=1&mig-capable");
    let pack = state.planned.request.get_untracked();
    let text = |format: ExportFormat, options: ExportOptions| {
        api::export(&ExportRequest {
            format,
            pack: pack.clone(),
            options,
        })
        .map(|r| r.text)
    };
    for f in ExportFormat::ALL {
        let with = |o: ExportOptions| text(f, o);
        let single = with(ExportOptions {
            mig_strategy: MigStrategy::Single,
            ..ExportOptions::default()
        });
        assert_eq!(
            single != with(ExportOptions::default()),
            uses_mig_strategy(f),
            "{f}: MIG strategy"
        );
        let named = with(ExportOptions {
            namespace: Some("ml".into()),
            image: "img:1".into(),
            ..ExportOptions::default()
        });
        assert_eq!(
            named != with(ExportOptions::default()),
            f.uses_workload_options(),
            "{f}: namespace and image"
        );
    }
    assert!(!uses_mig_strategy(ExportFormat::Slurm));
    assert!(!ExportFormat::Slurm.uses_workload_options());
    assert!(!uses_mig_strategy(ExportFormat::MigParted));
}

#[test]
fn settings_come_back_checked_by_the_core() {
    let chosen = Settings {
        format: ExportFormat::Slurm,
        strategy: MigStrategy::Single,
        namespace: "ml-team".into(),
        image: "img:1".into(),
    };
    assert_eq!(
        Settings::from_stored(&chosen.to_stored()),
        (chosen.clone(), None)
    );
    // Every format's stored key reads back.
    for format in ExportFormat::ALL {
        let s = Settings {
            format,
            ..Settings::default()
        };
        assert_eq!(Settings::from_stored(&s.to_stored()).0, s);
    }
    // A refused field is its default, the rest is kept, and the note names the field.
    let (s, note) = Settings::from_stored(
        r#"{"format":"yaml","mig_strategy":"single","namespace":"Bad_NS","image":"img:2"}"#,
    );
    assert_eq!(
        s,
        Settings {
            strategy: MigStrategy::Single,
            image: "img:2".into(),
            ..Settings::default()
        }
    );
    let note = note.unwrap();
    assert!(
        note.starts_with("The export settings stored in this browser could not all be used (format: unknown export format \"yaml\"")
            && note.contains("; namespace: ")
            && note.ends_with("the defaults are shown for them."),
        "{note}"
    );
    let (s, note) = Settings::from_stored("not json");
    assert_eq!(s, Settings::default());
    assert!(note.unwrap().contains("(not JSON: "));
    // Half-typed or refused text is not stored: the last accepted value is kept.
    let typing = Settings {
        namespace: "ml-".into(),
        ..chosen.clone()
    };
    assert_eq!(typing.storable(&chosen).namespace, "ml-team");
    let blank = Settings {
        namespace: " ".into(),
        ..chosen.clone()
    };
    assert_eq!(blank.storable(&chosen).namespace, " ");
}

/// A name used twice leaves that row out of the plan, and out of the export: the others are
/// written (issue #58: one refused row must not block the rest).
#[test]
fn a_refused_row_leaves_the_others_in_the_export() {
    let state = AppState::new("ask=a:0.5&ask=b:0.3&ask=a:0.4&timeslice");
    assert_eq!(state.planned.left_out.get_untracked().len(), 1);
    let kept = state.planned.kept.get_untracked();
    assert_eq!(kept.asks.len(), 2);
    let format = ExportFormat::Kubernetes;
    let exported = render(
        &kept,
        state.planned.plan.with_untracked(Result::is_ok),
        format,
        options(format, MigStrategy::Mixed, "", ""),
    );
    let Exported::Text { text, .. } = exported else {
        panic!("no text: {exported:?}");
    };
    assert_eq!(text.matches("kind: Deployment").count(), 2, "{text}");
    // The whole request, with the refused row, is what the strict use case refuses.
    let whole = render(
        &state.planned.request.get_untracked(),
        true,
        format,
        options(format, MigStrategy::Mixed, "", ""),
    );
    assert!(matches!(whole, Exported::Error(_)), "{whole:?}");
}
