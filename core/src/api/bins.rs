//! Plain one-dimensional bin packing: whole-number sizes into bins of one capacity, first fit,
//! largest first — the packer's own first-fit tree without mechanisms, MIG or memory. The bench
//! times the npm package against native code on it (BENCHMARKS.md, FFD speed).

use crate::error::{Error, ErrorKind, Result};
use crate::pack::{bins_used, first_fit_decreasing, MAX_ASKS};

/// The bins first-fit-decreasing fills with `sizes`, each in `1..=capacity`.
///
/// # Errors
/// `OutOfRange` for a capacity of 0 or a size outside `1..=capacity` (field `sizes[i]`);
/// `TooLarge` for more than [`MAX_ASKS`] sizes.
pub fn first_fit_decreasing_bins(sizes: &[u64], capacity: u64) -> Result<u64> {
    if sizes.len() > MAX_ASKS {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "{} sizes is more than the {MAX_ASKS} one pack accepts",
                sizes.len()
            ),
        )
        .in_field("sizes"));
    }
    if capacity == 0 {
        return Err(Error::new(ErrorKind::OutOfRange, "must be at least 1").in_field("capacity"));
    }
    if let Some(i) = sizes.iter().position(|&s| s == 0 || s > capacity) {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            format!("{} is not between 1 and the capacity, {capacity}", sizes[i]),
        )
        .in_field(format!("sizes[{i}]")));
    }
    Ok(bins_used(&first_fit_decreasing(sizes, capacity)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_fill_bins_largest_first() {
        assert_eq!(first_fit_decreasing_bins(&[5, 5, 4, 3, 3], 10), Ok(2));
        assert_eq!(first_fit_decreasing_bins(&[], 10), Ok(0));
        let e = first_fit_decreasing_bins(&[3, 11], 10).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("sizes[1]"));
        assert!(first_fit_decreasing_bins(&[1], 0).is_err());
    }
}
