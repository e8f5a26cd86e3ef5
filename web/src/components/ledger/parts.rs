//! The ledger component's parts, each drawn from the ledger's state: the notice of the last
//! action (with its Undo or its question), the summary table and its notes, the downloads, the
//! table of uses; and keeping the rates stored.

use super::*;
use gpu_share_core::api::SummaryResponse;

/// The rates survive a reload: each set the core accepts is stored (a half-typed or refused
/// value is not, so what is read back was valid when written), the defaults as no entry.
pub(super) fn store_rates(ledger: LedgerState) {
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
}

/// What the last action did, or why it did nothing: a recording with its Undo, or the question
/// before recording uses a second time.
#[component]
pub(super) fn LedgerNotice(ledger: LedgerState) -> impl IntoView {
    view! {
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
    }
}

/// The core's summary by mechanism, by workload and in total.
#[component]
pub(super) fn SummaryTable(summary: Memo<Result<SummaryResponse, String>>) -> impl IntoView {
    view! {
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
    }
}

/// What the summary could not count (a board without a known power) and the GPUs tenants
/// shared, billed at most once over: the core's words, as the CLI prints them.
#[component]
pub(super) fn SummaryNotes(summary: Memo<Result<SummaryResponse, String>>) -> impl IntoView {
    move || {
        summary.with(|s| {
            s.as_ref().ok().map(|r| {
                let s = &r.summary;
                let shared = (!s.shared_gpus.is_empty()).then(|| format!(
                    "{} shared GPU(s) billed at most once over (tenants split what they deny each other); idle capacity left on them: {} GPU-h",
                    s.shared_gpus.len(),
                    s.idle_gpu_hours.to_fixed(4)
                ));
                let lines: Vec<String> =
                    s.notes.iter().map(|n| format!("⚠ {n}")).chain(shared).collect();
                (!lines.is_empty()).then(|| view! {
                    <ul class="summary-notes" data-testid="summary-notes">
                        {lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                    </ul>
                })
            })
        })
    }
}

/// The summary and the ledger as files: CSV, the summary and entries in one document (which
/// "import" reads back), and the entries as stored.
#[component]
pub(super) fn Downloads(ledger: LedgerState) -> impl IntoView {
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
    view! {
        <div class="buttons downloads">
            <button type="button" data-testid="download-csv" on:click=move |_| offer(ledger, "gpu-share-summary.csv", "text/csv", csv())>"Summary CSV"</button>
            <button type="button" data-testid="download-json" on:click=move |_| offer(ledger, "gpu-share-ledger.json", "application/json", json())>"Summary + ledger JSON"</button>
            <button type="button" data-testid="download-ledger-csv" on:click=move |_| offer(ledger, "gpu-share-ledger.csv", "text/csv", ledger_as_csv())>"Ledger CSV"</button>
            <button type="button" data-testid="download-ledger-json" on:click=move |_| offer(ledger, "gpu-share-ledger.jsonl", "application/x-ndjson", ledger_as_jsonl())>"Ledger JSON lines"</button>
        </div>
    }
}

/// The uses, newest first (at most `SHOWN_ROWS`), a running one with its Release.
#[component]
pub(super) fn UsesTable(ledger: LedgerState) -> impl IntoView {
    let summary = ledger.summary;
    let usages =
        move || summary.with(|s| s.as_ref().map(|r| r.records.clone()).unwrap_or_default());
    move || {
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
    }
}
