//! A node list and a pod list in the Alibaba trace's CSV form (split at the first NUL byte; the
//! synthetic fixture's lists seed the corpus), read by `replay::Trace::read` and, when they read,
//! replayed under every policy with a small fill: never a panic, every arrival placed or failed
//! once, no policy allocating more than the capacity or the bound.
#![no_main]

use gpu_share_core::internals::replay::workload::Tune;
use gpu_share_core::internals::replay::{replay, Policy, ReplayOptions, Trace};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = gpu_share_fuzz::text(data);
    let (nodes, pods) = text.split_once('\0').unwrap_or((&text, ""));
    let Ok(trace) = Trace::read(nodes, pods) else {
        return;
    };
    // Keep a case to milliseconds: small clusters and lists only.
    if trace.nodes.len() > 64 || trace.pods.len() > 256 || trace.capacity_milli() > 256_000 {
        return;
    }
    let options = ReplayOptions {
        policies: Policy::ALL.to_vec(),
        seeds: vec![1],
        tune: Tune::from_permille(1300).unwrap(),
    };
    let Ok(r) = replay(&trace, &options) else {
        return;
    };
    assert!(r.bound.offline <= r.bound.upper);
    for p in &r.policies {
        for run in &p.runs {
            let failed = run.failed.no_gpu + run.failed.share + run.failed.whole;
            assert_eq!(run.placed_pods + failed, run.arrived_pods);
            assert!(run.allocated_gpu_milli <= trace.capacity_milli());
            assert!(run.allocation.iter().flatten().all(|a| a.0 <= 10_000));
        }
    }
});
