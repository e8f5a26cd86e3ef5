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
pub use model::*;

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
    let outcome = planned.request.with_untracked(|request| {
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

#[component]
pub fn Ledger() -> impl IntoView {
    let asks = expect_context::<Asks>();
    let planned = expect_context::<Planned>();
    // The stored ledger is read here, where it is used (the embed view never shows it).
    // The rates' text as stored; unavailable storage is already said about the ledger itself.
    let stored_rates = storage::load_setting(storage::RATES_KEY).ok().flatten();
    let ledger = LedgerState::new(storage::load(), stored_rates.as_deref(), now_unix());
    // The rates survive a reload: each set the core accepts is stored (a half-typed or refused
    // value is not, so what is read back was valid when written), the defaults as no entry.
    let saved_rates = StoredValue::new(untrack(|| ledger.rates_text.texts()));
    Effect::new(move |_| {
        let texts = ledger.rates_text.texts();
        if ledger.rates.with(Result::is_err) || saved_rates.with_value(|s| *s == texts) {
            return;
        }
        let stored = (texts != RateTexts::default()).then(|| texts.to_stored());
        match storage::save_setting(storage::RATES_KEY, stored.as_deref()) {
            Ok(()) => {
                saved_rates.set_value(texts);
                ledger.rates_note.set(None);
            }
            Err(e) => ledger.rates_note.set(Some(format!(
                "These rates could not be stored ({e}); they last until the page is closed or reloaded."
            ))),
        }
    });
    // Open uses count up to now: refresh the clock twice a minute.
    if let Ok(tick) = set_interval_with_handle(move || ledger.now.set(now_unix()), CLOCK_TICK) {
        on_cleanup(move || tick.clear());
    }
    let summary = ledger.summary;
    let csv = move || {
        summary.with_untracked(|s| {
            s.as_ref()
                .map(|r| summary_csv(&r.summary))
                .map_err(Clone::clone)
        })
    };
    // The summary and the entries in one document, which "import" reads back.
    let json = move || {
        summary.with_untracked(|s| {
            s.as_ref().map_err(Clone::clone).map(|r| {
                ledger
                    .entries
                    .with_untracked(|l| ledger_document(l, Some(&r.summary)))
            })
        })
    };
    let ledger_as_csv = move || {
        summary.with_untracked(|s| {
            s.as_ref()
                .map(|r| ledger_csv(&r.records))
                .map_err(Clone::clone)
        })
    };
    let ledger_as_jsonl = move || Ok(ledger.entries.with_untracked(|l| storage::to_text(l)));
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
    let usages =
        move || summary.with(|s| s.as_ref().map(|r| r.records.clone()).unwrap_or_default());
    let table = move || {
        let all = usages();
        let total = all.len();
        let shown: Vec<_> = all.into_iter().rev().take(SHOWN_ROWS).collect();
        let caption = if total > SHOWN_ROWS {
            format!("newest {SHOWN_ROWS} of {total} uses")
        } else {
            format!("{total} use{}", if total == 1 { "" } else { "s" })
        };
        view! {
            <table class="ledger-table" data-testid="ledger-table" data-count=total.to_string()>
                <caption>{caption}</caption>
                <thead><tr>
                    <th scope="col">"Ask"</th><th scope="col">"Mechanism"</th><th scope="col" class="num">"Requested"</th>
                    <th scope="col" class="num">"Allocated"</th><th scope="col">"Started"</th><th scope="col">"Duration"</th>
                    <th scope="col" class="num">"GPU-h alloc."</th><th scope="col"><span class="sr-only">"Status"</span></th>
                </tr></thead>
                <tbody>
                    {shown.into_iter().map(|u| {
                        let running = u.status == UsageStatus::Running;
                        let ask = u.record.ask.clone();
                        let mech = match &u.record.mig_profile {
                            Some(p) => format!("{} {p}", u.record.mechanism),
                            None => u.record.mechanism.to_string(),
                        };
                        view! {
                            <tr>
                                <th scope="row" class="ask-name">{u.record.ask.clone()}</th>
                                <td>{mech}</td>
                                <td class="num">{u.record.requested_fraction.to_string()}</td>
                                <td class="num">{u.record.allocated_fraction.to_string()}</td>
                                <td>{gpu_share_core::api::utc_text(u.record.started_at)}</td>
                                <td>{format::duration(u.seconds)}</td>
                                <td class="num">{u.allocated_gpu_hours().to_fixed(2)}</td>
                                <td>{running.then(|| view! {
                                    <span class="running">"running "</span>
                                    <button type="button" class="small" on:click=move |_| release(ledger, &ask)>"Release"</button>
                                })}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        }
    };
    view! {
        <section class="card ledger" aria-labelledby="ledger-h">
            <h2 id="ledger-h">"Accounting"</h2>
            <p class="hint">"Record the current plan with each ask's hours into a ledger kept in this browser (local storage). Blank hours record an open use that counts until released."</p>
            <div class="buttons">
                <button type="button" class="primary" data-testid="record" on:click=move |_| record(ledger, asks, planned)>"Record this plan"</button>
                <button type="button" class="danger" data-testid="clear-ledger" on:click=clear>"Clear ledger…"</button>
                <label class="file">"Import a ledger (JSON or JSON lines) "
                    <input type="file" data-testid="import-ledger" accept=".jsonl,.json,.txt,application/json" on:change=on_import /></label>
            </div>
            {move || ledger.notice.get().map(|n| match n {
                Notice::Ok(t) => view! { <p class="ok" role="status" data-testid="ledger-notice">{t}</p> }.into_any(),
                Notice::Error(t) => view! { <p class="error" role="alert" data-testid="ledger-notice">{t}</p> }.into_any(),
                // Undo takes back exactly these entries; any later change replaces this line and its button.
                Notice::Recorded { said, entries } => view! {
                    <p class="ok" role="status" data-testid="ledger-notice">{said}" · "
                        <button type="button" class="small" data-testid="ledger-undo" on:click=move |_| undo(ledger, &entries)>"Undo"</button></p>
                }.into_any(),
                Notice::Held { said, entries } => view! {
                    <p class="warn" role="alert" data-testid="ledger-notice">{said}" "
                        <button type="button" class="small" data-testid="record-again" on:click=move |_| record_again(ledger, entries.clone())>"Record again"</button>" "
                        <button type="button" class="small" data-testid="record-cancel"
                            on:click=move |_| ledger.notice.set(Some(Notice::Ok("nothing recorded".into())))>"Cancel"</button></p>
                }.into_any(),
            })}
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
            <div class="table-scroll" tabindex="0" role="region" aria-label="Summary, scrollable">
                <table class="summary-table" data-testid="summary-table">
                    <thead><tr>
                        <th scope="col">"Group"</th><th scope="col">"Key"</th><th scope="col" class="num">"Uses"</th>
                        <th scope="col" class="num">"Requested GPU-h"</th><th scope="col" class="num">"Allocated GPU-h"</th>
                        <th scope="col" class="num">"Wasted GPU-h"</th><th scope="col" class="num">"Cost"</th>
                        <th scope="col" class="num">"kWh"</th><th scope="col" class="num">"kg CO2e"</th>
                    </tr></thead>
                    <tbody>
                        {move || summary.with(|s| s.as_ref().ok().map(|r| &r.summary).map(|s| view! {
                            <SummaryRows group="mechanism" rows=s.by_mechanism.clone() />
                            <SummaryRows group="workload" rows=s.by_workload.clone() />
                            <SummaryRows group="total" rows=vec![s.totals.clone()] />
                        }))}
                    </tbody>
                </table>
            </div>
            // What the summary could not count (a board without a known power) and the GPUs tenants
            // shared, billed at most once over: the core's words, as the CLI prints them.
            {move || summary.with(|s| s.as_ref().ok().map(|r| {
                let s = &r.summary;
                let shared = (!s.shared_gpus.is_empty()).then(|| format!(
                    "{} shared GPU(s) billed at most once over (tenants split what they deny each other); idle capacity left on them: {} GPU-h",
                    s.shared_gpus.len(),
                    s.idle_gpu_hours.to_fixed(4)
                ));
                let lines: Vec<String> = s.notes.iter().map(|n| format!("⚠ {n}")).chain(shared).collect();
                (!lines.is_empty()).then(|| view! {
                    <ul class="summary-notes" data-testid="summary-notes">
                        {lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                    </ul>
                })
            }))}
            <div class="buttons downloads">
                <button type="button" data-testid="download-csv" on:click=move |_| offer(ledger, "gpu-share-summary.csv", "text/csv", csv())>"Summary CSV"</button>
                <button type="button" data-testid="download-json" on:click=move |_| offer(ledger, "gpu-share-ledger.json", "application/json", json())>"Summary + ledger JSON"</button>
                <button type="button" data-testid="download-ledger-csv" on:click=move |_| offer(ledger, "gpu-share-ledger.csv", "text/csv", ledger_as_csv())>"Ledger CSV"</button>
                <button type="button" data-testid="download-ledger-json" on:click=move |_| offer(ledger, "gpu-share-ledger.jsonl", "application/x-ndjson", ledger_as_jsonl())>"Ledger JSON lines"</button>
            </div>
            <h3>"Ledger"</h3>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Ledger entries, scrollable">{table}</div>
        </section>
    }
}

#[cfg(test)]
mod tests;
