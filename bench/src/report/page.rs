//! BENCHMARKS.md's page sections: an edit in a large scenario, and the first load.

use crate::page::{Lighthouse, PageBench};
use std::fmt::Write;

/// The page in headless Chromium.
pub fn page(s: &mut String, p: &PageBench) {
    let _ = writeln!(
        s,
        "\n## The page\n\n`cargo xtask dist`'s page in headless Debian Chromium (`tests/bench/page.mjs`): a list of asks \
pasted and loaded, then, with the CPU throttled 4× (DevTools' mid-range laptop), one character typed at the end of \
ask 50's fraction, and three more typed 100 ms apart; {runs} runs of each size, the sizes in turn, and the row is \
the run whose one key was drawn in the median time (every run's in the last column). Times come from the page's own timeline: \"drawn\" runs from the \
first key's event to the last change of the plan's DOM (plan, diagram, tables), \"longest key\" is the longest \
Event Timing duration of a keystroke (input delay, handlers and the frame after them). Tables show 100 rows and the \
diagram 100 lanes at a time; while an edit's plan takes over 50 ms of script (the plan and its changes to the page, \
up to the last change, as a MutationObserver reports it) the page waits for a 300 ms pause in typing before it \
re-plans, so typing is not held up by plans of half-typed text (`web/src/settle.rs`); the first edit after a list is \
loaded is planned at once and timed, as the load's plan also built the tables. \"Drawn\" ends at the last change to the DOM, before the browser paints it; \"longest key\" \
includes the paint of the key's frame. The export panel \
makes its text only while it is in view (`web/src/in_view.rs`), and the address bar of a scenario of over 100 asks \
is written once typing pauses for a second (`settle::when_idle`): Chromium's `history.replaceState` of a long link \
cost more than the plan.\n",
        runs = crate::page::RUNS
    );
    let _ = writeln!(s, "| asks | one key: drawn ms | longest key ms | three keys: drawn ms | longest key ms | DOM elements | one key, every run, ms |");
    let _ = writeln!(s, "|--:|--:|--:|--:|--:|--:|:--|");
    for t in &p.timings {
        let runs: Vec<String> = t.edit_runs.iter().map(|ms| format!("{ms:.0}")).collect();
        let _ = writeln!(
            s,
            "| {} | {:.0} | {:.0} | {:.0} | {:.0} | {} | {} |",
            t.n,
            t.edit_ms,
            t.edit_key_ms,
            t.typing_ms,
            t.typing_key_ms,
            t.dom_nodes,
            runs.join(", ")
        );
    }
    first_load(s, p);
}

/// The first load: the wasm's size, a shared link's first plan when nothing is cached, Lighthouse.
fn first_load(s: &mut String, p: &PageBench) {
    let _ = writeln!(
        s,
        "\n### First load\n\nThe page's wasm that a first plan loads: {} bytes, {} gzipped; the panels built after the \
first plan (sizing, discovery, fit, export, the ledger, the replay) come from {} more files of WebAssembly fetched as \
they are built (`web/src/lazy.rs`, cut out by `xtask/src/split.rs`), {} bytes, {} gzipped, together. A shared link opened in a new Chromium profile \
(nothing cached), the files served gzipped from 127.0.0.1 as a static host serves them, the CPU throttled 4× from \
before the first byte (`tests/bench/first-load.mjs`), the last row also over a network slowed to Lighthouse's slow \
4G (150 ms round trips, 1.6 Mbit/s); the time from navigation start to the packing diagram's first lane, by the \
page's own clock; the median of the runs listed.\n",
        p.wasm_bytes, p.wasm_gzipped, p.parts, p.parts_bytes, p.parts_gzipped
    );
    let _ = writeln!(s, "| link | first plan drawn, ms | runs, ms |");
    let _ = writeln!(s, "|:--|--:|:--|");
    for f in &p.first_plans {
        let runs: Vec<String> = f.runs.iter().map(|r| format!("{r:.0}")).collect();
        let _ = writeln!(s, "| {} | {:.0} | {} |", f.link, f.ms, runs.join(", "));
    }
    for l in &p.lighthouse {
        lighthouse(s, l);
    }
    let _ = writeln!(
        s,
        "\nThe page's text is painted from `index.html` before the WebAssembly arrives: a static shell of the page \
(its header and an empty workspace, greyed and inert, `web/src/shell.rs`) with its style sheet inline. The app is \
built under it, hidden, a part per task (`settle::in_own_task`): the mount, the first plan (the core's), the asks \
table, then the first plan drawn, which takes the shell's place (`app::FirstPlan`), then each panel below the first \
screen (`settle::later`). In one task the first screen had held the main thread about 240 ms at 4× slower CPU (about \
140 of them V8 compiling WebAssembly on first calls); in two (the first plan drawn apart) the default run on this \
host counted 291–449 ms of blocking time in 5 runs, a part per task 50–169 ms (2026-12-06, runs by hand, not this \
bench). No frame is drawn before the whole shell is parsed (`<link rel=\"expect\">` in `index.html`): at a \
phone's width the summary, later in the HTML, is drawn above the asks, and a frame of part of the shell moved them \
down when the rest came (a layout shift of 0.126 in about one run of five, scored 0.83 of 1 on that metric). The \
default run loads the page at full speed and simulates slow 4G from that load, counting every request that finished \
before a paint as holding that paint back: a WebAssembly preloaded from `<head>` often finished before the shell's \
first paint on the fast load, and the largest contentful paint became its simulated arrival (about 4.4 s, score \
0.84, on 2026-12-05) instead of the shell's paint (about 1 s). `web/boot.js` therefore requests it as the shell's \
first frame is drawn (an animation frame's callback, just before that paint), which the inline style sheet makes \
come with the HTML alone; over slow 4G (the last row above) the first plan came about 0.2 s later than with the \
preload (medians of 5 on 2026-12-05: 4.2 s → 4.4 s), and with the style sheet still a file of its own it had come \
about 1.1 s later (4.6 s → 5.7 s). It is compiled as it arrives (`WebAssembly.compileStreaming`), while the app's \
JavaScript module loads and the shell's paint is awaited: handed to the app's `init` only after both, the bytes of \
a cold load at 4× slower CPU had waited about 200 ms before compiling began (a Chromium trace, 2026-12-07; the seed \
link's first plan by hand, the dists before and after in turn, 6 loads each: median 944 → 906 ms)."
    );
}

/// One way of throttling: the run with the median score and every run's score and LCP.
fn lighthouse(s: &mut String, l: &Lighthouse) {
    let how = if l.method == "simulate" {
        "its default mobile run (slow 4G and a 4× slower CPU simulated from a load at full speed)"
    } else {
        "its mobile run with DevTools throttling (the load really slowed to 4G and a 4× slower CPU)"
    };
    let runs: Vec<String> = (l.scores.iter().zip(&l.lcps_ms))
        .map(|(score, lcp)| format!("{score:.2} ({lcp:.0} ms)"))
        .collect();
    let _ = writeln!(
        s,
        "\nLighthouse {} (npm), {how}, of the seed example's link in headless Debian Chromium {} \
(`bench/scripts/lighthouse.mjs`); the run with the median of {} scores (with their largest contentful paint: {}): \
performance **{:.2}**; first contentful paint {:.0} ms, largest contentful paint {:.0} ms, total blocking time \
{:.0} ms, speed index {:.0} ms, cumulative layout shift {:.3}.",
        l.version,
        l.chromium,
        l.scores.len(),
        runs.join(", "),
        l.score,
        l.fcp_ms,
        l.lcp_ms,
        l.tbt_ms,
        l.speed_index_ms,
        l.cls
    );
}
