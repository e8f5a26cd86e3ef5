//! BENCHMARKS.md's page sections: an edit in a large scenario, and the first load.

use crate::bench::page::PageBench;
use std::fmt::Write;

/// The page in headless Chromium.
pub fn page(s: &mut String, p: &PageBench) {
    let _ = writeln!(
        s,
        "\n## The page\n\n`cargo xtask dist`'s page in headless Debian Chromium (`tests/bench/page.mjs`): a list of asks \
pasted and loaded, then, with the CPU throttled 4× (DevTools' mid-range laptop), one character typed at the end of \
ask 50's fraction, and three more typed 100 ms apart. Times come from the page's own timeline: \"drawn\" runs from the \
first key's event to the last change of the plan's DOM (plan, diagram, tables), \"longest key\" is the longest \
Event Timing duration of a keystroke (input delay, handlers and the frame after them). Tables show 100 rows and the \
diagram 100 lanes at a time; while drawing a plan takes over 50 ms the page waits for a 300 ms pause in typing \
before it re-plans, so typing is not held up by plans of half-typed text (`web/src/settle.rs`). The export panel \
makes its text only while it is in view (`web/src/in_view.rs`), and the address bar of a scenario of over 100 asks \
is written once typing pauses for a second (`settle::when_idle`): Chromium's `history.replaceState` of a long link \
cost more than the plan.\n"
    );
    let _ = writeln!(s, "| asks | one key: drawn ms | longest key ms | three keys: drawn ms | longest key ms | DOM elements |");
    let _ = writeln!(s, "|--:|--:|--:|--:|--:|--:|");
    for t in &p.timings {
        let _ = writeln!(
            s,
            "| {} | {:.0} | {:.0} | {:.0} | {:.0} | {} |",
            t.n, t.edit_ms, t.edit_key_ms, t.typing_ms, t.typing_key_ms, t.dom_nodes
        );
    }
    first_load(s, p);
}

/// The first load: the wasm's size, a shared link's first plan when nothing is cached, Lighthouse.
fn first_load(s: &mut String, p: &PageBench) {
    let _ = writeln!(
        s,
        "\n### First load\n\nThe page's wasm: {} bytes, {} gzipped. A shared link opened in a new Chromium profile \
(nothing cached), the files served gzipped from 127.0.0.1 as a static host serves them, the CPU throttled 4× from \
before the first byte (`tests/bench/first-load.mjs`); the time from navigation start to the packing diagram's first \
lane, by the page's own clock; the median of the runs listed.\n",
        p.wasm_bytes, p.wasm_gzipped
    );
    let _ = writeln!(s, "| link | first plan drawn, ms | runs, ms |");
    let _ = writeln!(s, "|:--|--:|:--|");
    for f in &p.first_plans {
        let runs: Vec<String> = f.runs.iter().map(|r| format!("{r:.0}")).collect();
        let _ = writeln!(s, "| {} | {:.0} | {} |", f.link, f.ms, runs.join(", "));
    }
    let l = &p.lighthouse;
    let scores: Vec<String> = l.scores.iter().map(|x| format!("{x:.2}")).collect();
    let _ = writeln!(
        s,
        "\nLighthouse {} (npm), its default mobile run (simulated slow 4G, 4× CPU slowdown) of the seed example's \
link in headless Debian Chromium {} (`xtask/bench/lighthouse.mjs`), the run with the median of {} scores ({}): \
performance **{:.2}**; first contentful paint {:.0} ms, largest contentful paint {:.0} ms, total blocking time \
{:.0} ms, speed index {:.0} ms, cumulative layout shift {:.3}.",
        l.version,
        l.chromium,
        l.scores.len(),
        scores.join(", "),
        l.score,
        l.fcp_ms,
        l.lcp_ms,
        l.tbt_ms,
        l.speed_index_ms,
        l.cls
    );
}
