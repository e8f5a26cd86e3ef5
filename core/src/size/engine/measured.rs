//! What vLLM's start-up takes that its code does not size: memory the CUDA driver, cuBLAS and
//! NCCL allocate outside PyTorch's allocator, and the CUDA graphs' pool. Each is measured, on
//! the tuning part of the vLLM 0.19 H100 start-ups (Llama and Qwen models; the bench
//! `bench/src/engine.rs` keeps to that split), and says so wherever it is used.
//!
//! - **Non-torch memory** (`utils/mem_utils.py` `memory_profiling`: the rise of
//!   `total − free − torch reserved` from the snapshot to the end of profiling, inside the
//!   budget): 0.24–0.25 GiB on one GPU (cuBLAS workspaces and kernels loaded on first use),
//!   2.06–2.07 GiB at tensor parallel 2 and 2.13 at 4 (communication buffers set up on the first
//!   all-reduce), 0.07 on a pipeline stage. Tensor parallel 8 is not in the data: taken as 4's
//!   plus the step from 2 to 4 again, a guess marked as one.
//! - **Memory before the snapshot** (outside the budget; it lowers the free memory vLLM checks
//!   the budget against): the CUDA context, 500 MiB (the facts document §10), and at tensor
//!   parallel ≥ 2 NCCL's and the custom all-reduce's buffers, taken as another 512 MiB — not in
//!   the data (it logs no free memory), a guess marked as one.
//! - **CUDA graphs** (vLLM 0.19 captures them after allocating the KV cache, on top of the
//!   budget, unless `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1`): 0.51–0.96 GiB on the dense
//!   tuning runs, 1.41 on the mixture; modelled as 0.4 GiB and 16.5 MiB per layer on the stage
//!   (MoE layers 22 MiB), times 100%, 70%, 50% or 35% at tensor parallel 1, 2, 4, 8 — a fit, for
//!   the room co-tenants leave, not a term of the KV cache.

const MIB: u64 = 1 << 20;

/// The non-torch rise inside the budget, and whether it was measured at this parallelism.
pub fn non_torch(tp: u64, pp: u64) -> (u64, bool) {
    match (tp, pp) {
        (1, 1) => (256 * MIB, true),
        (1, _) => (72 * MIB, true),
        (2, _) => (2120 * MIB, true),
        (4, _) => (2181 * MIB, true),
        _ => (2242 * MIB, false),
    }
}

/// Memory a process holds before vLLM's snapshot.
pub fn before_snapshot(tp: u64) -> u64 {
    if tp > 1 {
        (500 + 512) * MIB
    } else {
        500 * MIB
    }
}

/// The CUDA graphs' pool for a stage of `layers` (of which `moe_layers` are MoE) on `tp` ranks.
pub fn cuda_graphs(layers: u64, moe_layers: u64, tp: u64, eager: bool) -> u64 {
    if eager {
        return 0;
    }
    let per_layer = (layers - moe_layers) * 33 * MIB / 2 + moe_layers * 22 * MIB;
    let percent = match tp {
        1 => 100,
        2 => 70,
        3 | 4 => 50,
        _ => 35,
    };
    410 * MIB + per_layer * percent / 100
}
