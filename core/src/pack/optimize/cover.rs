//! Every bin the relaxation's prices allow, then an exact cover by them: the bound settled either way where the gap is small.
//!
//! With integer prices no bin exceeds (`completion::Prices`), a packing into `k` bins leaves
//! `gap = k·most − Σ demand·price` of price room in all, and each of its bins leaves some of it
//! (`most` less what the bin's items are worth). Where the relaxation's round-up is the optimum
//! the gap is a sliver of one bin's worth, and only a few thousand patterns leave no more than
//! that: they can all be listed ([`enumerate`]), and a packing into `k` bins is then an exact cover
//! of the demands by `k` of them whose waste adds up to at most the gap ([`cover`]). The cover
//! search branches, like exact-cover search, on the size with the fewest patterns left to cover
//! it. Both are complete: a list that ran to its end and a cover search that ran to its end without
//! a packing prove that none into `k` bins exists.

use super::patterns::{Pattern, Types};
use super::{Work, MAX_DEPTH};

/// Checks of a pattern against the demands (or of a size against the room) per work step: each is
/// a few loads and compares, about a quarter of a step of the searches the budget was calibrated
/// on (at one check per step this search took several times fewer nanoseconds per step than
/// they; at one per sixteen, several times more).
const CHECKS_PER_WORK: u64 = 4;

/// The prices of the types and what they allow.
pub(crate) struct Priced<'a> {
    pub(crate) types: &'a Types,
    /// Each type's price.
    pub(crate) value: &'a [u64],
    /// `best[r]`: the most items of total size at most `r` (in units) are worth.
    pub(crate) best: &'a [u64],
    /// The most any bin is worth.
    pub(crate) most: u64,
    /// The most items a bin may hold.
    pub(crate) max_items: usize,
}

/// A pattern and the price room it leaves.
pub(crate) struct Column {
    pub(crate) pattern: Pattern,
    pub(crate) waste: u64,
}

/// Every pattern within `demand` (and the item limit) that leaves at most `gap` of price room, or
/// `None` when there are more than `limit` or the budget runs out first.
pub(crate) fn enumerate(
    priced: &Priced,
    demand: &[u64],
    gap: u64,
    limit: usize,
    work: &mut Work,
) -> Option<Vec<Column>> {
    let mut list = Lister {
        priced,
        demand,
        gap,
        limit,
        chosen: Vec::new(),
        count: 0,
        found: Vec::new(),
        work,
    };
    list.extend(0, priced.types.cap, 0).then_some(list.found)
}

struct Lister<'a, 'p, 'w> {
    priced: &'a Priced<'p>,
    demand: &'a [u64],
    gap: u64,
    limit: usize,
    chosen: Pattern,
    /// Items in `chosen`.
    count: u64,
    found: Vec<Column>,
    work: &'w mut Work,
}

impl Lister<'_, '_, '_> {
    /// Records the pattern chosen so far if it qualifies, then extends it with types from `from`
    /// on; false once the list is too long or the budget is gone.
    fn extend(&mut self, from: usize, room: usize, worth: u64) -> bool {
        let types = self.priced.types;
        // The candidates this call looks at, charged up front.
        if !self
            .work
            .spend(1 + (types.len() - from) as u64 / CHECKS_PER_WORK)
        {
            return false;
        }
        let waste = self.priced.most.saturating_sub(worth);
        if !self.chosen.is_empty() && waste <= self.gap {
            if self.found.len() == self.limit {
                return false;
            }
            self.found.push(Column {
                pattern: self.chosen.clone(),
                waste,
            });
        }
        // Sizes fall with the type index: start at the first that fits.
        let start = from + types.weight[from..].partition_point(|&w| w > room);
        let items_left = (self.priced.max_items as u64).saturating_sub(self.count);
        for t in start..types.len() {
            let (w, v) = (types.weight[t], self.priced.value[t]);
            let most_copies = self.demand[t].min((room / w) as u64).min(items_left);
            for k in 1..=most_copies {
                let (room, worth) = (room - w * k as usize, worth + v * k);
                // Even the most that fits the room left would leave too much.
                if self
                    .priced
                    .most
                    .saturating_sub(worth + self.priced.best[room])
                    > self.gap
                {
                    continue;
                }
                self.chosen.push((t, k));
                self.count += k;
                let ok = self.extend(t + 1, room, worth);
                self.count -= k;
                self.chosen.pop();
                if !ok {
                    return false;
                }
            }
        }
        true
    }
}

/// What the cover search found out.
pub(crate) enum Covered {
    /// Patterns (with repetition) that cover the demands in at most `k` bins.
    Packed(Vec<Pattern>),
    /// The search ran to its end: no packing into `k` bins uses only the listed patterns.
    Impossible,
    /// The budget ran out first.
    Unknown,
}

/// Searches for at most `bins` of `columns` (repetition allowed) covering `demand` exactly with
/// a total waste of at most `gap`.
pub(crate) fn cover(
    columns: &[Column],
    m: usize,
    demand: &[u64],
    bins: u64,
    gap: u64,
    work: &mut Work,
) -> Covered {
    // Each type's columns, least waste first (the likeliest bins first), with the copies each
    // needs; and how many of its sizes each column needs more of than are left.
    let mut by_type: Vec<Vec<(usize, u64)>> = vec![Vec::new(); m];
    for (j, c) in columns.iter().enumerate() {
        for &(t, k) in &c.pattern {
            by_type[t].push((j, k));
        }
    }
    for list in &mut by_type {
        list.sort_by_key(|&(j, _)| (columns[j].waste, j));
    }
    let short = columns
        .iter()
        .map(|c| c.pattern.iter().filter(|&&(t, k)| k > demand[t]).count())
        .collect();
    let mut search = Search {
        columns,
        by_type,
        demand: demand.to_vec(),
        short,
        from: vec![0; m],
        chosen: Vec::new(),
        work,
    };
    match search.solve(bins, gap) {
        Some(true) => Covered::Packed(
            search
                .chosen
                .iter()
                .map(|&j| columns[j].pattern.clone())
                .collect(),
        ),
        Some(false) => Covered::Impossible,
        None => Covered::Unknown,
    }
}

struct Search<'a, 'w> {
    columns: &'a [Column],
    by_type: Vec<Vec<(usize, u64)>>,
    demand: Vec<u64>,
    /// Per column, the sizes it needs more copies of than are left (kept up to date as columns
    /// are chosen and released, so that checking a column costs a load, not a pass over it).
    short: Vec<usize>,
    /// Per type, where in its list the columns chosen to cover it may start (see `solve`).
    from: Vec<usize>,
    chosen: Vec<usize>,
    work: &'w mut Work,
}

impl Search<'_, '_> {
    /// Whether column `j` fits what is left within waste `gap`.
    fn usable(&self, j: usize, gap: u64) -> bool {
        self.short[j] == 0 && self.columns[j].waste <= gap
    }

    /// Takes (`sign` true) or gives back the copies column `j` holds, keeping `short` current.
    fn apply(&mut self, j: usize, take: bool) {
        let mut scanned = 0u64;
        for &(u, k) in &self.columns[j].pattern {
            let before = self.demand[u];
            let after = if take { before - k } else { before + k };
            self.demand[u] = after;
            for &(other, need) in &self.by_type[u] {
                scanned += 1;
                match (need > before, need > after) {
                    (false, true) => self.short[other] += 1,
                    (true, false) => self.short[other] -= 1,
                    _ => {}
                }
            }
        }
        self.work.spend(scanned / CHECKS_PER_WORK);
    }

    /// The type left to cover with the fewest usable columns, and how many; `None` when all is
    /// covered.
    fn most_constrained(&mut self, gap: u64) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        let mut scanned = 0u64;
        for t in 0..self.demand.len() {
            if self.demand[t] == 0 {
                continue;
            }
            let mut count = 0;
            for &(j, _) in &self.by_type[t][self.from[t]..] {
                scanned += 1;
                if self.usable(j, gap) {
                    count += 1;
                    if best.is_some_and(|(_, n)| count >= n) {
                        break;
                    }
                }
            }
            if best.is_none_or(|(_, n)| count < n) {
                best = Some((t, count));
                if count == 0 {
                    break;
                }
            }
        }
        self.work.spend(1 + scanned / CHECKS_PER_WORK);
        best
    }

    /// Covers what is left with at most `bins` columns wasting at most `gap`; `None` when the
    /// budget ran out.
    ///
    /// A type needed several times is covered by several columns, which the search would meet in
    /// every order: branching on a type, the columns that cover it are tried in list order, and
    /// below the one at position `i` the type's later branchings start at `i` (Knuth's treatment
    /// of multiplicities in exact cover). Every packing is still met once, in the order that
    /// starts with its first column in the list.
    fn solve(&mut self, bins: u64, gap: u64) -> Option<bool> {
        if self.work.left == 0 || self.chosen.len() >= MAX_DEPTH {
            return None;
        }
        let Some((t, count)) = self.most_constrained(gap) else {
            return Some(true);
        };
        if count == 0 || bins == 0 {
            return Some(false);
        }
        let start = self.from[t];
        let options: Vec<(usize, usize)> = (start..self.by_type[t].len())
            .map(|at| (at, self.by_type[t][at].0))
            .filter(|&(_, j)| self.usable(j, gap))
            .collect();
        for (at, j) in options {
            let waste = self.columns[j].waste;
            self.apply(j, true);
            self.chosen.push(j);
            self.from[t] = at;
            let found = self.solve(bins - 1, gap - waste);
            self.from[t] = start;
            if found == Some(true) {
                return found;
            }
            self.chosen.pop();
            self.apply(j, false);
            found?;
        }
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::brute_force::optimum;
    use proptest::prelude::*;

    /// Types of `sizes` in bins of 100, and prices from `y` (one per type, cycled).
    fn setup(sizes: &[u64], y: &[f64]) -> (Types, Vec<u64>, Vec<u64>) {
        let items: Vec<usize> = (0..sizes.len()).collect();
        let types = Types::new(sizes, &items, 100).unwrap();
        let y: Vec<f64> = (0..types.len()).map(|t| y[t % y.len()]).collect();
        let (value, best) = types.integer_prices(&y, &types.demand());
        (types, value, best)
    }

    /// Every pattern within the demand, by brute force: copies of each type from 0 up.
    fn all_patterns(types: &Types, demand: &[u64]) -> Vec<Pattern> {
        let mut out = vec![Vec::new()];
        for (t, &d) in demand.iter().enumerate() {
            let mut next = Vec::new();
            for p in &out {
                for k in 0..=d {
                    let mut q: Pattern = p.clone();
                    if k > 0 {
                        q.push((t, k));
                    }
                    if types.fill(&q) <= types.cap {
                        next.push(q);
                    }
                }
            }
            out = next;
        }
        out.retain(|p| !p.is_empty());
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// The list holds exactly the patterns brute force finds within the gap, and the cover
        /// search agrees with brute force on whether a packing into `k` bins exists.
        #[test]
        fn lists_every_pattern_and_covers_exactly(
            sizes in prop::collection::vec(1u64..=100, 1..10),
            y in prop::collection::vec(0.0f64..0.7, 1..5),
            extra in 0u64..3,
            gap_bins in 0u64..3,
        ) {
            let (types, value, best) = setup(&sizes, &y);
            let most = best[types.cap];
            let demand = types.demand();
            let priced = Priced {
                types: &types,
                value: &value,
                best: &best,
                most,
                max_items: usize::MAX,
            };
            let worth: u64 = (0..types.len()).map(|t| demand[t] * value[t]).sum();
            let worth_of = |p: &Pattern| p.iter().map(|&(t, k)| value[t] * k).sum::<u64>();
            // Listing: any gap, compared with brute force.
            let gap = gap_bins * most / 2;
            let mut work = Work { left: 10_000_000 };
            let listed = enumerate(&priced, &demand, gap, usize::MAX, &mut work).unwrap();
            let mut got: Vec<Pattern> = listed.iter().map(|c| c.pattern.clone()).collect();
            got.sort();
            let mut want: Vec<Pattern> = all_patterns(&types, &demand)
                .into_iter()
                .filter(|p| most - worth_of(p) <= gap)
                .collect();
            want.sort();
            prop_assert_eq!(got, want);
            // Covering: with the gap a packing into k bins allows.
            let best_bins = optimum(&sizes, 100) as u64;
            let k = (best_bins + extra).saturating_sub(1);
            let Some(gap) = (k * most).checked_sub(worth) else {
                prop_assert!(k < best_bins, "the prices' bound above the optimum");
                return Ok(());
            };
            let listed = enumerate(&priced, &demand, gap, usize::MAX, &mut work).unwrap();
            match cover(&listed, types.len(), &demand, k, gap, &mut work) {
                Covered::Packed(patterns) => {
                    prop_assert!(k >= best_bins);
                    prop_assert!(patterns.len() as u64 <= k);
                    let mut covered = vec![0u64; types.len()];
                    for p in &patterns {
                        prop_assert!(types.fill(p) <= types.cap);
                        for &(t, c) in p {
                            covered[t] += c;
                        }
                    }
                    prop_assert_eq!(covered, demand);
                }
                Covered::Impossible => prop_assert!(k < best_bins, "k {} optimum {}", k, best_bins),
                Covered::Unknown => prop_assert!(false, "budget ran out"),
            }
        }
    }

    #[test]
    fn an_item_limit_keeps_patterns_short() {
        let (types, value, best) = setup(&[10, 10, 10, 10], &[0.1]);
        let demand = types.demand();
        let priced = Priced {
            types: &types,
            value: &value,
            best: &best,
            most: best[types.cap],
            max_items: 2,
        };
        let listed = enumerate(
            &priced,
            &demand,
            u64::MAX,
            usize::MAX,
            &mut Work { left: 1_000 },
        );
        let lens: Vec<u64> = listed.unwrap().iter().map(|c| c.pattern[0].1).collect();
        assert_eq!(lens, [1, 2]);
        // A list longer than the limit, or no budget: no list.
        let mut work = Work { left: 1_000 };
        assert!(enumerate(&priced, &demand, u64::MAX, 1, &mut work).is_none());
        assert!(enumerate(&priced, &demand, u64::MAX, 10, &mut Work { left: 0 }).is_none());
    }
}
