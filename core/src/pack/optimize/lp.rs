//! The Gilmore–Gomory bound: bin packing's linear relaxation over patterns, by column generation, proven in integers.
//!
//! Every packing is a set of *patterns* (how many items of each size one bin holds), so the least
//! fractional number of patterns that covers every item bounds the bins from below, and on most
//! benchmark instances its round-up is the optimum. The linear program is solved by column
//! generation: a revised simplex over the patterns found so far, priced by a knapsack that finds
//! the pattern worth most at the current dual prices.
//!
//! The simplex uses floats, but only to guess prices. The bound itself comes from integer prices
//! `w` (the float duals clamped to [0, 1], scaled and rounded down) and the exact integer knapsack
//! maximum `K` over all patterns: `w / K` prices no pattern above 1, so by LP duality every packing
//! needs at least ⌈Σ demand·w / K⌉ bins, whatever rounding the floats did.

use super::Work;
use crate::units::gcd;

/// Fixed-point scale of the integer prices.
const SCALE: f64 = (1u64 << 24) as f64;
/// Knapsack table cells (sizes × capacity, after dividing by their common divisor) above which
/// the bound is not tried: the pricing would cost too much per step.
const MAX_CELLS: u64 = 4_000_000;
/// Knapsack cells (or basis-inverse entries) per work step: a cell is one add and compare, much
/// cheaper than the search steps the budget was calibrated on.
const CELLS_PER_WORK: u64 = 16;
/// Distinct sizes above which the bound is not tried: the basis inverse is this squared.
const MAX_TYPES: usize = 1_000;
/// A reduced cost this close to zero counts as zero.
const EPS: f64 = 1e-9;

/// A lower bound on the bins `sizes` (each in `1..=capacity`) need, from the linear relaxation;
/// `None` when it cannot be tried (too large a knapsack, or no budget). Stops as soon as it proves
/// `target` bins necessary, or once the relaxation is seen to be worth no more than `known` bins
/// (a bound the caller already has).
pub(crate) fn gilmore_gomory(
    sizes: &[u64],
    capacity: u64,
    known: u64,
    target: u64,
    work: &mut Work,
) -> Option<u64> {
    let lp = Relaxation::new(sizes, capacity)?;
    lp.solve(known, target, work)
}

/// The distinct sizes, divided by their common divisor with the capacity, and their demands.
struct Relaxation {
    /// Capacity in units of the common divisor.
    cap: usize,
    weight: Vec<usize>,
    demand: Vec<u64>,
    /// The knapsack's items: (type, copies), so each type's copies split in powers of two.
    pieces: Vec<(usize, u64)>,
}

impl Relaxation {
    fn new(sizes: &[u64], capacity: u64) -> Option<Self> {
        if sizes.iter().any(|&s| s == 0 || s > capacity) {
            return None;
        }
        let mut sorted = sizes.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let mut types: Vec<(u64, u64)> = Vec::new();
        for s in sorted {
            match types.last_mut() {
                Some((t, d)) if *t == s => *d += 1,
                _ => types.push((s, 1)),
            }
        }
        if types.len() > MAX_TYPES {
            return None;
        }
        let g = types.iter().fold(capacity, |g, &(s, _)| gcd(g, s));
        let cap = capacity / g;
        if (types.len() as u64).saturating_mul(cap) > MAX_CELLS {
            return None;
        }
        let cap = usize::try_from(cap).ok()?;
        let weight: Vec<usize> = types.iter().map(|&(s, _)| (s / g) as usize).collect();
        let demand: Vec<u64> = types.iter().map(|&(_, d)| d).collect();
        let mut pieces = Vec::new();
        for j in 0..types.len() {
            let mut left = demand[j].min((cap / weight[j]) as u64);
            let mut k = 1;
            while left > 0 {
                let take = k.min(left);
                pieces.push((j, take));
                left -= take;
                k *= 2;
            }
        }
        Some(Relaxation {
            cap,
            weight,
            demand,
            pieces,
        })
    }

    /// Work for one knapsack: its table cells, at [`CELLS_PER_WORK`] cells per step.
    fn pricing_work(&self) -> u64 {
        let cells = (self.pieces.len() as u64).saturating_mul(self.cap as u64 + 1);
        1 + cells / CELLS_PER_WORK
    }

    fn solve(&self, known: u64, target: u64, work: &mut Work) -> Option<u64> {
        let m = self.weight.len();
        // A knapsack and a pivot (a pass over the m × m basis inverse).
        let per_step = self.pricing_work() + (m as u64) * (m as u64) / CELLS_PER_WORK;
        // Patterns cover each size exactly its demand (A·x = d), as the bins of any packing do.
        // Start from one homogeneous pattern per size: the basis is diagonal.
        let mut binv = vec![0.0f64; m * m];
        let mut x = vec![0.0f64; m];
        for j in 0..m {
            let copies = self.demand[j].min((self.cap / self.weight[j]) as u64) as f64;
            binv[j * m + j] = 1.0 / copies;
            x[j] = self.demand[j] as f64 / copies;
        }
        let mut proven: Option<u64> = None;
        // The highest bound a proof was tried for: proofs cost a knapsack, so only for progress.
        let mut tried = 0u64;
        loop {
            if !work.spend(per_step) {
                return proven;
            }
            // Dual prices: the cost row (all ones) times the basis inverse.
            let mut y = vec![0.0f64; m];
            for row in binv.chunks_exact(m) {
                for (yj, b) in y.iter_mut().zip(row) {
                    *yj += b;
                }
            }
            let (value, pattern) = self.knapsack_f64(&y);
            // Farley's bound: y / value prices no pattern above 1, so Σ d·y / value ≤ LP.
            let dual: f64 = self
                .demand
                .iter()
                .zip(&y)
                .map(|(&d, &p)| d as f64 * p)
                .sum();
            let hope = (dual / value.max(1.0) - 1e-7).ceil().max(0.0) as u64;
            if hope > tried {
                tried = hope;
                if let Some(bound) = self.prove(&y, work) {
                    if proven.is_none_or(|p| bound > p) {
                        proven = Some(bound);
                    }
                    if bound >= target {
                        return proven;
                    }
                }
            }
            if value <= 1.0 + EPS {
                return proven; // the relaxation is solved
            }
            // The new pattern enters the basis: ratio test on u = B⁻¹·a.
            let mut u = vec![0.0f64; m];
            for (i, ui) in u.iter_mut().enumerate() {
                let row = &binv[i * m..(i + 1) * m];
                *ui = pattern
                    .iter()
                    .enumerate()
                    .filter(|(_, &a)| a > 0)
                    .map(|(j, &a)| row[j] * a as f64)
                    .sum();
            }
            let Some(leave) = (0..m)
                .filter(|&i| u[i] > EPS)
                .min_by(|&a, &b| (x[a] / u[a]).total_cmp(&(x[b] / u[b])))
            else {
                return proven; // numerically stuck: keep what is proven
            };
            let theta = x[leave] / u[leave];
            for i in 0..m {
                x[i] -= theta * u[i];
            }
            x[leave] = theta;
            let pivot = u[leave];
            let leave_row: Vec<f64> = binv[leave * m..(leave + 1) * m]
                .iter()
                .map(|b| b / pivot)
                .collect();
            for i in 0..m {
                if i == leave || u[i] == 0.0 {
                    continue;
                }
                let f = u[i];
                for (b, l) in binv[i * m..(i + 1) * m].iter_mut().zip(&leave_row) {
                    *b -= f * l;
                }
            }
            binv[leave * m..(leave + 1) * m].copy_from_slice(&leave_row);
            // The patterns in the basis cover everything with Σ x bins: the relaxation is worth
            // no more, so once that is within `known` nothing new can be proved.
            let upper: f64 = x.iter().sum();
            if upper <= known as f64 + 1e-9 {
                return proven;
            }
        }
    }

    /// The exact bound from float prices `y`: integer prices, integer knapsack, integer division.
    fn prove(&self, y: &[f64], work: &mut Work) -> Option<u64> {
        if !work.spend(self.pricing_work()) {
            return None;
        }
        let w: Vec<u64> = y
            .iter()
            .map(|&p| (p.clamp(0.0, 1.0) * SCALE).floor() as u64)
            .collect();
        let most = self.knapsack_u64(&w);
        if most == 0 {
            return None;
        }
        let total: u128 = self
            .demand
            .iter()
            .zip(&w)
            .map(|(&d, &p)| u128::from(d) * u128::from(p))
            .sum();
        u64::try_from(total.div_ceil(u128::from(most))).ok()
    }

    /// The most one bin's pattern is worth at prices `y`, and that pattern (copies per size).
    fn knapsack_f64(&self, y: &[f64]) -> (f64, Vec<u64>) {
        let cap = self.cap;
        let mut best = vec![0.0f64; cap + 1];
        let words = (cap + 1).div_ceil(64);
        let mut took = vec![0u64; self.pieces.len() * words];
        for (p, &(j, k)) in self.pieces.iter().enumerate() {
            if y[j] <= 0.0 {
                continue;
            }
            let size = self.weight[j] * k as usize;
            let value = y[j] * k as f64;
            for c in (size..=cap).rev() {
                let with = best[c - size] + value;
                if with > best[c] {
                    best[c] = with;
                    took[p * words + c / 64] |= 1 << (c % 64);
                }
            }
        }
        let mut pattern = vec![0u64; self.weight.len()];
        let mut c = cap;
        for (p, &(j, k)) in self.pieces.iter().enumerate().rev() {
            if took[p * words + c / 64] & (1 << (c % 64)) != 0 {
                pattern[j] += k;
                c -= self.weight[j] * k as usize;
            }
        }
        (best[cap], pattern)
    }

    /// The most one bin's pattern is worth at integer prices `w`, exactly.
    fn knapsack_u64(&self, w: &[u64]) -> u64 {
        let cap = self.cap;
        let mut best = vec![0u64; cap + 1];
        for &(j, k) in &self.pieces {
            if w[j] == 0 {
                continue;
            }
            let size = self.weight[j] * k as usize;
            let value = w[j] * k;
            for c in (size..=cap).rev() {
                best[c] = best[c].max(best[c - size] + value);
            }
        }
        best[cap]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::bounds::dff_l2;
    use crate::pack::brute_force::optimum;
    use proptest::prelude::*;

    fn bound(sizes: &[u64], capacity: u64) -> Option<u64> {
        gilmore_gomory(
            sizes,
            capacity,
            0,
            u64::MAX,
            &mut Work { left: 100_000_000 },
        )
    }

    #[test]
    fn sees_what_the_formulas_miss() {
        // Total 193 but no pattern holds more than 91 of it once the 68 and 46 are apart: two bins
        // would need two patterns covering everything, and the relaxation finds none.
        let sizes = [68, 36, 46, 20, 23];
        assert_eq!(dff_l2(&sizes, 100, 40), 2);
        assert_eq!(optimum(&sizes, 100), 3);
        assert_eq!(bound(&sizes, 100), Some(3));
        // It stops as soon as the target is proved.
        let mut work = Work { left: 100_000_000 };
        assert!(gilmore_gomory(&sizes, 100, 0, 2, &mut work).is_some_and(|b| b >= 2));
        let early = 100_000_000 - work.left;
        let mut work = Work { left: 100_000_000 };
        gilmore_gomory(&sizes, 100, 0, 3, &mut work);
        assert!(early <= 100_000_000 - work.left);
    }

    #[test]
    fn declines_what_it_cannot_price() {
        assert_eq!(bound(&[0, 5], 10), None, "zero-sized");
        assert_eq!(bound(&[11], 10), None, "oversized");
        // Capacity 10⁹ with coprime sizes: a knapsack of 10⁹ cells per size.
        assert_eq!(bound(&[999_999_937, 3], 1_000_000_000), None);
        let many: Vec<u64> = (1..=1_001).collect();
        assert!(
            Relaxation::new(&many, 2_000).is_none(),
            "too many distinct sizes"
        );
        assert!(Relaxation::new(&many[..1_000], 2_000).is_some());
        assert_eq!(
            gilmore_gomory(&[5, 5, 5], 10, 0, u64::MAX, &mut Work { left: 0 }),
            None
        );
    }

    #[test]
    fn a_common_divisor_keeps_large_capacities_cheap() {
        // GPU shares: capacity 7.2·10⁹ units, asks of 0.35 → divisor 720,720·10² … small table.
        let one = 10_000 * 720_720u64;
        let sizes = vec![one / 100 * 35; 5];
        assert_eq!(bound(&sizes, one), Some(3));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn never_above_the_optimum(
            sizes in prop_oneof![
                prop::collection::vec(1u64..=100, 1..11),
                prop::collection::vec(20u64..=60, 1..11),
            ],
        ) {
            let lp = bound(&sizes, 100).unwrap();
            prop_assert!(lp <= optimum(&sizes, 100) as u64, "{} for {:?}", lp, sizes);
            prop_assert!(lp >= crate::pack::bounds::l1(&sizes, 100), "{} below L1 for {:?}", lp, sizes);
        }
    }
}
