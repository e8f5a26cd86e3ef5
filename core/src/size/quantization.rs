//! A config.json's `quantization_config`: the dtype its weight matrices are stored in and the
//! scales stored beside them, for the methods whose layout is documented; any other method is
//! kept by name, so that sizing it without a dtype given is an error rather than a guess.

use super::dtype::Dtype;
use super::fields::Fields;
use crate::error::Result;
use serde_json::{Map, Value};

/// How a quantized checkpoint stores its weight matrices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantization {
    /// `quant_method` as the config names it (`fp8`, `gptq`, `awq`, `compressed-tensors`, …).
    pub method: String,
    /// The weight matrices' dtype; `None` for a method (or bit width) gpu-share does not read.
    pub dtype: Option<Dtype>,
    /// The scales stored beside them, where they are per group or block.
    pub scales: Option<Scales>,
}

/// One scale (and zero point) per group of weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scales {
    /// Weights sharing one scale.
    pub weights_per_scale: u64,
    /// Bits stored per group: the scale and, for GPTQ and AWQ, its zero point.
    pub bits_per_scale: u32,
    /// Where the layout comes from, in the user's words.
    pub source: &'static str,
}

/// GPTQ and AWQ's default group: transformers' `GPTQConfig` and `AwqConfig` both default
/// `group_size` to 128 (GPTQ: "Recommended value is 128 and -1 uses per-column quantization").
pub const DEFAULT_GROUP_SIZE: u64 = 128;

/// The scales of `dtype` weights when the config gives no layout of its own: for int4, GPTQ's and
/// AWQ's default groups of 128 with a 16-bit scale and a 4-bit zero point each; none for the others
/// (fp8 and int8 without groups keep one scale per tensor or per output channel, under 0.1%).
pub fn default_scales(dtype: Dtype) -> Option<Scales> {
    (dtype == Dtype::Int4).then_some(Scales {
        weights_per_scale: DEFAULT_GROUP_SIZE,
        bits_per_scale: 16 + 4,
        source: "GPTQ's and AWQ's default group_size of 128",
    })
}

/// Reads `quantization_config`.
///
/// # Errors
/// A field of a known method that is not what the method writes, named
/// (`quantization_config.bits`).
pub fn read(map: &Map<String, Value>) -> Result<Quantization> {
    let f = Fields::new(map, "quantization_config.");
    let method = f.text("quant_method")?.unwrap_or("unnamed").to_string();
    let (dtype, scales) = match method.as_str() {
        "fp8" => (Some(Dtype::Fp8), fp8_blocks(&f)),
        "gptq" | "awq" => grouped(&f)?,
        _ => (None, None),
    };
    Ok(Quantization {
        method,
        dtype,
        scales,
    })
}

/// DeepSeek-V3's fp8 checkpoints: one float32 scale (`weight_scale_inv`) per
/// `weight_block_size` block (`[128, 128]`); without blocks, one per tensor (not counted).
fn fp8_blocks(f: &Fields) -> Option<Scales> {
    let block = f.get("weight_block_size")?.as_array()?;
    let [rows, cols] = block.as_slice() else {
        return None;
    };
    let weights = rows.as_u64()?.checked_mul(cols.as_u64()?)?;
    (weights > 0).then_some(Scales {
        weights_per_scale: weights,
        bits_per_scale: 32,
        source: "the config's weight_block_size, one float32 scale per block",
    })
}

/// GPTQ and AWQ: `bits` (4 or 8) and `group_size` (-1: one group per column).
fn grouped(f: &Fields) -> Result<(Option<Dtype>, Option<Scales>)> {
    let bits = match f
        .get("bits")
        .or_else(|| f.get("w_bit"))
        .and_then(Value::as_u64)
    {
        Some(4) => Dtype::Int4,
        Some(8) => Dtype::Int8,
        _ => return Ok((None, None)),
    };
    let group = match f.get("group_size").or_else(|| f.get("q_group_size")) {
        None => Some(DEFAULT_GROUP_SIZE),
        Some(v) if v.as_i64() == Some(-1) => None,
        Some(v) => Some(v.as_u64().filter(|g| *g > 0).ok_or_else(|| {
            f.error(
                "group_size",
                crate::error::ErrorKind::OutOfRange,
                format!("must be a whole number above 0, or -1, got {v}"),
            )
        })?),
    };
    let scales = group.map(|g| Scales {
        weights_per_scale: g,
        bits_per_scale: 16 + bits.bits(),
        source: "the config's group_size, a 16-bit scale and a zero point per group",
    });
    Ok((Some(bits), scales))
}
