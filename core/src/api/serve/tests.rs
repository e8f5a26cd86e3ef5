//! Models packed as asks, and their engines planned on the devices they were given.

use super::super::{pack, Cluster, EngineOptions, PackOptions, PackRequest, PackResponse};
use super::*;

const LLAMA: &str = include_str!("../../size/published/llama_3_1_8b.json");
const QWEN: &str = include_str!("../../size/published/qwen2_5_7b.json");

fn model(name: &str, config: &str, concurrency: u64) -> ModelAsk {
    ModelAsk {
        name: name.into(),
        config: config.into(),
        context: Some(8192),
        concurrency: Some(concurrency),
    }
}

fn vllm() -> Option<EngineOptions> {
    Some(EngineOptions {
        name: "vllm".into(),
        ..Default::default()
    })
}

fn packed(
    models: Vec<ModelAsk>,
    engine: Option<EngineOptions>,
    caps: ClusterGpuCaps,
) -> Result<PackResponse> {
    pack(&PackRequest {
        cluster: Cluster::Given(caps),
        options: PackOptions {
            models,
            engine,
            ..Default::default()
        },
        ..Default::default()
    })
}

fn h100(timeslice: bool, mig: bool) -> ClusterGpuCaps {
    ClusterGpuCaps {
        gpu_model: Some("H100-80GB-HBM3".into()),
        supports_timeslicing: timeslice,
        supports_mig: mig,
        ..Default::default()
    }
}

/// Two engines time-sliced on one H100: each serves its concurrency at the utilisation found for
/// the GPU, they start one after the other, and together they hold no more than the GPU.
#[test]
fn engines_share_a_gpu_in_start_order() {
    let r = packed(
        vec![model("llama", LLAMA, 8), model("qwen", QWEN, 8)],
        vllm(),
        h100(true, false),
    )
    .unwrap();
    assert_eq!(r.result.gpus_used, 1);
    let [d] = r.engines.as_slice() else {
        panic!("{:?}", r.engines)
    };
    assert_eq!(d.instance, None);
    let order: Vec<(&str, u64)> = d
        .engines
        .iter()
        .map(|e| (e.ask.as_str(), e.start_order))
        .collect();
    assert_eq!(order, [("llama", 1), ("qwen", 2)]);
    assert!(d.engines.iter().all(|e| e.max_concurrency >= 8));
    let held: u64 = d.engines.iter().map(|e| e.footprint_bytes).sum();
    assert!(held <= d.total_bytes, "{held} > {}", d.total_bytes);
    // The packer's memory (asks plus their CUDA contexts) covers what the engines hold.
    let used = r.result.gpus[0].memory().unwrap().used_mib * MIB;
    assert!(held <= used, "{held} > {used}");
}

/// On MIG each engine's device is its instance: its utilisation is a share of the instance.
#[test]
fn an_engine_in_a_mig_instance_sees_the_instance() {
    let r = packed(vec![model("llama", LLAMA, 8)], vllm(), h100(false, true)).unwrap();
    let [d] = r.engines.as_slice() else {
        panic!("{:?}", r.engines)
    };
    let m = require_model("H100-80GB-HBM3").unwrap();
    let instance = d.instance.as_deref().unwrap();
    let profile = m
        .require_profile(instance.split(' ').next().unwrap())
        .unwrap();
    assert_eq!(d.total_bytes, m.profile_memory(profile).mib * MIB);
    assert!(d.engines[0].footprint_bytes <= d.total_bytes);
    assert!(d.engines[0].max_concurrency >= 8);
}

/// Engines that do not fit together are unplaced by the packer, with its reason; the ones placed
/// are planned.
#[test]
fn a_set_that_cannot_fit_is_reported_unplaced() {
    let caps = ClusterGpuCaps {
        gpu_count: Some(1),
        ..h100(true, false)
    };
    let r = packed(
        vec![model("llama", LLAMA, 40), model("qwen", QWEN, 80)],
        vllm(),
        caps.clone(),
    )
    .unwrap();
    assert_eq!(r.result.unplaced.len(), 1, "{:?}", r.result.unplaced);
    assert!(r.result.unplaced[0].reason.contains("memory"));
    assert_eq!(r.engines.len(), 1);
    assert_eq!(r.engines[0].engines.len(), 1);
    // A model no device of the GPU serves is an error naming it, not an ask.
    let e = packed(vec![model("qwen", QWEN, 200)], vllm(), caps).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("options.models[0]"));
    assert!(
        e.message
            .contains("No utilisation up to 1 serves 200 sequences"),
        "{e}"
    );
}

/// Without an engine a model is an ask of the memory `size` gives it.
#[test]
fn without_an_engine_a_model_is_its_sized_memory() {
    let r = packed(vec![model("llama", LLAMA, 4)], None, h100(true, false)).unwrap();
    assert!(r.engines.is_empty());
    let sized = formula_memory(&model("llama", LLAMA, 4)).unwrap();
    assert_eq!(
        r.result.choices[0].memory_mib,
        Some(sized.mib_ceil()),
        "{:?}",
        r.result.choices[0]
    );
}

#[test]
fn errors_name_their_field() {
    let field = |models: Vec<ModelAsk>, engine: Option<EngineOptions>, caps: ClusterGpuCaps| {
        packed(models, engine, caps).unwrap_err().field
    };
    let none = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    assert_eq!(
        field(vec![model("l", LLAMA, 1)], vllm(), none).as_deref(),
        Some("gpu_model")
    );
    let tp = Some(EngineOptions {
        tensor_parallel_size: Some(2),
        ..vllm().unwrap()
    });
    assert_eq!(
        field(vec![model("l", LLAMA, 1)], tp, h100(true, false)).as_deref(),
        Some("options.engine.tensor_parallel_size")
    );
    let broken = LLAMA.replace("\"num_key_value_heads\": 8,", "");
    assert_eq!(
        field(vec![model("l", &broken, 1)], vllm(), h100(true, false)).as_deref(),
        Some("options.models[0].config.num_key_value_heads")
    );
    assert_eq!(
        field(vec![model("l", LLAMA, 0)], None, h100(true, false)).as_deref(),
        Some("options.models[0].concurrency")
    );
    assert_eq!(
        field(vec![model("", LLAMA, 1)], None, h100(true, false)).as_deref(),
        Some("options.models[0].name")
    );
    // The packer's errors about a model's ask name the model, not its place among the asks.
    let no_model = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    assert_eq!(
        field(vec![model("l", LLAMA, 1)], None, no_model).as_deref(),
        Some("options.models[0].memory")
    );
}

#[test]
fn reads_from_json() {
    let r: PackRequest = serde_json::from_value(serde_json::json!({
        "asks": [],
        "caps": {"gpu_model": "h100", "supports_timeslicing": true},
        "options": {"models": [{"name": "llama", "config": {"architectures": ["LlamaForCausalLM"]},
            "context": 4096}], "engine": {"name": "vllm"}}
    }))
    .unwrap();
    assert_eq!(r.options.models[0].context, Some(4096));
    assert!(r.options.models[0].config.contains("LlamaForCausalLM"));
    assert_eq!(r.options.engine.unwrap().name, "vllm");
}

/// The launch script starts each device's engines in order, each with its own flags, waiting for
/// the one before; a model no device took is named with the packer's reason.
#[test]
fn the_launch_script_starts_engines_in_order() {
    let caps = ClusterGpuCaps {
        gpu_count: Some(1),
        ..h100(true, false)
    };
    let options = PackOptions {
        models: vec![
            model("chat", LLAMA, 16),
            model("chat-2", QWEN, 4),
            model("chat_2", QWEN, 100),
        ],
        engine: vllm(),
        ..Default::default()
    };
    let request = PackRequest {
        cluster: Cluster::Given(caps),
        options: options.clone(),
        ..Default::default()
    };
    let packed = pack(&request).unwrap();
    let text = launch(&packed, &options).unwrap();
    let serve: Vec<&str> = text.lines().filter(|l| l.contains("vllm serve")).collect();
    let engines: Vec<&PlannedEngine> = packed.engines.iter().flat_map(|d| &d.engines).collect();
    assert_eq!(serve.len(), engines.len(), "{text}");
    for (k, (line, e)) in serve.iter().zip(&engines).enumerate() {
        assert!(line.starts_with("CUDA_VISIBLE_DEVICES=\"$DEVICE_GPU_0\" vllm serve \"$MODEL_"));
        assert!(
            line.ends_with(&format!("--port {} {} &", 8000 + k, e.args.join(" "))),
            "{line}"
        );
    }
    // FFD places the largest, chat_2; the others are named with the packer's reason.
    assert!(serve[0].contains("\"$MODEL_CHAT_2_2\""), "{}", serve[0]);
    assert!(text.contains("\nMODEL_CHAT_2_2=\"${MODEL_CHAT_2_2:?set MODEL_CHAT_2_2 to the path"));
    assert!(
        text.contains("\nDEVICE_GPU_0=\"${DEVICE_GPU_0:-0}\"\n"),
        "{text}"
    );
    assert!(text.contains("wait_ready 8000 $!\n"), "{text}");
    assert!(text.contains("# not placed: chat (memory:"), "{text}");
    assert!(text.contains("# not placed: chat-2 (memory:"), "{text}");
    let none = PackOptions::default();
    let plain = pack(&PackRequest {
        asks: vec![crate::parse::AskEntry {
            ask: FractionalAsk::parse_spec("a:0.5").unwrap(),
            seconds: None,
        }],
        cluster: Cluster::Given(h100(true, false)),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        launch(&plain, &none).unwrap_err().field.as_deref(),
        Some("options.models")
    );
}

/// A config's `_name_or_path` is the model's default when it is a plain path or id; anything a
/// shell would read otherwise leaves the variable to be set.
#[test]
fn the_launch_script_defaults_a_plain_model_path() {
    let named = |path: &str| {
        let config = LLAMA.replacen('{', &format!("{{\"_name_or_path\": {path:?}, "), 1);
        let options = PackOptions {
            models: vec![model("chat", &config, 1)],
            engine: vllm(),
            ..Default::default()
        };
        let packed = pack(&PackRequest {
            cluster: Cluster::Given(h100(true, false)),
            options: options.clone(),
            ..Default::default()
        })
        .unwrap();
        launch(&packed, &options).unwrap()
    };
    assert!(named("meta-llama/Llama-3.1-8B-Instruct")
        .contains("\"${MODEL_CHAT:-meta-llama/Llama-3.1-8B-Instruct}\""));
    let hostile = named("x\"; rm -rf / #$(id)");
    assert!(
        hostile.contains("\"${MODEL_CHAT:?set MODEL_CHAT"),
        "{hostile}"
    );
    assert!(!hostile.contains("rm -rf"), "{hostile}");
}

/// The Kubernetes formats (Deployments, KServe, DRA's Deployments) give an engine's container
/// its arguments, its model as `MODEL` and a readiness probe on vLLM's health endpoint; the
/// other asks' containers are as before.
#[test]
fn kubernetes_exports_carry_the_engine_arguments() {
    use super::super::{export, ExportFormat, ExportRequest};
    let config = LLAMA.replacen(
        '{',
        "{\"_name_or_path\": \"meta-llama/Llama-3.1-8B-Instruct\", ",
        1,
    );
    let options = PackOptions {
        models: vec![model("chat", &config, 8)],
        engine: vllm(),
        ..Default::default()
    };
    let pack_request = PackRequest {
        asks: vec![crate::parse::AskEntry {
            ask: FractionalAsk::parse_spec("notebook:0.25").unwrap(),
            seconds: None,
        }],
        cluster: Cluster::Given(h100(true, false)),
        options,
        ..Default::default()
    };
    for format in [
        ExportFormat::Kubernetes,
        ExportFormat::KServe,
        ExportFormat::Dra,
    ] {
        let r = export(&ExportRequest {
            format,
            pack: pack_request.clone(),
            options: Default::default(),
        })
        .unwrap();
        let engine = &r.pack.engines[0].engines[0];
        let args: String = engine.args.iter().map(|a| format!("- {a:?}\n")).collect();
        assert!(r.text.contains("- \"$(MODEL)\"\n"), "{}", r.text);
        let indented: Vec<String> = args.lines().map(|l| l.trim().to_string()).collect();
        for a in &indented {
            assert!(r.text.lines().any(|l| l.trim() == a), "{a} in {}", r.text);
        }
        assert!(
            r.text.contains("value: meta-llama/Llama-3.1-8B-Instruct\n"),
            "{}",
            r.text
        );
        assert_eq!(
            r.text.matches("readinessProbe:").count(),
            1,
            "only the engine's"
        );
        assert_eq!(r.text.matches("args:").count(), 1, "only the engine's");
    }
}

/// Only `pack` plans engines: the paths that pack asks alone (the page's rows left out, columns)
/// refuse models rather than drop them.
#[test]
fn only_pack_takes_models() {
    let request = PackRequest {
        cluster: Cluster::Given(h100(true, false)),
        options: PackOptions {
            models: vec![model("chat", LLAMA, 1)],
            engine: vllm(),
            ..Default::default()
        },
        ..Default::default()
    };
    let e = super::super::pack_given_leaving_out(&request).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("options.models"));
    assert!(pack(&request).is_ok());
}
