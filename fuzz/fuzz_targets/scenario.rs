//! Scenario queries (`Scenario::from_query`, the web page's link): never a panic; a scenario reads back exactly from its own query.
#![no_main]

use gpu_share_core::internals::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = gpu_share_fuzz::text(data);
    if let Ok(s) = Scenario::from_query(&text) {
        assert_eq!(Scenario::from_query(&s.to_query()).as_ref(), Ok(&s));
        // Planning what a link says never panics either.
        if s.asks.len() <= 64 {
            let _ = gpu_share_core::internals::bin_pack(
                &s.asks,
                &s.caps.clone().with_gpu_count(s.caps.gpu_count),
            );
        }
    }
});
