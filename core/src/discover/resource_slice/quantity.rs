//! Kubernetes resource quantities (`80Gi`, `9728Mi`, `14`, `1k`, `1e3`) as exact integers.
//!
//! The grammar is apimachinery's `resource.Quantity` (docs/hardware-facts.md §13): a decimal number,
//! then a binary suffix (`Ki` … `Ei`, powers of 1024), a decimal one (`m`, none, `k`, `M`, `G`, `T`,
//! `P`, `E`) or an exponent (`e3`, `E-2`). ResourceSlices carry device capacities and counters
//! this way; gpu-share keeps only those that are whole, non-negative numbers (bytes, counts),
//! which is every one the NVIDIA driver publishes.

/// The whole number a quantity stands for; `None` when it is not one (negative, fractional,
/// malformed, or larger than `u128`).
pub fn integer(text: &str) -> Option<u128> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let number = number.strip_prefix('+').unwrap_or(number);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    if !whole.bytes().all(|b| b.is_ascii_digit()) || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits: u128 = format!("{whole}{fraction}").parse().ok()?;
    // value = digits × 10^-fraction_len × scale
    let (binary_power, decimal_power) = scale(suffix)?;
    let decimal = decimal_power - fraction.len() as i32;
    let mut value = digits.checked_mul(1024u128.checked_pow(binary_power)?)?;
    if decimal >= 0 {
        value = value.checked_mul(10u128.checked_pow(decimal as u32)?)?;
    } else {
        let divisor = 10u128.checked_pow(decimal.unsigned_abs())?;
        if value % divisor != 0 {
            return None;
        }
        value /= divisor;
    }
    Some(value)
}

/// (power of 1024, power of 10) of a suffix.
fn scale(suffix: &str) -> Option<(u32, i32)> {
    let binary = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    if let Some(p) = binary.iter().position(|s| *s == suffix).filter(|&p| p > 0) {
        return Some((p as u32, 0));
    }
    let decimal = match suffix {
        "m" => -3,
        "" => 0,
        "k" => 3,
        "M" => 6,
        "G" => 9,
        "T" => 12,
        "P" => 15,
        "E" => 18,
        _ => {
            let exponent = suffix.strip_prefix(['e', 'E'])?;
            let exponent: i32 = exponent.parse().ok()?;
            if !(-40..=40).contains(&exponent) {
                return None;
            }
            exponent
        }
    };
    Some((0, decimal))
}

/// `bytes` in MiB, rounded down.
pub fn mib(bytes: u128) -> u64 {
    u64::try_from(bytes / (1024 * 1024)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_the_driver_publishes() {
        assert_eq!(integer("80Gi"), Some(80 << 30));
        assert_eq!(integer("9728Mi"), Some(9728 << 20));
        assert_eq!(integer("14"), Some(14));
        assert_eq!(integer("1"), Some(1));
        assert_eq!(integer("0"), Some(0));
    }

    #[test]
    fn decimal_suffixes_exponents_and_fractions() {
        assert_eq!(integer("1k"), Some(1000));
        assert_eq!(integer("1.5k"), Some(1500));
        assert_eq!(integer("1e3"), Some(1000));
        assert_eq!(integer("2E-1"), None);
        assert_eq!(integer("1500m"), None);
        assert_eq!(integer("2000m"), Some(2));
        assert_eq!(integer("0.5Gi"), Some(512 << 20));
        assert_eq!(integer("+7"), Some(7));
    }

    #[test]
    fn what_is_not_a_whole_quantity() {
        for bad in [
            "", "-1", "1.5", "Gi", "1Xi", "1 Gi", "1e999", ".", "1..2", "abc",
        ] {
            assert_eq!(integer(bad), None, "{bad:?}");
        }
        assert_eq!(integer("99999999999999999999999999999999999999999Ei"), None);
    }
}
