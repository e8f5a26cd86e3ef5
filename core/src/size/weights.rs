//! The weights' bytes: every parameter in its dtype. Weights in a 16- or 32-bit float are stored
//! whole; quantized ones (fp8, int8, int4) have their layers' weight matrices in that dtype and
//! their embeddings, norms, biases and routers in the dtype the model computes in, as GPTQ, AWQ
//! and DeepSeek-V3's fp8 checkpoints keep them (GPTQ's `modules_in_block_to_quantize` lists only
//! a block's linear layers; `lm_head` stays unquantized).

use super::dtype::bytes_of;
use super::parameters::{ParameterCount, PartClass};
use super::precision::Precision;
use super::text::grouped;

/// The weights' bytes and how they are counted.
pub fn bytes(p: &ParameterCount, precision: &Precision) -> (u128, String) {
    let w = precision.weights;
    if w.is_compute() {
        let total = p.total();
        return (
            bytes_of(total, w),
            format!(
                "{} parameters × {} ({}, {})",
                grouped(total),
                w.bytes_text(),
                w.name(),
                precision.weights_from
            ),
        );
    }
    let matrices = p.of(PartClass::Matrix);
    let rest = p.total() - matrices;
    let c = precision.compute;
    (
        bytes_of(matrices, w) + bytes_of(rest, c),
        format!(
            "{} parameters of the layers' weight matrices × {} ({}, {}) + {} of embeddings, norms, biases and routers × {} ({}, {}, unquantized as quantizers keep them)",
            grouped(matrices),
            w.bytes_text(),
            w.name(),
            precision.weights_from,
            grouped(rest),
            c.bytes_text(),
            c.name(),
            precision.compute_from
        ),
    )
}
