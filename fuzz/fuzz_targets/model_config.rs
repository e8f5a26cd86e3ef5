//! A Hugging Face config.json (`size::read_config`, then `api::size` with and without a budget):
//! never a panic; what it sizes adds up, and the largest fit it reports fits.
#![no_main]

use gpu_share_core::api::{self, FitTarget, SizeRequest, SizingOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = gpu_share_fuzz::text(data);
    let _ = gpu_share_core::internals::memory::Memory::parse(&text);
    if gpu_share_core::internals::size::read_config(&text).is_err() {
        return;
    }
    let request = SizeRequest {
        config_json: text.to_string(),
        options: SizingOptions {
            context: Some(4096),
            fit: Some(FitTarget::Bytes(80 << 30)),
            ..Default::default()
        },
    };
    if let Ok(r) = api::size(&request) {
        let parts: u128 = u128::from(r.weights_bytes)
            + u128::from(r.kv_cache_bytes)
            + r.overheads
                .iter()
                .map(|o| u128::from(o.bytes))
                .sum::<u128>();
        assert_eq!(parts, u128::from(r.total_bytes));
        if let Some(fit) = &r.fit {
            assert_eq!(fit.fits, r.total_bytes <= fit.budget_bytes);
        }
    }
});
