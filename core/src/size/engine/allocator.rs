//! What PyTorch's CUDA caching allocator counts for one tensor: `torch.cuda.memory_allocated`,
//! which vLLM reads for the weights ("Model loading took X GiB") and the activation peak, counts
//! whole blocks, not the bytes asked for.
//!
//! The rules (PyTorch `c10/cuda/CUDACachingAllocator.cpp`): a request is rounded up to 512 bytes
//! (`kMinBlockSize`, `round_size`); one of at most 1 MiB (`kSmallSize`) comes from the small
//! pool and keeps its rounded size; a larger one of at least 10 MiB (`kMinLargeAlloc`) gets a
//! new segment rounded up to 2 MiB (`kRoundLarge`, `get_allocation_size`), which is split only
//! when more than 1 MiB would remain (`shouldSplit`: `remaining > kSmallSize`), so a tensor of
//! 31.5 MiB holds a 32 MiB block. Requests between 1 and 10 MiB are carved from 20 MiB segments
//! and split (their remainder is counted as free); their rounded size is what they hold.
//!
//! This is why Qwen2.5-7B's weights take 14.25 GiB where its 7,615,616,512 bf16 parameters are
//! 14.19 GiB: its fused `qkv_proj` (31.5 MiB) and `gate_up_proj` (259 MiB) each hold a block up
//! to 1 MiB larger, in each of 28 layers (checked in `tests.rs`).

const MIN_BLOCK: u64 = 512;
const SMALL_SIZE: u64 = 1 << 20;
const MIN_LARGE_ALLOC: u64 = 10 << 20;
const ROUND_LARGE: u64 = 2 << 20;

/// The bytes `memory_allocated` counts for a tensor of `bytes` (0 for none).
pub fn block_bytes(bytes: u64) -> u64 {
    if bytes == 0 {
        return 0;
    }
    let rounded = bytes.div_ceil(MIN_BLOCK) * MIN_BLOCK;
    if rounded < MIN_LARGE_ALLOC {
        return rounded;
    }
    let segment = rounded.div_ceil(ROUND_LARGE) * ROUND_LARGE;
    if segment - rounded > SMALL_SIZE {
        rounded
    } else {
        segment
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn rounds_as_the_caching_allocator_does() {
        assert_eq!(block_bytes(1), 512);
        assert_eq!(block_bytes(8192), 8192);
        // Small and medium requests keep their 512-byte rounding.
        assert_eq!(block_bytes(3 * MIB + 1), 3 * MIB + 512);
        // 31.5 MiB: a 32 MiB segment with 0.5 MiB left, not split.
        assert_eq!(block_bytes(63 * MIB / 2), 32 * MIB);
        // 12.25 MiB: a 14 MiB segment with 1.75 MiB left, split.
        assert_eq!(block_bytes(49 * MIB / 4), 49 * MIB / 4);
        // Exactly 1 MiB left is not more than kSmallSize: not split.
        assert_eq!(block_bytes(259 * MIB), 260 * MIB);
        assert_eq!(block_bytes(48 * MIB), 48 * MIB);
    }
}
