//! The `NAME:SIZE` ask grammar (`FractionalAsk::parse_spec`) and fractions (`Share::parse`): never a panic, what they accept is valid and writes back exactly.
#![no_main]

use gpu_share_core::internals::ask::{MAX_ASK_GPUS, MAX_NAME_CHARS};
use gpu_share_core::internals::units::MAX_GPUS;
use gpu_share_core::internals::{FractionalAsk, Share};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = gpu_share_fuzz::text(data);
    if let Ok(share) = Share::parse(&text) {
        assert!(share.ceil_gpus() <= MAX_GPUS, "{text:?}");
        // What is shown reads back; its exact text reads back the same share.
        let shown = share.to_string();
        Share::parse(&shown).expect("a shown share reads back");
        let exact = share.to_exact_text();
        assert_eq!(Share::parse(&exact), Ok(share), "{text:?} written {exact}");
    }
    if let Ok(ask) = FractionalAsk::parse_spec(&text) {
        let name = ask.name();
        assert!(!name.is_empty() && name.chars().count() <= MAX_NAME_CHARS);
        assert_eq!(name.trim(), name);
        assert!(!name.chars().any(char::is_control), "{name:?}");
        if let Some(f) = ask.requested_fraction() {
            assert!(!f.is_zero() && f.ceil_gpus() <= MAX_ASK_GPUS, "{text:?}");
        }
        assert_eq!(FractionalAsk::parse_spec(&ask.to_spec()), Ok(ask));
    }
});
