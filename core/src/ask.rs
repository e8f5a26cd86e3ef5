//! `FractionalAsk`: a named workload asking for a fraction of a GPU or for a named MIG profile.

use crate::error::{Error, ErrorKind, Result};
use crate::units::Share;

/// The longest ask name accepted, in characters.
pub const MAX_NAME_CHARS: usize = 128;

/// The most whole GPUs one ask may take: beyond any single job, and small enough that a plan of
/// such asks stays within memory (every GPU of a plan is listed).
pub const MAX_ASK_GPUS: u64 = 100_000;

/// What an ask wants.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AskSize {
    /// A share of a GPU; 1 or more means whole GPUs.
    Fraction(Share),
    /// A named MIG profile (`2g.10gb`), validated against the GPU model when planning.
    MigProfile(String),
}

/// One workload's ask. Build it with [`FractionalAsk::fraction`], [`FractionalAsk::mig`] or
/// [`FractionalAsk::parse_spec`], which validate; the fields are private, so every ask in the
/// program has a valid name and a size greater than zero. Read them with [`FractionalAsk::name`]
/// and [`FractionalAsk::size`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FractionalAsk {
    name: String,
    size: AskSize,
}

impl FractionalAsk {
    /// An ask for `fraction` of a GPU.
    ///
    /// # Errors
    /// `Syntax` for an empty or unprintable name, `OutOfRange` for a zero fraction.
    pub fn fraction(name: &str, fraction: Share) -> Result<Self> {
        let name = validate_name(name)?;
        if fraction.is_zero() {
            return Err(
                Error::new(ErrorKind::OutOfRange, "must be greater than 0").in_field("fraction")
            );
        }
        if fraction.ceil_gpus() > MAX_ASK_GPUS {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("{fraction} GPUs is more than the {MAX_ASK_GPUS} one ask may take"),
            )
            .in_field("fraction"));
        }
        Ok(FractionalAsk {
            name,
            size: AskSize::Fraction(fraction),
        })
    }

    /// An ask for one instance of a MIG profile.
    ///
    /// # Errors
    /// `Syntax` for an empty or unprintable name, or a profile name not of the form `<n>g.<m>gb`.
    pub fn mig(name: &str, profile: &str) -> Result<Self> {
        let name = validate_name(name)?;
        let profile = profile.trim();
        if !looks_like_profile(profile) {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!("expected a MIG profile such as 2g.10gb, got {profile:?}"),
            )
            .in_field("mig_profile"));
        }
        Ok(FractionalAsk {
            name,
            size: AskSize::MigProfile(profile.to_ascii_lowercase()),
        })
    }

    /// Reads the command-line and URL grammar `NAME:SIZE`, where SIZE is a fraction (`0.5`, `50%`,
    /// `1/2`, `2`) or a MIG profile (`3g.20gb`). The name is everything before the last `:`.
    ///
    /// # Errors
    /// `Syntax` when there is no `:` or either side is invalid, naming the offending part.
    pub fn parse_spec(spec: &str) -> Result<Self> {
        let Some((name, size)) = spec.rsplit_once(':') else {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!("expected NAME:FRACTION or NAME:PROFILE (e.g. a:0.5 or x:3g.20gb), got {spec:?}"),
            ));
        };
        let size = size.trim();
        if looks_like_profile(size) {
            FractionalAsk::mig(name, size)
        } else {
            let share = Share::parse(size).map_err(|e| e.in_field("fraction"))?;
            FractionalAsk::fraction(name, share)
        }
    }

    /// The ask in the `NAME:SIZE` grammar that [`FractionalAsk::parse_spec`] reads back exactly
    /// (a share not exact in five decimals as a ratio: `a:1/3`).
    pub fn to_spec(&self) -> String {
        match &self.size {
            AskSize::Fraction(f) => format!("{}:{}", self.name, f.to_exact_text()),
            AskSize::MigProfile(p) => format!("{}:{p}", self.name),
        }
    }

    /// The workload's name (trimmed, printable, at most [`MAX_NAME_CHARS`] characters).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the ask wants.
    pub fn size(&self) -> &AskSize {
        &self.size
    }

    /// The fraction asked for, when the ask is not a named profile.
    pub fn requested_fraction(&self) -> Option<Share> {
        match self.size {
            AskSize::Fraction(f) => Some(f),
            AskSize::MigProfile(_) => None,
        }
    }

    /// The profile asked for, when the ask names one.
    pub fn mig_profile(&self) -> Option<&str> {
        match &self.size {
            AskSize::MigProfile(p) => Some(p),
            AskSize::Fraction(_) => None,
        }
    }
}

/// `<digits>g.<digits>gb` with an optional `+attr`/`-attr` tail: the shape of every MIG profile name.
pub fn looks_like_profile(text: &str) -> bool {
    let t = text.trim().to_ascii_lowercase();
    let Some((g, rest)) = t.split_once("g.") else {
        return false;
    };
    let Some(gb_end) = rest.find("gb") else {
        return false;
    };
    let (mem, tail) = (&rest[..gb_end], &rest[gb_end + 2..]);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(g)
        && digits(mem)
        && (tail.is_empty()
            || (tail.len() > 1
                && tail.starts_with(['+', '-'])
                && tail[1..]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.')))
}

/// Trims the name and rejects empty, over-long or unprintable ones (they would break lines in
/// CSV, the ledger and the terminal).
///
/// # Errors
/// `Syntax` naming the `name` field.
pub fn validate_name(name: &str) -> Result<String> {
    let name = name.trim();
    let err = |m: String| Err(Error::new(ErrorKind::Syntax, m).in_field("name"));
    if name.is_empty() {
        return err("an ask needs a name".into());
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return err(format!("is longer than {MAX_NAME_CHARS} characters"));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return err(format!("contains the control character {c:?}"));
    }
    Ok(name.to_string())
}

#[cfg(feature = "serde")]
mod serde_impl {
    use super::{AskSize, FractionalAsk};
    use crate::error::{Error, ErrorKind, Result};
    use crate::units::Share;
    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    impl FractionalAsk {
        /// Reads the JSON shape `{"name": "a", "fraction": 0.5}` (a number, or text such as `"1/3"`)
        /// or `{"name": "x", "mig_profile": "3g.20gb"}`, keeping the core's error kinds and fields.
        ///
        /// # Errors
        /// `Syntax` for a wrong shape or unknown key; the constructors' errors otherwise.
        pub fn from_json(value: &Value) -> Result<Self> {
            let shape = |m: &str| Error::new(ErrorKind::Syntax, m.to_string());
            let Value::Object(map) = value else {
                return Err(shape(
                    "an ask must be an object such as {\"name\": \"a\", \"fraction\": 0.5}",
                ));
            };
            if let Some(key) = map
                .keys()
                .find(|k| !matches!(k.as_str(), "name" | "fraction" | "mig_profile" | "profile"))
            {
                return Err(shape(&format!(
                    "unknown field {key:?}; expected name, fraction or mig_profile"
                ))
                .in_field(key.as_str()));
            }
            let name = match map.get("name") {
                Some(Value::String(n)) => n.as_str(),
                None | Some(Value::Null) => "",
                Some(_) => return Err(shape("must be a string").in_field("name")),
            };
            let fraction = map.get("fraction").filter(|v| !v.is_null());
            let profile = map
                .get("mig_profile")
                .or_else(|| map.get("profile"))
                .filter(|v| !v.is_null());
            match (fraction, profile) {
                (Some(f), None) => FractionalAsk::fraction(
                    name,
                    Share::from_json(f).map_err(|e| e.in_field("fraction"))?,
                ),
                (None, Some(Value::String(p))) => FractionalAsk::mig(name, p),
                (None, Some(_)) => {
                    Err(shape("must be a string such as \"3g.20gb\"").in_field("mig_profile"))
                }
                (Some(_), Some(_)) => Err(shape(&format!(
                    "ask {name:?} gives both a fraction and a MIG profile; give one"
                ))),
                (None, None) => Err(shape(&format!(
                    "ask {name:?} needs a fraction or a mig_profile"
                ))),
            }
        }
    }

    impl Serialize for FractionalAsk {
        fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            use serde::ser::SerializeStruct;
            let mut st = s.serialize_struct("FractionalAsk", 2)?;
            st.serialize_field("name", &self.name)?;
            match &self.size {
                AskSize::Fraction(f) => st.serialize_field("fraction", f)?,
                AskSize::MigProfile(p) => st.serialize_field("mig_profile", p)?,
            }
            st.end()
        }
    }

    impl<'de> Deserialize<'de> for FractionalAsk {
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            FractionalAsk::from_json(&Value::deserialize(d)?).map_err(de::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fractions_and_profiles() {
        let a = FractionalAsk::parse_spec("a:0.5").unwrap();
        assert_eq!(a.requested_fraction(), Some(Share::parse("1/2").unwrap()));
        let x = FractionalAsk::parse_spec("x:3g.20gb").unwrap();
        assert_eq!(x.mig_profile(), Some("3g.20gb"));
        let me = FractionalAsk::parse_spec("m:1g.5gb+me").unwrap();
        assert_eq!(me.mig_profile(), Some("1g.5gb+me"));
        let colon = FractionalAsk::parse_spec("ns:job:25%").unwrap();
        assert_eq!(colon.name, "ns:job");
        assert_eq!(FractionalAsk::parse_spec(&colon.to_spec()).unwrap(), colon);
        // Shares not exact in five decimals are written as ratios, so they read back exactly.
        for spec in [
            "t:1/3",
            "t:0.0000000001",
            "t:0.123456789",
            "t:99999.99999999",
            "t:1/7",
            "t:100000",
        ] {
            let a = FractionalAsk::parse_spec(spec).unwrap();
            assert_eq!(
                FractionalAsk::parse_spec(&a.to_spec()).unwrap(),
                a,
                "{spec}"
            );
        }
        assert_eq!(
            FractionalAsk::parse_spec("t:1/3").unwrap().to_spec(),
            "t:1/3"
        );
        assert_eq!(
            FractionalAsk::parse_spec("t:0.0000000001")
                .unwrap()
                .to_spec(),
            "t:0.0000000001"
        );
    }

    #[test]
    fn rejects_bad_asks_with_the_field() {
        assert_eq!(
            FractionalAsk::parse_spec("a:0")
                .unwrap_err()
                .field
                .as_deref(),
            Some("fraction")
        );
        assert_eq!(
            FractionalAsk::parse_spec("a:-1")
                .unwrap_err()
                .field
                .as_deref(),
            Some("fraction")
        );
        assert_eq!(
            FractionalAsk::parse_spec(":0.5")
                .unwrap_err()
                .field
                .as_deref(),
            Some("name")
        );
        assert_eq!(
            FractionalAsk::parse_spec(" \t:0.5")
                .unwrap_err()
                .field
                .as_deref(),
            Some("name")
        );
        assert!(FractionalAsk::parse_spec("a").is_err());
        assert!(FractionalAsk::parse_spec("a:NaN").is_err());
        assert!(FractionalAsk::parse_spec("bad\nname:0.5").is_err());
        assert!(FractionalAsk::mig("x", "big").is_err());
        assert!(FractionalAsk::parse_spec(&format!("{}:0.5", "n".repeat(200))).is_err());
    }

    #[test]
    fn profile_shape() {
        for ok in [
            "1g.5gb",
            "7g.141gb",
            "1g.24gb+me.all",
            "2g.48gb-me",
            "1G.5GB",
        ] {
            assert!(looks_like_profile(ok), "{ok}");
        }
        for bad in ["0.5", "1g", "g.5gb", "1g.gb", "1g.5gbx", "1g.5gb+", "25%"] {
            assert!(!looks_like_profile(bad), "{bad}");
        }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_shape() {
        let a: FractionalAsk = serde_json::from_str(r#"{"name":"a","fraction":"1/3"}"#).unwrap();
        assert_eq!(a.requested_fraction(), Some(Share::ratio(1, 3).unwrap()));
        let both = serde_json::from_str::<FractionalAsk>(
            r#"{"name":"a","fraction":0.5,"mig_profile":"1g.5gb"}"#,
        );
        assert!(both.unwrap_err().to_string().contains("both"));
        assert!(serde_json::from_str::<FractionalAsk>(r#"{"name":"a","fraction":0}"#).is_err());
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"{"name":"a","fraction":0.3333333333333333}"#
        );
    }
}
