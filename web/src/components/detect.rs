//! The discovery box: paste (or pick a file of) nvidia-smi / kubectl output; the core's `discover`
//! reads it and the capabilities form is filled from the inventory's caps, with a summary of what was found.
//!
//! The pasted text stays in this component (it can be large); only the caps it fills reach the link.

use std::collections::BTreeMap;

use gpu_share_core::discover::{detect, Inventory};
use gpu_share_core::ClusterGpuCaps;
use leptos::prelude::*;

use crate::file_input::{pasted_text, read_chosen_text};
use crate::state::AppState;

/// What the last attempt produced: the summary of a filled form, or the error (nothing changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Filled(Report),
    Failed(String),
}

/// The summary shown after filling the form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// One line per group of like GPUs, e.g. `8 × H100-80GB-HBM3, MIG capable (disabled)`.
    pub gpus: Vec<String>,
    /// Other facts: nodes, existing MIG devices, listed profiles, what was read.
    pub facts: Vec<String>,
    /// What the form now says.
    pub filled: String,
    /// The inventory's notes: what was assumed or skipped.
    pub notes: Vec<String>,
}

/// `1 × a` / `2 × a, 1 × b` from counts, in first-seen order.
fn counted(items: impl IntoIterator<Item = String>) -> String {
    let mut order: Vec<(String, usize)> = Vec::new();
    for item in items {
        match order.iter_mut().find(|(k, _)| *k == item) {
            Some((_, n)) => *n += 1,
            None => order.push((item, 1)),
        }
    }
    order
        .into_iter()
        .map(|(k, n)| format!("{n} × {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// At most `max` names, then how many more.
fn some_of(names: &[String], max: usize) -> String {
    if names.len() <= max {
        names.join(", ")
    } else {
        format!("{} and {} more", names[..max].join(", "), names.len() - max)
    }
}

/// The caps in one line, as the form now shows them.
pub fn caps_line(caps: &ClusterGpuCaps) -> String {
    let mut parts = Vec::new();
    match (&caps.gpu_model, caps.gpu_count) {
        (Some(m), Some(n)) => parts.push(format!("{n} × {m}")),
        (Some(m), None) => parts.push(m.clone()),
        (None, Some(n)) => parts.push(format!("{n} GPUs")),
        (None, None) => {}
    }
    let mut mechanisms = Vec::new();
    if caps.supports_mig {
        mechanisms.push(match &caps.mig_profiles {
            Some(p) => format!("MIG ({})", p.join(", ")),
            None => "MIG".to_string(),
        });
    }
    if caps.supports_mps {
        mechanisms.push("MPS".into());
    }
    if caps.supports_timeslicing {
        mechanisms.push("time-slicing".into());
    }
    if mechanisms.is_empty() {
        mechanisms.push("whole GPUs only".into());
    }
    parts.push(mechanisms.join(", "));
    parts.join("; ")
}

/// The summary of an inventory for people.
pub fn report(inv: &Inventory) -> Report {
    // GPUs grouped by model (or reported name) and MIG capability, in first-seen order.
    let mut groups: Vec<((String, bool), (usize, usize))> = Vec::new();
    for g in &inv.gpus {
        let key = (
            g.model.clone().unwrap_or_else(|| g.name.clone()),
            g.mig_capable,
        );
        let enabled = usize::from(g.mig_enabled);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, (n, e))) => {
                *n += 1;
                *e += enabled;
            }
            None => groups.push((key, (1, enabled))),
        }
    }
    let gpus = groups
        .into_iter()
        .map(|((name, capable), (n, enabled))| {
            let mig = match (capable, enabled) {
                (false, _) => "no MIG".to_string(),
                (true, 0) => "MIG capable (disabled)".to_string(),
                (true, e) if e == n => "MIG enabled".to_string(),
                (true, e) => format!("MIG enabled on {e} of {n}"),
            };
            format!("{n} × {name}, {mig}")
        })
        .collect();

    let mut facts = Vec::new();
    if !inv.nodes.is_empty() {
        let names: Vec<String> = inv.nodes.iter().map(|n| n.name.clone()).collect();
        facts.push(format!(
            "{} node{}: {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            some_of(&names, 8)
        ));
    }
    let mut devices: Vec<String> = Vec::new();
    for g in &inv.gpus {
        devices.extend(g.mig_devices.iter().map(|d| d.profile.clone()));
    }
    if !devices.is_empty() {
        facts.push(format!("existing MIG devices: {}", counted(devices)));
    } else {
        // Kubernetes nodes report MIG devices as counts per profile.
        let mut per_profile: BTreeMap<&str, u64> = BTreeMap::new();
        for n in &inv.nodes {
            for (p, c) in &n.mig_device_counts {
                *per_profile.entry(p.as_str()).or_default() += c;
            }
        }
        if !per_profile.is_empty() {
            let list: Vec<String> = per_profile
                .into_iter()
                .map(|(p, c)| format!("{c} × {p}"))
                .collect();
            facts.push(format!("existing MIG devices: {}", list.join(", ")));
        }
    }
    if !inv.mig_profiles.is_empty() {
        facts.push(format!(
            "MIG profiles listed: {}",
            some_of(&inv.mig_profiles, 20)
        ));
    }
    if !inv.sources.is_empty() {
        let read: Vec<&str> = inv.sources.iter().map(|s| s.command()).collect();
        facts.push(format!("read from: {}", read.join(", ")));
    }
    Report {
        gpus,
        facts,
        filled: caps_line(&inv.caps()),
        notes: inv.notes.clone(),
    }
}

/// Sets the capabilities form from discovered caps. Booleans are always set; the model and count
/// only when the input gave them; a profile limit when profiles were listed (else every profile
/// of the model is allowed). The optimize switch is the user's and stays.
pub fn fill_form(state: &AppState, caps: &ClusterGpuCaps) {
    if let Some(model) = &caps.gpu_model {
        state.gpu_model.set(model.clone());
    }
    if let Some(n) = caps.gpu_count {
        state.gpu_count.set(n.to_string());
    }
    state.mig.set(caps.supports_mig);
    state.mps.set(caps.supports_mps);
    state.timeslice.set(caps.supports_timeslicing);
    match &caps.mig_profiles {
        Some(profiles) => {
            state.allowed_profiles.set(profiles.clone());
            state.limit_profiles.set(true);
        }
        None => state.limit_profiles.set(false),
    }
}

/// Reads `text` with the core; on success fills the form, on error changes nothing.
pub fn run(state: &AppState, text: &str) -> Outcome {
    match detect(text) {
        Ok(inv) => {
            fill_form(state, &inv.caps());
            Outcome::Filled(report(&inv))
        }
        Err(e) => Outcome::Failed(format!("{e}; the form is unchanged")),
    }
}

#[component]
pub fn DetectBox() -> impl IntoView {
    let state = expect_context::<AppState>();
    let text = RwSignal::new(String::new());
    let outcome: RwSignal<Option<Outcome>> = RwSignal::new(None);
    let fill = move |_| {
        let result = text.with_untracked(|t| run(&state, t));
        outcome.set(Some(result));
    };
    let on_file = move |ev: leptos::ev::Event| {
        read_chosen_text(&ev, move |file| match file {
            Ok(file) => {
                let result = run(&state, &file);
                text.set(file);
                outcome.set(Some(result));
            }
            Err(why) => outcome.set(Some(Outcome::Failed(format!(
                "{why}; the form is unchanged"
            )))),
        });
    };
    let on_paste = move |ev: leptos::ev::Event| match pasted_text(&ev) {
        Ok(pasted) => text.set(pasted),
        Err(why) => {
            text.set(String::new());
            outcome.set(Some(Outcome::Failed(format!(
                "{why}; the form is unchanged"
            ))));
        }
    };
    let shown = move || {
        outcome.get().map(|o| match o {
            Outcome::Failed(e) => {
                view! { <p class="error" role="alert" data-testid="detect-error">{e}</p> }.into_any()
            }
            Outcome::Filled(r) => view! {
                <div class="detect-summary" role="status" data-testid="detect-summary">
                    <ul class="found">
                        {r.gpus.into_iter().map(|g| view! { <li><strong>{g}</strong></li> }).collect_view()}
                        {r.facts.into_iter().map(|f| view! { <li>{f}</li> }).collect_view()}
                    </ul>
                    <p class="ok">"Filled the form: "{r.filled}</p>
                    {(!r.notes.is_empty()).then(|| view! {
                        <ul class="detect-notes">
                            {r.notes.into_iter().map(|n| view! { <li class="note">{n}</li> }).collect_view()}
                        </ul>
                    })}
                </div>
            }
            .into_any(),
        })
    };
    view! {
        <section class="card detect" aria-labelledby="detect-h">
            <h2 id="detect-h">"Fill from your GPUs"</h2>
            <p class="hint">"Paste the output of "<code>"nvidia-smi -q -x"</code>", "<code>"nvidia-smi"</code>", "
                <code>"nvidia-smi -L"</code>", "<code>"nvidia-smi --query-gpu=… --format=csv"</code>", "
                <code>"nvidia-smi mig -lgip"</code>" or "<code>"kubectl get nodes -o json"</code>
                ". It is read in this page and not put in the link."</p>
            <label for="detect-paste">"Paste nvidia-smi / kubectl output"</label>
            <textarea id="detect-paste" data-testid="detect-input" rows="5" spellcheck="false" autocomplete="off"
                placeholder="nvidia-smi -q -x > gpus.xml"
                prop:value=move || text.get() on:input=on_paste></textarea>
            <div class="buttons">
                <button type="button" class="primary" data-testid="detect-fill" on:click=fill
                    disabled=move || text.with(|t| t.trim().is_empty())>"Fill capabilities"</button>
                <label class="file">"Or pick a file "
                    <input type="file" data-testid="detect-file" accept=".xml,.txt,.csv,.json,.log,text/plain,text/xml,application/json" on:change=on_file /></label>
            </div>
            {shown}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::AppState;

    #[test]
    fn counts_read_well() {
        assert_eq!(
            counted(["a".to_string(), "b".into(), "a".into()]),
            "2 × a, 1 × b"
        );
        let names: Vec<String> = (0..10).map(|i| format!("n{i}")).collect();
        assert_eq!(some_of(&names[..2], 8), "n0, n1");
        assert!(some_of(&names, 8).ends_with("and 2 more"));
    }

    #[test]
    fn caps_lines_say_what_the_form_shows() {
        let caps = ClusterGpuCaps {
            supports_mig: true,
            supports_timeslicing: true,
            gpu_model: Some("H100-80GB-HBM3".into()),
            gpu_count: Some(8),
            ..Default::default()
        };
        assert_eq!(caps_line(&caps), "8 × H100-80GB-HBM3; MIG, time-slicing");
        assert_eq!(caps_line(&ClusterGpuCaps::default()), "whole GPUs only");
    }

    const TWO_A100: &str = r#"<?xml version="1.0" ?>
<nvidia_smi_log>
<gpu id="00000000:06:00.0">
  <product_name>NVIDIA A100-SXM4-40GB</product_name>
  <mig_mode><current_mig>Disabled</current_mig><pending_mig>Disabled</pending_mig></mig_mode>
  <fb_memory_usage><total>40960 MiB</total></fb_memory_usage>
  <minor_number>0</minor_number>
</gpu>
<gpu id="00000000:07:00.0">
  <product_name>NVIDIA A100-SXM4-40GB</product_name>
  <mig_mode><current_mig>Disabled</current_mig><pending_mig>Disabled</pending_mig></mig_mode>
  <fb_memory_usage><total>40960 MiB</total></fb_memory_usage>
  <minor_number>1</minor_number>
</gpu>
</nvidia_smi_log>"#;

    #[test]
    fn a_capture_fills_the_form_and_garbage_changes_nothing() {
        let state = AppState::new("ask=a:0.5&gpus=3&timeslice", false, Ok(Vec::new()), 0);
        let form = |s: &AppState| {
            (
                s.gpu_model.get_untracked(),
                s.gpu_count.get_untracked(),
                s.mig.get_untracked(),
                s.mps.get_untracked(),
                s.timeslice.get_untracked(),
                s.limit_profiles.get_untracked(),
            )
        };
        let before = form(&state);
        let Outcome::Failed(e) = run(&state, "this is not nvidia-smi output") else {
            panic!("garbage was read");
        };
        assert!(e.ends_with("the form is unchanged"), "{e}");
        assert_eq!(form(&state), before);

        let Outcome::Filled(r) = run(&state, TWO_A100) else {
            panic!("the capture was refused");
        };
        assert_eq!(r.gpus, vec!["2 × A100-SXM4-40GB, MIG capable (disabled)"]);
        assert!(
            r.facts.iter().any(|f| f == "read from: nvidia-smi -q -x"),
            "{:?}",
            r.facts
        );
        assert!(
            r.filled.starts_with("2 × A100-SXM4-40GB; MIG"),
            "{}",
            r.filled
        );
        assert!(!r.notes.is_empty());
        let (model, count, mig, _, _, limited) = form(&state);
        assert_eq!(
            (model.as_str(), count.as_str(), mig, limited),
            ("A100-SXM4-40GB", "2", true, false)
        );
        // The link carries the filled caps (and never the pasted text).
        let query = state.scenario.with_untracked(|s| s.to_query());
        assert!(
            query.contains("gpus=2") && query.contains("mig-capable"),
            "{query}"
        );
        assert!(!query.contains("nvidia_smi_log"));
    }
}
