//! The one naming rule for errors about command-line values: the error names the flag the value
//! came from (`--fraction`, `--ask #2`, `--gpu-model`), or a positional argument by its value name
//! (`NAME`, `FORMAT`), never the core's field (`fraction`) or a path inside the flag's value
//! (`--ask #1.fraction`). A core field is renamed only when a flag that was given is its one
//! possible source; errors about input files (`--asks-file`, `--caps-from`: with a line, or with
//! fields no flag sets) keep the file's own fields.

use super::{CapsArgs, Command};
use crate::exit::CliError;
use gpu_share_core::api::Error;

/// An error about the value of `flag`: the flag replaces any field the core named inside it.
pub fn at_flag(e: Error, flag: impl Into<String>) -> Error {
    Error {
        field: Some(flag.into()),
        ..e
    }
}

/// Core fields, each with the flag that set it in this command line.
pub type Flags = Vec<(&'static str, &'static str)>;

const EXPORT_OPTIONS: [(&str, &str); 10] = [
    ("format", "FORMAT"),
    ("options.namespace", "--namespace"),
    ("options.image", "--image"),
    ("options.config_name", "--config-name"),
    ("options.mig_strategy", "--mig-strategy"),
    ("options.slurm_version", "--slurm-version"),
    ("options.dra.kubernetes_version", "--k8s-version"),
    ("options.dra.mig", "--dra-mig"),
    ("options.dra.time_slice_interval", "--time-slice-interval"),
    ("options.dra.consumable_memory", "--consumable-memory"),
];

const RATES: [(&str, &str); 4] = [
    ("cost_per_gpu_hour", "--cost-per-gpu-hour"),
    ("watts", "--watts"),
    ("pue", "--pue"),
    ("grid_g_co2e_per_kwh", "--grid"),
];

/// The core fields the flags of `command` set.
pub fn of(command: &Command) -> Flags {
    match command {
        Command::Plan(a) => {
            let mut flags = vec![
                ("name", "NAME"),
                ("fraction", "--fraction"),
                ("memory", "--memory"),
            ];
            flags.extend(caps(&a.caps, a.mig.is_some().then_some("--mig")));
            flags
        }
        Command::Pack(a) => pack(&a.pack.caps, a.pack.gpus),
        Command::Export(a) => {
            let mut flags = pack(&a.pack.caps, a.pack.gpus);
            flags.extend(EXPORT_OPTIONS);
            flags
        }
        Command::SimulateDra(a) => {
            let mut flags = pack(&a.pack.caps, a.pack.gpus);
            flags.extend(
                EXPORT_OPTIONS
                    .into_iter()
                    .filter(|(f, _)| f.starts_with("options.dra.")),
            );
            flags.push(("options.order", "--order"));
            flags
        }
        Command::Accounting(_) => RATES.to_vec(),
        Command::Release(_) => vec![("name", "NAME")],
        Command::ValidateMig(_) => vec![("model", "--gpu-model"), ("profiles", "PROFILE")],
        Command::Fit(a) => model_flag(a.live.gpu_model.is_some()),
        Command::Repartition(a) => {
            let mut flags = model_flag(a.live.gpu_model.is_some());
            flags.push(("options.free", "--free"));
            flags
        }
        Command::Size(a) => size(a),
        Command::Replay(_) => vec![
            ("nodes", "--nodes"),
            ("pods", "--pods"),
            ("options.policies", "--policy"),
            ("options.seeds", "--seed"),
            ("options.tune", "--tune"),
        ],
        Command::Models(_) | Command::Detect(_) => Vec::new(),
    }
}

/// The engine's fields (`size`, and `pack`'s models), each set by the flag vLLM names it by.
const ENGINE: [(&str, &str); 10] = [
    ("options.engine.name", "--engine"),
    ("options.engine.version", "--engine-version"),
    ("options.engine.tensor_parallel_size", "--tp"),
    ("options.engine.pipeline_parallel_size", "--pp"),
    (
        "options.engine.gpu_memory_utilization",
        "--gpu-memory-utilization",
    ),
    ("options.engine.max_model_len", "--max-model-len"),
    ("options.engine.quantization", "--quantization"),
    ("options.engine.max_num_seqs", "--max-num-seqs"),
    (
        "options.engine.max_num_batched_tokens",
        "--max-num-batched-tokens",
    ),
    ("options.engine.enforce_eager", "--enforce-eager"),
];

/// `size`: its options' fields, each set by one flag (the fields an error says to give are
/// named by the flag that gives them, given or not); the config's own fields keep their path.
fn size(a: &super::SizeArgs) -> Flags {
    let mut flags = vec![
        ("options.dtype", "--dtype"),
        ("options.kv_dtype", "--kv-dtype"),
        ("options.context", "--context"),
        ("options.concurrency", "--concurrency"),
        ("options.fit.gpu_model", "--gpu-model"),
    ];
    flags.extend(ENGINE);
    if a.fit.is_some() {
        flags.extend([("options.fit", "--fit"), ("options.fit.profile", "--fit")]);
    } else {
        flags.push(("options.fit", "--gpu-model"));
    }
    if a.plan.is_some() {
        flags.push(("options.plan", "--plan"));
        flags.extend(caps(&a.caps, None));
    }
    flags
}

/// `--gpu-model`, when it was given, is where the request's `options.gpu_model` came from.
fn model_flag(given: bool) -> Flags {
    if given {
        vec![("options.gpu_model", "--gpu-model")]
    } else {
        Vec::new()
    }
}

/// `pack`'s asks come from `--ask` (named `--ask #N` where they are read) or a file, so their
/// fields (a duplicate `name`, an unknown `mig_profile`) are no flag's.
fn pack(c: &CapsArgs, gpus: Option<u64>) -> Flags {
    let mut flags = caps(c, None);
    flags.extend([
        ("options.optimize", "--optimize"),
        ("options.time_limit_ms", "--time-limit-ms"),
        ("options.models", "--model"),
    ]);
    flags.extend(ENGINE);
    if gpus.is_some() {
        flags.push(("gpu_count", "--gpus"));
    }
    flags
}

/// The caps flags, unless the caps came from `--caps-from` files. `ask_profile` is the flag naming
/// the ask's MIG profile, if one does (`plan --mig`). Without `--gpu-model` the core names an
/// unknown profile `mig_profile` or `mig_profiles` whether it is the ask's or an allowed one, so a
/// profile error is named by a flag only when one flag alone gave profiles.
fn caps(c: &CapsArgs, ask_profile: Option<&'static str>) -> Flags {
    if !c.caps_from.is_empty() {
        // With --caps-from only --mig-capable can be refused (on a board without MIG).
        return if c.mig_capable {
            vec![("supports_mig", "--mig-capable")]
        } else {
            Vec::new()
        };
    }
    let mut flags = vec![
        ("gpu_model", "--gpu-model"),
        ("supports_mig", "--mig-capable"),
        ("supports_mps", "--mps"),
        ("supports_timeslicing", "--timeslice"),
        ("nodes", "--nodes"),
        ("context_overhead_mib", "--context-overhead"),
        ("driver", "--driver"),
    ];
    let allowed = c.mig_profiles.is_some().then_some("--mig-profiles");
    match (c.gpu_model.is_some(), allowed, ask_profile) {
        (true, allowed, ask) => {
            flags.extend(allowed.map(|f| ("mig_profiles", f)));
            flags.extend(ask.map(|f| ("mig_profile", f)));
        }
        (false, Some(only), None) | (false, None, Some(only)) => {
            flags.extend([("mig_profiles", only), ("mig_profile", only)]);
        }
        (false, _, _) => {}
    }
    flags
}

/// The request fields the command line gives by other means than a flag of their own, each with
/// the words that give it: positional arguments, files, and the parts of an `--ask` spec. (Errors
/// about them are named as they are read: `--ask #2`, a file's line, `NAME`.)
#[cfg(test)]
pub const GIVEN_OTHERWISE: [(&str, &str); 20] = [
    ("asks", "--ask NAME:SIZE, --asks-file FILE"),
    ("name", "NAME, or the NAME of an --ask"),
    ("fraction", "--fraction, or an --ask's SIZE"),
    ("memory", "--memory, or an --ask's SIZE"),
    ("mig_profile", "--mig, or an --ask's SIZE"),
    ("mig_profiles", "--mig-profiles"),
    ("format", "FORMAT"),
    ("inputs", "--from FILE"),
    ("current", "--current FILE"),
    ("slices", "--slices FILE"),
    ("model", "--gpu-model"),
    ("profiles", "PROFILE,… or --file"),
    ("config", "--config FILE"),
    ("nodes", "--nodes FILE"),
    ("pods", "--pods FILE"),
    ("choice", "the plan being recorded"),
    ("now", "the clock (GPU_SHARE_NOW)"),
    ("seconds", "--hours, --seconds"),
    ("ask", "NAME"),
    ("entries", "the ledger file"),
];

/// Request fields the command line deliberately does not offer, with why.
#[cfg(test)]
pub const NOT_OFFERED: [(&str, &str, &str); 2] = [
    ("plan", "gpu_count", "one ask needs no GPU limit"),
    (
        "export",
        "options.time_limit_ms",
        "export packs first-fit-decreasing, without --optimize",
    ),
];

/// Names a core field by the flag in `flags` that set it (`mig_profile` → `--mig`,
/// `gpu_count` → `--gpus`); other errors are kept as they are.
pub fn name_flags(e: CliError, flags: &Flags) -> CliError {
    match e {
        CliError::Input(mut e) if e.line.is_none() => {
            let flag = e.field.as_deref().and_then(|field| {
                let lookup = |name: &str| {
                    flags
                        .iter()
                        .find(|(core, _)| *core == name)
                        .map(|&(_, f)| f)
                };
                // `policies[1]`: the second value given to the flag.
                let item = field.strip_suffix(']').and_then(|f| f.split_once('['));
                match item.and_then(|(list, i)| Some((lookup(list)?, i.parse::<usize>().ok()?))) {
                    Some((flag, i)) => Some(format!("{flag} #{}", i + 1)),
                    None => lookup(field).map(str::to_string),
                }
            });
            if let Some(flag) = flag {
                e.field = Some(flag);
            }
            CliError::Input(e)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each use case the command line serves, with a command line giving every flag it has.
    const COMMANDS: [(&str, &str); 12] = [
        ("plan", "plan a --fraction 0.5 --memory 1GiB --gpu-model a100 --mig-capable --mps --timeslice --mig-profiles 1g.5gb --nodes 1x8 --context-overhead 0 --driver 590.48.01"),
        ("pack", "pack --ask a:0.5 --gpus 2 --gpu-model a100 --mig-capable --mps --timeslice --mig-profiles 1g.5gb --nodes 1x8 --context-overhead 0 --driver 590.48.01 --optimize --time-limit-ms 5"),
        ("export", "export k8s --ask a:0.5 --gpus 2 --gpu-model a100 --mig-capable --mps --timeslice --mig-profiles 1g.5gb --nodes 1x8 --context-overhead 0 --driver 590.48.01 --namespace n --image i --config-name c --mig-strategy mixed --slurm-version 23.02.6 --k8s-version 1.34 --dra-mig static --time-slice-interval Default --consumable-memory"),
        ("detect", "detect --from f"),
        ("simulate_dra", "simulate-dra --slices f --ask a:0.5 --gpus 2 --gpu-model a100 --mig-capable --mps --timeslice --mig-profiles 1g.5gb --nodes 1x8 --context-overhead 0 --driver 590.48.01 --optimize --time-limit-ms 5 --k8s-version 1.34 --dra-mig static --time-slice-interval Default --consumable-memory --order spread"),
        ("validate_mig", "validate-mig --gpu-model a100 1g.5gb"),
        ("fit", "fit --current f --gpu-model a100 --ask a:1g.5gb"),
        ("repartition", "repartition --current f --gpu-model a100 --ask a:1g.5gb --free 0:1"),
        ("size", "size --config f --dtype bf16 --kv-dtype bf16 --context 8 --concurrency 1 --fit 1GiB --plan m --timeslice --engine vllm --engine-version 0.19 --tp 1 --pp 1 --gpu-memory-utilization 0.9 --max-model-len 8 --quantization fp8 --max-num-seqs 1 --max-num-batched-tokens 8 --enforce-eager"),
        ("replay", "replay --nodes n --pods p --policy fgd --seed 1 --tune 1.3"),
        ("record", "plan a --fraction 0.5 --record --hours 1"),
        ("summarise", "accounting --cost-per-gpu-hour 1 --watts 300 --pue 1.2 --grid 400"),
    ];

    /// The request's fields the core names in errors, each with a word on the command line: a
    /// flag of the command, another way the command line gives it, or a reason it is not offered.
    /// A field added to a request fails this until the command line has a word for it.
    #[test]
    fn every_request_field_has_a_word() {
        for (case, argv) in COMMANDS {
            let argv = std::iter::once("gpu-share").chain(argv.split_whitespace());
            let cli = super::super::Cli::try_parse_from(argv).unwrap();
            let flags = of(&cli.command);
            let use_case = gpu_share_core::api::use_case(case).unwrap();
            for field in (use_case.fields)() {
                let worded = flags.iter().any(|(f, _)| *f == field)
                    || GIVEN_OTHERWISE.iter().any(|(f, _)| *f == field)
                    || NOT_OFFERED
                        .iter()
                        .any(|(c, f, _)| *c == case && *f == field);
                assert!(
                    worded,
                    "{case}: the request's {field} has no word on the command line"
                );
            }
        }
    }
    use clap::Parser;
    use gpu_share_core::api::ErrorKind;

    /// The name the error about core `field` gets in `argv`.
    fn named(argv: &str, field: &str) -> Option<String> {
        named_at(
            argv,
            Error::new(ErrorKind::OutOfRange, "bad").in_field(field),
        )
    }

    fn named_at(argv: &str, e: Error) -> Option<String> {
        let argv = std::iter::once("gpu-share").chain(argv.split_whitespace());
        let cli = super::super::Cli::try_parse_from(argv).unwrap();
        match name_flags(CliError::Input(e), &of(&cli.command)) {
            CliError::Input(e) => e.field,
            _ => None,
        }
    }

    #[test]
    fn core_fields_become_the_flags_given() {
        assert_eq!(
            named("plan a --fraction 0", "fraction").as_deref(),
            Some("--fraction")
        );
        assert_eq!(
            named("plan a --mig 9g", "mig_profile").as_deref(),
            Some("--mig")
        );
        assert_eq!(
            named("plan a --fraction 1 --mig-profiles 9g", "mig_profile").as_deref(),
            Some("--mig-profiles")
        );
        assert_eq!(
            named("pack --ask a:1 --gpus 0", "gpu_count").as_deref(),
            Some("--gpus")
        );
        assert_eq!(
            named("export k8s --ask a:1 --image x", "options.image").as_deref(),
            Some("--image")
        );
        assert_eq!(
            named("accounting --pue 0.5", "pue").as_deref(),
            Some("--pue")
        );
        assert_eq!(
            named(
                "replay --nodes n --pods p --policy fgd,fgd",
                "options.policies[1]"
            )
            .as_deref(),
            Some("--policy #2")
        );
    }

    #[test]
    fn fields_no_given_flag_alone_set_are_kept() {
        // Either --mig or --mig-profiles may hold the unknown profile.
        assert_eq!(
            named("plan a --mig 9g --mig-profiles 8g", "mig_profile").as_deref(),
            Some("mig_profile")
        );
        // An ask's profile or name, from --ask or a file.
        assert_eq!(
            named("pack --ask a:9g", "mig_profiles").as_deref(),
            Some("mig_profiles")
        );
        assert_eq!(named("pack --ask a:1", "name").as_deref(), Some("name"));
        // Caps from files.
        assert_eq!(
            named("plan a --fraction 1 --caps-from f", "gpu_model").as_deref(),
            Some("gpu_model")
        );
        // A field of an input file (it has a line).
        let from_file = Error::new(ErrorKind::Syntax, "bad")
            .in_field("fraction")
            .at_line(2);
        assert_eq!(
            named_at("plan a --fraction 1", from_file).as_deref(),
            Some("fraction")
        );
    }

    #[test]
    fn a_flag_replaces_the_path_inside_its_value() {
        let inner = Error::new(ErrorKind::Syntax, "bad").in_field("fraction");
        assert_eq!(
            at_flag(inner, "--ask #1").field.as_deref(),
            Some("--ask #1")
        );
    }
}
