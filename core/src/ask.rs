//! `FractionalAsk`: a named workload asking for a fraction of a GPU, an amount of GPU memory, both, or a MIG profile.

use crate::error::{Error, ErrorKind, Result};
use crate::memory::Memory;
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
    /// GPU memory alone (`12GiB`): the planner sizes the share from the GPU's memory.
    Memory(Memory),
    /// A share of one GPU (less than 1) and the GPU memory it needs.
    FractionAndMemory(Share, Memory),
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
        FractionalAsk::fraction_named(validate_name(name)?, fraction)
    }

    /// [`FractionalAsk::fraction`] of a name already checked.
    fn fraction_named(name: String, fraction: Share) -> Result<Self> {
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
        FractionalAsk::mig_named(validate_name(name)?, profile)
    }

    /// [`FractionalAsk::mig`] of a name already checked.
    fn mig_named(name: String, profile: &str) -> Result<Self> {
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

    /// An ask for GPU memory alone, on one GPU.
    ///
    /// # Errors
    /// `Syntax` for an empty or unprintable name.
    pub fn memory_only(name: &str, memory: Memory) -> Result<Self> {
        Ok(FractionalAsk {
            name: validate_name(name)?,
            size: AskSize::Memory(memory),
        })
    }

    /// An ask of `size` named by a name of its own, kept without a copy when it needs none (a
    /// list of asks read as columns owns its names); checked as the constructor of that size
    /// checks it.
    ///
    /// # Errors
    /// As [`FractionalAsk::fraction`], [`FractionalAsk::mig`], [`FractionalAsk::memory_only`] and
    /// [`FractionalAsk::fraction_and_memory`].
    pub(crate) fn sized(name: String, size: AskSize) -> Result<Self> {
        let name = validate_owned_name(name)?;
        match size {
            AskSize::Fraction(f) => FractionalAsk::fraction_named(name, f),
            AskSize::MigProfile(p) => FractionalAsk::mig_named(name, &p),
            AskSize::FractionAndMemory(f, m) => {
                FractionalAsk::fraction_and_memory_named(name, f, m)
            }
            AskSize::Memory(m) => Ok(FractionalAsk {
                name,
                size: AskSize::Memory(m),
            }),
        }
    }

    /// An ask for `fraction` of one GPU and `memory` on it. A fraction of 1 or more is whole GPUs,
    /// whose memory is the GPUs' own: give the memory alone or the GPUs alone.
    ///
    /// # Errors
    /// As [`FractionalAsk::fraction`]; `OutOfRange` naming `fraction` for whole GPUs with memory.
    pub fn fraction_and_memory(name: &str, fraction: Share, memory: Memory) -> Result<Self> {
        FractionalAsk::fraction_and_memory_named(validate_name(name)?, fraction, memory)
    }

    /// [`FractionalAsk::fraction_and_memory`] of a name already checked.
    fn fraction_and_memory_named(name: String, fraction: Share, memory: Memory) -> Result<Self> {
        let ask = FractionalAsk::fraction_named(name, fraction)?;
        if fraction >= Share::ONE {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("{fraction} GPUs with memory: an ask with memory takes a share of one GPU (less than 1); give the memory alone, or the whole GPUs alone"),
            )
            .in_field("fraction"));
        }
        Ok(FractionalAsk {
            name: ask.name,
            size: AskSize::FractionAndMemory(fraction, memory),
        })
    }

    /// Reads the command-line and URL grammar `NAME:SIZE`, where SIZE is a fraction (`0.5`, `50%`,
    /// `1/2`, `2`), a MIG profile (`3g.20gb`), GPU memory with its unit (`12GiB`, `40GB`,
    /// `22649242112B`) or a fraction and memory (`NAME:0.25:12GiB`). The name is everything
    /// before the last `:` (before the fraction's `:` when memory follows a fraction).
    ///
    /// # Errors
    /// `Syntax` when there is no `:` or a part is invalid, naming the offending part.
    pub fn parse_spec(spec: &str) -> Result<Self> {
        let Some((name, size)) = spec.rsplit_once(':') else {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!("expected NAME:FRACTION, NAME:MEMORY, NAME:FRACTION:MEMORY or NAME:PROFILE (e.g. a:0.5, m:12GiB, b:0.25:12GiB or x:3g.20gb), got {spec:?}"),
            ));
        };
        let size = size.trim();
        if looks_like_profile(size) {
            return FractionalAsk::mig(name, size);
        }
        if looks_like_memory(size) {
            let memory = Memory::parse(size).map_err(|e| e.in_field("memory"))?;
            let fraction = name
                .rsplit_once(':')
                .and_then(|(n, f)| Share::parse(f).ok().map(|f| (n, f)));
            return match fraction {
                Some((name, f)) => FractionalAsk::fraction_and_memory(name, f, memory),
                None => FractionalAsk::memory_only(name, memory),
            };
        }
        let share = Share::parse(size).map_err(|e| e.in_field("fraction"))?;
        FractionalAsk::fraction(name, share)
    }

    /// An ask from a table's cells: `size` a fraction, a MIG profile or memory with its unit;
    /// `memory` (memory with its unit) beside a fraction or alone. Empty cells are absent.
    ///
    /// # Errors
    /// `Syntax` naming `fraction`, `memory` or `mig_profile` for a missing or bad cell.
    pub fn from_cells(name: &str, size: Option<&str>, memory: Option<&str>) -> Result<Self> {
        let memory = memory
            .map(|m| Memory::parse(m).map_err(|e| e.in_field("memory")))
            .transpose()?;
        match (size.map(str::trim), memory) {
            (Some(p), None) if looks_like_profile(p) => FractionalAsk::mig(name, p),
            (Some(p), Some(_)) if looks_like_profile(p) => Err(Error::new(
                ErrorKind::Syntax,
                "a MIG profile brings its own memory; give the profile or the memory",
            )
            .in_field("memory")),
            (Some(m), None) if looks_like_memory(m) => {
                let m = Memory::parse(m).map_err(|e| e.in_field("memory"))?;
                FractionalAsk::memory_only(name, m)
            }
            (Some(f), memory) => {
                let share = Share::parse(f).map_err(|e| e.in_field("fraction"))?;
                match memory {
                    Some(m) => FractionalAsk::fraction_and_memory(name, share, m),
                    None => FractionalAsk::fraction(name, share),
                }
            }
            (None, Some(m)) => FractionalAsk::memory_only(name, m),
            (None, None) => Err(Error::new(
                ErrorKind::Syntax,
                "missing the fraction, memory or MIG profile",
            )
            .in_field("fraction")),
        }
    }

    /// The ask in the `NAME:SIZE` grammar that [`FractionalAsk::parse_spec`] reads back exactly
    /// (a share not exact in five decimals as a ratio: `a:1/3`; memory in the largest binary
    /// unit that divides it: `m:12GiB`).
    pub fn to_spec(&self) -> String {
        let name = &self.name;
        match &self.size {
            AskSize::Fraction(f) => format!("{name}:{}", f.to_exact_text()),
            AskSize::MigProfile(p) => format!("{name}:{p}"),
            AskSize::Memory(m) => format!("{name}:{}", m.to_exact_text()),
            AskSize::FractionAndMemory(f, m) => {
                format!("{name}:{}:{}", f.to_exact_text(), m.to_exact_text())
            }
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

    /// The fraction asked for, when the ask gives one.
    pub fn requested_fraction(&self) -> Option<Share> {
        match self.size {
            AskSize::Fraction(f) | AskSize::FractionAndMemory(f, _) => Some(f),
            AskSize::MigProfile(_) | AskSize::Memory(_) => None,
        }
    }

    /// The GPU memory asked for, when the ask gives it.
    pub fn memory(&self) -> Option<Memory> {
        match self.size {
            AskSize::Memory(m) | AskSize::FractionAndMemory(_, m) => Some(m),
            AskSize::Fraction(_) | AskSize::MigProfile(_) => None,
        }
    }

    /// The profile asked for, when the ask names one.
    pub fn mig_profile(&self) -> Option<&str> {
        match &self.size {
            AskSize::MigProfile(p) => Some(p),
            _ => None,
        }
    }
}

/// Digits with a memory unit after them (`12GiB`, `40 GB`, `22649242112B`): the shape of memory in
/// the ask grammar, where a bare number is a fraction of GPUs.
pub fn looks_like_memory(text: &str) -> bool {
    let t = text.trim();
    let unit_start = t.find(|c: char| c.is_ascii_alphabetic());
    match unit_start {
        Some(i) if i > 0 => {
            t[..i]
                .trim()
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'.')
                && t[i..].bytes().all(|b| b.is_ascii_alphabetic())
        }
        _ => false,
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
    check_name(name.trim()).map(str::to_string)
}

/// A name none of `taken` has: `base-from`, or the first of `base-(from+1)`, … that is free and
/// is a valid name (a copy of ask `a` is `a-2`; the fourth new row is `ask-4`). `base` itself
/// when no candidate is (a base of the longest length).
pub fn unused_name(base: &str, from: usize, taken: &[&str]) -> String {
    (from..=from + taken.len())
        .map(|n| format!("{base}-{n}"))
        .find(|c| !taken.contains(&c.as_str()) && validate_name(c).is_ok())
        .unwrap_or_else(|| base.to_string())
}

/// [`validate_name`] of a name already owned: the same name back, without a copy when it needs
/// no trimming.
fn validate_owned_name(name: String) -> Result<String> {
    if name.trim().len() != name.len() {
        return validate_name(&name);
    }
    check_name(&name)?;
    Ok(name)
}

/// `name` (trimmed) when it is a name.
fn check_name(name: &str) -> Result<&str> {
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
    Ok(name)
}

#[cfg(feature = "serde")]
mod json;
#[cfg(feature = "serde")]
pub use json::{AskReader, JsonAskFields};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unused_names_count_on_from_the_first_free_one() {
        assert_eq!(unused_name("a", 2, &["a", "a-2"]), "a-3");
        assert_eq!(unused_name("b", 2, &["a", "a-2"]), "b-2");
        assert_eq!(unused_name("ask", 4, &["a", "b", "c"]), "ask-4");
        // A base already of the longest length has no longer free name: itself.
        let long = "x".repeat(MAX_NAME_CHARS);
        assert_eq!(unused_name(&long, 2, &[long.as_str()]), long);
    }

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
    fn parses_memory_asks() {
        use crate::memory::GIB;
        let m = FractionalAsk::parse_spec("m:12GiB").unwrap();
        assert_eq!(m.memory().map(Memory::bytes), Some(12 * GIB));
        assert_eq!(m.requested_fraction(), None);
        let both = FractionalAsk::parse_spec("ns:b:0.25:22649242112B").unwrap();
        assert_eq!(both.name(), "ns:b");
        assert_eq!(both.requested_fraction(), Share::parse("0.25").ok());
        assert_eq!(both.memory().map(Memory::bytes), Some(22_649_242_112));
        for spec in [
            "m:12GiB",
            "ns:b:0.25:22649242112B",
            "s:40GB",
            "t:1/3:1.5GiB",
        ] {
            let a = FractionalAsk::parse_spec(spec).unwrap();
            assert_eq!(
                FractionalAsk::parse_spec(&a.to_spec()).unwrap(),
                a,
                "{spec}"
            );
        }
        let err = FractionalAsk::parse_spec("m:12XiB").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("memory"));
        let whole = FractionalAsk::parse_spec("w:2:12GiB").unwrap_err();
        assert_eq!(whole.field.as_deref(), Some("fraction"));
        assert!(
            looks_like_memory("12 GiB") && !looks_like_memory("12") && !looks_like_memory("GiB")
        );
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
        let m: FractionalAsk =
            serde_json::from_str(r#"{"name":"m","fraction":0.5,"memory":"12GiB"}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"name":"m","fraction":0.5,"memory":"12GiB"}"#
        );
        let bytes: FractionalAsk =
            serde_json::from_str(r#"{"name":"m","memory":22649242112}"#).unwrap();
        assert_eq!(bytes.memory().map(|m| m.bytes()), Some(22_649_242_112));
        let err = FractionalAsk::from_json(&serde_json::json!({"name":"m","memory":"lots"}));
        assert_eq!(err.unwrap_err().field.as_deref(), Some("memory"));
        let err = FractionalAsk::from_json(
            &serde_json::json!({"name":"m","mig_profile":"1g.5gb","memory":"1GiB"}),
        );
        assert_eq!(err.unwrap_err().field.as_deref(), Some("memory"));
    }
}
