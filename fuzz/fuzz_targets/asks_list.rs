//! Ask lists as CSV or JSON (`parse::parse_asks`): never a panic; every ask accepted is valid, within the limits.
#![no_main]

use gpu_share_core::internals::ask::{MAX_ASK_GPUS, MAX_NAME_CHARS};
use gpu_share_core::internals::pack::MAX_ASKS;
use gpu_share_core::internals::parse::{parse_asks, MAX_SECONDS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = gpu_share_fuzz::text(data);
    if let Ok(entries) = parse_asks(&text) {
        assert!(entries.len() <= MAX_ASKS);
        for e in &entries {
            let name = e.ask.name();
            assert!(!name.is_empty() && name.chars().count() <= MAX_NAME_CHARS);
            assert!(!name.chars().any(char::is_control), "{name:?}");
            if let Some(f) = e.ask.requested_fraction() {
                assert!(!f.is_zero() && f.ceil_gpus() <= MAX_ASK_GPUS);
            }
            assert!(e.seconds.is_none_or(|s| s <= MAX_SECONDS));
        }
    }
});
