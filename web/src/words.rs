//! The core's errors in the page's words: fields named as the page labels them, and a hint said as
//! what to do on the page ("choose the GPU model"), never as another front end's flag.

use gpu_share_core::api::{Error, Hint, Input};

/// What the page calls a field the core names, when the page shows it.
pub fn field(name: &str) -> Option<&'static str> {
    Some(match name {
        "cost_per_gpu_hour" => "cost per GPU-hour",
        "watts" => "watts",
        "pue" => "PUE",
        "grid_g_co2e_per_kwh" => "grid intensity",
        "gpu_model" => "GPU model",
        "gpu_count" => "GPU count",
        "nodes" => "Nodes",
        "mig_profiles" => "MIG profiles",
        "mig_profile" => "MIG profile",
        "supports_mig" => "MIG",
        "supports_mps" => "MPS",
        "supports_timeslicing" => "Time-slicing",
        "options.optimize" => "Optimize packing",
        "options.free" => "Not in use (may be destroyed)",
        "options.dra.kubernetes_version" | "dra.kubernetes_version" => "Kubernetes version",
        "options.dra.mig" => "MIG devices made by the driver",
        "options.dra.time_slice_interval" => "Time slice",
        "options.dra.consumable_memory" => "Memory as consumable capacity",
        "options.namespace" => "Namespace",
        "options.image" => "Image",
        "options.mig_strategy" => "MIG strategy",
        "options.gpu_model" => "GPU model",
        "options.policies" => "Policies",
        "options.seeds" => "Seeds",
        "options.tune" => "Fill to",
        "options.dtype" => "Weights dtype",
        "options.context" => "Context (tokens)",
        "options.concurrency" => "Sequences at once",
        "options.fit" | "options.fit.gpu_model" => "GPU model",
        "options.fit.profile" => "MIG instance",
        "options.engine.name" => "Engine",
        "options.engine.gpu_memory_utilization" => "GPU memory utilisation",
        "options.engine.tensor_parallel_size" => "Tensor parallel",
        "name" => "name",
        "fraction" => "fraction",
        "memory" => "memory",
        "context_overhead_mib" => "CUDA context",
        "driver" => "Driver",
        "hours" | "seconds" => "hours",
        _ => return None,
    })
}

/// What to do on the page about an error.
pub fn hint(hint: &Hint) -> &'static str {
    match hint {
        Hint::Give { input } => match input {
            Input::GpuModel => "choose the GPU model",
            Input::GpuCount => "set the GPU count",
            Input::MigProfiles => "choose the allowed MIG profiles",
            Input::Image => "fill in the Image field",
            Input::RecordAgain => "press Record again",
        },
    }
}

/// The message and its hint, for an error shown next to the field it is about.
pub fn message(e: &Error) -> String {
    match &e.hint {
        Some(h) => format!("{}; {}", e.message, hint(h)),
        None => e.message.clone(),
    }
}

/// The whole error in one line: `line 3, GPU model: …; choose the GPU model`. A field the page
/// has no word for (a path in a file or a link) keeps the core's name, as the core writes it.
pub fn error(e: &Error) -> String {
    let field = e.field.as_deref().map(|f| match field(f) {
        Some(word) => word.to_string(),
        None => format!("field {f:?}"),
    });
    let place = match (e.line, field) {
        (Some(line), Some(field)) => format!("line {line}, {field}: "),
        (Some(line), None) => format!("line {line}: "),
        (None, Some(field)) => format!("{field}: "),
        (None, None) => String::new(),
    };
    format!("{place}{}", message(e))
}

/// `(a, b and 3 more)`: the asks a warning applies to, short enough for one line.
pub fn applies_to(asks: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut names: Vec<&str> = asks.iter().take(SHOWN).map(String::as_str).collect();
    let more = asks.len().saturating_sub(SHOWN);
    let more_text = format!("{more} more");
    if more > 0 {
        names.push(&more_text);
    }
    let list = match names.as_slice() {
        [] => return String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    format!("(applies to {list})")
}

/// The request fields the page gives by other means than a field with that label: the asks table,
/// pasted or picked texts, the clock, the ledger, each with the words the page shows for it.
pub const GIVEN_OTHERWISE: [(&str, &str); 12] = [
    ("asks", "the asks table"),
    ("format", "the Format choice"),
    ("inputs", "Paste nvidia-smi or kubectl output"),
    ("current", "Paste nvidia-smi mig -lgi output"),
    ("config", "Paste config.json"),
    ("nodes", "the node list file"),
    ("pods", "the pod list file"),
    ("choice", "the plan being recorded"),
    ("now", "the clock"),
    ("entries", "the ledger"),
    ("text", "Import"),
    ("ask", "a use's Release button"),
];

/// Request fields the page does not offer, with why (`x.*`: every field under `x`).
pub const NOT_OFFERED: [(&str, &str, &str); 17] = [
    (
        "pack",
        "options.time_limit_ms",
        "the page keeps the core's time limit",
    ),
    (
        "export",
        "options.time_limit_ms",
        "the page keeps the core's time limit",
    ),
    (
        "export",
        "options.config_name",
        "mig-parted's config keeps the core's name, gpu-share",
    ),
    (
        "export",
        "options.slurm_version",
        "the page keeps the core's default Slurm version",
    ),
    (
        "size",
        "options.kv_dtype",
        "the KV cache keeps the dtype the model computes in",
    ),
    (
        "pack",
        "options.models",
        "Size from a model adds a model as an ask of its memory; engines sharing a GPU: CLI and npm",
    ),
    (
        "export",
        "options.models",
        "Size from a model adds a model as an ask of its memory; engines sharing a GPU: CLI and npm",
    ),
    (
        "pack",
        "options.engine.*",
        "engines sharing a GPU: CLI and npm",
    ),
    (
        "export",
        "options.engine.*",
        "engines sharing a GPU: CLI and npm",
    ),
    (
        "size",
        "options.engine.version",
        "the page sizes for the newest vLLM version it was calibrated for",
    ),
    (
        "size",
        "options.engine.pipeline_parallel_size",
        "pipeline parallelism: CLI and npm",
    ),
    (
        "size",
        "options.engine.max_model_len",
        "the page's Context (tokens) is max_model_len",
    ),
    (
        "size",
        "options.engine.quantization",
        "the page's Weights dtype fp8 is vLLM's online fp8",
    ),
    (
        "size",
        "options.engine.max_num_seqs",
        "the page keeps vLLM's batch defaults",
    ),
    (
        "size",
        "options.engine.max_num_batched_tokens",
        "the page keeps vLLM's batch defaults",
    ),
    (
        "size",
        "options.engine.enforce_eager",
        "the page keeps CUDA graphs on, as vLLM does",
    ),
    (
        "size",
        "options.plan",
        "the page adds a sized model to the asks itself",
    ),
];

/// The use cases the page serves.
pub const USE_CASES: [&str; 10] = [
    "pack",
    "export",
    "detect",
    "fit",
    "repartition",
    "size",
    "replay",
    "release",
    "import",
    "summarise",
];

#[cfg(test)]
mod tests {
    /// Every field an error about a request the page makes may name has a word on the page: a
    /// label, another way the page gives it, or a reason it is not offered. A field added to a
    /// request fails this until the page has a word for it.
    #[test]
    fn every_request_field_has_a_word() {
        let mut unworded = Vec::new();
        for case in super::USE_CASES {
            let use_case = gpu_share_core::api::use_case(case).unwrap();
            for field in (use_case.fields)() {
                let worded = super::field(&field).is_some()
                    || super::GIVEN_OTHERWISE.iter().any(|(f, _)| *f == field)
                    || super::NOT_OFFERED.iter().any(|(c, f, _)| {
                        // `options.engine.*`: every field under it.
                        let under = f.strip_suffix('*').is_some_and(|p| field.starts_with(p));
                        *c == case && (*f == field || under)
                    });
                if !worded {
                    unworded.push(format!("{case}: {field}"));
                }
            }
        }
        assert!(
            unworded.is_empty(),
            "request fields with no word on the page: {unworded:?}"
        );
    }

    #[test]
    fn the_asks_a_warning_applies_to_fit_one_line() {
        let names = |n: usize| (0..n).map(|i| format!("a{i}")).collect::<Vec<_>>();
        assert_eq!(super::applies_to(&names(0)), "");
        assert_eq!(super::applies_to(&names(1)), "(applies to a0)");
        assert_eq!(super::applies_to(&names(3)), "(applies to a0, a1 and a2)");
        assert_eq!(
            super::applies_to(&names(8)),
            "(applies to a0, a1, a2, a3, a4 and 3 more)"
        );
    }

    use super::*;
    use gpu_share_core::api::ErrorKind;

    #[test]
    fn fields_and_hints_are_named_in_the_pages_words() {
        let e = Error::new(ErrorKind::UnknownProfile, "no GPU model offers all of a, b")
            .in_field("mig_profiles")
            .with_hint(Hint::Give {
                input: Input::GpuModel,
            });
        assert_eq!(
            error(&e),
            "MIG profiles: no GPU model offers all of a, b; choose the GPU model"
        );
        assert_eq!(
            message(&e),
            "no GPU model offers all of a, b; choose the GPU model"
        );
        let e = Error::new(ErrorKind::OutOfRange, "must be a number ≥ 1, got 0.5").in_field("pue");
        assert_eq!(error(&e), "PUE: must be a number ≥ 1, got 0.5");
        for (input, said) in [
            (Input::GpuCount, "set the GPU count"),
            (Input::MigProfiles, "choose the allowed MIG profiles"),
            (Input::Image, "fill in the Image field"),
        ] {
            assert_eq!(hint(&Hint::Give { input }), said);
        }
    }

    #[test]
    fn lines_and_unknown_fields_read_as_the_core_writes_them() {
        let e = Error::new(ErrorKind::Syntax, "expected a value")
            .in_field("ask")
            .at_line(3);
        assert_eq!(error(&e), e.to_string());
        let e = Error::new(ErrorKind::Syntax, "not JSON").at_line(2);
        assert_eq!(error(&e), "line 2: not JSON");
        assert_eq!(error(&Error::new(ErrorKind::Ledger, "x")), "x");
    }
}
