//! Accounting: record the plan into the browser's ledger (held back, with a question, when it
//! would count uses twice; undone exactly), the ledger table, the summary with editable rates
//! (kept in local storage), downloads and import. Every action is one call to the core
//! (`api::record_pack`, `release`, `import`, `summarise`, `account::already_recorded`,
//! `remove_entries`); this component owns the ledger's state — the stored entries, its notices,
//! the rates and the clock — and loads the stored ledger and rates itself.

use gpu_share_core::api::{
    ledger_csv, ledger_document, summary_csv, LedgerEntry, SummaryRow, UsageStatus,
};
use leptos::prelude::*;

use crate::download::download;
use crate::file_input::read_chosen_text;
use crate::format;
use crate::state::{Asks, Planned};
use crate::storage;

mod model;
mod parts;
pub use model::*;
use parts::*;

/// Stores `entries` as the new ledger and shows them with `done`. When the browser cannot store
/// them (its storage is full or unavailable) the page still shows them and says so, error and
/// remedy: they last only until the page is closed or reloaded unless downloaded.
fn commit(ledger: LedgerState, entries: Vec<LedgerEntry>, done: Notice) {
    let saved = storage::save(&entries);
    ledger.entries.set(entries);
    match saved {
        Ok(()) => {
            ledger.writable.set(true);
            ledger.notice.set(Some(done));
        }
        Err(e) => ledger.notice.set(Some(Notice::Error(format!(
            "{}, but {e}. The ledger shown is kept in this page only until it is closed or \
             reloaded: download it (Ledger JSON lines) to keep it.",
            done.text()
        )))),
    }
}

/// Shows a change, or why there was none.
fn apply(ledger: LedgerState, change: Change) {
    match change {
        Ok((entries, ok)) => commit(ledger, entries, Notice::Ok(ok)),
        Err(e) => ledger.notice.set(Some(Notice::Error(e))),
    }
}

/// Stores a recording with its Undo, or asks before recording uses a second time.
fn show_recorded(ledger: LedgerState, outcome: Recorded) {
    match outcome {
        Recorded::Added { all, new, said } => {
            commit(ledger, all, Notice::Recorded { said, entries: new })
        }
        Recorded::Held { new, said } => {
            ledger.notice.set(Some(Notice::Held { said, entries: new }))
        }
    }
}

/// The stored ledger could not be read: nothing is written over it until it is cleared.
fn refuse_unreadable(ledger: LedgerState) -> bool {
    let unreadable = !ledger.writable.get_untracked();
    if unreadable {
        ledger.notice.set(Some(Notice::Error(
            "the stored ledger could not be read; clear it before recording".into(),
        )));
    }
    unreadable
}

fn record(ledger: LedgerState, asks: Asks, planned: Planned) {
    if refuse_unreadable(ledger) {
        return;
    }
    let bad_hours = asks
        .rows
        .with_untracked(|rows| rows.iter().filter(|r| r.seconds().is_err()).count());
    if bad_hours > 0 {
        ledger.notice.set(Some(Notice::Error(format!(
            "{bad_hours} row(s) have an invalid duration; nothing was recorded"
        ))));
        return;
    }
    let now = now_unix();
    ledger.now.set(now);
    let outcome = planned.kept.with_untracked(|request| {
        planned.plan.with_untracked(|plan| {
            ledger
                .entries
                .with_untracked(|entries| recorded(entries, request, plan, now))
        })
    });
    match outcome {
        Ok(outcome) => show_recorded(ledger, outcome),
        Err(e) => ledger.notice.set(Some(Notice::Error(e))),
    }
}

/// "Record again": the uses the question was about, as they were made.
fn record_again(ledger: LedgerState, new: Vec<LedgerEntry>) {
    if refuse_unreadable(ledger) {
        return;
    }
    let outcome = ledger
        .entries
        .with_untracked(|entries| recorded_anyway(entries, new));
    show_recorded(ledger, outcome);
}

fn undo(ledger: LedgerState, just: &[LedgerEntry]) {
    let now = now_unix();
    ledger.now.set(now);
    let change = ledger
        .entries
        .with_untracked(|entries| undone(entries, just, now));
    apply(ledger, change);
}

fn release(ledger: LedgerState, ask: &str) {
    let now = now_unix();
    ledger.now.set(now);
    let change = ledger
        .entries
        .with_untracked(|entries| released(entries, ask, now));
    apply(ledger, change);
}

fn import(ledger: LedgerState, text: &str) {
    if !ledger.writable.get_untracked() {
        ledger.notice.set(Some(Notice::Error(
            "import failed, nothing changed: the stored ledger could not be read; clear it before importing"
                .into(),
        )));
        return;
    }
    let now = now_unix();
    ledger.now.set(now);
    match ledger
        .entries
        .with_untracked(|entries| imported(entries, text, now))
    {
        Ok((Some(entries), ok)) => commit(ledger, entries, Notice::Ok(ok)),
        Ok((None, ok)) => ledger.notice.set(Some(Notice::Ok(ok))),
        Err(e) => ledger.notice.set(Some(Notice::Error(e))),
    }
}

fn offer(ledger: LedgerState, name: &str, mime: &str, text: Result<String, String>) {
    let result = text.and_then(|t| download(name, mime, &t));
    if let Err(e) = result {
        ledger.notice.set(Some(Notice::Error(e)));
    }
}

#[component]
fn SummaryRows(group: &'static str, rows: Vec<SummaryRow>) -> impl IntoView {
    rows.into_iter()
        .map(|r| {
            view! {
                <tr>
                    <td>{group}</td>
                    <th scope="row" class="ask-name">{r.key}</th>
                    <td class="num">{r.records}</td>
                    <td class="num">{r.requested_gpu_hours.to_fixed(2)}</td>
                    <td class="num">{r.allocated_gpu_hours.to_fixed(2)}</td>
                    <td class="num">{r.wasted_gpu_hours.to_fixed(2)}</td>
                    <td class="num">{r.cost.map(format::two).unwrap_or_else(|| "–".into())}</td>
                    <td class="num">{format::two(r.energy_kwh)}</td>
                    <td class="num">{format::two(r.co2e_kg)}</td>
                </tr>
            }
        })
        .collect_view()
}

#[component]
fn RateInput(
    id: &'static str,
    label: &'static str,
    placeholder: &'static str,
    value: RwSignal<String>,
) -> impl IntoView {
    view! {
        <label for=id>{label}</label>
        <input id=id type="text" inputmode="decimal" placeholder=placeholder
            prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
    }
}

/// The accounting card: record, clear and import; the notice; the rates; the summary, its downloads and the uses.
#[component]
pub fn Ledger() -> impl IntoView {
    let asks = expect_context::<Asks>();
    let planned = expect_context::<Planned>();
    // The stored ledger is read here, where it is used (the embed view never shows it).
    // The rates' text as stored; unavailable storage is already said about the ledger itself.
    let stored_rates = storage::load_setting(storage::RATES_KEY).ok().flatten();
    let ledger = LedgerState::new(storage::load(), stored_rates.as_deref(), now_unix());
    store_rates(ledger);
    // Open uses count up to now: refresh the clock twice a minute.
    if let Ok(tick) = set_interval_with_handle(move || ledger.now.set(now_unix()), CLOCK_TICK) {
        on_cleanup(move || tick.clear());
    }
    let summary = ledger.summary;
    let clear = move |_| {
        let sure = window()
            .confirm_with_message(
                "Clear the whole ledger kept in this browser? Download it first if you need it.",
            )
            .unwrap_or(false);
        if sure {
            commit(ledger, Vec::new(), Notice::Ok("ledger cleared".into()));
        }
    };
    let on_import = move |ev: leptos::ev::Event| {
        read_chosen_text(&ev, move |text| match text {
            Ok(text) => import(ledger, &text),
            Err(why) => ledger.notice.set(Some(Notice::Error(format!(
                "import failed, nothing changed: {why}"
            )))),
        });
    };
    view! {
        <section class="card ledger" aria-labelledby="ledger-h">
            <h2 id="ledger-h">"Accounting"</h2>
            <p class="hint">"Record the current plan into a ledger kept in this browser (local storage). An ask with hours is recorded as a run of that many hours that ends now (so it started that long ago); blank hours record an open use that starts now and counts until released."</p>
            <div class="buttons">
                <button type="button" class="primary" data-testid="record" on:click=move |_| record(ledger, asks, planned)>"Record this plan"</button>
                <button type="button" class="danger" data-testid="clear-ledger" on:click=clear>"Clear ledger…"</button>
                <label class="file">"Import a ledger (JSON or JSON lines) "
                    <input type="file" data-testid="import-ledger" accept=".jsonl,.json,.txt,application/json" on:change=on_import /></label>
            </div>
            <LedgerNotice ledger />
            <fieldset class="rates form-grid">
                <legend>"Rates"</legend>
                <RateInput id="rate-cost" label="Cost per GPU-hour" placeholder="none" value=ledger.rates_text.cost />
                <RateInput id="rate-watts" label="Board power (W)" placeholder="per model" value=ledger.rates_text.watts />
                <RateInput id="rate-pue" label="PUE" placeholder="1" value=ledger.rates_text.pue />
                <RateInput id="rate-grid" label="Grid gCO2e/kWh" placeholder="475" value=ledger.rates_text.grid />
            </fieldset>
            {move || ledger.rates_note.get().map(|n| view! { <p class="note" role="status" data-testid="rates-note">{n}</p> })}
            {move || summary.with(|s| s.as_ref().err().map(|e| view! { <p class="error" role="alert">{e.clone()}</p> }))}
            <h3>"Summary"</h3>
            <SummaryTable summary />
            <SummaryNotes summary />
            <Downloads ledger />
            <h3>"Ledger"</h3>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Ledger entries, scrollable"><UsesTable ledger /></div>
        </section>
    }
}

#[cfg(test)]
mod tests;
