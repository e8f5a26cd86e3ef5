//! "Replay a cluster's workload": a node list and a pod list in the Alibaba 2023 GPU trace's CSV
//! form (picked files, or the bundled synthetic example), the policies to compare, the seeds and
//! the fill; the core's `api::replay` places every pod online, and the shared renderer draws the
//! allocation curves (`gpu_share_svg::render_replay`, the bytes `gpu-share replay --svg` writes),
//! with a table of each policy's allocation and failed pods.
//!
//! The lists, choices and result stay in this component: a replay is not part of the scenario or
//! the link, and it runs when asked (one replay of a real trace takes seconds), never per keystroke.

use gpu_share_core::api::{
    self, Error, ErrorKind, Percent, Policy, Replay, ReplayRequest, ReplaySettings, Tune,
};
use leptos::prelude::*;

use crate::file_input::read_chosen_text;

/// The synthetic trace of the tests (tests/fixtures/replay/), written in the trace's form.
const EXAMPLE_NODES: &str = include_str!("../../../tests/fixtures/replay/nodes.csv");
const EXAMPLE_PODS: &str = include_str!("../../../tests/fixtures/replay/pods.csv");

/// The seeds typed: `42`, `42, 43` or `42-51`.
fn seeds(text: &str) -> Result<Vec<u64>, Error> {
    let bad = || {
        Error::new(
            ErrorKind::Syntax,
            format!(
                "expected seeds such as 42, 42,43 or 42-51, got {:?}",
                text.trim()
            ),
        )
        .in_field("seeds")
    };
    let mut seeds = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u64, u64) = (
                    a.trim().parse().map_err(|_| bad())?,
                    b.trim().parse().map_err(|_| bad())?,
                );
                if b < a || b - a >= 100 {
                    return Err(bad());
                }
                seeds.extend(a..=b);
            }
            None => seeds.push(part.parse().map_err(|_| bad())?),
        }
    }
    Ok(seeds)
}

/// An error in the panel's words: the lists by name, with line and column.
fn said(e: &Error) -> String {
    let field = e.field.as_deref().map(|f| {
        let (list, column) = f.split_once('.').unwrap_or((f, ""));
        let list = match list {
            "nodes" => "node list",
            "pods" => "pod list",
            "seeds" => "Seeds",
            "tune" => "Fill to",
            other if other.starts_with("policies") => "Policies",
            other => other,
        };
        if column.is_empty() {
            list.to_string()
        } else {
            format!("{list}, column {column}")
        }
    });
    match (e.line, field) {
        (Some(line), Some(f)) => format!("{f}, line {line}: {}", e.message),
        (None, Some(f)) => format!("{f}: {}", e.message),
        (_, None) => e.message.clone(),
    }
}

fn percent(p: Option<Percent>) -> String {
    p.map_or("—".into(), |p| p.to_string())
}

#[component]
fn Results(replay: Replay) -> impl IntoView {
    let svg = gpu_share_svg::render_replay(
        &replay,
        &gpu_share_svg::SvgOptions {
            id_prefix: "replay".into(),
            ..Default::default()
        },
    );
    let tune = format!("at {}%", (replay.tune * 100.0).round());
    view! {
        <div class="replay-chart" data-testid="replay-chart" inner_html=svg></div>
        <table class="replay-table" data-testid="replay-table">
            <thead><tr><th scope="col">"policy"</th><th scope="col">"at 100%"</th><th scope="col">{tune}</th>
                <th scope="col">"± (seeds)"</th><th scope="col">"failed shares"</th><th scope="col">"whole"</th><th scope="col">"no GPU"</th></tr></thead>
            <tbody>
                {replay.policies.iter().map(|p| {
                    view! {
                        <tr data-policy=p.policy.name()>
                            <th scope="row">{p.policy.name()}</th>
                            <td class="num">{percent(p.at_100)}</td>
                            <td class="num">{percent(p.at_tune)}</td>
                            <td class="num">{percent(p.spread_at_tune)}</td>
                            <td class="num">{p.mean_failed.share}</td>
                            <td class="num">{p.mean_failed.whole}</td>
                            <td class="num">{p.mean_failed.no_gpu}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        <p class="note" data-testid="replay-bound">{format!(
            "At best these arrivals allocate between {:.2}% (a placement that exists: the same pods largest first) and {:.2}% (no placement can exceed it).",
            replay.bound.offline.to_f64(), replay.bound.upper.to_f64())}</p>
    }
}

/// A list's text and where it came from.
#[derive(Clone, Default)]
struct List {
    text: String,
    from: String,
}

#[component]
fn ListInput(
    label: &'static str,
    testid: &'static str,
    list: RwSignal<List>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let on_file = move |ev: leptos::ev::Event| {
        let name = event_target::<web_sys::HtmlInputElement>(&ev)
            .files()
            .and_then(|f| f.get(0))
            .map(|f| f.name())
            .unwrap_or_default();
        read_chosen_text(&ev, move |file| match file {
            Ok(text) => {
                error.set(None);
                list.set(List { text, from: name });
            }
            Err(why) => error.set(Some(why)),
        })
    };
    view! {
        <label class="file">{label}" "
            <input type="file" data-testid=testid accept=".csv,text/csv" on:change=on_file /></label>
        <span class="hint">{move || list.with(|l| if l.from.is_empty() { "none yet".to_string() } else { l.from.clone() })}</span>
    }
}

#[component]
pub fn ReplayBox() -> impl IntoView {
    let nodes = RwSignal::new(List::default());
    let pods = RwSignal::new(List::default());
    let chosen = RwSignal::new(vec![Policy::BestFit, Policy::Fgd, Policy::GpuShare]);
    let seed_text = RwSignal::new("42".to_string());
    let tune_text = RwSignal::new("1.3".to_string());
    let error: RwSignal<Option<String>> = RwSignal::new(None);
    let result: RwSignal<Option<Replay>> = RwSignal::new(None);
    let running = RwSignal::new(false);
    let example = move |_| {
        nodes.set(List {
            text: EXAMPLE_NODES.into(),
            from: "the example's 16 nodes".into(),
        });
        pods.set(List {
            text: EXAMPLE_PODS.into(),
            from: "the example's 80 pods".into(),
        });
    };
    let run = move |_| {
        let request = (|| {
            Ok::<_, Error>(ReplayRequest {
                nodes_csv: nodes.get_untracked().text,
                pods_csv: pods.get_untracked().text,
                options: ReplaySettings {
                    policies: chosen.get_untracked(),
                    seeds: seeds(&seed_text.get_untracked())?,
                    tune: Some(Tune::parse(&tune_text.get_untracked())?),
                },
            })
        })();
        let request = match request {
            Ok(r) if r.options.policies.is_empty() => {
                error.set(Some("Policies: choose at least one".into()));
                return;
            }
            Ok(r) => r,
            Err(e) => {
                error.set(Some(said(&e)));
                return;
            }
        };
        running.set(true);
        // Let "Replaying…" show before the replay takes the main thread.
        set_timeout(
            move || {
                match api::replay(&request) {
                    Ok(r) => {
                        error.set(None);
                        result.set(Some(r));
                    }
                    Err(e) => error.set(Some(said(&e))),
                }
                running.set(false);
            },
            std::time::Duration::from_millis(30),
        );
    };
    let toggle = move |policy: Policy| {
        chosen.update(|c| {
            if let Some(i) = c.iter().position(|&p| p == policy) {
                c.remove(i);
            } else {
                c.push(policy);
                gpu_share_core::api::sort(c);
            }
        })
    };
    view! {
        <section class="card replay" aria-labelledby="replay-h">
            <h2 id="replay-h">"Replay a cluster's workload"</h2>
            <p class="hint">"A node list and a pod list in the Alibaba 2023 GPU trace's form ("<code>"sn,cpu_milli,memory_mib,gpu,model"</code>" and "<code>"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec"</code>"), placed pod by pod as the FGD paper's simulator places them (USENIX ATC 2023), under its policies and gpu-share's. Read in this page; nothing is sent."</p>
            <div class="replay-lists">
                <ListInput label="Node list" testid="replay-nodes-file" list=nodes error />
                <ListInput label="Pod list" testid="replay-pods-file" list=pods error />
                <button type="button" data-testid="replay-example" on:click=example>"Use the example"</button>
            </div>
            <fieldset class="replay-policies">
                <legend>"Policies"</legend>
                {Policy::ALL.iter().map(|&p| view! {
                    <label><input type="checkbox" data-testid=format!("replay-policy-{}", p.name())
                        prop:checked=move || chosen.with(|c| c.contains(&p)) on:change=move |_| toggle(p) />" "{p.name()}</label>
                }).collect_view()}
            </fieldset>
            <div class="form-grid">
                <label for="replay-seeds">"Seeds"</label>
                <input id="replay-seeds" data-testid="replay-seeds" prop:value=move || seed_text.get() on:input=move |ev| seed_text.set(event_target_value(&ev)) />
                <label for="replay-tune">"Fill to"</label>
                <input id="replay-tune" data-testid="replay-tune" prop:value=move || tune_text.get() on:input=move |ev| tune_text.set(event_target_value(&ev)) />
            </div>
            <button type="button" data-testid="replay-run" on:click=run
                disabled=move || running.get() || nodes.with(|l| l.text.is_empty()) || pods.with(|l| l.text.is_empty())>
                {move || if running.get() { "Replaying…" } else { "Replay" }}
            </button>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="replay-error">{e}</p> })}
            {move || result.get().map(|replay| view! { <Results replay /> })}
        </section>
    }
}
