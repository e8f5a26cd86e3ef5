//! The discovery box: paste (or pick a file of) nvidia-smi / kubectl output; the core's
//! `api::detect` reads it, the capabilities form is filled from the caps it implies, and the
//! response's own summary (GPU groups, facts, caps line, notes) is shown as it is.
//!
//! The pasted text stays in this component (it can be large); only the caps it fills reach the link.

use gpu_share_core::api::{self, ClusterGpuCaps, DetectInput, DetectRequest, DetectResponse};
use leptos::prelude::*;

use crate::file_input::{pasted_text, read_chosen_text};
use crate::state::{ClusterForm, DetectedMig, PageUi};
use crate::words;

/// What the last attempt produced: the summary of a filled form, or the error (nothing changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Filled(Report),
    Failed(String),
}

/// The parts of the core's detect response the box shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// One line per group of like GPUs, e.g. `8 × H100-80GB-HBM3, MIG capable (disabled)`.
    pub gpus: Vec<String>,
    /// Other facts: nodes, existing MIG devices, listed profiles, what was read.
    pub facts: Vec<String>,
    /// The caps the form was filled with, in one line.
    pub filled: String,
    /// The inventory's notes: what was assumed or skipped.
    pub notes: Vec<String>,
    /// What the capture says of MIG that the plan does not follow by itself.
    pub mig: DetectedMig,
}

impl From<DetectResponse> for Report {
    fn from(r: DetectResponse) -> Report {
        Report {
            gpus: r.gpu_groups,
            facts: r.facts,
            filled: r.summary,
            mig: DetectedMig {
                disabled_gpus: r.inventory.mig_disabled_gpus(),
                instances: r.inventory.mig_instances(),
            },
            notes: r.inventory.notes,
        }
    }
}

/// The label the core names this box's input by, in its errors.
pub const PASTED: &str = "pasted text";

/// The label of a picked file's text.
pub const PICKED: &str = "the chosen file";

/// Sets the capabilities form from discovered caps. Booleans are always set; the model and count
/// only when the input gave them; a profile limit when profiles were listed (else every profile
/// of the model is allowed). The optimize switch is the user's and stays.
pub fn fill_form(form: ClusterForm, caps: &ClusterGpuCaps) {
    if let Some(model) = &caps.gpu_model {
        form.gpu_model.set(model.clone());
    }
    if let Some(n) = caps.gpu_count {
        form.gpu_count.set(n.to_string());
    }
    form.mig.set(caps.supports_mig);
    form.mps.set(caps.supports_mps);
    form.timeslice.set(caps.supports_timeslicing);
    match &caps.mig_profiles {
        Some(profiles) => {
            form.allowed_profiles.set(profiles.clone());
            form.limit_profiles.set(true);
        }
        None => form.limit_profiles.set(false),
    }
}

/// Reads `text` (named `label` in errors) with the core; on success fills the form, on error
/// changes nothing.
pub fn run(form: ClusterForm, ui: PageUi, label: &str, text: &str) -> Outcome {
    let input = DetectInput {
        label: label.into(),
        text: text.into(),
    };
    match api::detect(&DetectRequest {
        inputs: vec![input],
    }) {
        Ok(response) => {
            fill_form(form, &response.caps);
            ui.detected_mig.set(DetectedMig {
                disabled_gpus: response.inventory.mig_disabled_gpus(),
                instances: response.inventory.mig_instances(),
            });
            Outcome::Filled(response.into())
        }
        Err(e) => Outcome::Failed(format!("{}; the form is unchanged", words::error(&e))),
    }
}

#[component]
pub fn DetectBox() -> impl IntoView {
    let form = expect_context::<ClusterForm>();
    let ui = expect_context::<PageUi>();
    let text = RwSignal::new(String::new());
    let outcome: RwSignal<Option<Outcome>> = RwSignal::new(None);
    let fill = move |_| {
        let result = text.with_untracked(|t| run(form, ui, PASTED, t));
        outcome.set(Some(result));
    };
    let on_file = move |ev: leptos::ev::Event| {
        read_chosen_text(&ev, move |file| match file {
            Ok(file) => {
                let result = run(form, ui, PICKED, &file);
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
                    {(r.mig.disabled_gpus > 0).then(|| view! {
                        <p class="warn" data-testid="detect-mig-disabled">{format!(
                            "MIG capable, disabled on {} GPU{}: the plan does not use MIG unless you turn it on (MIG in the cluster form); enabling MIG needs each GPU idle and reset.",
                            r.mig.disabled_gpus, if r.mig.disabled_gpus == 1 { "" } else { "s" })}</p>
                    })}
                    {(r.mig.instances > 0).then(|| view! {
                        <p class="warn" data-testid="detect-mig-instances">{format!(
                            "The plan starts from empty GPUs and ignores the {} MIG instance{} that exist. To place asks around them, paste `nvidia-smi mig -lgi` into \"GPUs as they are\" below.",
                            r.mig.instances, if r.mig.instances == 1 { "" } else { "s" })}</p>
                    })}
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
        let state = AppState::new("ask=a:0.5&gpus=3&timeslice");
        let form = |s: &AppState| {
            (
                s.form.gpu_model.get_untracked(),
                s.form.gpu_count.get_untracked(),
                s.form.mig.get_untracked(),
                s.form.mps.get_untracked(),
                s.form.timeslice.get_untracked(),
                s.form.limit_profiles.get_untracked(),
            )
        };
        let before = form(&state);
        let Outcome::Failed(e) = run(
            state.form,
            state.ui,
            PASTED,
            "this is not nvidia-smi output",
        ) else {
            panic!("garbage was read");
        };
        assert!(e.ends_with("the form is unchanged"), "{e}");
        assert!(e.contains("(in pasted text)"), "{e}");
        assert_eq!(form(&state), before);

        let Outcome::Filled(r) = run(state.form, state.ui, PASTED, TWO_A100) else {
            panic!("the capture was refused");
        };
        assert_eq!(r.gpus, vec!["2 × A100-SXM4-40GB, MIG capable (disabled)"]);
        assert!(
            r.facts.iter().any(|f| f == "read from: nvidia-smi -q -x"),
            "{:?}",
            r.facts
        );
        // The same words as every other front end: the core's detect response, shown as it is.
        let core = api::detect(&DetectRequest {
            inputs: vec![DetectInput {
                label: PASTED.into(),
                text: TWO_A100.into(),
            }],
        })
        .unwrap();
        assert_eq!(r, Report::from(core));
        assert!(
            r.filled.starts_with("A100-SXM4-40GB ×2; MIG"),
            "{}",
            r.filled
        );
        assert!(!r.notes.is_empty());
        let (model, count, mig, _, _, limited) = form(&state);
        // MIG capable but disabled: shown as such, and MIG stays off until the user turns it on.
        assert_eq!(
            (model.as_str(), count.as_str(), mig, limited),
            ("A100-SXM4-40GB", "2", false, false)
        );
        assert_eq!(
            (r.mig, state.ui.detected_mig.get_untracked()),
            (
                DetectedMig {
                    disabled_gpus: 2,
                    instances: 0
                },
                r.mig
            )
        );
        // The link carries the filled caps (and never the pasted text).
        let query = state.link.scenario.with_untracked(|s| s.to_query());
        assert!(
            query.contains("gpus=2") && !query.contains("mig-capable"),
            "{query}"
        );
        assert!(!query.contains("nvidia_smi_log"));
    }
}
