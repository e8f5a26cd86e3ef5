//! Numbers as people read them in the explanations: `8,030,261,248`, `14.96 GiB`.

use crate::memory::{mib_text, MIB};

/// A whole number with thousands separators: `8,030,261,248`.
pub fn grouped(n: impl Into<u128>) -> String {
    let digits = n.into().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes with their size in binary units: `16,060,522,496 bytes (14.96 GiB)`.
pub fn bytes_text(bytes: u64) -> String {
    if bytes < MIB {
        return format!("{} bytes", grouped(bytes));
    }
    format!(
        "{} bytes ({})",
        grouped(bytes),
        mib_text(bytes.div_ceil(MIB))
    )
}

/// `1 layer`, `32 layers`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", grouped(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(grouped(0u64), "0");
        assert_eq!(grouped(999u64), "999");
        assert_eq!(grouped(1000u64), "1,000");
        assert_eq!(grouped(8_030_261_248u64), "8,030,261,248");
        assert_eq!(
            bytes_text(16_060_522_496),
            "16,060,522,496 bytes (14.96 GiB)"
        );
        assert_eq!(bytes_text(1023), "1,023 bytes");
        assert_eq!(plural(1, "layer", "layers"), "1 layer");
        assert_eq!(plural(1000, "layer", "layers"), "1,000 layers");
    }
}
