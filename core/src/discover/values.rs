//! Reading nvidia-smi's value cells (`40960 MiB`, `400.00 W`, `[N/A]`, `Enabled`) shared by every format.

use crate::caps::MAX_GPU_COUNT;
use crate::error::{Error, ErrorKind};

/// An error once a reader holds [`MAX_GPU_COUNT`] GPUs and finds another (on `line`).
pub(super) fn room_for_gpu(count: usize, line: usize) -> Result<(), Error> {
    if count as u64 >= MAX_GPU_COUNT {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("more than {MAX_GPU_COUNT} GPUs"),
        )
        .at_line(line));
    }
    Ok(())
}

/// A MIG mode as nvidia-smi prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MigMode {
    Enabled,
    Disabled,
    /// `N/A`: the board has no MIG.
    Unsupported,
}

/// Whether a cell says "no value" (`N/A`, `[N/A]`, `[Not Supported]`, …).
pub(super) fn is_na(value: &str) -> bool {
    let v = value
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    v.is_empty()
        || v == "-"
        || [
            "N/A",
            "Not Supported",
            "Not Available",
            "Unknown Error",
            "Insufficient Permissions",
            "Requested functionality has been deprecated",
        ]
        .iter()
        .any(|na| v.eq_ignore_ascii_case(na))
}

/// `40960 MiB`, `40960MiB`, `40960` (nounits) or `40 GiB`; `None` for N/A.
pub(super) fn mib(value: &str) -> Result<Option<u64>, String> {
    if is_na(value) {
        return Ok(None);
    }
    let v = value.trim();
    let (number, scale) = if let Some(n) = v.strip_suffix("MiB") {
        (n, 1)
    } else if let Some(n) = v.strip_suffix("GiB") {
        (n, 1024)
    } else {
        (v, 1)
    };
    number
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&n| n <= 1 << 40)
        .map(Some)
        .ok_or_else(|| format!("expected memory such as \"40960 MiB\", got {value:?}"))
}

/// `400.00 W`, `400W` or `400.00` (nounits), rounded to whole watts; `None` for N/A.
pub(super) fn watts(value: &str) -> Result<Option<u32>, String> {
    if is_na(value) {
        return Ok(None);
    }
    let v = value.trim();
    let number = v.strip_suffix('W').unwrap_or(v).trim();
    number
        .parse::<f64>()
        .ok()
        .filter(|w| w.is_finite() && (0.0..=1_000_000.0).contains(w))
        .filter(|_| number.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .map(|w| Some(w.round() as u32))
        .ok_or_else(|| format!("expected power such as \"400.00 W\", got {value:?}"))
}

/// `Enabled`, `Disabled`, or N/A (no MIG); `None` when nvidia-smi could not tell.
pub(super) fn mig_mode(value: &str) -> Result<Option<MigMode>, String> {
    let v = value
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    if v.eq_ignore_ascii_case("enabled") {
        Ok(Some(MigMode::Enabled))
    } else if v.eq_ignore_ascii_case("disabled") {
        Ok(Some(MigMode::Disabled))
    } else if v.eq_ignore_ascii_case("N/A") || v.eq_ignore_ascii_case("Not Supported") {
        Ok(Some(MigMode::Unsupported))
    } else if is_na(value) {
        Ok(None)
    } else {
        Err(format!(
            "expected a MIG mode (Enabled, Disabled or N/A), got {value:?}"
        ))
    }
}

/// A small whole number (index, instance id); `None` for N/A.
pub(super) fn number<T: std::str::FromStr>(value: &str) -> Result<Option<T>, String> {
    if is_na(value) {
        return Ok(None);
    }
    value
        .trim()
        .parse::<T>()
        .map(Some)
        .map_err(|_| format!("expected a whole number, got {value:?}"))
}

/// Text with N/A as `None`.
pub(super) fn text(value: &str) -> Option<String> {
    (!is_na(value)).then(|| value.trim().to_string())
}

/// A PCI device id as `0x20B010DE` (nvidia-smi's XML omits the `0x`, its CSV has it).
pub(super) fn pci_device_id(value: &str) -> Option<String> {
    let v = value.trim();
    let hex = v
        .strip_prefix("0x")
        .or_else(|| v.strip_prefix("0X"))
        .unwrap_or(v);
    (!hex.is_empty() && hex.len() <= 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("0x{}", hex.to_ascii_uppercase()))
}

/// A MIG profile name as the GPU-instance profile: without `MIG `, and without a compute-instance
/// prefix (`1c.3g.40gb` is a compute instance of a `3g.40gb` GPU instance).
pub(super) fn gi_profile(name: &str) -> String {
    split_ci(name).1.to_string()
}

/// A MIG device's name split into its compute slices and its GPU-instance profile: `1c.3g.71gb` is
/// `(Some(1), "3g.71gb")`, a compute instance of 1 compute slice inside a 3g.71gb GPU instance;
/// `3g.71gb` is `(None, "3g.71gb")`, one compute instance spanning the whole GPU instance
/// (docs/hardware-facts.md §1.1). `MIG ` in front is dropped.
pub(super) fn split_ci(name: &str) -> (Option<u32>, &str) {
    let n = name.trim();
    let n = n.strip_prefix("MIG ").unwrap_or(n).trim();
    if let Some((c, rest)) = n.split_once("c.") {
        if !c.is_empty()
            && c.len() <= 2
            && c.bytes().all(|b| b.is_ascii_digit())
            && rest.contains("g.")
        {
            return (c.parse().ok(), rest);
        }
    }
    (None, n)
}

/// The compute slices of a GPU-instance profile: `3g.71gb` → 3.
pub(super) fn gi_slices(profile: &str) -> Option<u32> {
    let (g, _) = profile.split_once("g.")?;
    (!g.is_empty() && g.len() <= 2 && g.bytes().all(|b| b.is_ascii_digit()))
        .then(|| g.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values() {
        assert_eq!(mib("40960 MiB"), Ok(Some(40960)));
        assert_eq!(mib("81559MiB"), Ok(Some(81559)));
        assert_eq!(mib("[N/A]"), Ok(None));
        assert!(mib("lots").is_err());
        assert_eq!(watts("400.00 W"), Ok(Some(400)));
        assert_eq!(watts("72.5"), Ok(Some(73)));
        assert!(watts("-5 W").is_err());
        assert_eq!(mig_mode("Enabled"), Ok(Some(MigMode::Enabled)));
        assert_eq!(mig_mode("[N/A]"), Ok(Some(MigMode::Unsupported)));
        assert_eq!(mig_mode("[Insufficient Permissions]"), Ok(None));
        assert!(mig_mode("maybe").is_err());
        assert_eq!(pci_device_id("20B010DE").as_deref(), Some("0x20B010DE"));
        assert_eq!(pci_device_id("0x233010de").as_deref(), Some("0x233010DE"));
        assert_eq!(gi_profile("MIG 1c.3g.40gb"), "3g.40gb");
        assert_eq!(gi_profile("1g.10gb+me"), "1g.10gb+me");
        assert_eq!(split_ci("MIG 2c.3g.71gb"), (Some(2), "3g.71gb"));
        assert_eq!(split_ci("2g.35gb"), (None, "2g.35gb"));
        assert_eq!(gi_slices("3g.71gb"), Some(3));
        assert_eq!(gi_slices("MIG"), None);
    }
}
