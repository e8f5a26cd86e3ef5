//! The asks table: one editable row per ask (name, fraction or MIG profile, duration) and loading CSV/JSON lists.

use crate::file_input::{pasted_text, read_chosen_text};
use gpu_share_core::parse::parse_asks;
use leptos::prelude::*;

use crate::state::{AppState, AskRow, RowText, SizeKind};
use crate::words;

/// The error text for `field`, when the row's error is about that field.
fn field_error(row: AskRow, field: &'static str) -> impl Fn() -> Option<String> + Copy {
    move || {
        let err = match field {
            "hours" => row.seconds().err(),
            _ => row.ask().err(),
        }?;
        let f = err.field.as_deref().unwrap_or("");
        (f == field || (field == "name" && f.is_empty())).then(|| words::message(&err))
    }
}

/// A name not yet used by any row: `name-2`, `name-3`, …
fn unused_name(base: &str, taken: &[String]) -> String {
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|candidate| !taken.iter().any(|t| t == candidate))
        .unwrap_or_else(|| base.to_string())
}

#[component]
fn ErrorText(text: impl Fn() -> Option<String> + Send + Sync + 'static) -> impl IntoView {
    move || text().map(|t| view! { <span class="field-error" role="alert">{t}</span> })
}

#[component]
fn AskRowView(index: ReadSignal<usize>, row: AskRow) -> impl IntoView {
    let state = expect_context::<AppState>();
    let n = move || index.get() + 1;
    let name_err = field_error(row, "name");
    let fraction_err = field_error(row, "fraction");
    let profile_err = field_error(row, "mig_profile");
    let hours_err = field_error(row, "hours");
    let on_kind = move |ev: leptos::ev::Event| {
        let kind = if event_target_value(&ev) == "mig" {
            SizeKind::Mig
        } else {
            SizeKind::Fraction
        };
        if kind == SizeKind::Mig && row.profile.get_untracked().is_empty() {
            let first = state
                .profile_model
                .get_untracked()
                .profiles
                .iter()
                .find(|p| p.is_plain())
                .map(|p| p.name);
            row.profile.set(first.unwrap_or_default().to_string());
        }
        row.kind.set(kind);
    };
    let size = move || match row.kind.get() {
        SizeKind::Fraction => view! {
            <input type="text" name="fraction" inputmode="decimal" placeholder="0.5, 50% or 1/2"
                aria-label=move || format!("Ask {} fraction", n())
                aria-invalid=move || if fraction_err().is_some() { "true" } else { "false" }
                prop:value=move || row.fraction.get()
                on:input=move |ev| row.fraction.set(event_target_value(&ev)) />
            <ErrorText text=fraction_err />
        }
        .into_any(),
        SizeKind::Mig => {
            let options = move || {
                let model = state.profile_model.get();
                let current = row.profile.get();
                let mut names: Vec<String> =
                    model.profiles.iter().map(|p| p.name.to_string()).collect();
                if !current.is_empty() && !names.contains(&current) {
                    names.insert(0, current.clone());
                }
                names
                    .into_iter()
                    .map(|p| {
                        let selected = p == current;
                        view! { <option value=p.clone() selected=selected>{p.clone()}</option> }
                    })
                    .collect_view()
            };
            view! {
                <select name="profile" aria-label=move || format!("Ask {} MIG profile", n())
                    on:change=move |ev| row.profile.set(event_target_value(&ev))>
                    {options}
                </select>
                <ErrorText text=profile_err />
            }
            .into_any()
        }
    };
    let duplicate = move |_| {
        state.rows.update(|rows| {
            let taken: Vec<String> = rows.iter().map(|r| r.name.get_untracked()).collect();
            let mut text = row.text();
            text.name = unused_name(text.name.trim(), &taken);
            let copy = state.new_row(text);
            let at = rows
                .iter()
                .position(|r| r.id == row.id)
                .map_or(rows.len(), |i| i + 1);
            rows.insert(at, copy);
        });
    };
    let remove = move |_| state.rows.update(|rows| rows.retain(|r| r.id != row.id));
    view! {
        <tr data-testid="ask-row">
            <td class="cell-name">
                <input type="text" name="name" autocomplete="off" spellcheck="false"
                    aria-label=move || format!("Ask {} name", n())
                    aria-invalid=move || if name_err().is_some() { "true" } else { "false" }
                    prop:value=move || row.name.get()
                    on:input=move |ev| row.name.set(event_target_value(&ev)) />
                <ErrorText text=name_err />
            </td>
            <td class="cell-kind">
                <select name="kind" aria-label=move || format!("Ask {} size kind", n()) on:change=on_kind>
                    <option value="fraction" selected=move || row.kind.get() == SizeKind::Fraction>"fraction"</option>
                    <option value="mig" selected=move || row.kind.get() == SizeKind::Mig>"MIG profile"</option>
                </select>
            </td>
            <td class="cell-size">{size}</td>
            <td class="cell-hours">
                <input type="text" name="hours" inputmode="decimal" placeholder="open"
                    aria-label=move || format!("Ask {} duration in hours", n())
                    aria-invalid=move || if hours_err().is_some() { "true" } else { "false" }
                    prop:value=move || row.hours.get()
                    on:input=move |ev| row.hours.set(event_target_value(&ev)) />
                <ErrorText text=hours_err />
            </td>
            <td class="cell-actions">
                <button type="button" class="small" on:click=duplicate
                    aria-label=move || format!("Duplicate ask {}", n())>"Duplicate"</button>
                <button type="button" class="small danger" on:click=remove
                    aria-label=move || format!("Remove ask {}", n())>"Remove"</button>
            </td>
        </tr>
    }
}

/// Replaces the rows with a parsed list, or says why the list was refused.
fn load_list(state: AppState, text: &str, message: RwSignal<Option<Result<String, String>>>) {
    match parse_asks(text) {
        Ok(entries) if entries.is_empty() => {
            message.set(Some(Err("the list holds no asks; nothing changed".into())))
        }
        Ok(entries) => {
            let n = entries.len();
            state.replace_rows(
                entries
                    .iter()
                    .map(|e| RowText::from_ask(&e.ask, e.seconds))
                    .collect(),
            );
            message.set(Some(Ok(format!(
                "loaded {n} ask{}",
                if n == 1 { "" } else { "s" }
            ))));
        }
        Err(e) => message.set(Some(Err(format!("{}; nothing changed", words::error(&e))))),
    }
}

#[component]
pub fn AsksTable() -> impl IntoView {
    let state = expect_context::<AppState>();
    let pasted = RwSignal::new(String::new());
    let message: RwSignal<Option<Result<String, String>>> = RwSignal::new(None);
    let add = move |_| {
        let taken: Vec<String> = state
            .rows
            .with_untracked(|r| r.iter().map(|r| r.name.get_untracked()).collect());
        let name = unused_name("ask", &taken);
        let row = state.new_row(RowText {
            name,
            kind: SizeKind::Fraction,
            fraction: "0.25".into(),
            profile: String::new(),
            hours: String::new(),
        });
        state.rows.update(|rows| rows.push(row));
    };
    let load_pasted = move |_| load_list(state, &pasted.get_untracked(), message);
    let on_file = move |ev: leptos::ev::Event| {
        read_chosen_text(&ev, move |text| match text {
            Ok(text) => load_list(state, &text, message),
            Err(why) => message.set(Some(Err(format!("{why}; nothing changed")))),
        });
    };
    let on_paste = move |ev: leptos::ev::Event| match pasted_text(&ev) {
        Ok(text) => pasted.set(text),
        Err(why) => {
            pasted.set(String::new());
            message.set(Some(Err(format!("{why}; nothing changed"))));
        }
    };
    view! {
        <section class="card asks" aria-labelledby="asks-h">
            <h2 id="asks-h">"Asks"</h2>
            <p class="hint">"A fraction is a decimal (0.25), a percentage (25%) or a ratio (1/4); 1 or more means whole GPUs. Hours are for accounting; leave blank for an open use."</p>
            <div class="table-scroll">
                <table class="asks-table">
                    <thead>
                        <tr><th scope="col">"Name"</th><th scope="col">"Kind"</th><th scope="col">"Size"</th><th scope="col">"Hours"</th><th scope="col"><span class="sr-only">"Actions"</span></th></tr>
                    </thead>
                    <tbody>
                        <ForEnumerate each=move || state.rows.get() key=|r| r.id
                            children=move |index, row| view! { <AskRowView index row /> } />
                    </tbody>
                </table>
            </div>
            <p class="row-status">
                <button type="button" on:click=add data-testid="add-ask">"Add ask"</button>
                {move || {
                    let n = state.invalid_rows.get();
                    (n > 0).then(|| view! {
                        <span class="warn" role="status">{format!("{n} row{} with errors left out of the plan", if n == 1 { "" } else { "s" })}</span>
                    })
                }}
            </p>
            <details class="import">
                <summary>"Load a CSV or JSON ask list"</summary>
                <label for="asks-paste">"Paste a list (CSV name,size[,hours] or JSON)"</label>
                <textarea id="asks-paste" rows="4" spellcheck="false" placeholder="name,size,hours\ntrain,0.5,2\ninfer,3g.20gb,1"
                    prop:value=move || pasted.get() on:input=on_paste></textarea>
                <div class="buttons">
                    <button type="button" on:click=load_pasted>"Replace asks with this list"</button>
                    <label class="file">"Or upload a file " <input type="file" accept=".csv,.json,.txt,text/csv,application/json" on:change=on_file /></label>
                </div>
                {move || message.get().map(|m| match m {
                    Ok(t) => view! { <p class="ok" role="status">{t}</p> }.into_any(),
                    Err(t) => view! { <p class="error" role="alert" data-testid="asks-import-error">{t}</p> }.into_any(),
                })}
            </details>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::unused_name;

    #[test]
    fn copies_get_unused_names() {
        let taken = vec!["a".to_string(), "a-2".to_string()];
        assert_eq!(unused_name("a", &taken), "a-3");
        assert_eq!(unused_name("b", &taken), "b-2");
    }
}
