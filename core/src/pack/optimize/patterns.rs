//! Items by size (the rows of the pattern formulation) and the knapsack that prices patterns.
//!
//! A *pattern* is what one bin holds, counted by size: `(type, copies)` pairs. The column
//! generation of `master` asks, at dual prices `y`, for the patterns worth most (Σ y·copies within
//! the capacity and the copies left of each size): a bounded knapsack, solved exactly by dynamic
//! programming over the capacity (each size's copies split in powers of two), with a bit per cell
//! to read the chosen patterns back. The floats here only choose columns; nothing proven rests on
//! them.

use crate::units::gcd;

/// Knapsack table cells (pieces × capacity, after dividing by the common divisor) above which
/// patterns are not priced: one pricing would cost more than a search step is worth.
pub(crate) const MAX_CELLS: u64 = 4_000_000;
/// Sizes above which the relaxation is not tried: the master's basis inverse is this squared
/// (8 MB of floats at 1,000), and each pivot passes over it.
pub(crate) const MAX_TYPES: usize = 1_000;
/// Table cells (or basis-inverse entries) per work step: a cell is one add and compare, much
/// cheaper than the search steps the budget was calibrated on.
pub(crate) const CELLS_PER_WORK: u64 = 16;

/// One bin's contents by size: `(type, copies)`, types ascending, copies ≥ 1.
pub(crate) type Pattern = Vec<(usize, u64)>;

/// The items grouped by size, largest size first, sizes and capacity divided by their common
/// divisor.
pub(crate) struct Types {
    /// The common divisor of the sizes and the capacity.
    pub(crate) unit: u64,
    /// Capacity in units of the common divisor.
    pub(crate) cap: usize,
    /// Each type's size in those units.
    pub(crate) weight: Vec<usize>,
    /// Each type's items (indices into the problem's sizes).
    pub(crate) items: Vec<Vec<usize>>,
}

impl Types {
    /// The types of `items` (each in `1..=capacity`); `None` when pricing would cost more than
    /// [`MAX_CELLS`] cells, there are more than [`MAX_TYPES`] sizes, or an item is empty or
    /// oversized.
    pub(crate) fn new(sizes: &[u64], items: &[usize], capacity: u64) -> Option<Self> {
        if !affordable(sizes, items, capacity) {
            return None;
        }
        let order = crate::pack::largest_first(items, sizes);
        let mut groups: Vec<(u64, Vec<usize>)> = Vec::new();
        for i in order {
            match groups.last_mut() {
                Some((s, members)) if *s == sizes[i] => members.push(i),
                _ => groups.push((sizes[i], vec![i])),
            }
        }
        if groups.len() > MAX_TYPES {
            return None;
        }
        let g = groups.iter().fold(capacity, |g, (s, _)| gcd(g, *s));
        let cap = capacity / g;
        let pieces: u64 = groups
            .iter()
            .map(|(s, m)| pieces_for((m.len() as u64).min(cap / (s / g))))
            .sum();
        if pieces.saturating_mul(cap + 1) > MAX_CELLS {
            return None;
        }
        Some(Types {
            unit: g,
            cap: usize::try_from(cap).ok()?,
            weight: groups.iter().map(|(s, _)| (s / g) as usize).collect(),
            items: groups.into_iter().map(|(_, m)| m).collect(),
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.weight.len()
    }

    /// How many of each type there are.
    pub(crate) fn demand(&self) -> Vec<u64> {
        self.items.iter().map(|m| m.len() as u64).collect()
    }

    /// The most copies of type `t` one bin holds.
    pub(crate) fn fit(&self, t: usize) -> u64 {
        (self.cap / self.weight[t]) as u64
    }

    /// Total size of a pattern (in units of the common divisor).
    pub(crate) fn fill(&self, pattern: &Pattern) -> usize {
        pattern
            .iter()
            .map(|&(t, k)| self.weight[t] * k as usize)
            .sum()
    }

    /// The pattern of a bin of items, if every item is one of these types.
    pub(crate) fn pattern_of(&self, type_of: &[usize], bin: &[usize]) -> Pattern {
        let mut p: Pattern = Vec::new();
        let mut types: Vec<usize> = bin.iter().map(|&i| type_of[i]).collect();
        types.sort_unstable();
        for t in types {
            match p.last_mut() {
                Some((u, k)) if *u == t => *k += 1,
                _ => p.push((t, 1)),
            }
        }
        p
    }

    /// `type_of[i]` for every item of these types (others `usize::MAX`), for `n` items in all.
    pub(crate) fn type_of(&self, n: usize) -> Vec<usize> {
        let mut out = vec![usize::MAX; n];
        for (t, members) in self.items.iter().enumerate() {
            for &i in members {
                out[i] = t;
            }
        }
        out
    }

    /// Work for one pricing with these demands.
    pub(crate) fn pricing_work(&self, demand: &[u64]) -> u64 {
        let pieces: u64 = (0..self.len())
            .map(|t| pieces_for(demand[t].min(self.fit(t))))
            .sum();
        1 + pieces.saturating_mul(self.cap as u64 + 1) / CELLS_PER_WORK
    }

    /// The patterns worth most at prices `y` within `demand`: the best (whose worth is returned)
    /// and up to `extra` more, each the best within a smaller capacity, all worth over
    /// `threshold`. Types priced at zero or below are left out.
    pub(crate) fn price(
        &self,
        y: &[f64],
        demand: &[u64],
        extra: usize,
        threshold: f64,
    ) -> (f64, Vec<Pattern>) {
        let table = Table::fill(self, y, demand);
        let best = &table.best;
        let top = best[self.cap];
        let mut found = Vec::new();
        if top > threshold {
            found.push(table.read(self, self.cap));
        }
        // Further columns: where the best worth drops as the capacity shrinks, a different
        // pattern is the best within the smaller capacity.
        let mut c = self.cap;
        while found.len() <= extra && c > 0 {
            c -= 1;
            if best[c] < best[c + 1] && best[c] > threshold {
                let p = table.read(self, c);
                if !found.contains(&p) {
                    found.push(p);
                }
            }
            if best[c] <= threshold {
                break;
            }
        }
        (top, found)
    }
}

/// The pricing knapsack's table: the most a pattern within each capacity is worth, and a bit per
/// piece and capacity where the piece was taken, to read patterns back.
struct Table {
    /// The knapsack's items: (type, copies), each type's copies split in powers of two.
    pieces: Vec<(usize, u64)>,
    best: Vec<f64>,
    took: Vec<u64>,
    /// Bit words per piece.
    words: usize,
}

impl Table {
    fn fill(types: &Types, y: &[f64], demand: &[u64]) -> Table {
        let cap = types.cap;
        let mut pieces: Vec<(usize, u64)> = Vec::new();
        for t in (0..types.len()).filter(|&t| y[t] > 0.0) {
            let mut left = demand[t].min(types.fit(t));
            let mut k = 1;
            while left > 0 {
                let take = k.min(left);
                pieces.push((t, take));
                left -= take;
                k *= 2;
            }
        }
        // Row by row into a second buffer (no loop-carried dependency, so the compiler
        // vectorises it); a bit where the new row beats the old is a piece taken.
        let mut best = vec![0.0f64; cap + 1];
        let mut next = vec![0.0f64; cap + 1];
        let words = (cap + 1).div_ceil(64);
        let mut took = vec![0u64; pieces.len() * words];
        for (p, &(t, k)) in pieces.iter().enumerate() {
            let size = types.weight[t] * k as usize;
            let value = y[t] * k as f64;
            next[..size].copy_from_slice(&best[..size]);
            for ((cell, &keep), &shifted) in next[size..]
                .iter_mut()
                .zip(&best[size..])
                .zip(&best[..=cap - size])
            {
                let with = shifted + value;
                *cell = if with > keep { with } else { keep };
            }
            let row = &mut took[p * words..(p + 1) * words];
            for (w, bits) in row.iter_mut().enumerate() {
                let (from, to) = (w * 64, (w * 64 + 64).min(cap + 1));
                for (b, (n, o)) in next[from..to].iter().zip(&best[from..to]).enumerate() {
                    *bits |= u64::from(n > o) << b;
                }
            }
            std::mem::swap(&mut best, &mut next);
        }
        Table {
            pieces,
            best,
            took,
            words,
        }
    }

    /// The pattern worth `best[c]`.
    fn read(&self, types: &Types, mut c: usize) -> Pattern {
        let mut counts: Vec<(usize, u64)> = Vec::new();
        for (p, &(t, k)) in self.pieces.iter().enumerate().rev() {
            if self.took[p * self.words + c / 64] & (1 << (c % 64)) != 0 {
                counts.push((t, k));
                c -= types.weight[t] * k as usize;
            }
        }
        counts.sort_unstable();
        let mut out: Pattern = Vec::new();
        for (t, k) in counts {
            match out.last_mut() {
                Some((u, n)) if *u == t => *n += k,
                _ => out.push((t, k)),
            }
        }
        out
    }
}

impl Types {
    /// Integer prices from float prices `y` (clamped to [0, 1], scaled by [`SCALE`], rounded
    /// down), per type, and `best[c]`: the most a pattern of size at most `c` within `demand`
    /// is worth at them, exactly (so `best[cap]` bounds every bin).
    pub(crate) fn integer_prices(&self, y: &[f64], demand: &[u64]) -> (Vec<u64>, Vec<u64>) {
        let value: Vec<u64> = y
            .iter()
            .map(|&p| (p.clamp(0.0, 1.0) * SCALE).floor() as u64)
            .collect();
        let cap = self.cap;
        let mut best = vec![0u64; cap + 1];
        for t in 0..self.len() {
            if value[t] == 0 {
                continue;
            }
            let mut left = demand[t].min(self.fit(t));
            let mut k = 1;
            while left > 0 {
                let take = k.min(left);
                let (size, worth) = (self.weight[t] * take as usize, value[t] * take);
                for c in (size..=cap).rev() {
                    best[c] = best[c].max(best[c - size] + worth);
                }
                left -= take;
                k *= 2;
            }
        }
        (value, best)
    }
}

/// Fixed-point scale of integer prices: a price of 1 (a whole bin) is 2^24.
pub(crate) const SCALE: f64 = (1u64 << 24) as f64;

/// A check in one pass, before any sorting, that rules out most instances [`Types::new`] would
/// refuse: an empty or oversized item, a capacity (after the common divisor) too fine for the
/// table, or more distinct sizes than the table affords even at one piece each. On a million
/// asks of sizes spread over a million units it stops after a handful of items, where sorting them
/// all first cost a tenth of a second.
fn affordable(sizes: &[u64], items: &[usize], capacity: u64) -> bool {
    let mut g = capacity;
    for &i in items {
        let s = sizes[i];
        if s == 0 || s > capacity {
            return false;
        }
        g = gcd(g, s);
    }
    let cap = capacity / g.max(1);
    if cap.saturating_add(1) > MAX_CELLS {
        return false;
    }
    let most = (MAX_CELLS / (cap + 1)).min(MAX_TYPES as u64) as usize;
    let mut seen: Vec<u64> = Vec::new();
    for &i in items {
        if let Err(at) = seen.binary_search(&sizes[i]) {
            if seen.len() == most {
                return false;
            }
            seen.insert(at, sizes[i]);
        }
    }
    true
}

/// Pieces a bounded knapsack splits `copies` into (powers of two).
fn pieces_for(copies: u64) -> u64 {
    u64::from(u64::BITS - copies.leading_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_sizes_and_divides_by_their_common_divisor() {
        let sizes = [40, 20, 40, 60, 20];
        let items: Vec<usize> = (0..5).collect();
        let t = Types::new(&sizes, &items, 100).unwrap();
        assert_eq!(t.cap, 5);
        assert_eq!(t.weight, [3, 2, 1]);
        assert_eq!(t.items, [vec![3], vec![0, 2], vec![1, 4]]);
        assert_eq!(t.demand(), [1, 2, 2]);
        assert_eq!(t.fit(2), 5);
        assert!(Types::new(&[0, 5], &[0, 1], 10).is_none());
        assert!(Types::new(&[999_999_937, 3], &[0, 1], 1_000_000_000).is_none());
    }

    #[test]
    fn prices_the_best_pattern_within_the_demand() {
        let sizes = [60, 50, 30, 30, 20];
        let items: Vec<usize> = (0..5).collect();
        let t = Types::new(&sizes, &items, 100).unwrap();
        // Types 60, 50, 30 (×2), 20: 50 + 30 + 20 fills the bin and is worth most, 1.05.
        let (value, found) = t.price(&[0.5, 0.6, 0.35, 0.1], &t.demand(), 0, 1.0);
        assert!((value - 1.05).abs() < 1e-12, "{value}");
        assert_eq!(found, [vec![(1, 1), (2, 1), (3, 1)]]);
        // The 30s are only two: three copies are never priced.
        let (value, _) = t.price(&[0.0, 0.0, 0.4, 0.0], &t.demand(), 0, 0.0);
        assert!((value - 0.8).abs() < 1e-12);
    }
}
