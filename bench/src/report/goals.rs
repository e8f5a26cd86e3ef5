//! BENCHMARKS.md's goals (issue 17): each goal beside what this run measured, met or not.

use super::super::unseen::Set;
use super::Report;
use std::fmt::Write;

/// Issue 17's goals beside what this run measured, met or not.
pub fn goals(s: &mut String, r: &Report) {
    let growth = |large: Option<f64>, small: Option<f64>| match (large, small) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let tree = |n: usize| r.speed.iter().find(|t| t.n == n).map(|t| t.tree_ms);
    let mig = |n: usize| r.mig.iter().find(|m| m.0 == n).map(|m| m.1);
    let optimizer = |n: usize| r.optimizer.iter().find(|t| t.n == n).map(|t| t.ms);
    let npm = |n: usize| {
        r.api
            .iter()
            .find(|t| t.n == n)
            .map(|t| t.npm_ms / t.native_ms)
    };
    let columns = |n: usize| {
        r.api
            .iter()
            .find(|t| t.n == n)
            .map(|t| t.npm_columns_ms / t.native_columns_ms)
    };
    let edit = |n: usize| {
        r.page
            .and_then(|p| p.timings.iter().find(|t| t.n == n))
            .map(|t| t.edit_ms)
    };
    let kb = |b: u64| b as f64 / 1000.0;
    let first_plan = |link: &str| {
        r.page
            .and_then(|p| p.first_plans.iter().find(|f| f.link.starts_with(link)))
            .map(|f| f.ms)
    };
    let lighthouse = r.page.and_then(|p| p.lighthouse.first()).map(|l| l.score);
    let rows: [(&str, &str, Option<f64>, f64, &str); 13] = [
        (
            "first-fit-decreasing, 1M / 100k asks",
            "≤ 12×",
            growth(tree(1_000_000), tree(100_000)),
            12.0,
            "×",
        ),
        (
            "MIG `bin_pack`, 1M / 100k asks",
            "≤ 12×",
            growth(mig(1_000_000), mig(100_000)),
            12.0,
            "×",
        ),
        (
            "the optimizer at 100 steps per ask, 1M / 100k asks",
            "≤ 12×",
            growth(optimizer(1_000_000), optimizer(100_000)),
            12.0,
            "×",
        ),
        (
            "npm `binPack` (asks as objects) / native, 100k asks",
            "≤ 2×",
            npm(100_000),
            2.0,
            "×",
        ),
        (
            "npm `binPackColumns` / native `pack_columns`, 100k asks",
            "≤ 2×",
            columns(100_000),
            2.0,
            "×",
        ),
        (
            "npm `binPackColumns` / native `pack_columns`, 1M asks (large inputs in the compact form: typed arrays in, columns out)",
            "≤ 1.5×",
            columns(1_000_000),
            1.5,
            "×",
        ),
        (
            "page: one keystroke in a 1,000-ask scenario, re-planned and drawn (4× CPU throttle; median of 5 runs)",
            "< 100 ms",
            edit(1_000),
            100.0,
            " ms",
        ),
        (
            "page: the same in a 10,000-ask scenario",
            "< 1,000 ms",
            edit(10_000),
            1000.0,
            " ms",
        ),
        (
            "first load: the page's wasm a first plan loads, gzipped",
            "≤ 400 KB",
            r.page.map(|p| kb(p.wasm_gzipped)),
            400.0,
            " KB",
        ),
        (
            "first load: a shared link's first plan drawn, cold, 4× CPU throttle (seed example)",
            "< 1,000 ms",
            first_plan("seed"),
            1000.0,
            " ms",
        ),
        (
            "first load: Lighthouse mobile performance score",
            "≥ 0.9",
            lighthouse,
            0.9,
            "",
        ),
        (
            "`--optimize` at the optimum: BPPLIB's validation half, Falkenauer + Scholl",
            "≥ 99%",
            super::unseen::validation_half_pct(r),
            99.0,
            "%",
        ),
        (
            "`--optimize` at the optimum: the generated validation set",
            "≥ 90%",
            super::unseen::generated_pct(r, Set::Validation),
            90.0,
            "%",
        ),
    ];
    let _ = writeln!(
        s,
        "\n## Goals\n\nIssue 17's goals that this bench measures, from the tables above:\n"
    );
    let _ = writeln!(s, "| goal | target | measured | met |");
    let _ = writeln!(s, "|:--|--:|--:|:-:|");
    for (goal, target, measured, limit, unit) in rows {
        // Every goal is a most, but a score, which is a least.
        let at_least = target.starts_with('≥');
        let (value, met) = match measured {
            Some(m) if at_least => (
                format!("{m:.2}{unit}"),
                if m >= limit { "yes" } else { "no" },
            ),
            // Ratios to two places: one place showed 12.0× beside a "no" for ≤ 12×.
            Some(m) if unit == "×" => (
                format!("{m:.2}{unit}"),
                if m <= limit { "yes" } else { "no" },
            ),
            Some(m) => (
                format!("{m:.1}{unit}"),
                if m <= limit { "yes" } else { "no" },
            ),
            None => ("not run".into(), "—"),
        };
        let _ = writeln!(s, "| {goal} | {target} | {value} | {met} |");
    }
    if let Some(t) = r.api.iter().find(|t| t.n == 1_000_000) {
        let _ = writeln!(
            s,
            "\nThe npm goals compare npm with native timed alike, after one call at the full size. A new Node \
process's first million-ask `binPackColumns` call took {:.2}× the native time (*npm first call* above). Where that \
first call's extra goes (by hand on 2026-12-07, `/usr/bin/time`): the WebAssembly memory grows from about 85 MB to \
about 920 MB in it, some 214,000 page faults and half a second of kernel time, which a second call reuses. V8's \
baseline tier is a small part: with every function compiled by its optimizing tier before the call (`node \
--no-wasm-dynamic-tiering` and six seconds' wait), three first calls took 1998–2163 ms against 2096–2210 by default \
(second calls 1578–1703). Native runs here \
reuse memory this process's earlier runs took; in a new process of its own (by hand, four runs) native \
`pack_columns` of a million took 1864–2247 ms on its first run.",
            t.npm_columns_first_ms / t.native_columns_ms
        );
    }
    if let Some(ratio) = npm(1_000_000) {
        let _ = writeln!(
            s,
            "\nA million asks as objects, `binPack`, took {ratio:.2}× the native time (the first table of *Speed where \
users call it*); the goal for a million is met, or not, by the compact form above, as the issue allows for large \
inputs."
        );
    }
    if npm(1_000_000).is_some_and(|ratio| ratio > 1.5) {
        let _ = writeln!(
            s,
            "\nWhere the time of a million-ask `binPack` of objects goes beyond native's (`node --cpu-prof`, one run on 2026-12-06): \
about a quarter of it is the engine collecting garbage, half of that while the result's millions of objects are \
built and a third at the growths of WebAssembly memory (V8 collects the whole JavaScript heap at each; the \
WebAssembly memory reached 1.9 GB); most of the rest is the core itself running slower in WebAssembly than natively, above all its allocator and, in that \
profile, a hash map of a million ask names the utilisation looked choices up in (WebAssembly compares strings a byte at a time), which a merge \
of the names sorted has replaced since (2026-12-07)."
        );
    }
}
