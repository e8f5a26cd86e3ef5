//! `export` in every format on arbitrary packed plans and options: never a panic; YAML reads back, and no name breaks a line or a comment.
#![no_main]

use arbitrary::Arbitrary;
use gpu_share_core::internals::export::{export, ExportFormat, ExportOptions, MigStrategy};
use gpu_share_fuzz::{small_pack, PackIn};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct ExportIn {
    plan: PackIn,
    single: bool,
    namespace: Option<String>,
    image: Option<String>,
    config_name: Option<String>,
}

/// Characters that end a line (or read as a line break to some YAML reader) or hide text.
fn breaks_lines(c: char) -> bool {
    c != '\n' && (c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}'))
}

fuzz_target!(|input: ExportIn| {
    let Some(packed) = small_pack(&input.plan) else {
        return;
    };
    let defaults = ExportOptions::default();
    let options = ExportOptions {
        mig_strategy: if input.single {
            MigStrategy::Single
        } else {
            MigStrategy::Mixed
        },
        namespace: input.namespace.clone(),
        image: input.image.clone().unwrap_or(defaults.image),
        config_name: input.config_name.clone().unwrap_or(defaults.config_name),
        slurm_version: None,
        dra: defaults.dra.clone(),
    };
    for format in ExportFormat::ALL {
        let Ok(out) = export(&packed, format, &options) else {
            continue;
        };
        assert!(!out.chars().any(breaks_lines), "{format}: {out}");
        let yaml = !matches!(format, ExportFormat::MigCommands | ExportFormat::Slurm);
        if yaml {
            for doc in serde_norway::Deserializer::from_str(&out) {
                let value = <serde_norway::Value as serde::Deserialize>::deserialize(doc);
                assert!(value.is_ok(), "{format}: {value:?}\n{out}");
            }
        }
        // Every format opens with its header comment (which lists any unplaced asks).
        assert!(out.starts_with('#'), "{format}: {out}");
    }
});
