//! The asks table: one editable row per ask (name, fraction and/or memory, or MIG profile, duration) and loading CSV/JSON lists.

use crate::file_input::{pasted_text, read_chosen_text};
use gpu_share_core::api::parse_asks;
use leptos::prelude::*;

use crate::components::left_out::{left_out, FixButton};
use crate::components::pager::{last_page, window, Pager};
use crate::state::{self, AskRow, Asks, ClusterForm, Link, PageUi, Planned, RowText, SizeKind};
use crate::words;

/// The error text for `field`, when the row's error is about that field: the row's own (it does
/// not read as an ask) or the plan's (the core left the ask out: a name used twice, a profile the
/// model lacks).
fn field_error(row: AskRow, field: &'static str) -> impl Fn() -> Option<String> + Copy {
    let planned = expect_context::<Planned>();
    move || {
        let err = match field {
            "hours" => row.seconds().err(),
            _ => row
                .ask()
                .err()
                .or_else(|| left_out(planned, row).map(|l| l.error)),
        }?;
        let f = err.field.as_deref().unwrap_or("");
        (f == field || (field == "name" && f.is_empty())).then(|| words::message(&err))
    }
}

/// A name not yet used by any row: `name-2`, `name-3`, … (the core's rule).
fn unused_name(base: &str, taken: &[String]) -> String {
    unused_name_from(base, 2, taken)
}

/// `base-from`, or the first unused one after it (the core's rule).
fn unused_name_from(base: &str, from: usize, taken: &[String]) -> String {
    let taken: Vec<&str> = taken.iter().map(String::as_str).collect();
    gpu_share_core::api::unused_name(base, from, &taken)
}

/// `PageUi::focus_row` naming the "Add ask" button (the last row was removed).
const ADD_BUTTON: u64 = u64::MAX;

#[component]
fn ErrorText(text: impl Fn() -> Option<String> + Send + Sync + 'static) -> impl IntoView {
    move || text().map(|t| view! { <span class="field-error" role="alert">{t}</span> })
}

/// A row's message for one field, as a closure the row's cells read.
trait FieldError: Fn() -> Option<String> + Copy + Send + Sync + 'static {}
impl<F: Fn() -> Option<String> + Copy + Send + Sync + 'static> FieldError for F {}

/// The row's number as shown (1-based, across pages), for its fields' labels.
trait RowNumber: Fn() -> usize + Copy + Send + Sync + 'static {}
impl<F: Fn() -> usize + Copy + Send + Sync + 'static> RowNumber for F {}

/// `aria-invalid` for a field with `err`.
fn invalid(err: impl FieldError) -> impl Fn() -> &'static str + Copy {
    move || if err().is_some() { "true" } else { "false" }
}

/// Switching a row's kind: to MIG, a row with no profile yet gets the picker's first plain one
/// (a blank profile would read as an error the user did not make).
fn switch_kind(row: AskRow, planned: Planned) -> impl Fn(leptos::ev::Event) + Copy {
    move |ev| {
        let kind = if event_target_value(&ev) == "mig" {
            SizeKind::Mig
        } else {
            SizeKind::Fraction
        };
        if kind == SizeKind::Mig && row.profile.get_untracked().is_empty() {
            let first = planned
                .profile_model
                .get_untracked()
                .profiles
                .iter()
                .find(|p| p.is_plain())
                .map(|p| p.name);
            row.profile.set(first.unwrap_or_default().to_string());
        }
        row.kind.set(kind);
    }
}

/// The size cell of a fraction row: the fraction and the memory, each with its error.
fn fraction_cells(
    row: AskRow,
    n: impl RowNumber,
    fraction_err: impl FieldError,
    memory_err: impl FieldError,
) -> AnyView {
    view! {
        <input type="text" name="fraction" inputmode="decimal" autocomplete="off" placeholder="0.5, 50% or 1/2"
            aria-label=move || format!("Ask {} fraction", n())
            aria-invalid=invalid(fraction_err)
            prop:value=move || row.fraction.get()
            on:input=move |ev| row.fraction.set(event_target_value(&ev)) />
        <ErrorText text=fraction_err />
        <input type="text" name="memory" class="memory" autocomplete="off" spellcheck="false"
            placeholder="memory, e.g. 12GiB"
            aria-label=move || format!("Ask {} GPU memory", n())
            aria-invalid=invalid(memory_err)
            prop:value=move || row.memory.get()
            on:input=move |ev| row.memory.set(event_target_value(&ev)) />
        <ErrorText text=memory_err />
    }
    .into_any()
}

/// The size cell of a MIG row: a picker of the profile model's profiles (keeping a typed one it
/// lacks, first, so the row still shows what it asks for), its error and the core's fix.
fn mig_cells(
    row: AskRow,
    n: impl RowNumber,
    planned: Planned,
    profile_err: impl FieldError,
) -> AnyView {
    let options = move || {
        let model = planned.profile_model.get();
        let current = row.profile.get();
        let mut names: Vec<String> = model.profiles.iter().map(|p| p.name.to_string()).collect();
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
        {move || profile_err().is_some().then(|| view! { <FixButton row /> })}
    }
    .into_any()
}

/// Inserts a copy of `row` right after it, under a name no row has.
fn duplicate_row(asks: Asks, row: AskRow) {
    asks.rows.update(|rows| {
        let taken: Vec<String> = rows.iter().map(|r| r.name.get_untracked()).collect();
        let mut text = row.text();
        text.name = unused_name(text.name.trim(), &taken);
        let copy = asks.new_row(text);
        let at = rows
            .iter()
            .position(|r| r.id == row.id)
            .map_or(rows.len(), |i| i + 1);
        rows.insert(at, copy);
    });
}

/// Removes `row`. Focus moves to the next row's name (or the previous one's, or "Add ask"), not
/// to the page.
fn remove_row(asks: Asks, ui: PageUi, row: AskRow) {
    asks.rows.update(|rows| {
        let at = rows.iter().position(|r| r.id == row.id);
        rows.retain(|r| r.id != row.id);
        let next = at.and_then(|i| rows.get(i).or_else(|| rows.last()));
        ui.focus_row.set(Some(next.map_or(ADD_BUTTON, |r| r.id)));
    });
}

/// Focuses the row's name input when the page asks for it (`PageUi::focus_row`), once it is drawn.
fn focus_name_when_asked(ui: PageUi, row: AskRow, name_input: NodeRef<leptos::html::Input>) {
    Effect::new(move |_| {
        if ui.focus_row.get() == Some(row.id) {
            if let Some(input) = name_input.get() {
                let _ = input.focus();
                ui.focus_row.set(None);
            }
        }
    });
}

#[component]
fn AskRowView(
    /// The row's place on its page, and the page's first row's place among all rows.
    index: ReadSignal<usize>,
    first: Signal<usize>,
    row: AskRow,
) -> impl IntoView {
    let asks = expect_context::<Asks>();
    let planned = expect_context::<Planned>();
    let ui = expect_context::<PageUi>();
    let n = move || first.get() + index.get() + 1;
    let name_err = field_error(row, "name");
    let fraction_err = field_error(row, "fraction");
    let memory_err = field_error(row, "memory");
    let profile_err = field_error(row, "mig_profile");
    let hours_err = field_error(row, "hours");
    let size = move || match row.kind.get() {
        SizeKind::Fraction => fraction_cells(row, n, fraction_err, memory_err),
        SizeKind::Mig => mig_cells(row, n, planned, profile_err),
    };
    let name_input = NodeRef::<leptos::html::Input>::new();
    focus_name_when_asked(ui, row, name_input);
    let has_error =
        move || !row.is_valid() || row.seconds().is_err() || left_out(planned, row).is_some();
    view! {
        <tr data-testid="ask-row" class:row-error=has_error>
            <td class="cell-name" data-label="Name">
                <input type="text" name="name" autocomplete="off" spellcheck="false" node_ref=name_input
                    aria-label=move || format!("Ask {} name", n())
                    aria-invalid=invalid(name_err)
                    prop:value=move || row.name.get()
                    on:input=move |ev| row.name.set(event_target_value(&ev)) />
                <ErrorText text=name_err />
                {move || name_err().is_some().then(|| view! { <FixButton row /> })}
            </td>
            <td class="cell-kind" data-label="Kind">
                <select name="kind" aria-label=move || format!("Ask {} size kind", n()) on:change=switch_kind(row, planned)>
                    <option value="fraction" selected=move || row.kind.get() == SizeKind::Fraction>"fraction"</option>
                    <option value="mig" selected=move || row.kind.get() == SizeKind::Mig>"MIG profile"</option>
                </select>
            </td>
            <td class="cell-size" data-label="Size">{size}</td>
            <td class="cell-hours" data-label="Hours">
                <input type="text" name="hours" inputmode="decimal" autocomplete="off" placeholder="open"
                    aria-label=move || format!("Ask {} duration in hours", n())
                    aria-invalid=invalid(hours_err)
                    prop:value=move || row.hours.get()
                    on:input=move |ev| row.hours.set(event_target_value(&ev)) />
                <ErrorText text=hours_err />
            </td>
            <td class="cell-actions">
                <button type="button" class="small" on:click=move |_| duplicate_row(asks, row)
                    aria-label=move || format!("Duplicate ask {}", n())>"Duplicate"</button>
                <button type="button" class="small danger" on:click=move |_| remove_row(asks, ui, row)
                    aria-label=move || format!("Remove ask {}", n())>"Remove"</button>
            </td>
        </tr>
    }
}

/// Replaces the rows with a parsed list, or says why the list was refused.
fn load_list(asks: Asks, text: &str, message: RwSignal<Option<Result<String, String>>>) {
    match parse_asks(text) {
        Ok(entries) if entries.is_empty() => {
            message.set(Some(Err("the list holds no asks; nothing changed".into())))
        }
        Ok(entries) => {
            let n = entries.len();
            asks.replace_rows(
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
    let asks = expect_context::<Asks>();
    let form = expect_context::<ClusterForm>();
    let link = expect_context::<Link>();
    let planned = expect_context::<Planned>();
    let ui = expect_context::<PageUi>();
    let pasted = RwSignal::new(String::new());
    let page = RwSignal::new(0);
    let total = Signal::derive(move || asks.rows.with(Vec::len));
    let shown = Memo::new(move |_| window(page.get(), total.get()));
    let first = Signal::derive(move || shown.get().start);
    let message: RwSignal<Option<Result<String, String>>> = RwSignal::new(None);
    let add = move |_| {
        let taken = asks.names();
        // The fourth row is ask-4: named by its place, never ask-2 beside a, b and c.
        let name = unused_name_from("ask", taken.len() + 1, &taken);
        let row = asks.new_row(RowText {
            name,
            kind: SizeKind::Fraction,
            fraction: "0.25".into(),
            memory: String::new(),
            profile: String::new(),
            hours: String::new(),
        });
        ui.focus_row.set(Some(row.id));
        asks.rows.update(|rows| rows.push(row));
        // The new row is the last: its page is shown, so it can take the focus.
        page.set(last_page(asks.rows.with_untracked(Vec::len)));
    };
    let add_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if ui.focus_row.get() == Some(ADD_BUTTON) {
            if let Some(button) = add_button.get() {
                let _ = button.focus();
                ui.focus_row.set(None);
            }
        }
    });
    let load_pasted = move |_| load_list(asks, &pasted.get_untracked(), message);
    let on_file = move |ev: leptos::ev::Event| {
        read_chosen_text(&ev, move |text| match text {
            Ok(text) => load_list(asks, &text, message),
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
            <p class="hint">"A fraction is a decimal (0.25), a percentage (25%) or a ratio (1/4); 1 or more means whole GPUs. Memory (12GiB, 12288MiB, 40GB) is what the workload allocates, beside a fraction or alone (then the fraction may stay blank); the plan adds a CUDA context per process. Hours are for accounting: a run of that many hours, ending when it is recorded; leave blank for an open use."</p>
            <Show when=move || link.is_example.get()>
                <p class="example" data-testid="example">
                    <span>"This is an example scenario: three asks time-sliced on two GPUs."</span>
                    <button type="button" class="small" data-testid="clear-example" on:click=move |_| state::clear(asks, form)>"Clear"</button>
                </p>
            </Show>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Asks, scrollable">
                <table class="asks-table">
                    <thead>
                        <tr><th scope="col">"Name"</th><th scope="col">"Kind"</th><th scope="col">"Size"</th><th scope="col">"Hours"</th><th scope="col"><span class="sr-only">"Actions"</span></th></tr>
                    </thead>
                    <tbody>
                        <ForEnumerate each=move || asks.rows.with(|rows| rows.get(shown.get()).map(<[AskRow]>::to_vec).unwrap_or_default()) key=|r| r.id
                            children=move |index, row| view! { <AskRowView index first row /> } />
                    </tbody>
                </table>
            </div>
            <Pager total page what="Asks" />
            <p class="row-status">
                <button type="button" on:click=add data-testid="add-ask" node_ref=add_button>"Add ask"</button>
                {move || {
                    let n = asks.invalid_rows.get() + planned.left_out.with(Vec::len);
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
