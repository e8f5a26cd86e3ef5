//! `Dtype`: the number formats weights and KV caches are stored in, counted in bits so that half a
//! byte (int4) stays exact.

use crate::error::{Error, ErrorKind, Result};

/// How one stored number is encoded. Its size in bits is exact: int4 is half a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Dtype {
    #[serde(alias = "float32")]
    Fp32,
    #[serde(alias = "bfloat16")]
    Bf16,
    #[serde(alias = "float16")]
    Fp16,
    Fp8,
    Int8,
    Int4,
}

impl Dtype {
    /// Every dtype, widest first.
    pub const ALL: [Dtype; 6] = [
        Dtype::Fp32,
        Dtype::Bf16,
        Dtype::Fp16,
        Dtype::Fp8,
        Dtype::Int8,
        Dtype::Int4,
    ];

    /// The name the reader takes and the response writes (`bf16`).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Fp32 => "fp32",
            Dtype::Bf16 => "bf16",
            Dtype::Fp16 => "fp16",
            Dtype::Fp8 => "fp8",
            Dtype::Int8 => "int8",
            Dtype::Int4 => "int4",
        }
    }

    /// Bits per stored number: 32, 16, 8 or 4.
    pub fn bits(self) -> u32 {
        match self {
            Dtype::Fp32 => 32,
            Dtype::Bf16 | Dtype::Fp16 => 16,
            Dtype::Fp8 | Dtype::Int8 => 8,
            Dtype::Int4 => 4,
        }
    }

    /// A float of 16 bits or more: a dtype a model computes in (its activations, its KV cache by
    /// default), rather than a compressed storage format.
    pub fn is_compute(self) -> bool {
        self.bits() >= 16
    }

    /// `2 bytes`, `1 byte`, `half a byte`.
    pub fn bytes_text(self) -> &'static str {
        match self.bits() {
            32 => "4 bytes",
            16 => "2 bytes",
            8 => "1 byte",
            _ => "half a byte",
        }
    }

    /// Reads `fp32`, `bf16`, `fp16`, `fp8`, `int8` or `int4` (case-insensitive), and the
    /// config.json spellings `float32`, `bfloat16`, `float16`.
    ///
    /// # Errors
    /// `Syntax` for another name, listing the valid ones.
    pub fn parse(text: &str) -> Result<Dtype> {
        let t = text.trim().to_ascii_lowercase();
        if let Some(d) = Dtype::from_torch_dtype(&t) {
            return Ok(d);
        }
        Dtype::ALL
            .into_iter()
            .find(|d| d.name() == t)
            .ok_or_else(|| {
                let names: Vec<&str> = Dtype::ALL.iter().map(|d| d.name()).collect();
                Error::new(
                    ErrorKind::Syntax,
                    format!(
                        "unknown dtype {:?}; valid: {}",
                        text.trim(),
                        names.join(", ")
                    ),
                )
            })
    }

    /// The dtype of a config.json `torch_dtype` (or `dtype`): `float32`, `bfloat16`, `float16`.
    pub fn from_torch_dtype(text: &str) -> Option<Dtype> {
        match text {
            "float32" => Some(Dtype::Fp32),
            "bfloat16" => Some(Dtype::Bf16),
            "float16" => Some(Dtype::Fp16),
            _ => None,
        }
    }
}

/// `count` numbers of `dtype` in bytes, rounded up (an odd count of int4 numbers takes a last
/// whole byte).
pub(crate) fn bytes_of(count: u128, dtype: Dtype) -> u128 {
    (count * u128::from(dtype.bits())).div_ceil(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_name_and_the_config_spellings() {
        for d in Dtype::ALL {
            assert_eq!(Dtype::parse(d.name()).unwrap(), d);
        }
        assert_eq!(Dtype::parse(" BFloat16 ").unwrap(), Dtype::Bf16);
        assert_eq!(Dtype::parse("float32").unwrap(), Dtype::Fp32);
        let e = Dtype::parse("fp4").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert!(e.message.contains("bf16, fp16, fp8, int8, int4"), "{e}");
    }

    #[test]
    fn counts_half_bytes_exactly() {
        assert_eq!(bytes_of(3, Dtype::Int4), 2);
        assert_eq!(bytes_of(4, Dtype::Int4), 2);
        assert_eq!(bytes_of(3, Dtype::Bf16), 6);
        assert_eq!(bytes_of(3, Dtype::Fp32), 12);
        assert_eq!(bytes_of(3, Dtype::Fp8), 3);
    }
}
