//! The page as users feel it: `cargo xtask dist`'s page in headless Chromium, a scenario of
//! 1,000 and of 10,000 asks pasted in, then one keystroke in an ask's fraction and three more
//! typed 100 ms apart, the CPU throttled 4× (`tests/bench/page.mjs` drives it and reads the
//! browser's performance timeline); and the page's wasm, raw and gzipped, for the first load.

use super::speed::node;
use std::path::Path;

/// Scenario sizes the page is timed at (issue 17's goals: under 100 ms and under 1 s).
pub const SIZES: [usize; 2] = [1_000, 10_000];

/// One scenario size: what an edit and typing cost, from the page's own timeline.
pub struct PageTiming {
    pub n: usize,
    /// From the keystroke to the last change of the plan's DOM (the plan re-made and drawn).
    pub edit_ms: f64,
    /// The longest a keystroke of the edit waited for its frame (Event Timing's duration).
    pub edit_key_ms: f64,
    /// Three characters typed 100 ms apart: from the first key to the plan drawn.
    pub typing_ms: f64,
    pub typing_key_ms: f64,
    pub dom_nodes: u64,
}

/// The page part: its timings and its wasm's (raw, gzipped) bytes.
pub struct PageBench {
    pub timings: Vec<PageTiming>,
    pub wasm_bytes: u64,
    pub wasm_gzipped: u64,
}

pub fn run(root: &Path) -> Result<PageBench, String> {
    crate::setup::chromium()?;
    crate::shell::run(crate::shell::cargo([
        "run", "--quiet", "-p", "xtask", "--", "dist",
    ]))?;
    let dist = root.join("dist");
    let wasm = std::fs::read_dir(&dist)
        .map_err(|e| format!("cannot read dist/: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "wasm"))
        .ok_or("dist/ has no .wasm")?;
    let (wasm_bytes, wasm_gzipped) = crate::shell::sizes(&wasm);
    let mut args = vec![
        root.join("tests/bench/page.mjs").display().to_string(),
        dist.display().to_string(),
    ];
    args.extend(SIZES.iter().map(usize::to_string));
    let out = node(&args)?;
    let timings = out.lines().map(timing).collect::<Result<Vec<_>, _>>()?;
    for t in &timings {
        eprintln!(
            "page: {} asks: edit {:.0} ms (key {:.0} ms), typing {:.0} ms (key {:.0} ms), {} DOM nodes",
            t.n, t.edit_ms, t.edit_key_ms, t.typing_ms, t.typing_key_ms, t.dom_nodes
        );
    }
    Ok(PageBench {
        timings,
        wasm_bytes,
        wasm_gzipped,
    })
}

/// One line of page.mjs's output.
fn timing(line: &str) -> Result<PageTiming, String> {
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("page.mjs printed {line:?}: {e}"))?;
    let f = |a: &str, b: &str| v[a][b].as_f64().unwrap_or(f64::NAN);
    Ok(PageTiming {
        n: v["n"].as_u64().ok_or("page.mjs printed no size")? as usize,
        edit_ms: f("edit", "drawn_ms"),
        edit_key_ms: f("edit", "worst_key_ms"),
        typing_ms: f("typing", "drawn_ms"),
        typing_key_ms: f("typing", "worst_key_ms"),
        dom_nodes: v["dom_nodes"].as_u64().unwrap_or(0),
    })
}
