//! Accounting: record the plan into the browser's ledger, the ledger table, the summary with
//! editable rates, downloads and import. Every action is one call to the core's use-case layer
//! (`api::record_pack`, `release`, `import`, `summarise`); this component owns the ledger's state —
//! the stored entries, its notices, the rates and the clock — and loads the stored ledger itself.

use gpu_share_core::account::{ledger_csv, ledger_document, summary_csv, SummaryRow, UsageStatus};
use gpu_share_core::LedgerEntry;
use leptos::prelude::*;

use crate::download::download;
use crate::file_input::read_chosen_text;
use crate::format;
use crate::state::AppState;
use crate::storage;

mod model;
pub use model::*;

/// Stores `entries` as the new ledger and shows them. When the browser cannot store them (its
/// storage is full or unavailable) the page still shows them and says so, error and remedy: they
/// last only until the page is closed or reloaded unless downloaded.
fn commit(ledger: LedgerState, entries: Vec<LedgerEntry>, ok: String) {
    let saved = storage::save(&entries);
    ledger.entries.set(entries);
    match saved {
        Ok(()) => {
            ledger.writable.set(true);
            ledger.notice.set(Some(Notice::Ok(ok)));
        }
        Err(e) => ledger.notice.set(Some(Notice::Error(format!(
            "{ok}, but {e}. The ledger shown is kept in this page only until it is closed or \
             reloaded: download it (Ledger JSON lines) to keep it."
        )))),
    }
}

/// Shows a change, or why there was none.
fn apply(ledger: LedgerState, change: Change) {
    match change {
        Ok((entries, ok)) => commit(ledger, entries, ok),
        Err(e) => ledger.notice.set(Some(Notice::Error(e))),
    }
}

fn record(ledger: LedgerState, state: AppState) {
    if !ledger.writable.get_untracked() {
        ledger.notice.set(Some(Notice::Error(
            "the stored ledger could not be read; clear it before recording".into(),
        )));
        return;
    }
    let bad_hours = state
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
    let change = state.request.with_untracked(|request| {
        state.plan.with_untracked(|plan| {
            ledger
                .entries
                .with_untracked(|entries| recorded(entries, request, plan, now))
        })
    });
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
        Ok((Some(entries), ok)) => commit(ledger, entries, ok),
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
    let state = expect_context::<AppState>();
    // The stored ledger is read here, where it is used (the embed view never shows it).
    let ledger = LedgerState::new(storage::load(), now_unix());
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
            commit(ledger, Vec::new(), "ledger cleared".into());
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
                                <td>{format::utc(u.record.started_at)}</td>
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
                <button type="button" class="primary" data-testid="record" on:click=move |_| record(ledger, state)>"Record this plan"</button>
                <button type="button" class="danger" data-testid="clear-ledger" on:click=clear>"Clear ledger…"</button>
                <label class="file">"Import a ledger (JSON or JSON lines) "
                    <input type="file" data-testid="import-ledger" accept=".jsonl,.json,.txt,application/json" on:change=on_import /></label>
            </div>
            {move || ledger.notice.get().map(|n| match n {
                Notice::Ok(t) => view! { <p class="ok" role="status" data-testid="ledger-notice">{t}</p> }.into_any(),
                Notice::Error(t) => view! { <p class="error" role="alert" data-testid="ledger-notice">{t}</p> }.into_any(),
            })}
            <fieldset class="rates form-grid">
                <legend>"Rates"</legend>
                <RateInput id="rate-cost" label="Cost per GPU-hour" placeholder="none" value=ledger.rates_text.cost />
                <RateInput id="rate-watts" label="Board power (W)" placeholder="per model" value=ledger.rates_text.watts />
                <RateInput id="rate-pue" label="PUE" placeholder="1" value=ledger.rates_text.pue />
                <RateInput id="rate-grid" label="Grid gCO2e/kWh" placeholder="475" value=ledger.rates_text.grid />
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
            <div class="table-scroll">{table}</div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::LoadError;
    use gpu_share_core::account::Rates;
    use gpu_share_core::api::{self, SummaryRequest};

    const SEED: &str = "ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice";
    const NOW: i64 = 1_800_000_000;

    fn usage(entry: &LedgerEntry) -> (&str, i64, Option<u64>) {
        match entry {
            LedgerEntry::Usage(r) => (r.ask.as_str(), r.started_at, r.seconds),
            LedgerEntry::Release { .. } => panic!("a release: {entry:?}"),
        }
    }

    /// Records the page's plan with these hours per row into `entries`.
    fn record_seed(entries: &[LedgerEntry], hours: [&str; 3]) -> Change {
        let state = AppState::new(SEED);
        state.rows.with_untracked(|rows| {
            for (row, h) in rows.iter().zip(hours) {
                row.hours.set(h.into());
            }
        });
        let request = state.request.get_untracked();
        recorded(entries, &request, &state.plan.get_untracked(), NOW)
    }

    #[test]
    fn without_storage_the_ledger_still_works_and_says_it_will_not_persist() {
        let why = "local storage is not available in this browser (SecurityError: denied)";
        let l = LedgerState::new(Err(LoadError::Unavailable(why.into())), 0);
        assert!(l.writable.get_untracked());
        let Some(Notice::Error(n)) = l.notice.get_untracked() else {
            panic!("no notice");
        };
        assert!(n.starts_with(why) && n.contains("will not persist"), "{n}");
        // An unreadable stored ledger is another matter: it is left alone until cleared.
        let l = LedgerState::new(Err(LoadError::Unreadable("line 2".into())), 0);
        assert!(!l.writable.get_untracked());
        assert_eq!(
            l.notice.get_untracked(),
            Some(Notice::Error(
                "line 2. It is left untouched; clear it to start a new one.".into()
            ))
        );
        assert_eq!(l.entries.with_untracked(Vec::len), 0);
    }

    #[test]
    fn a_recorded_run_started_its_hours_ago_and_a_use_without_hours_is_open() {
        let (entries, said) = record_seed(&[], ["2", "", "0.5"]).unwrap();
        assert_eq!(said, "recorded 3 uses");
        let got: Vec<_> = entries.iter().map(usage).collect();
        assert_eq!(
            got,
            [
                ("a", NOW - 7200, Some(7200)),
                ("b", NOW, None),
                ("c", NOW - 1800, Some(1800)),
            ]
        );
        // Recording again appends.
        let (again, _) = record_seed(&entries, ["1", "1", "1"]).unwrap();
        assert_eq!(again.len(), 6);
        assert_eq!(again[..3], entries[..]);
    }

    #[test]
    fn unplaced_asks_are_left_out_and_a_broken_plan_records_nothing() {
        let state = AppState::new("ask=a:0.6&ask=b:0.6&gpus=1&timeslice");
        let request = state.request.get_untracked();
        let (entries, said) = recorded(&[], &request, &state.plan.get_untracked(), NOW).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(said, "recorded 1 use (1 unplaced left out)");
        let broken = AppState::new("ask=a:0.5&gpu-model=nonsense&mig-capable");
        let request = broken.request.get_untracked();
        assert_eq!(
            recorded(&[], &request, &broken.plan.get_untracked(), NOW),
            Err("the plan has an error; fix it before recording".into())
        );
    }

    #[test]
    fn only_an_open_use_is_released() {
        let (entries, _) = record_seed(&[], ["2", "", "0.5"]).unwrap();
        let (after, said) = released(&entries, "b", NOW + 60).unwrap();
        assert_eq!(said, "released b");
        assert_eq!(
            after.last(),
            Some(&LedgerEntry::Release {
                ask: "b".into(),
                at: NOW + 60
            })
        );
        let e = released(&after, "b", NOW + 120).unwrap_err();
        assert!(e.contains("no open allocation"), "{e}");
    }

    #[test]
    fn importing_ones_own_backup_adds_nothing_twice() {
        let (entries, _) = record_seed(&[], ["2", "1", "0.5"]).unwrap();
        let backup = storage::to_text(&entries);
        let (merged, said) = imported(&[], &backup, NOW).unwrap();
        assert_eq!(merged.as_deref(), Some(&entries[..]));
        assert_eq!(said, "imported 3 entries");
        let (merged, said) = imported(&entries, &backup, NOW).unwrap();
        assert_eq!(merged, None);
        assert_eq!(
            said,
            "imported 0 entries, 3 already present (not added twice)"
        );
        let (more, _) = record_seed(&[], ["4", "4", "4"]).unwrap();
        let (merged, said) = imported(&entries[..1], &storage::to_text(&more), NOW).unwrap();
        assert_eq!(merged.map(|m| m.len()), Some(4));
        assert_eq!(said, "imported 3 entries");
        let e = imported(&entries, "this is not a ledger\n", NOW).unwrap_err();
        assert!(
            e.starts_with("import failed, nothing changed: line 1"),
            "{e}"
        );
        let e = imported(&entries, "\n", NOW).unwrap_err();
        assert!(e.contains("no ledger entries"), "{e}");
    }

    #[test]
    fn rates_are_checked_by_the_core_and_worded_as_the_form_says_them() {
        let r = build_rates("2.5", "", "1.2", "").unwrap();
        assert_eq!(r.cost_per_gpu_hour(), Some(2.5));
        assert_eq!(r.watts(), None);
        assert_eq!(r.pue(), 1.2);
        assert_eq!(
            r.grid_g_co2e_per_kwh(),
            Rates::default().grid_g_co2e_per_kwh()
        );
        assert_eq!(
            build_rates("", "", "0.5", "").unwrap_err(),
            "PUE: must be a number ≥ 1, got 0.5"
        );
        assert!(build_rates("-1", "", "", "")
            .unwrap_err()
            .starts_with("cost per GPU-hour: "));
        assert!(build_rates("", "", "", "-5")
            .unwrap_err()
            .starts_with("grid intensity: "));
        assert!(build_rates("", "-300", "", "")
            .unwrap_err()
            .starts_with("watts: "));
        assert!(build_rates("cheap", "", "", "")
            .unwrap_err()
            .starts_with("cost per GPU-hour: expected a number"));
    }

    #[test]
    fn the_summary_is_the_cores_at_the_components_clock() {
        let (entries, _) = record_seed(&[], ["2", "", "0.5"]).unwrap();
        let l = LedgerState::new(Ok(entries.clone()), NOW + 3600);
        l.rates_text.cost.set("2".into());
        let got = l.summary.get_untracked().unwrap();
        let rates = build_rates("2", "", "1", "475").unwrap();
        let want = api::summarise(&SummaryRequest {
            entries: &entries,
            now: NOW + 3600,
            rates,
        })
        .unwrap();
        assert_eq!(got, want);
        assert_eq!(got.summary.totals.records, 3);
        assert_eq!(got.summary.totals.running, 1);
        // The open use counts up to the clock.
        let open = |l: &LedgerState| l.summary.get_untracked().unwrap().records[1].seconds;
        assert_eq!(open(&l), 3600);
        l.now.set(NOW + 7200);
        assert_eq!(open(&l), 7200);
        l.rates_text.pue.set("0.5".into());
        assert_eq!(
            l.summary.get_untracked().unwrap_err(),
            "PUE: must be a number ≥ 1, got 0.5"
        );
    }
}
