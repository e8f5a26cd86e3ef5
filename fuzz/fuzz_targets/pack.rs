//! `select_mechanism`, `bin_pack` and `bin_pack_with` (with a small optimizer budget) on arbitrary asks and caps: never a panic, and every packing keeps its invariants.
#![no_main]

use gpu_share_core::internals::pack::{bin_pack_with, optimize::Budget, PackOptions};
use gpu_share_core::internals::{bin_pack, select_mechanism, ErrorKind, FractionalAsk};
use gpu_share_fuzz::{check_pack, PackIn};
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeSet;

fuzz_target!(|input: PackIn| {
    let (asks, caps, gpu_count) = input.build();
    for a in &asks {
        if let Ok(c) = select_mechanism(a, &caps) {
            assert!(c.allocated_fraction >= c.requested_fraction, "{c:?}");
        }
    }
    // As given (duplicate names are common here: an error naming them), then with each name once.
    let mut seen = BTreeSet::new();
    let unique: Vec<FractionalAsk> = asks
        .iter()
        .filter(|a| seen.insert(a.name().to_string()))
        .cloned()
        .collect();
    match bin_pack(&asks, &caps.clone().with_gpu_count(gpu_count)) {
        Ok(r) => check_pack(&asks, r.gpu_count, &r),
        Err(e) if unique.len() < asks.len() => assert_eq!(e.kind, ErrorKind::DuplicateName),
        Err(_) => {}
    }
    let Ok(ffd) = bin_pack(&unique, &caps.clone().with_gpu_count(gpu_count)) else {
        return;
    };
    check_pack(&unique, ffd.gpu_count, &ffd);
    if let Some(work) = input.optimize {
        let options = PackOptions {
            optimize: Some(Budget::work(u64::from(work) * 4)),
        };
        let opt = bin_pack_with(&unique, &caps.clone().with_gpu_count(gpu_count), &options)
            .expect("FFD packed these");
        check_pack(&unique, opt.result.gpu_count, &opt.result);
        assert_eq!(opt.ffd_gpus, ffd.gpus_used);
        assert!(opt.result.unplaced.len() <= ffd.unplaced.len());
        if gpu_count.is_none() && caps.gpu_count.is_none() {
            assert!(opt.result.gpus_used <= ffd.gpus_used);
        }
        if opt.proven_optimal {
            assert_eq!(opt.result.gpus_used, opt.lower_bound);
        }
    }
});
