//! The optimizer on work it was not tuned on: the BPPLIB copy split into a tuning and a validation
//! half, generated triplet and perfect-packing instances whose optimum is known by construction
//! (a tuning set and a fresh validation set), and Hard28 with a longer budget.
//!
//! Tuning the optimizer means looking at the tuning half and the tuning set only; the report gives
//! the validation numbers beside them, so a change that fits the tuning instances and nothing else
//! shows as a gap between the two.

use super::bpplib::Instance;
use super::generate::{between, cut, shuffle};
use super::quality::{self, Row};
use super::speed::SplitMix;
use gpu_share_core::internals::pack::optimize::Budget;

/// Which side of a split an instance is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Set {
    Tuning,
    Validation,
}

impl Set {
    pub fn name(self) -> &'static str {
        match self {
            Set::Tuning => "tuning",
            Set::Validation => "validation",
        }
    }
}

/// The BPPLIB half of each row: within a family, in path order, the first, third, fifth … instance
/// tune and the second, fourth … validate (BPPLIB names instances by class, so both halves hold
/// every class of every family).
pub fn halves(rows: &[Row]) -> Vec<Set> {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    rows.iter()
        .map(|r| {
            let count = match seen.iter_mut().find(|(f, _)| *f == r.family) {
                Some((_, n)) => n,
                None => {
                    seen.push((&r.family, 0));
                    &mut seen.last_mut().expect("just pushed").1
                }
            };
            *count += 1;
            if *count % 2 == 1 {
                Set::Tuning
            } else {
                Set::Validation
            }
        })
        .collect()
}

/// How a generated instance fills its bins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Exactly three items per bin, each between a quarter and a half of the capacity, as
    /// Falkenauer's "t" class (E. Falkenauer, "A hybrid grouping genetic algorithm for bin
    /// packing", Journal of Heuristics 2, 1996): the first item uniform in 38–49% of the capacity,
    /// the second from a quarter to half of what is left, the third the rest.
    Triplet,
    /// Two to six items per bin cutting it at uniform random points.
    Perfect,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Triplet => "triplet",
            Kind::Perfect => "perfect",
        }
    }
}

/// The generated rows: kind, bins (the optimum) and capacity; [`SEEDS`] instances each per set.
pub const GENERATED: [(Kind, u64, u64); 12] = [
    (Kind::Triplet, 20, 1_000),
    (Kind::Triplet, 80, 1_000),
    (Kind::Triplet, 200, 1_000),
    (Kind::Triplet, 20, 1_000_000),
    (Kind::Triplet, 80, 1_000_000),
    (Kind::Triplet, 200, 1_000_000),
    (Kind::Perfect, 20, 1_000),
    (Kind::Perfect, 80, 1_000),
    (Kind::Perfect, 200, 1_000),
    (Kind::Perfect, 20, 1_000_000),
    (Kind::Perfect, 80, 1_000_000),
    (Kind::Perfect, 200, 1_000_000),
];

/// Instances per generated row and set.
pub const SEEDS: u64 = 10;

/// Budget of the longer Hard28 run.
pub const LONG_MS: u64 = 10_000;

/// One bin of a triplet instance: three items in (c/4, c/2) summing to `c`.
fn triplet(c: u64, rng: &mut SplitMix) -> [u64; 3] {
    let first = between(c * 38 / 100, c * 49 / 100, rng);
    let left = c - first;
    let second = between(c / 4 + 1, left / 2, rng);
    [first, second, left - second]
}

/// The items of `bins` bins of capacity `c`, each filled exactly, shuffled.
pub fn generate(kind: Kind, bins: u64, c: u64, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix(seed);
    let mut items = Vec::new();
    for _ in 0..bins {
        match kind {
            Kind::Triplet => items.extend(triplet(c, &mut rng)),
            Kind::Perfect => {
                let parts = between(2, 6, &mut rng);
                items.extend(cut(c, parts, &mut rng));
            }
        }
    }
    shuffle(&mut items, &mut rng);
    items
}

/// A generated instance's seed: the validation set draws from a stream the tuning set never does.
fn seed(set: Set, row: usize, i: u64) -> u64 {
    let stream: u64 = match set {
        Set::Tuning => 0x7475_6e65 << 24,     // "tune"
        Set::Validation => 0x7661_6c69 << 24, // "vali"
    };
    stream ^ (row as u64) << 16 ^ i
}

/// One set's generated instances, [`GENERATED`] row by row, as BPPLIB instances named
/// `triplet/20x1000/3` (kind / bins x capacity / seed).
pub fn instances(set: Set) -> Vec<Instance> {
    let mut out = Vec::new();
    for (row, &(kind, bins, c)) in GENERATED.iter().enumerate() {
        for i in 0..SEEDS {
            out.push(Instance {
                family: format!("{} {bins}x{c}", kind.name()),
                file: format!("{}/{bins}x{c}/{i}", kind.name()),
                capacity: c,
                weights: generate(kind, bins, c, seed(set, row, i)),
                optimum: Some(bins),
            });
        }
    }
    out
}

/// Everything this part measured.
#[derive(Default)]
pub struct Unseen {
    /// The generated instances, tuning set then validation set.
    pub generated: Vec<(Set, Row)>,
    /// Hard28 with [`LONG_MS`].
    pub hard28_long: Vec<Row>,
}

/// Runs the optimizer (with `budget`) on both generated sets, and on BPPLIB's Hard28 with [`LONG_MS`].
pub fn run(bpplib: &[Instance], budget: Budget) -> Unseen {
    let mut generated = Vec::new();
    for set in [Set::Tuning, Set::Validation] {
        let rows = quality::run(&instances(set), budget, 2);
        for g in quality::summarise(&rows) {
            eprintln!(
                "unseen {:10} {:16} FFD {:2} optimize {:2} of {:2} (proven {:2}), max {:5.0} ms",
                set.name(),
                g.family,
                g.ffd_optimal,
                g.optimized_optimal,
                g.instances,
                g.proven,
                g.max_ms
            );
        }
        generated.extend(rows.into_iter().map(|r| (set, r)));
    }
    let hard28: Vec<Instance> = bpplib
        .iter()
        .filter(|i| i.family == "Hard28")
        .map(|i| Instance {
            family: i.family.clone(),
            file: i.file.clone(),
            capacity: i.capacity,
            weights: i.weights.clone(),
            optimum: i.optimum,
        })
        .collect();
    let hard28_long = quality::run(&hard28, Budget::from_millis(LONG_MS), 2);
    for g in quality::summarise(&hard28_long) {
        eprintln!(
            "unseen Hard28 with {LONG_MS} ms: optimize {} of {}",
            g.optimized_optimal, g.instances
        );
    }
    Unseen {
        generated,
        hard28_long,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generated_bin_is_filled_exactly_by_its_kind() {
        for &(kind, bins, c) in &GENERATED {
            let items = generate(kind, bins, c, 7);
            assert_eq!(items.iter().sum::<u64>(), bins * c, "{kind:?} {bins}x{c}");
            assert!(items.iter().all(|&w| w > 0 && w < c));
            if kind == Kind::Triplet {
                assert_eq!(items.len() as u64, 3 * bins);
                // Over a quarter each, so no bin holds four: the optimum is exactly `bins`.
                assert!(items.iter().all(|&w| 4 * w > c && 2 * w < c), "{items:?}");
            }
        }
    }

    #[test]
    fn the_sets_and_halves_do_not_overlap() {
        let tuning = instances(Set::Tuning);
        let validation = instances(Set::Validation);
        assert!(tuning
            .iter()
            .zip(&validation)
            .all(|(a, b)| a.weights != b.weights));
        let row = |family: &str| Row {
            family: family.into(),
            file: String::new(),
            n: 0,
            optimum: None,
            lower_bound: 0,
            ffd: 0,
            optimized: 0,
            proven: false,
            ffd_ms: 0.0,
            ms: 0.0,
        };
        let rows = [row("A"), row("A"), row("B"), row("A"), row("B")];
        use Set::*;
        assert_eq!(
            halves(&rows),
            [Tuning, Validation, Tuning, Tuning, Validation]
        );
    }
}
