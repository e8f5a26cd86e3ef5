//! A share of something as a percentage in words, precise enough never to read 0% for a share that
//! is not zero, nor 100% for one that is not all.

use crate::units::Share;

/// `part` of `of` as a percentage: whole percents where they tell the truth (`24%`), else as many
/// decimals as it takes (`0.2%`, `99.6%`). Exact: the rounding is done in integers.
pub(crate) fn percent_text(part: Share, of: Share) -> String {
    let (part, of) = (u128::from(part.units()), u128::from(of.units()));
    if of == 0 || part == 0 {
        return "0%".into();
    }
    let mut scale: u128 = 1;
    for decimals in 0..=12usize {
        // Rounded half up to `decimals` places.
        let value = (part * 100 * scale * 2 + of) / (2 * of);
        let honest = value > 0 && (part >= of || value < 100 * scale);
        if honest {
            let whole = value / scale;
            return match decimals {
                0 => format!("{whole}%"),
                d => format!("{whole}.{:0d$}%", value % scale),
            };
        }
        scale *= 10;
    }
    // A share of a share is a whole number of units, so twelve decimals always tell.
    format!("{}%", part * 100 / of)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(part: &str, of: &str) -> String {
        percent_text(Share::parse(part).unwrap(), Share::parse(of).unwrap())
    }

    /// gpu-share#55 item 8: 78.5 GiB on an H100 80GB rounds 0.9976 up to a whole GPU, 0.0024 of it
    /// wasted — which whole percents print as "0%".
    #[test]
    fn a_waste_that_is_not_zero_never_reads_zero() {
        assert_eq!(text("0.0024", "1"), "0.2%");
        assert_eq!(text("0.004", "1"), "0.4%");
        assert_eq!(text("0.75", "1"), "75%");
        assert_eq!(text("0", "1"), "0%");
        assert_eq!(text("1", "1"), "100%");
        assert_eq!(text("0.996", "1"), "99.6%");
        assert_eq!(text("0.005", "1"), "1%");
        assert_eq!(text("1/7000", "1"), "0.01%");
    }

    /// Against a brute-force reading of the words: non-zero never prints 0, and the printed value
    /// is within half a unit of its last digit of the exact percentage.
    #[test]
    fn the_text_is_the_percentage_rounded() {
        for units in (1..Share::ONE.units()).step_by(7_919_993) {
            let part = Share::from_units(units);
            let t = percent_text(part, Share::ONE);
            let number: f64 = t.trim_end_matches('%').parse().unwrap();
            assert!(number > 0.0, "{t}");
            assert!(number < 100.0, "{t}");
            let exact = units as f64 * 100.0 / Share::ONE.units() as f64;
            let decimals = t.split('.').nth(1).map_or(0, |d| d.len() - 1) as i32;
            assert!(
                (number - exact).abs() <= 0.5 * 10f64.powi(-decimals) + 1e-9,
                "{t} {exact}"
            );
        }
    }
}
