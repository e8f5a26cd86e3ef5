//! mig-parted config validation (`validate_mig::validate_mig_parted` on JSON) and `validate_mig` on profile lists: never a panic.
#![no_main]

use gpu_share_core::internals::catalog;
use gpu_share_core::internals::validate_mig::{validate_mig, validate_mig_parted};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let models = catalog::models();
    let model = &models[usize::from(pick) % models.len()];
    let text = gpu_share_fuzz::text(rest);
    if let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) {
        if let Ok(results) = validate_mig_parted(&doc, model) {
            for (_, _, v) in results {
                assert_eq!(v.valid, v.reason.is_none(), "{v:?}");
            }
        }
    }
    let profiles: Vec<&str> = text.split(',').take(256).collect();
    if let Ok(v) = validate_mig(model, &profiles) {
        assert_eq!(v.valid, v.reason.is_none(), "{v:?}");
        if v.valid {
            assert_eq!(v.placements.len(), profiles.len());
        }
    }
});
