//! An inference engine's container, as every Kubernetes format writes it (Deployments, KServe
//! InferenceServices, DRA Deployments): vLLM's OpenAI server image runs `vllm serve` with the
//! container's arguments, the model from its `MODEL` variable (Kubernetes expands `$(MODEL)` in
//! args), Ready once vLLM's `/health` answers on its default port 8000.

use super::yaml::{Map, Value};
use super::ServedEngine;

/// What an engine adds to its container.
pub(super) struct EngineContainer {
    /// The comment on the container: what the image must be, where the model comes from, and
    /// the engine's place in its device's start order.
    pub note: String,
    /// The `MODEL` variable.
    pub env: Value,
    pub args: Vec<String>,
}

impl EngineContainer {
    pub fn of(e: &ServedEngine) -> Self {
        let env = Map::new()
            .with("name", "MODEL")
            .with("value", e.model.clone().unwrap_or_default())
            .into();
        let mut args = vec!["$(MODEL)".to_string()];
        args.extend(e.args.iter().cloned());
        let model = match &e.model {
            Some(_) => "MODEL: the model's path or Hugging Face id, from its config.json",
            None => "MODEL: give the model's path or Hugging Face id (its config.json names none)",
        };
        let note = format!(
            "vLLM (an image whose entrypoint is vllm serve, such as vllm/vllm-openai): {model}. Engine {} to start on its device: start the engines of one device one at a time, each once the one before is Ready (its readiness probe is vLLM's /health; vllm-project/vllm#55827), or use the launch export.",
            e.start_order
        );
        EngineContainer { note, env, args }
    }
}

/// The container's `args` and, as only engines have arguments, its readiness probe: vLLM's
/// server answering `/health` on port 8000, its default.
pub(super) fn insert_args(container: &mut Map, args: Vec<String>) {
    if args.is_empty() {
        return;
    }
    container.insert(
        "args",
        Value::Seq(args.into_iter().map(Value::from).collect()),
    );
    let health = Map::new().with("path", "/health").with("port", 8000u64);
    container.insert("readinessProbe", Map::new().with("httpGet", health));
}
