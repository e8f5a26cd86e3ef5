//! Stable colours per ask: a hash of the name picks a hue, so an ask keeps its colour across edits and reloads.

/// FNV-1a, 32 bits: small, fast and the same on every platform and build.
pub fn name_hash(name: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The hue (0–359) of an ask. The hash is mixed once more so names differing in the last
/// character still land far apart on the colour wheel.
pub fn hue(name: &str) -> u16 {
    let mixed = name_hash(name).wrapping_mul(0x9e37_79b1);
    ((mixed >> 16) % 360) as u16
}

/// The fill of an ask's blocks: a light tint that dark text stays readable on, in both themes.
pub fn fill(name: &str) -> String {
    format!("hsl({}, 70%, 72%)", hue(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_name_gets_the_same_colour() {
        assert_eq!(fill("train-a"), fill("train-a"));
        assert_eq!(name_hash(""), 0x811c_9dc5);
        // Known FNV-1a value, so the colours never change between releases.
        assert_eq!(name_hash("a"), 0xe40c_292c);
    }

    #[test]
    fn hues_are_on_the_wheel_and_spread() {
        let hues: Vec<u16> = (0..200).map(|i| hue(&format!("w{i}"))).collect();
        assert!(hues.iter().all(|&h| h < 360));
        let distinct: std::collections::BTreeSet<u16> = hues.iter().map(|h| h / 30).collect();
        assert!(distinct.len() >= 10, "hues cluster: {distinct:?}");
        assert_ne!(hue("a"), hue("b"));
    }

    #[test]
    fn fills_are_css_colours_without_markup() {
        let f = fill("<img src=x onerror=alert(1)>");
        assert!(f.starts_with("hsl(") && f.ends_with("%)"));
        assert!(!f.contains('<'));
    }
}
