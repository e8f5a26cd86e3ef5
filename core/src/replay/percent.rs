//! Percentages as the replay reports them: exact hundredths of a point, written with two decimals.
//! Its own module because both the runs and the bound speak in them.

/// A percentage to hundredths of a point, exact: basis points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Percent(pub u32);

impl Percent {
    /// `part / whole` as a percentage, rounded to the nearest hundredth.
    pub fn of(part: u128, whole: u128) -> Percent {
        Percent(((part * 20_000 + whole) / (2 * whole)) as u32)
    }
    pub fn to_f64(self) -> f64 {
        f64::from(self.0) / 100.0
    }
}

/// `95.12%`: two decimals, exactly (the value is held in hundredths).
impl std::fmt::Display for Percent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:02}%", self.0 / 100, self.0 % 100)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Percent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_f64(self.to_f64())
    }
}
