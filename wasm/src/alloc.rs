//! The global allocator: the standard one (dlmalloc on wasm32), made to grow WebAssembly memory
//! in large steps.
//!
//! dlmalloc grows memory by what one allocation needs, so a large result grew it thousands of
//! times, and V8 answers every `memory.grow` with a full garbage collection of the JavaScript heap:
//! 111 of them, 0.8 s of 2.1 s, for a 30,000-ask `binPack` (measured with `node --trace-gc`). After
//! a growth this allocates and frees a block of half the memory there is, which dlmalloc keeps as
//! free space at the top of its heap: growths become logarithmic in the memory used, for at most
//! half as much memory again reserved. (WebAssembly only: natively the system allocator is kept.)

use std::alloc::{GlobalAlloc, Layout, System};

#[global_allocator]
static ALLOCATOR: Geometric = Geometric;

/// [`System`], growing memory geometrically.
pub struct Geometric;

/// The memory's size in 64 KiB pages.
fn pages() -> usize {
    core::arch::wasm32::memory_size(0)
}

/// Runs one call to [`System`]; if it grew memory, reserves half as much again as there was:
/// a block of that size allocated and freed stays free at the top of dlmalloc's heap.
unsafe fn grown(call: impl FnOnce() -> *mut u8) -> *mut u8 {
    let before = pages();
    let block = call();
    if pages() != before {
        let bytes = before.saturating_mul(65_536) / 2;
        if let Ok(layout) = Layout::from_size_align(bytes, 16) {
            let reserve = System.alloc(layout);
            if !reserve.is_null() {
                System.dealloc(reserve, layout);
            }
        }
    }
    block
}

// SAFETY: every call is passed to `System` unchanged; `grown` only allocates and frees besides.
unsafe impl GlobalAlloc for Geometric {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grown(|| System.alloc(layout))
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grown(|| System.alloc_zeroed(layout))
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        System.dealloc(block, layout)
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        grown(|| System.realloc(block, layout, size))
    }
}
