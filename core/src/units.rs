//! Exact fixed-point GPU shares: one GPU is 7,207,200,000 units, so decimals to five places,
//! percentages and the ratios 1/2 … 1/16 (MIG's 1/7 and 1/8 among them) are all exact.

use crate::error::{Error, ErrorKind, Result};
use std::borrow::Cow;

mod text;

/// Units in one GPU: 10⁵ × 72,072 = 10⁴ × 720,720, and 720,720 = lcm(1, …, 16).
pub const UNITS_PER_GPU: u64 = 7_207_200_000;

/// The largest share the planner accepts, in whole GPUs. Far beyond any cluster, far below `u64` overflow.
pub const MAX_GPUS: u64 = 1_000_000;

/// Decimal digits after the point that are read exactly; later digits only decide rounding up.
const MAX_FRACTION_DIGITS: usize = 20;

/// A share of one GPU (or of several: `Share::whole(3)`), held as an exact integer count of units.
///
/// Everything the planner adds, compares or subtracts is a `Share`; floats appear only when a front
/// end displays a value or takes a JavaScript number. Input finer than one unit rounds *up*, so a
/// plan never promises less than was asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Share(u64);

impl Share {
    pub const ZERO: Share = Share(0);
    pub const ONE: Share = Share(UNITS_PER_GPU);

    /// The share of exactly `units` units.
    pub const fn from_units(units: u64) -> Share {
        Share(units)
    }

    /// The raw unit count.
    pub const fn units(self) -> u64 {
        self.0
    }

    /// `n` whole GPUs.
    ///
    /// # Errors
    /// `OutOfRange` when `n` exceeds [`MAX_GPUS`].
    pub fn whole(n: u64) -> Result<Share> {
        if n > MAX_GPUS {
            return Err(too_large(&n.to_string()));
        }
        Ok(Share(n * UNITS_PER_GPU))
    }

    /// `numerator / denominator` of a GPU, rounded up to the unit.
    ///
    /// # Errors
    /// `OutOfRange` on a zero denominator or a result above [`MAX_GPUS`].
    pub fn ratio(numerator: u64, denominator: u64) -> Result<Share> {
        if denominator == 0 {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                "ratio has a zero denominator",
            ));
        }
        let units = div_ceil(
            u128::from(numerator) * u128::from(UNITS_PER_GPU),
            denominator.into(),
        );
        from_u128(units, || format!("{numerator}/{denominator}"))
    }

    /// Reads `0.25`, `25%`, `1/3` or `2` (surrounding spaces allowed); any of their numbers may
    /// carry an exponent (`9e-05`, `2.5E-1`), as Python, pandas and spreadsheets write small
    /// numbers. Digits finer than a unit round up.
    ///
    /// # Errors
    /// `Syntax` when the text is not one of those forms; `OutOfRange` when it exceeds [`MAX_GPUS`].
    pub fn parse(text: &str) -> Result<Share> {
        let t = text.trim();
        if t.is_empty() {
            return Err(Error::new(
                ErrorKind::Syntax,
                "expected a fraction such as 0.25, 25% or 1/4, got nothing",
            ));
        }
        if let Some(percent) = t.strip_suffix('%') {
            let percent = without_exponent(percent.trim_end(), text)?;
            let d = Decimal::parse(&percent, text)?;
            return from_u128(d.scaled_ceil(100), || text.to_string());
        }
        if let Some((num, den)) = t.split_once('/') {
            let (num, den) = (
                without_exponent(num.trim(), text)?,
                without_exponent(den.trim(), text)?,
            );
            let n = Decimal::parse(&num, text)?;
            let d = Decimal::parse(&den, text)?;
            if d.digits == 0 {
                return Err(Error::new(
                    ErrorKind::OutOfRange,
                    format!("{text:?} divides by zero"),
                ));
            }
            // (n.digits / 10^n.scale) / (d.digits / 10^d.scale) of a GPU, rounded up. Digits cut
            // from the denominator only make the result larger, which is the rounding we want.
            let num = n
                .digits
                .checked_mul(pow10(d.scale))
                .and_then(|v| v.checked_mul(u128::from(UNITS_PER_GPU)));
            let den = d.digits.checked_mul(pow10(n.scale));
            let (Some(num), Some(den)) = (num, den) else {
                return Err(too_large(text));
            };
            return from_u128(div_ceil(num, den) + u128::from(n.sticky), || {
                text.to_string()
            });
        }
        let t = without_exponent(t, text)?;
        let d = Decimal::parse(&t, text)?;
        from_u128(d.scaled_ceil(1), || text.to_string())
    }

    /// Takes a float from an edge (a JavaScript number, a JSON value). A float that is the nearest
    /// `f64` to a unit boundary is that boundary, so `1/3` computed in JavaScript is exactly a
    /// third; any other float rounds up to the next unit.
    ///
    /// # Errors
    /// `OutOfRange` for NaN, infinities, negatives and values above [`MAX_GPUS`].
    pub fn from_f64(value: f64) -> Result<Share> {
        if !value.is_finite() {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("expected a finite number, got {value}"),
            ));
        }
        if value < 0.0 {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("must not be negative, got {value}"),
            ));
        }
        if value > MAX_GPUS as f64 {
            return Err(too_large(&value.to_string()));
        }
        let scaled = value * UNITS_PER_GPU as f64;
        for candidate in [scaled.floor(), scaled.ceil()] {
            let units = candidate as u64;
            if units as f64 / UNITS_PER_GPU as f64 == value {
                return Ok(Share(units));
            }
        }
        // Not a float image of any unit boundary: read its shortest decimal exactly, rounding up.
        let mut digits = ShortDecimal::default();
        match std::fmt::Write::write_fmt(&mut digits, format_args!("{value}")) {
            Ok(()) => Share::parse(digits.as_str()),
            Err(_) => Share::parse(&value.to_string()),
        }
    }

    /// The nearest `f64`, for display and JavaScript.
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / UNITS_PER_GPU as f64
    }

    /// Whole GPUs needed to hold this share (⌈share⌉).
    pub fn ceil_gpus(self) -> u64 {
        self.0.div_ceil(UNITS_PER_GPU)
    }

    pub fn is_zero(self) -> bool {
        self.0 == 0
    }

    pub fn is_whole(self) -> bool {
        self.0.is_multiple_of(UNITS_PER_GPU)
    }

    pub fn checked_add(self, other: Share) -> Option<Share> {
        self.0.checked_add(other.0).map(Share)
    }

    pub fn saturating_sub(self, other: Share) -> Share {
        Share(self.0.saturating_sub(other.0))
    }

    /// This share as a percentage of `of`, rounded to the nearest whole percent.
    pub fn percent_of(self, of: Share) -> u64 {
        if of.0 == 0 {
            return 0;
        }
        ((u128::from(self.0) * 200 + u128::from(of.0)) / (2 * u128::from(of.0))) as u64
    }
}

impl std::str::FromStr for Share {
    type Err = Error;
    fn from_str(s: &str) -> Result<Share> {
        Share::parse(s)
    }
}

impl std::iter::Sum for Share {
    /// Saturates instead of overflowing; callers bound their inputs far below `u64::MAX`.
    fn sum<I: Iterator<Item = Share>>(iter: I) -> Share {
        Share(iter.fold(0u64, |acc, s| acc.saturating_add(s.0)))
    }
}

/// `t` with its exponent, if it has one, written out as plain digits (`9e-05` → `0.00009`), so
/// that [`Decimal`] reads it exactly. The exponent has at most four digits: the longest text this
/// writes is about ten thousand characters, and anything that far out is far beyond [`MAX_GPUS`]
/// or far below a unit either way.
fn without_exponent<'t>(t: &'t str, whole_input: &str) -> Result<Cow<'t, str>> {
    let Some((mantissa, exponent)) = t.split_once(['e', 'E']) else {
        return Ok(Cow::Borrowed(t));
    };
    let bad = || not_a_fraction(whole_input);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let unsigned = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    if (int.is_empty() && frac.is_empty())
        || !digits_only(int)
        || !digits_only(frac)
        || !(1..=4).contains(&unsigned.len())
        || !digits_only(unsigned)
    {
        return Err(bad());
    }
    let shift: i64 = exponent.parse().map_err(|_| bad())?;
    let digits = format!("{int}{frac}");
    // Where the point goes in `digits`: after the integer part, moved by the exponent.
    let point = int.len() as i64 + shift;
    Ok(Cow::Owned(if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (whole, part) = digits.split_at(point as usize);
        format!("{whole}.{part}")
    }))
}

fn not_a_fraction(whole_input: &str) -> Error {
    Error::new(
        ErrorKind::Syntax,
        format!("expected a fraction such as 0.25, 25% or 1/4, got {whole_input:?}"),
    )
}

/// A non-negative decimal: `digits / 10^scale` from the first [`MAX_FRACTION_DIGITS`] digits after
/// the point; `rest` holds any digits cut beyond those, so rounding can still see them.
struct Decimal<'a> {
    digits: u128,
    scale: u32,
    int: &'a str,
    frac: &'a str,
    sticky: bool,
}

impl<'a> Decimal<'a> {
    fn parse(t: &'a str, whole_input: &str) -> Result<Decimal<'a>> {
        let bad = || not_a_fraction(whole_input);
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        if int.is_empty() && frac.is_empty() {
            return Err(bad());
        }
        if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let int = int.trim_start_matches('0');
        if int.len() > 7 {
            return Err(too_large(whole_input));
        }
        let mut digits: u128 = int
            .bytes()
            .fold(0, |acc, b| acc * 10 + u128::from(b - b'0'));
        let kept = &frac[..frac.len().min(MAX_FRACTION_DIGITS)];
        for b in kept.bytes() {
            digits = digits * 10 + u128::from(b - b'0');
        }
        Ok(Decimal {
            digits,
            scale: kept.len() as u32,
            int,
            frac,
            sticky: frac[kept.len()..].bytes().any(|b| b != b'0'),
        })
    }

    /// Units of `self / divisor` GPUs, rounded up — exactly, however many digits were given.
    fn scaled_ceil(&self, divisor: u128) -> u128 {
        let units = u128::from(UNITS_PER_GPU);
        let ceil = div_ceil(self.digits * units, pow10(self.scale) * divisor);
        // The kept digits round up to `ceil`; the cut digits can only push the value past it.
        if self.sticky && self.exceeds(ceil * divisor, units) {
            ceil + 1
        } else {
            ceil
        }
    }

    /// Whether the full decimal is greater than `num / den`, by comparing digit by digit with the
    /// long division of `num / den`.
    fn exceeds(&self, num: u128, den: u128) -> bool {
        let int: u128 = self
            .int
            .bytes()
            .fold(0, |acc, b| acc * 10 + u128::from(b - b'0'));
        let (whole, mut rem) = (num / den, num % den);
        if int != whole {
            return int > whole;
        }
        for b in self.frac.bytes() {
            rem *= 10;
            let digit = (rem / den) as u8;
            rem %= den;
            if b - b'0' != digit {
                return b - b'0' > digit;
            }
        }
        false
    }
}

fn pow10(n: u32) -> u128 {
    10u128.pow(n)
}

fn div_ceil(a: u128, b: u128) -> u128 {
    a.div_ceil(b)
}

fn from_u128(units: u128, input: impl FnOnce() -> String) -> Result<Share> {
    if units > u128::from(MAX_GPUS * UNITS_PER_GPU) {
        return Err(too_large(&input()));
    }
    Ok(Share(units as u64))
}

fn too_large(input: &str) -> Error {
    Error::new(
        ErrorKind::OutOfRange,
        format!("{input:?} is more than the {MAX_GPUS} GPUs the planner accepts"),
    )
}

/// The greatest common divisor (`gcd(a, 0) = a`).
pub(crate) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A float's decimal written on the stack: [`Share::from_f64`] reads one for each ask whose float
/// is not a unit boundary (a fraction such as 0.123457), and a string on the heap for each was
/// an allocation per ask. A longer decimal than fits (a tiny float's `0.000…`) is refused, and
/// the caller writes it to the heap.
struct ShortDecimal {
    bytes: [u8; 40],
    len: usize,
}

impl Default for ShortDecimal {
    fn default() -> Self {
        ShortDecimal {
            bytes: [0; 40],
            len: 0,
        }
    }
}

impl ShortDecimal {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl std::fmt::Write for ShortDecimal {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let room = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        room.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    use super::Share;
    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

    /// Serialised as a JSON number of GPUs (the nearest float); read back from a number (snapped
    /// to the unit it images) or from a string in the text grammar (`"1/3"`, `"25%"`), exactly.
    impl Serialize for Share {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_f64(self.to_f64())
        }
    }

    impl Share {
        /// Reads a JSON number (see [`Share::from_f64`]) or text in the grammar (`"1/3"`).
        ///
        /// # Errors
        /// As the two readers, or `Syntax` for any other JSON value.
        pub fn from_json(value: &serde_json::Value) -> crate::error::Result<Share> {
            match value {
                serde_json::Value::Number(n) => Share::from_f64(n.as_f64().unwrap_or(f64::NAN)),
                serde_json::Value::String(t) => Share::parse(t),
                other => Err(crate::error::Error::new(
                    crate::error::ErrorKind::Syntax,
                    format!("expected a number or text such as \"1/3\", got {other}"),
                )),
            }
        }
    }

    impl<'de> Deserialize<'de> for Share {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Share, D::Error> {
            #[derive(Deserialize)]
            #[serde(untagged)]
            enum Repr {
                Number(f64),
                Text(String),
            }
            match Repr::deserialize(d)? {
                Repr::Number(n) => Share::from_f64(n),
                Repr::Text(t) => Share::parse(&t),
            }
            .map_err(de::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    fn p(s: &str) -> Share {
        Share::parse(s).unwrap()
    }

    #[test]
    fn unit_is_fine_enough_for_every_simple_ratio() {
        for den in 1..=16 {
            assert_eq!(UNITS_PER_GPU % den, 0, "1/{den} must be exact");
        }
        assert_eq!(
            UNITS_PER_GPU % 100_000,
            0,
            "five decimal places must be exact"
        );
    }

    #[test]
    fn decimals_sum_exactly_where_floats_do_not() {
        let floats: f64 = [0.55, 0.34, 0.11].iter().sum();
        assert!(floats > 1.0, "the float sum overshoots");
        let sum: Share = ["0.55", "0.34", "0.11"].iter().map(|s| p(s)).sum();
        assert_eq!(sum, Share::ONE);
    }

    #[test]
    fn three_thirds_make_one() {
        let third = p("1/3");
        assert_eq!(third.units() * 3, UNITS_PER_GPU);
        assert_eq!(Share::from_f64(1.0 / 3.0).unwrap(), third);
    }

    #[test]
    fn forms_agree() {
        assert_eq!(p("0.25"), p("25%"));
        assert_eq!(p("1/4"), p(" .25 "));
        assert_eq!(p("2"), Share::whole(2).unwrap());
        assert_eq!(p("1/7"), Share::ratio(1, 7).unwrap());
        assert_eq!(p("12.5%"), p("1/8"));
        assert_eq!(p("0.5/2"), p("0.25"));
    }

    #[test]
    fn numbers_with_an_exponent_read_as_their_plain_digits() {
        assert_eq!(p("9e-05"), p("0.00009"));
        assert_eq!(p("2.5E-1"), p("0.25"));
        assert_eq!(p("1e0"), p("1"));
        assert_eq!(p("1.5e+1"), p("15"));
        assert_eq!(p(".5e1"), p("5"));
        assert_eq!(p("5e1%"), p("50%"));
        assert_eq!(p("1e-3/1e-2"), p("0.1"));
        assert_eq!(p("0e9999"), Share::ZERO);
        // Finer than a unit rounds up, however far.
        assert_eq!(p("1e-9999").units(), 1);
        assert_eq!(p("1e-20"), p("0.00000000000000000001"));
        for bad in [
            "1e", "e5", "1e+", "1e5.5", "-1e-3", "1e99999", "1ee2", "1e-", ".e1", "1e 2",
        ] {
            assert_eq!(
                Share::parse(bad).unwrap_err().kind,
                ErrorKind::Syntax,
                "{bad}"
            );
        }
        assert_eq!(Share::parse("1e7").unwrap_err().kind, ErrorKind::OutOfRange);
    }

    #[test]
    fn finer_than_a_unit_rounds_up() {
        let tiny = p("0.00000000000000000001");
        assert_eq!(tiny.units(), 1);
        let just_above_third = p("0.33333333333333333333334");
        assert!(just_above_third > p("1/3"));
    }

    #[test]
    fn floats_snap_to_the_unit_they_image() {
        assert_eq!(Share::from_f64(0.1).unwrap(), p("0.1"));
        assert_eq!(Share::from_f64(2.0 / 7.0).unwrap(), p("2/7"));
        assert_eq!(
            Share::from_f64(0.55 + 0.34 + 0.11).unwrap().units(),
            UNITS_PER_GPU + 1
        );
    }

    proptest::proptest! {
        /// The decimal written on the stack reads as the heap's `to_string` does, for floats of
        /// every magnitude: the long decimals of tiny ones take the heap's way.
        #[test]
        fn a_float_reads_as_its_decimal(value in proptest::prop_oneof![
            (0u64..0x412E_8480_0000_0000).prop_map(f64::from_bits),
            (1u64..1_000_000_000_000_000).prop_map(|k| k as f64 / 1e12),
        ]) {
            let expected = if value > MAX_GPUS as f64 {
                Share::from_f64(value).map_err(|e| e.kind)
            } else {
                let scaled = value * UNITS_PER_GPU as f64;
                let boundary = [scaled.floor(), scaled.ceil()]
                    .into_iter()
                    .find(|&c| c as u64 as f64 / UNITS_PER_GPU as f64 == value);
                match boundary {
                    Some(c) => Ok(Share(c as u64)),
                    None => Share::parse(&value.to_string()).map_err(|e| e.kind),
                }
            };
            proptest::prop_assert_eq!(Share::from_f64(value).map_err(|e| e.kind), expected);
        }
    }

    #[test]
    fn a_tiny_float_too_long_for_the_stack_still_reads() {
        assert_eq!(Share::from_f64(5e-324).unwrap().units(), 1);
        assert_eq!(Share::from_f64(0.123457).unwrap(), p("0.123457"));
    }

    #[test]
    fn rejects_garbage_and_extremes() {
        for bad in [
            "", "abc", "-1", "1e", "0x10", "1/0", "1..2", ".", "%", "5/", "nan", "١",
        ] {
            assert!(Share::parse(bad).is_err(), "{bad:?} should be rejected");
        }
        assert_eq!(
            Share::parse("99999999").unwrap_err().kind,
            ErrorKind::OutOfRange
        );
        assert!(Share::from_f64(f64::NAN).is_err());
        assert!(Share::from_f64(-0.5).is_err());
        assert!(Share::from_f64(f64::INFINITY).is_err());
        assert!(Share::ratio(u64::MAX, 1).is_err());
    }
}
