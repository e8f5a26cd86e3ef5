//! Names sorted for matching and for finding repeats in large packings: by each name's first 16
//! bytes read as one number, the names themselves compared only where those tie.
//!
//! A sort of the names themselves follows a pointer per comparison and grew faster than the asks
//! (the duplicate check: 78 → 45 ms for a million names, by hand); `PackResult::utilisation`'s
//! hash map of every name took 580–680 ms for a million asks natively, its merge of two such
//! sorts 270–300 ms. One element type serves every caller, so the sort is compiled once.

/// A name with the number its caller gave it, and its sort key.
pub(super) type Named<'a> = (u128, &'a str, usize);

/// `names` sorted by name, then by their numbers.
pub(super) fn sorted<'a>(names: impl Iterator<Item = (&'a str, usize)>) -> Vec<Named<'a>> {
    let mut out: Vec<Named<'a>> = names.map(|(name, n)| (prefix(name), name, n)).collect();
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| (a.1, a.2).cmp(&(b.1, b.2))));
    out
}

/// A name's first 16 bytes (padded with zeros) as a big-endian number: names in that order are
/// in byte order, except that names equal there may be in either.
fn prefix(name: &str) -> u128 {
    let mut bytes = [0u8; 16];
    let n = name.len().min(16);
    bytes[..n].copy_from_slice(&name.as_bytes()[..n]);
    u128::from_be_bytes(bytes)
}
