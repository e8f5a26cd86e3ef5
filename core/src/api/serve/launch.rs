//! The `launch` export: a bash script of `vllm serve` lines for the engines of a packing, each
//! device's engines started one at a time, each once the one before answers its health endpoint
//! (vLLM's OpenAI server, `GET /health`; engines started together mis-size each other,
//! vllm-project/vllm#55827). What the plan cannot know offline is a variable: each model's path
//! or Hugging Face id (by default the config's `_name_or_path`) and each device as CUDA names it
//! (a GPU's index, by default its index in the plan; a MIG device's UUID from `nvidia-smi -L`).

use super::DeviceEngines;
use crate::error::{Error, ErrorKind, Result};
use crate::size::bytes_text;

/// The first port; each engine takes the next. (The messages of `${VAR:?…}` hold no `'`: bash
/// reads one there as a quote even inside double quotes.)
const FIRST_PORT: u64 = 8000;

/// A model's name, and where to load it from by default (its config's `_name_or_path`).
pub(crate) struct Served<'a> {
    pub ask: &'a str,
    pub default_path: Option<String>,
}

/// The script, or why there is none to write.
///
/// # Errors
/// No engines: `models` and `engine` are what a launch plan is made of.
pub(crate) fn script(
    devices: &[DeviceEngines],
    models: &[Served],
    unplaced: &[(&str, &str)],
) -> Result<String> {
    if devices.iter().all(|d| d.engines.is_empty()) {
        return Err(Error::new(
            ErrorKind::Syntax,
            "a launch plan starts engines: give models and an engine (vllm) to pack",
        )
        .in_field("options.models"));
    }
    let mut out = String::from(HEADER);
    for (ask, reason) in unplaced {
        out.push_str(&format!(
            "# not placed: {} ({})\n",
            comment(ask),
            comment(reason)
        ));
    }
    // Every variable is read before any engine starts: an unset one stops the script here,
    // not inside a background job.
    let mut settings: Vec<String> = Vec::new();
    let mut body = String::new();
    let mut port = FIRST_PORT;
    for d in devices.iter().filter(|d| !d.engines.is_empty()) {
        let device = device_variable(d);
        settings.push(match &d.instance {
            Some(_) => setting(&device, "the UUID of the MIG device (nvidia-smi -L)", None),
            None => setting(&device, "", Some(&d.gpu.to_string())),
        });
        let asks: Vec<&str> = d.engines.iter().map(|e| e.ask.as_str()).collect();
        body.push_str(&format!(
            "\n# {} ({}): {}\n",
            where_(d),
            bytes_text(d.total_bytes),
            comment(&asks.join(", then "))
        ));
        for e in &d.engines {
            let model = model_variable(&e.ask, models);
            let path = models
                .iter()
                .find(|m| m.ask == e.ask)
                .and_then(|m| m.default_path.as_deref())
                .and_then(plain);
            settings.push(setting(
                &model,
                "the path or Hugging Face id of the model",
                path,
            ));
            body.push_str(&format!(
                "CUDA_VISIBLE_DEVICES=\"${device}\" vllm serve \"${model}\" --port {port} {} &\nwait_ready {port} $!\n",
                e.args.join(" ")
            ));
            port += 1;
        }
    }
    settings.dedup();
    out.push('\n');
    for s in settings {
        out.push_str(&s);
    }
    out.push_str(&body);
    out.push_str("wait\n");
    Ok(out)
}

/// `NAME="${NAME:-default}"`, or without a default `NAME="${NAME:?set NAME to what}"`.
fn setting(name: &str, what: &str, default: Option<&str>) -> String {
    match default {
        Some(d) => format!("{name}=\"${{{name}:-{d}}}\"\n"),
        None => format!("{name}=\"${{{name}:?set {name} to {what}}}\"\n"),
    }
}

const HEADER: &str = "#!/usr/bin/env bash
# vLLM engines as gpu-share planned them. The engines of one device start one at a time, each once
# the one before answers GET /health: vLLM checks only the memory free when it starts, and engines
# that start together count each other's loading as their own (vllm-project/vllm#55827).
# Set MODEL_* to each model's path or Hugging Face id where the config names none, and DEVICE_* to
# each device as CUDA names it: a GPU's index, a MIG device's UUID (nvidia-smi -L).
set -euo pipefail

wait_ready() { # PORT PID: until the engine on PORT is ready; stop if it exited
  until curl -sf \"http://127.0.0.1:$1/health\" > /dev/null; do
    kill -0 \"$2\" 2> /dev/null || { echo \"the engine on port $1 exited\" >&2; exit 1; }
    sleep 5
  done
}
";

fn where_(d: &DeviceEngines) -> String {
    match &d.instance {
        Some(i) => format!("GPU {}, MIG instance {i}", d.gpu),
        None => format!("GPU {}", d.gpu),
    }
}

/// `DEVICE_GPU_0`, `DEVICE_GPU_0_3G_40GB_AT_4`.
fn device_variable(d: &DeviceEngines) -> String {
    let mut name = format!("DEVICE_GPU_{}", d.gpu);
    if let Some(i) = &d.instance {
        name.push('_');
        name.push_str(&identifier(i));
    }
    name
}

/// `MODEL_` and the ask's name as a shell identifier, with its place among the models when two
/// names read the same (`chat-1`, `chat_1`).
fn model_variable(ask: &str, models: &[Served]) -> String {
    let id = identifier(ask);
    let same: Vec<usize> = (0..models.len())
        .filter(|&i| identifier(models[i].ask) == id)
        .collect();
    match same.iter().position(|&i| models[i].ask == ask) {
        Some(k) if same.len() > 1 => format!("MODEL_{id}_{}", k + 1),
        _ => format!("MODEL_{id}"),
    }
}

/// Upper-case letters, digits and `_`: anything else becomes `_`.
fn identifier(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Text safe in a `#` comment: one line.
fn comment(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// A path or id plain enough to sit unquoted-safe in `"${VAR:-…}"` (letters, digits and
/// `._/-:@+`); another is no default, and the script asks for the variable instead.
fn plain(path: &str) -> Option<&str> {
    let ok = |c: char| c.is_ascii_alphanumeric() || "._/-:@+".contains(c);
    (!path.is_empty() && path.chars().all(ok)).then_some(path)
}
