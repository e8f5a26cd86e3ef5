//! Small text helpers of the page: durations and numbers as people read them (dates are the
//! core's `utc_text`).

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
