//! Small text helpers of the page: dates, durations and numbers as people read them.

/// Unix seconds as `2026-11-29 22:03 UTC` (proleptic Gregorian calendar, no time zone data needed).
pub fn utc(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// Days since 1970-01-01 to (year, month, day); Howard Hinnant's algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A share of one GPU as a whole percentage, rounded up as the core rounds (`0.6` → `60%`).
pub fn share_percent(share: gpu_share_core::api::Share) -> String {
    format!("{}%", share.percent_of(gpu_share_core::api::Share::ONE))
}

/// Seconds as a short duration: `2 h`, `1 h 30 min`, `45 min`, `20 s`.
pub fn duration(seconds: u64) -> String {
    let (h, m, s) = (seconds / 3600, seconds % 3600 / 60, seconds % 60);
    match (h, m) {
        (0, 0) => format!("{s} s"),
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

/// The GPU count field: blank (or `unlimited`) is no limit; otherwise a whole number, which the
/// core then range-checks.
pub fn gpu_count(text: &str) -> Result<Option<u64>, String> {
    let t = text.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("unlimited") {
        return Ok(None);
    }
    t.parse::<u64>()
        .map(Some)
        .map_err(|_| format!("expected a whole number of GPUs or blank for unlimited, got {t:?}"))
}

/// The nodes field: blank is no nodes; else the core's grammar (`4x8`, `gpu-a:8,gpu-b:4`), its
/// error in the page's words.
pub fn nodes(text: &str) -> Result<Option<Vec<gpu_share_core::api::NodeSpec>>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    gpu_share_core::api::parse_nodes(text)
        .map(Some)
        .map_err(|e| crate::words::message(&e))
}

/// An optional number field (rates): blank is `None`.
pub fn optional_number(text: &str) -> Result<Option<f64>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(format!("expected a number, got {t:?}")),
    }
}

/// Money and other floats with two decimals.
pub fn two(v: f64) -> String {
    format!("{v:.2}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_796_076_223), "2026-11-30 22:03 UTC");
        assert_eq!(utc(-86_400), "1969-12-31 00:00 UTC");
    }

    #[test]
    fn durations() {
        // Hours for an input field are the core's (exact to the second; `parse::hours_text`).
        use gpu_share_core::api::hours_text;
        assert_eq!(hours_text(7200), "2");
        assert_eq!(hours_text(5400), "1.5");
        assert_eq!(hours_text(0), "0");
        assert_eq!(duration(5400), "1 h 30 min");
        assert_eq!(duration(3600), "1 h");
        assert_eq!(duration(59), "59 s");
        assert_eq!(duration(600), "10 min");
    }

    #[test]
    fn counts_and_numbers() {
        assert_eq!(gpu_count(""), Ok(None));
        assert_eq!(gpu_count(" unlimited "), Ok(None));
        assert_eq!(gpu_count("2"), Ok(Some(2)));
        assert!(gpu_count("two").is_err());
        assert!(gpu_count("-1").is_err());
        assert_eq!(optional_number(""), Ok(None));
        assert_eq!(optional_number("2.5"), Ok(Some(2.5)));
        assert!(optional_number("NaN").is_err());
        assert!(optional_number("x").is_err());
    }
}
