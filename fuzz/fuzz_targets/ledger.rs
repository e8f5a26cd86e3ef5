//! Ledger import (`account::parse_ledger`, `parse_ledger_any`: JSON Lines or the JSON document): never a panic; entries read write back and read the same.
#![no_main]

use gpu_share_core::internals::account::{
    format_entry, parse_ledger, parse_ledger_any, resolve, summarize, Rates,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = gpu_share_fuzz::text(data);
    let _ = parse_ledger(&text);
    if let Ok(entries) = parse_ledger_any(&text) {
        let lines: String = entries.iter().map(|e| format_entry(e) + "\n").collect();
        let back = parse_ledger(&lines).expect("written entries read back");
        assert_eq!(back.len(), entries.len());
        for now in [0, i64::MAX, i64::MIN] {
            if let Ok(usages) = resolve(&entries, now) {
                let _ = summarize(&usages, &Rates::default());
                let _ = gpu_share_core::internals::account::ledger_csv(&usages);
            }
        }
    }
});
