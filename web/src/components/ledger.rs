//! Accounting: record the plan into the browser's ledger, the ledger table, the summary with editable rates, downloads and import.

use crate::file_input::read_chosen_text;
use gpu_share_core::account::{
    ledger_csv, ledger_document, parse_ledger_any, resolve, summary_csv, SummaryRow,
};
use gpu_share_core::{LedgerEntry, UsageRecord};
use leptos::prelude::*;

use crate::download::download;
use crate::format;
use crate::state::{now_unix, AppState, Notice};
use crate::storage;

/// The most ledger rows the table shows (the newest); downloads always hold everything.
const SHOWN_ROWS: usize = 200;

/// Stores `entries` as the new ledger and shows them. When the browser cannot store them (its
/// storage is full or unavailable) the page still shows them and says so, error and remedy: they
/// last only until the page is closed or reloaded unless downloaded.
fn commit(state: AppState, entries: Vec<LedgerEntry>, ok: String) {
    let saved = storage::save(&entries);
    state.ledger.set(entries);
    match saved {
        Ok(()) => {
            state.ledger_writable.set(true);
            state.ledger_notice.set(Some(Notice::Ok(ok)));
        }
        Err(e) => state.ledger_notice.set(Some(Notice::Error(format!(
            "{ok}, but {e}. The ledger shown is kept in this page only until it is closed or \
             reloaded: download it (Ledger JSON lines) to keep it."
        )))),
    }
}

fn record(state: AppState) {
    if !state.ledger_writable.get_untracked() {
        state.ledger_notice.set(Some(Notice::Error(
            "the stored ledger could not be read; clear it before recording".into(),
        )));
        return;
    }
    let Ok(pack) = state.pack.get_untracked() else {
        state.ledger_notice.set(Some(Notice::Error(
            "the plan has an error; fix it before recording".into(),
        )));
        return;
    };
    let bad_hours = state
        .rows
        .with_untracked(|rows| rows.iter().filter(|r| r.seconds().is_err()).count());
    if bad_hours > 0 {
        state.ledger_notice.set(Some(Notice::Error(format!(
            "{bad_hours} row(s) have an invalid duration; nothing was recorded"
        ))));
        return;
    }
    let now = now_unix();
    let seconds: std::collections::HashMap<String, Option<u64>> = state
        .asks
        .with_untracked(|a| a.iter().map(|(ask, s)| (ask.name.clone(), *s)).collect());
    let unplaced: Vec<&str> = pack.unplaced.iter().map(|u| u.name.as_str()).collect();
    let new: Vec<LedgerEntry> = pack
        .choices
        .iter()
        .filter(|c| !unplaced.contains(&c.name.as_str()))
        .map(|c| {
            LedgerEntry::Usage(UsageRecord::from_choice(
                c,
                now,
                seconds.get(&c.name).copied().flatten(),
            ))
        })
        .collect();
    if new.is_empty() {
        state
            .ledger_notice
            .set(Some(Notice::Error("no placed ask to record".into())));
        return;
    }
    let n = new.len();
    let mut entries = state.ledger.get_untracked();
    entries.extend(new);
    let skipped = if unplaced.is_empty() {
        String::new()
    } else {
        format!(" ({} unplaced left out)", unplaced.len())
    };
    state.now.set(now);
    commit(
        state,
        entries,
        format!("recorded {n} use{}{skipped}", if n == 1 { "" } else { "s" }),
    );
}

fn release(state: AppState, ask: String) {
    let now = now_unix();
    let mut entries = state.ledger.get_untracked();
    entries.push(LedgerEntry::Release {
        ask: ask.clone(),
        at: now,
    });
    state.now.set(now);
    commit(state, entries, format!("released {ask}"));
}

fn import(state: AppState, text: &str) {
    let fail = |why: String| {
        state.ledger_notice.set(Some(Notice::Error(format!(
            "import failed, nothing changed: {why}"
        ))))
    };
    let imported = match parse_ledger_any(text) {
        Ok(e) if e.is_empty() => return fail("the file holds no ledger entries".into()),
        Ok(e) => e,
        Err(e) => return fail(e.to_string()),
    };
    if !state.ledger_writable.get_untracked() {
        return fail("the stored ledger could not be read; clear it before importing".into());
    }
    let n = imported.len();
    let mut entries = state.ledger.get_untracked();
    entries.extend(imported);
    if let Err(e) = resolve(&entries, now_unix()) {
        return fail(e.to_string());
    }
    commit(
        state,
        entries,
        format!("imported {n} entr{}", if n == 1 { "y" } else { "ies" }),
    );
}

fn offer(state: AppState, name: &str, mime: &str, text: Result<String, String>) {
    let result = text.and_then(|t| download(name, mime, &t));
    if let Err(e) = result {
        state.ledger_notice.set(Some(Notice::Error(e)));
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
    let state = expect_context::<AppState>();
    let summary = state.summary;
    let csv = move || {
        summary.with_untracked(|s| {
            s.as_ref()
                .map(|(_, s)| summary_csv(s))
                .map_err(Clone::clone)
        })
    };
    // The summary and the entries in one document, which "import" reads back.
    let json = move || {
        summary.with_untracked(|s| {
            s.as_ref()
                .map_err(Clone::clone)
                .map(|(_, s)| state.ledger.with_untracked(|l| ledger_document(l, Some(s))))
        })
    };
    let ledger_as_csv = move || {
        summary.with_untracked(|s| s.as_ref().map(|(u, _)| ledger_csv(u)).map_err(Clone::clone))
    };
    let ledger_as_jsonl = move || Ok(state.ledger.with_untracked(|l| storage::to_text(l)));
    let clear = move |_| {
        let sure = window()
            .confirm_with_message(
                "Clear the whole ledger kept in this browser? Download it first if you need it.",
            )
            .unwrap_or(false);
        if sure {
            commit(state, Vec::new(), "ledger cleared".into());
        }
    };
    let on_import = move |ev: leptos::ev::Event| {
        read_chosen_text(&ev, move |text| match text {
            Ok(text) => import(state, &text),
            Err(why) => state.ledger_notice.set(Some(Notice::Error(format!(
                "import failed, nothing changed: {why}"
            )))),
        });
    };
    let usages = move || summary.with(|s| s.as_ref().map(|(u, _)| u.clone()).unwrap_or_default());
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
                        let running = u.status == gpu_share_core::account::UsageStatus::Running;
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
                                <td>{format::utc(u.record.started_at)}</td>
                                <td>{format::duration(u.seconds)}</td>
                                <td class="num">{u.allocated_gpu_hours().to_fixed(2)}</td>
                                <td>{running.then(|| view! {
                                    <span class="running">"running "</span>
                                    <button type="button" class="small" on:click=move |_| release(state, ask.clone())>"Release"</button>
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
                <button type="button" class="primary" data-testid="record" on:click=move |_| record(state)>"Record this plan"</button>
                <button type="button" class="danger" data-testid="clear-ledger" on:click=clear>"Clear ledger…"</button>
                <label class="file">"Import a ledger (JSON or JSON lines) "
                    <input type="file" data-testid="import-ledger" accept=".jsonl,.json,.txt,application/json" on:change=on_import /></label>
            </div>
            {move || state.ledger_notice.get().map(|n| match n {
                Notice::Ok(t) => view! { <p class="ok" role="status" data-testid="ledger-notice">{t}</p> }.into_any(),
                Notice::Error(t) => view! { <p class="error" role="alert" data-testid="ledger-notice">{t}</p> }.into_any(),
            })}
            <fieldset class="rates form-grid">
                <legend>"Rates"</legend>
                <RateInput id="rate-cost" label="Cost per GPU-hour" placeholder="none" value=state.rates_text.cost />
                <RateInput id="rate-watts" label="Board power (W)" placeholder="per model" value=state.rates_text.watts />
                <RateInput id="rate-pue" label="PUE" placeholder="1" value=state.rates_text.pue />
                <RateInput id="rate-grid" label="Grid gCO2e/kWh" placeholder="475" value=state.rates_text.grid />
            </fieldset>
            {move || summary.with(|s| s.as_ref().err().map(|e| view! { <p class="error" role="alert">{e.clone()}</p> }))}
            <h3>"Summary"</h3>
            <div class="table-scroll">
                <table class="summary-table" data-testid="summary-table">
                    <thead><tr>
                        <th scope="col">"Group"</th><th scope="col">"Key"</th><th scope="col" class="num">"Uses"</th>
                        <th scope="col" class="num">"Requested GPU-h"</th><th scope="col" class="num">"Allocated GPU-h"</th>
                        <th scope="col" class="num">"Wasted GPU-h"</th><th scope="col" class="num">"Cost"</th>
                        <th scope="col" class="num">"kWh"</th><th scope="col" class="num">"kg CO2e"</th>
                    </tr></thead>
                    <tbody>
                        {move || summary.with(|s| s.as_ref().ok().map(|(_, s)| view! {
                            <SummaryRows group="mechanism" rows=s.by_mechanism.clone() />
                            <SummaryRows group="workload" rows=s.by_workload.clone() />
                            <SummaryRows group="total" rows=vec![s.totals.clone()] />
                        }))}
                    </tbody>
                </table>
            </div>
            <div class="buttons downloads">
                <button type="button" data-testid="download-csv" on:click=move |_| offer(state, "gpu-share-summary.csv", "text/csv", csv())>"Summary CSV"</button>
                <button type="button" data-testid="download-json" on:click=move |_| offer(state, "gpu-share-ledger.json", "application/json", json())>"Summary + ledger JSON"</button>
                <button type="button" data-testid="download-ledger-csv" on:click=move |_| offer(state, "gpu-share-ledger.csv", "text/csv", ledger_as_csv())>"Ledger CSV"</button>
                <button type="button" data-testid="download-ledger-json" on:click=move |_| offer(state, "gpu-share-ledger.jsonl", "application/x-ndjson", ledger_as_jsonl())>"Ledger JSON lines"</button>
            </div>
            <h3>"Ledger"</h3>
            <div class="table-scroll">{table}</div>
        </section>
    }
}
