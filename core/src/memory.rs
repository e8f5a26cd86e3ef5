//! `Memory`: an exact amount of GPU memory in bytes, read from `12GiB`, `12288MiB`, `40GB` or `22649242112B`.

use crate::error::{Error, ErrorKind, Result};
use std::fmt;

/// One mebibyte, the unit nvidia-smi prints memory in.
pub const MIB: u64 = 1 << 20;
/// One gibibyte.
pub const GIB: u64 = 1 << 30;

/// The most memory one ask may name: 64 TiB, far beyond any GPU, small enough that sums of a
/// whole pack's asks stay exact in `u64`.
pub const MAX_MEMORY: u64 = 64 << 40;

/// An amount of memory in whole bytes, greater than zero and at most [`MAX_MEMORY`]. Decimal
/// input finer than a byte rounds up, so an ask never promises less than it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Memory(u64);

/// Units the reader accepts, binary and SI, case-insensitive; a bare number is bytes.
const UNITS: &[(&str, u64)] = &[
    ("kib", 1 << 10),
    ("mib", MIB),
    ("gib", GIB),
    ("tib", 1 << 40),
    ("kb", 1_000),
    ("mb", 1_000_000),
    ("gb", 1_000_000_000),
    ("tb", 1_000_000_000_000),
    ("ki", 1 << 10),
    ("mi", MIB),
    ("gi", GIB),
    ("ti", 1 << 40),
    ("b", 1),
];

impl Memory {
    /// `bytes` of memory.
    ///
    /// # Errors
    /// `OutOfRange` for 0 or more than [`MAX_MEMORY`].
    pub fn from_bytes(bytes: u64) -> Result<Memory> {
        if bytes == 0 {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                "memory must be more than 0 bytes",
            ));
        }
        if bytes > MAX_MEMORY {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("{bytes} bytes is more than the 64 TiB one ask may name"),
            ));
        }
        Ok(Memory(bytes))
    }

    /// `mib` mebibytes.
    ///
    /// # Errors
    /// As [`Memory::from_bytes`].
    pub fn from_mib(mib: u64) -> Result<Memory> {
        Memory::from_bytes(mib.saturating_mul(MIB))
    }

    /// Reads `12GiB`, `12288MiB`, `40GB` (SI), `1.5GiB`, `22649242112B` or `22649242112`
    /// (bytes); spaces between number and unit are allowed.
    ///
    /// # Errors
    /// `Syntax` for another form, `OutOfRange` for 0 or more than [`MAX_MEMORY`].
    pub fn parse(text: &str) -> Result<Memory> {
        let t = text.trim();
        let bad = || {
            Error::new(
                ErrorKind::Syntax,
                format!("expected memory such as 12GiB, 12288MiB, 40GB or 22649242112B, got {t:?}"),
            )
        };
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (number, unit) = (&t[..split], t[split..].trim().to_ascii_lowercase());
        let scale = if unit.is_empty() {
            1
        } else {
            UNITS
                .iter()
                .find(|(u, _)| *u == unit)
                .map(|&(_, s)| s)
                .ok_or_else(bad)?
        };
        let (int, frac) = number.split_once('.').unwrap_or((number, ""));
        let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() && frac.is_empty() || !digits_only(int) || !digits_only(frac) {
            return Err(bad());
        }
        let too_large = || {
            Error::new(
                ErrorKind::OutOfRange,
                format!("{t:?} is more than the 64 TiB one ask may name"),
            )
        };
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        if int.len() > 15 || frac.len() > 18 {
            return Err(too_large());
        }
        let value = |s: &str| s.bytes().fold(0u128, |a, b| a * 10 + u128::from(b - b'0'));
        let den = 10u128.pow(frac.len() as u32);
        // 15 integer and 18 fractional digits times a TiB pass u128: such input is too large.
        let num = value(int)
            .checked_mul(den)
            .and_then(|n| n.checked_add(value(frac)))
            .and_then(|n| n.checked_mul(u128::from(scale)))
            .ok_or_else(too_large)?;
        let bytes = num.div_ceil(den);
        if bytes > u128::from(MAX_MEMORY) {
            return Err(too_large());
        }
        Memory::from_bytes(bytes as u64)
    }

    pub const fn bytes(self) -> u64 {
        self.0
    }

    /// Whole MiB, rounded up (what nvidia-smi and the MPS pinned-memory limit count in).
    pub const fn mib_ceil(self) -> u64 {
        self.0.div_ceil(MIB)
    }

    /// The text [`Memory::parse`] reads back exactly: in the unit, binary or SI, that divides it
    /// with the smallest number (`12GiB`, `40GB`, `12800MiB`; binary on a tie), else bytes
    /// (`22649242112B`).
    pub fn to_exact_text(self) -> String {
        const EXACT: [(&str, u64); 8] = [
            ("TiB", 1 << 40),
            ("GiB", GIB),
            ("MiB", MIB),
            ("KiB", 1 << 10),
            ("TB", 1_000_000_000_000),
            ("GB", 1_000_000_000),
            ("MB", 1_000_000),
            ("kB", 1_000),
        ];
        EXACT
            .iter()
            .filter(|(_, scale)| self.0.is_multiple_of(*scale))
            .min_by_key(|(_, scale)| self.0 / scale)
            .map_or_else(
                || format!("{}B", self.0),
                |(unit, scale)| format!("{}{unit}", self.0 / scale),
            )
    }
}

/// The CUDA context overhead as a cluster names it: memory with its unit, or `0` for none; in
/// whole MiB, rounded up.
///
/// # Errors
/// As [`Memory::parse`].
pub fn parse_overhead_mib(text: &str) -> Result<u64> {
    match text.trim() {
        "0" => Ok(0),
        t => Memory::parse(t).map(Memory::mib_ceil),
    }
}

/// The overhead's text [`parse_overhead_mib`] reads back (`500MiB`, `0`).
pub fn overhead_text(mib: u64) -> String {
    match mib {
        0 => "0".into(),
        n => Memory(n * MIB).to_exact_text(),
    }
}

/// MiB as people read them: `12 GiB`, `10.5 GiB`, `9.75 GiB`, `500 MiB` (two decimals at most, a
/// display rounding only).
pub fn mib_text(mib: u64) -> String {
    if mib < 1024 {
        return format!("{mib} MiB");
    }
    let hundredths = (u128::from(mib) * 100 + 512) / 1024;
    let (whole, rest) = (hundredths / 100, hundredths % 100);
    match rest {
        0 => format!("{whole} GiB"),
        r if r % 10 == 0 => format!("{whole}.{} GiB", r / 10),
        r => format!("{whole}.{r:02} GiB"),
    }
}

impl fmt::Display for Memory {
    /// Exact where a binary unit divides it (`12 GiB`), else to two decimals of a GiB.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_multiple_of(MIB) {
            f.pad(&mib_text(self.0 / MIB))
        } else if self.0 < MIB {
            f.pad(&format!("{} B", self.0))
        } else {
            f.pad(&format!(
                "{} (≈ {})",
                self.to_exact_text(),
                mib_text(self.mib_ceil())
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `scenario` fuzz target: many digits on both sides of the point overflowed.
    #[test]
    fn many_digits_are_too_large_not_an_overflow() {
        let e = Memory::parse("550145635555635.55555501456360351gb").unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        assert!(Memory::parse("999999999999999.999999999999999999TiB").is_err());
    }

    #[test]
    fn reads_the_issue_forms_exactly() {
        let b = |t: &str| Memory::parse(t).unwrap().bytes();
        assert_eq!(b("12GiB"), 12 * GIB);
        assert_eq!(b("12288MiB"), 12 * GIB);
        assert_eq!(b("40GB"), 40_000_000_000);
        assert_eq!(b("22649242112B"), 22_649_242_112);
        assert_eq!(b("22649242112"), 22_649_242_112);
        assert_eq!(b(" 1.5 gib "), 3 * GIB / 2);
        assert_eq!(b("0.1B"), 1, "finer than a byte rounds up");
        assert_eq!(b("9.75GiB"), 9984 * MIB);
    }

    #[test]
    fn refuses_what_is_not_memory() {
        for t in [
            "", "GiB", "12XB", "-1GiB", "1.2.3GB", "0GiB", "0", "65TiB", "1e9",
        ] {
            assert!(Memory::parse(t).is_err(), "{t:?}");
        }
        assert_eq!(
            Memory::parse("12 parsecs").unwrap_err().kind,
            ErrorKind::Syntax
        );
        assert_eq!(
            Memory::parse("0MiB").unwrap_err().kind,
            ErrorKind::OutOfRange
        );
        assert_eq!(
            Memory::parse("99999999999999999999999GB").unwrap_err().kind,
            ErrorKind::OutOfRange
        );
    }

    #[test]
    fn exact_text_reads_back() {
        for bytes in [
            1,
            1023,
            1024,
            MIB,
            12 * GIB,
            22_649_242_112,
            40_000_000_000,
            MAX_MEMORY,
        ] {
            let m = Memory::from_bytes(bytes).unwrap();
            assert_eq!(Memory::parse(&m.to_exact_text()).unwrap(), m);
        }
        assert_eq!(
            Memory::from_bytes(22_649_242_112).unwrap().to_exact_text(),
            "22649242112B"
        );
        assert_eq!(Memory::parse("40GB").unwrap().to_exact_text(), "40GB");
        assert_eq!(Memory::parse("12GiB").unwrap().to_exact_text(), "12GiB");
        assert_eq!(Memory::parse("1.5GiB").unwrap().to_exact_text(), "1536MiB");
        assert_eq!(
            Memory::from_bytes(22_649_242_112).unwrap().mib_ceil(),
            21601
        );
    }

    #[test]
    fn shows_mib_as_people_read_them() {
        assert_eq!(mib_text(12288), "12 GiB");
        assert_eq!(mib_text(10752), "10.5 GiB");
        assert_eq!(mib_text(9984), "9.75 GiB");
        assert_eq!(mib_text(500), "500 MiB");
        assert_eq!(Memory::parse("12GiB").unwrap().to_string(), "12 GiB");
    }
}
