//! Browser-only checks (wasm-bindgen-test in headless Chrome): localStorage round trip and quota errors, the
//! settings' keys, the address bar, when an edit is re-planned, the mounted page
//! (its plan, export panel and discovery box).
#![cfg(target_arch = "wasm32")]

use gpu_share_core::api::{
    self, ClusterGpuCaps, FractionalAsk, LedgerEntry, PlanRequest, UsageRecord,
};
use gpu_share_web::{settle, storage, url};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn entry(name: &str) -> LedgerEntry {
    let caps = ClusterGpuCaps {
        supports_timeslicing: true,
        ..Default::default()
    };
    let request = PlanRequest {
        ask: FractionalAsk::parse_spec(&format!("{name}:0.5")).unwrap(),
        cluster: caps.into(),
    };
    let choice = api::plan(&request).unwrap().choice;
    LedgerEntry::Usage(UsageRecord::from_choice(&choice, 1_700_000_000, Some(3600)))
}

#[wasm_bindgen_test]
fn the_ledger_survives_in_local_storage() {
    storage::save(&[entry("a"), entry("b")]).unwrap();
    assert_eq!(storage::load().unwrap(), vec![entry("a"), entry("b")]);
    storage::save(&[]).unwrap();
    assert_eq!(storage::load().unwrap(), vec![]);
}

#[wasm_bindgen_test]
fn a_full_storage_is_reported_and_the_old_ledger_kept() {
    storage::save(&[entry("kept")]).unwrap();
    // Far beyond any browser's per-origin localStorage quota (about 5 MB in Chrome).
    let huge: Vec<LedgerEntry> = (0..40_000)
        .map(|i| entry(&format!("workload-{i:06}-{}", "x".repeat(100))))
        .collect();
    let err = storage::save(&huge).unwrap_err();
    assert!(
        err.starts_with("the ledger could not be saved in this browser: its storage is full (QuotaExceededError"),
        "{err}"
    );
    assert_eq!(storage::load().unwrap(), vec![entry("kept")]);
    storage::save(&[]).unwrap();
}

#[wasm_bindgen_test]
fn an_unreadable_stored_ledger_is_an_error_not_a_panic() {
    let ls = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    ls.set_item(storage::LEDGER_KEY, "{\"v\":1,\"kind\":\"usage\"}\n")
        .unwrap();
    let Err(storage::LoadError::Unreadable(err)) = storage::load() else {
        panic!("an unreadable ledger must be reported as such");
    };
    assert!(err.contains("line 1"), "{err}");
    ls.remove_item(storage::LEDGER_KEY).unwrap();
}

#[wasm_bindgen_test]
fn settings_are_stored_under_their_keys_and_removed_as_defaults() {
    let text = r#"{"cost":"2.5","watts":"","pue":"1.2","grid":"400"}"#;
    storage::save_setting(storage::RATES_KEY, Some(text)).unwrap();
    assert_eq!(
        storage::load_setting(storage::RATES_KEY)
            .unwrap()
            .as_deref(),
        Some(text)
    );
    // The ledger's key is another: a setting never touches the ledger.
    assert_eq!(storage::load().unwrap(), vec![]);
    storage::save_setting(storage::RATES_KEY, None).unwrap();
    assert_eq!(storage::load_setting(storage::RATES_KEY).unwrap(), None);
    assert_eq!(storage::load_setting(storage::EXPORT_KEY).unwrap(), None);
}

#[wasm_bindgen_test]
fn the_address_bar_follows_the_scenario() {
    url::replace_query("ask=a:0.5&timeslice");
    assert_eq!(url::current_query(), "?ask=a:0.5&timeslice");
    assert!(url::link("ask=a:0.5").ends_with("?ask=a:0.5"));
    url::replace_query("");
    assert_eq!(url::current_query(), "");
}

/// Waits `ms` milliseconds of the browser's clock.
async fn sleep(ms: i32) {
    let wait = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(wait).await.unwrap();
}

/// Lets effects run.
async fn tick() {
    sleep(50).await;
}

/// Waits until the page has built every panel (`<html data-ready>`, set by `start` once the
/// first screen's tasks and the panels after it have run), for at most ten seconds.
async fn ready() {
    let html = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .document_element()
        .unwrap();
    for _ in 0..500 {
        if html.has_attribute("data-ready") {
            return;
        }
        sleep(20).await;
    }
    panic!("the page never said it was ready (data-ready)");
}

#[wasm_bindgen_test]
async fn the_page_mounts_and_draws_the_default_plan() {
    url::replace_query("ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice");
    gpu_share_web::start();
    ready().await;
    let doc = web_sys::window().unwrap().document().unwrap();
    let text = |sel: &str| {
        doc.query_selector(sel)
            .unwrap()
            .and_then(|e| e.text_content())
            .unwrap_or_default()
    };
    assert_eq!(text("[data-testid=\"gpus-used\"]"), "2");
    assert!(doc
        .query_selector("g.lane[data-gpu=\"1\"]")
        .unwrap()
        .is_some());
    assert!(text("g.lane[data-gpu=\"0\"]").contains("a — 0.5 of GPU 0"));

    // The export panel, scrolled to (it makes its text only while in view), shows the same plan
    // as Kubernetes Deployments.
    doc.query_selector("section.export")
        .unwrap()
        .unwrap()
        .scroll_into_view();
    tick().await;
    let value = |sel: &str| {
        doc.query_selector(sel)
            .unwrap()
            .and_then(|e| e.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
            .map(|t| t.value())
            .unwrap_or_default()
    };
    let k8s = value("[data-testid=\"export-output\"]");
    assert!(k8s.contains("kind: Deployment"), "{k8s}");
    assert!(k8s.contains("3 asks on 2 GPUs"), "{k8s}");

    // Pasting an nvidia-smi -L listing and filling the form sets the GPU count.
    let paste = doc
        .query_selector("[data-testid=\"detect-input\"]")
        .unwrap()
        .unwrap()
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .unwrap();
    paste.set_value(
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-00000000-0000-0000-0000-000000000000)\n\
         GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-00000000-0000-0000-0000-000000000001)\n\
         GPU 2: NVIDIA A100-SXM4-40GB (UUID: GPU-00000000-0000-0000-0000-000000000002)\n",
    );
    paste
        .dispatch_event(&web_sys::Event::new("input").unwrap())
        .unwrap();
    tick().await;
    doc.query_selector("[data-testid=\"detect-fill\"]")
        .unwrap()
        .unwrap()
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    tick().await;
    let summary = text("[data-testid=\"detect-summary\"]");
    assert!(summary.contains("3 × A100-SXM4-40GB"), "{summary}");
    let count = doc
        .query_selector("#gpu-count")
        .unwrap()
        .unwrap()
        .dyn_into::<web_sys::HtmlInputElement>()
        .unwrap()
        .value();
    assert_eq!(count, "3");
    assert!(url::current_query().contains("gpus=3"));
}

/// `settle::after_edits`: an edit is planned at once while the last edit's plan was quick, after a
/// pause in the edits once it was slow (here: it changed the page 80 ms after the edit, over
/// `QUICK_MS`), and at once again for the first edit after the number of asks changed (a list
/// loaded), whose plan also built rows and says nothing of an edit's.
#[wasm_bindgen_test]
async fn an_edit_waits_for_a_pause_only_after_a_slow_plan() {
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let owner = Owner::new();
    owner.set();
    let asks = RwSignal::new(settle::SMALL + 1);
    let text = RwSignal::new(0_u32);
    let settled = settle::after_edits(move || {
        text.track();
        asks.get()
    });
    // The plan: a change to the page after each settled edit, 80 ms late while `slow`.
    let slow = StoredValue::new(false);
    let body = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .body()
        .unwrap();
    Effect::new(move |_| {
        let n = settled.get();
        let start = js_sys::Date::now();
        while slow.get_value() && js_sys::Date::now() - start < 80.0 {}
        body.set_attribute("data-settled", &n.to_string()).unwrap();
    });
    tick().await;
    let edit = |slow_plan: bool| {
        slow.set_value(slow_plan);
        text.update(|t| *t += 1);
    };
    let before = settled.get_untracked();
    let plans = move || settled.get_untracked() - before;

    // Nothing is known yet: at once (its plan quick).
    edit(false);
    tick().await;
    assert_eq!(plans(), 1);
    // The last plan was quick: at once; this one is slow.
    edit(true);
    tick().await;
    assert_eq!(plans(), 2);
    // The last plan was slow: the page waits for a pause (PAUSE_MS) before it plans.
    edit(false);
    tick().await;
    assert_eq!(plans(), 2, "planned before the pause");
    sleep(settle::PAUSE_MS as i32 + 100).await;
    assert_eq!(plans(), 3);
    // Quick again; then a slow plan, and a list loaded (the count changes) waits for it...
    edit(true);
    tick().await;
    assert_eq!(plans(), 4);
    asks.set(settle::SMALL + 2);
    tick().await;
    assert_eq!(plans(), 4, "the load waits after a slow plan");
    sleep(settle::PAUSE_MS as i32 + 100).await;
    assert_eq!(plans(), 5);
    // ...but its own time is not an edit's: the next edit is planned at once.
    edit(false);
    tick().await;
    assert_eq!(plans(), 6);
}
