//! BENCHMARKS.md's peers section: other bin-packing libraries beside ours on the same BPPLIB
//! instances, bins and time.

use super::super::quality::Row;
use super::Report;
use std::fmt::Write;

pub fn peers(s: &mut String, r: &Report) {
    if r.peers.is_empty() || r.rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "## Peers, side by side\n\n\
Other bin-packing libraries on the same BPPLIB instances (`bench/src/peers.rs`), each at the version pinned \
in the repository: the Rust crate `bin-packing` (`solve_1d` with its first-fit decreasing, best-fit decreasing and \
`Auto`: both of those, its multistart local search and, on small instances, column generation; seed 1) called in \
the bench's process; the npm package `bin-packer` (`firstFitDecreasing`, `bestFitDecreasing`) in Node; the PyPI \
package `binpacking` (`to_constant_volume`: largest first, each item into the emptiest bin it fits) in Python. Ours: *FFD* is \
`first_fit_decreasing`, *optimize* is `optimize_sizes` with {} ms. Each cell counts instances packed on exactly the known optimum; the last rows give \
the GPUs above the optimum over all instances and the total time, one instance at a time (ours on 2 threads, two \
instances at a time, as above).\n",
        r.budget_ms
    );
    let mut header = String::from("| family | instances | ours: FFD | ours: optimize |");
    let mut rule = String::from("|:--|--:|--:|--:|");
    for p in r.peers {
        let _ = write!(header, " {}: {} |", p.tool, p.algorithm);
        rule += "--:|";
    }
    let _ = writeln!(s, "{header}\n{rule}");
    let mut families: Vec<&str> = r.rows.iter().map(|x| x.family.as_str()).collect();
    families.dedup();
    for family in families {
        let rows: Vec<&Row> = r.rows.iter().filter(|x| x.family == family).collect();
        let hits = |bins: &dyn Fn(&Row) -> Option<u64>| {
            rows.iter()
                .filter(|x| x.optimum.is_some() && bins(x) == x.optimum)
                .count()
        };
        let _ = write!(
            s,
            "| {family} | {} | {} | {} |",
            rows.len(),
            hits(&|x| Some(x.ffd)),
            hits(&|x| Some(x.optimized))
        );
        for p in r.peers {
            let _ = write!(s, " {} |", hits(&|x| p.results.get(&x.file).map(|b| b.0)));
        }
        let _ = writeln!(s);
    }
    let excess = |bins: &dyn Fn(&Row) -> Option<u64>| -> String {
        let known = r.rows.iter().filter_map(|x| Some((bins(x)?, x.optimum?)));
        known
            .map(|(b, o)| b.saturating_sub(o))
            .sum::<u64>()
            .to_string()
    };
    let _ = write!(
        s,
        "| GPUs above the optimum | | {} | {} |",
        excess(&|x| Some(x.ffd)),
        excess(&|x| Some(x.optimized))
    );
    for p in r.peers {
        let _ = write!(s, " {} |", excess(&|x| p.results.get(&x.file).map(|b| b.0)));
    }
    let seconds = |ms: f64| format!("{ms:.1} ms");
    let _ = write!(
        s,
        "\n| total time | | {} | {} |",
        seconds(r.rows.iter().map(|x| x.ffd_ms).sum()),
        seconds(r.rows.iter().map(|x| x.ms).sum())
    );
    for p in r.peers {
        let _ = write!(s, " {} |", seconds(p.results.values().map(|b| b.1).sum()));
    }
    let _ = writeln!(s, "\n");
}
