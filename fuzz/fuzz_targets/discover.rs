//! Discovery (`discover::detect`, `detect_all`) on nvidia-smi and kubectl output: never a panic; an inventory's caps always resolve.
#![no_main]

use gpu_share_core::internals::caps::MAX_GPU_COUNT;
use gpu_share_core::internals::discover::{detect, detect_all};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = gpu_share_fuzz::text(data);
    if let Ok(inventory) = detect(&text) {
        assert!(inventory.gpus.len() as u64 <= MAX_GPU_COUNT);
        let caps = inventory.caps();
        assert!(caps.gpu_count.is_none_or(|n| n <= MAX_GPU_COUNT));
        let _ = caps.resolve(&[]);
    }
    // Two inputs: the text split at its middle line, as if given as two files.
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (a, b) = lines.split_at(lines.len() / 2);
    let _ = detect_all(&[&a.concat(), &b.concat()]);
});
