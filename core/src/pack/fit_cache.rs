//! The sets of MIG instances a packing builds, each worked out once: which profiles could still
//! join, the set one more instance leads to, and where the instances sit.
//!
//! A million MIG asks fill hundreds of thousands of GPUs from a few dozen distinct sets of
//! instances, so a GPU being packed is just its set's id here, and placing an ask is a look-up
//! (a GPU's own counts, a map keyed by them, and the backtracking layout of every GPU had grown
//! faster than the asks: BENCHMARKS.md, MIG growth).

use super::mig::{layout, layout_by_start, Counts, Placed};
use crate::catalog::GpuModel;
use std::collections::BTreeMap;

/// Not worked out yet.
const UNKNOWN: u32 = u32::MAX;

/// One set of instances.
struct State {
    counts: Counts,
    /// Bit `i` is set when profile `i` can join.
    fits: u32,
    /// The state one more instance of profile `i` leads to, once asked.
    next: Vec<u32>,
    /// Where the instances sit (`layout`), by start, once asked.
    placed: Option<Vec<Placed>>,
}

/// The states of one model's GPUs, by id; id [`FitCache::EMPTY`] is a GPU without instances.
pub(crate) struct FitCache<'m> {
    model: &'m GpuModel,
    states: Vec<State>,
    ids: BTreeMap<Counts, u32>,
}

impl<'m> FitCache<'m> {
    /// The state of a GPU without instances.
    pub(crate) const EMPTY: u32 = 0;

    pub(crate) fn new(model: &'m GpuModel) -> Self {
        let mut cache = FitCache {
            model,
            states: Vec::new(),
            ids: BTreeMap::new(),
        };
        cache.id(vec![0; model.profiles.len()]);
        cache
    }

    /// Bit `i` is set when profile `i` can join a GPU holding `counts`.
    pub(crate) fn fits(&mut self, counts: &Counts) -> u32 {
        let id = self.id(counts.clone());
        self.states[id as usize].fits
    }

    /// Bit `i` is set when profile `i` can join a GPU in state `id`.
    pub(crate) fn fits_state(&self, id: u32) -> u32 {
        self.states[id as usize].fits
    }

    /// The state of a GPU in state `id` with one more instance of `profile`.
    pub(crate) fn add(&mut self, id: u32, profile: usize) -> u32 {
        let known = self.states[id as usize].next[profile];
        if known != UNKNOWN {
            return known;
        }
        let mut counts = self.states[id as usize].counts.clone();
        counts[profile] = counts[profile].saturating_add(1);
        let next = self.id(counts);
        self.states[id as usize].next[profile] = next;
        next
    }

    /// Where the instances of state `id` sit, by start (`None` when no arrangement exists,
    /// which the packer never builds: it only adds what [`Self::fits_state`] allows).
    pub(crate) fn placed(&mut self, id: u32) -> Option<&[Placed]> {
        let state = &mut self.states[id as usize];
        if state.placed.is_none() {
            state.placed = layout_by_start(self.model, &state.counts);
        }
        state.placed.as_deref()
    }

    fn id(&mut self, counts: Counts) -> u32 {
        if let Some(&id) = self.ids.get(&counts) {
            return id;
        }
        let profiles = self.model.profiles.len();
        let mut fits = 0;
        let mut next = counts.clone();
        for i in 0..profiles.min(32) {
            next[i] += 1;
            if layout(self.model, &next).is_some() {
                fits |= 1 << i;
            }
            next[i] -= 1;
        }
        let id = self.states.len() as u32;
        self.ids.insert(counts.clone(), id);
        self.states.push(State {
            counts,
            fits,
            next: vec![UNKNOWN; profiles],
            placed: None,
        });
        id
    }
}

#[cfg(test)]
mod tests {
    use super::super::mig::counts;
    use super::*;
    use crate::catalog::find_model;

    #[test]
    fn fit_cache_agrees_with_layout() {
        let a100 = find_model("a100-40gb").unwrap();
        let mut cache = FitCache::new(a100);
        let state = counts(a100, &["3g.20gb", "3g.20gb"]);
        let mask = cache.fits(&state);
        assert_eq!(mask, 0, "two 3g.20gb fill every memory slice");
        let state = counts(a100, &["4g.20gb"]);
        let mask = cache.fits(&state);
        let names: Vec<&str> = (0..a100.profiles.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| a100.profiles[i].name)
            .collect();
        assert_eq!(
            names,
            ["1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb"]
        );
    }

    #[test]
    fn adding_instances_reaches_the_state_of_their_counts() {
        let a100 = find_model("a100-40gb").unwrap();
        let p = |name: &str| a100.profiles.iter().position(|p| p.name == name).unwrap();
        let mut cache = FitCache::new(a100);
        let one = cache.add(FitCache::EMPTY, p("4g.20gb"));
        let two = cache.add(one, p("2g.10gb"));
        assert_eq!(
            cache.add(one, p("2g.10gb")),
            two,
            "a transition is remembered"
        );
        let two_first = cache.add(FitCache::EMPTY, p("2g.10gb"));
        let other_way = cache.add(two_first, p("4g.20gb"));
        assert_eq!(two, other_way, "the same instances are the same state");
        let expected = counts(a100, &["4g.20gb", "2g.10gb"]);
        assert_eq!(cache.fits_state(two), cache.fits(&expected));
        let mut by_start = layout(a100, &expected).unwrap();
        by_start.sort_by_key(|p| p.start);
        assert_eq!(cache.placed(two), Some(&by_start[..]));
        assert_eq!(cache.placed(FitCache::EMPTY), Some(&[][..]));
    }
}
