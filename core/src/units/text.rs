//! A share as text: the short decimal `Display` writes, fixed places, and the exact text a link
//! or spec reads back to the same unit.

use super::{gcd, Share, UNITS_PER_GPU};
use std::fmt;

impl Share {
    /// Text that [`Share::parse`] reads back as exactly this share: the decimal [`Display`](fmt::Display)
    /// shows when it is exact (five places or fewer), else the reduced ratio (`1/3`) when both
    /// its terms have at most seven digits, else the decimal cut (not rounded) to ten places,
    /// which reads back to the same unit because [`Share::parse`] rounds up and a unit is more
    /// than 10⁻¹⁰ of a GPU. Links and specs never lose or round a share away.
    pub fn to_exact_text(self) -> String {
        if self.0.is_multiple_of(UNITS_PER_GPU / 100_000) {
            return self.to_string();
        }
        let a = gcd(self.0, UNITS_PER_GPU);
        let (num, den) = (self.0 / a, UNITS_PER_GPU / a);
        if num < 10_000_000 && den < 10_000_000 {
            return format!("{num}/{den}");
        }
        const PLACES: u32 = 10;
        let scaled = u128::from(self.0) * 10u128.pow(PLACES) / u128::from(UNITS_PER_GPU);
        let (int, frac) = (scaled / 10u128.pow(PLACES), scaled % 10u128.pow(PLACES));
        let text = format!("{int}.{frac:010}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }

    /// Decimal text with exactly `places` digits after the point, rounded half up: `0.29`.
    pub fn to_fixed(self, places: u32) -> String {
        let scale = 10u128.pow(places);
        let scaled = (u128::from(self.0) * scale * 2 + u128::from(UNITS_PER_GPU))
            / (2 * u128::from(UNITS_PER_GPU));
        let (int, frac) = (scaled / scale, scaled % scale);
        if places == 0 {
            int.to_string()
        } else {
            format!("{int}.{frac:0width$}", width = places as usize)
        }
    }

    /// Whole GPUs and the fraction's digits, rounded half up to `places` (Display's four or five)
    /// decimal places, in `u64`: the fraction's remainder times 2·10⁵ stays below 1.5·10¹⁵.
    fn rounded(self, places: u32) -> (u64, u64) {
        debug_assert!(places <= 5, "rounded is for Display's four or five places");
        let scale = 10u64.pow(places.min(5));
        let (whole, rest) = (self.0 / UNITS_PER_GPU, self.0 % UNITS_PER_GPU);
        let frac = (rest * scale * 2 + UNITS_PER_GPU) / (2 * UNITS_PER_GPU);
        if frac == scale {
            (whole + 1, 0)
        } else {
            (whole, frac)
        }
    }
}

/// Shortest exact decimal when one with at most five places exists (`0.25`, `1`), else four places
/// rounded (`0.3333`). `{:.N}` forces `N` places.
impl fmt::Display for Share {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(places) = f.precision() {
            // `pad` would read the precision as a maximum width; only width and alignment apply here.
            return pad(f, &self.to_fixed(places as u32));
        }
        let exact = self.0.is_multiple_of(UNITS_PER_GPU / 100_000);
        let mut places = if exact { 5 } else { 4 };
        let (whole, mut frac) = self.rounded(places);
        while places > 0 && frac % 10 == 0 {
            frac /= 10;
            places -= 1;
        }
        // Written right to left into a buffer on the stack: every plan writes a share into each
        // ask's note, and the formatting machinery of `to_fixed` was half of the page's plan of a
        // thousand time-sliced asks (a Chromium profile, 4× CPU throttle).
        let mut text = [b'0'; 32];
        let mut at = text.len();
        for _ in 0..places {
            at -= 1;
            text[at] = b'0' + (frac % 10) as u8;
            frac /= 10;
        }
        if places > 0 {
            at -= 1;
            text[at] = b'.';
        }
        let mut whole = whole;
        loop {
            at -= 1;
            text[at] = b'0' + (whole % 10) as u8;
            whole /= 10;
            if whole == 0 {
                break;
            }
        }
        pad(f, std::str::from_utf8(&text[at..]).map_err(|_| fmt::Error)?)
    }
}

fn pad(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    let width = f.width().unwrap_or(0);
    if width <= text.len() {
        return f.write_str(text);
    }
    match f.align() {
        Some(fmt::Alignment::Left) => write!(f, "{text:<width$}"),
        Some(fmt::Alignment::Center) => write!(f, "{text:^width$}"),
        Some(fmt::Alignment::Right) | None => write!(f, "{text:>width$}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(s: &str) -> Share {
        Share::parse(s).unwrap()
    }

    #[test]
    fn displays_short_and_fixed() {
        assert_eq!(p("0.25").to_string(), "0.25");
        assert_eq!(p("1").to_string(), "1");
        assert_eq!(p("1/3").to_string(), "0.3333");
        assert_eq!(format!("{:.2}", p("2/7")), "0.29");
        assert_eq!(format!("{:.2}", Share::ONE), "1.00");
        assert_eq!(p("0.75").percent_of(Share::ONE), 75);
        assert_eq!(p("1/28").percent_of(Share::ONE), 4);
    }

    /// The text `Display` wrote before it was written by hand: `to_fixed` with five places
    /// (exact shares) or four, trailing zeros and a bare point trimmed.
    fn display_reference(s: Share) -> String {
        let exact = s.units().is_multiple_of(UNITS_PER_GPU / 100_000);
        let text = s.to_fixed(if exact { 5 } else { 4 });
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }

    proptest! {
        #[test]
        fn display_matches_its_reference(units in prop_oneof![
            0u64..3 * UNITS_PER_GPU,
            any::<u64>(),
            (0u64..1_000_000).prop_map(|k| k * (UNITS_PER_GPU / 100_000)),
            (0u64..1_000).prop_map(|k| (k + 1) * UNITS_PER_GPU - 1),
        ], width in 0usize..24) {
            let s = Share::from_units(units);
            let text = display_reference(s);
            prop_assert_eq!(s.to_string(), text.clone());
            prop_assert_eq!(format!("{s:>width$}"), format!("{text:>width$}"));
            prop_assert_eq!(format!("{s:<width$}"), format!("{text:<width$}"));
        }
    }
}
