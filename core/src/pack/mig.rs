//! MIG geometry: whether a set of instances can coexist on one GPU, and at which placements.
//!
//! A GPU is a bitmap of memory slices; an instance occupies `[start, start + size)` at one of its
//! profile's valid starts, and instances may not overlap (NVML's rule, facts §1.1). On top of that:
//! per-profile maximum counts, at most the board's compute slices in all, at most one instance with
//! media extensions, and `+me.all` only beside `-me` profiles.

use crate::catalog::{GpuModel, MigProfile, ProfileClass};
use std::collections::BTreeMap;

/// How many instances of each of the model's profiles a GPU holds (indexed like `model.profiles`).
pub(crate) type Counts = Vec<u8>;

/// An instance at its placement: the profile's index in `model.profiles` and its first memory slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placed {
    pub profile: usize,
    pub start: u8,
}

/// Finds placements for every instance in `counts`, or `None` when no arrangement exists. Larger
/// instances are placed first and each tries its valid starts in order, backtracking, so layouts
/// that fit only in one order (3g.20gb at 4 beside two 2g.10gb) are found.
pub(crate) fn layout(model: &GpuModel, counts: &[u8]) -> Option<Vec<Placed>> {
    let geometry = model.mig?;
    let profiles = model.profiles;
    let mut compute = 0u32;
    let mut media = 0u32;
    for (p, &n) in profiles.iter().zip(counts) {
        if n > p.max_count {
            return None;
        }
        compute += u32::from(p.compute_slices) * u32::from(n);
        if matches!(
            p.class,
            ProfileClass::MediaExtensions | ProfileClass::AllMediaEngines
        ) {
            media += u32::from(n);
        }
    }
    let total: u32 = counts.iter().map(|&n| u32::from(n)).sum();
    let all_media = profiles
        .iter()
        .zip(counts)
        .any(|(p, &n)| n > 0 && p.class == ProfileClass::AllMediaEngines);
    let only_no_me_beside = profiles.iter().zip(counts).all(|(p, &n)| {
        n == 0
            || matches!(
                p.class,
                ProfileClass::AllMediaEngines | ProfileClass::NoMediaEngines
            )
    });
    if compute > u32::from(geometry.compute_slices)
        || media > 1
        || (all_media && (total > 1 && !only_no_me_beside))
    {
        return None;
    }
    let mut instances: Vec<usize> = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &n)| std::iter::repeat_n(i, n.into()))
        .collect();
    instances.sort_by_key(|&i| (std::cmp::Reverse(profiles[i].memory_slices), i));
    let mut placed = Vec::with_capacity(instances.len());
    place(profiles, &instances, 0, &mut placed).then_some(placed)
}

fn place(
    profiles: &[MigProfile],
    instances: &[usize],
    used: u16,
    placed: &mut Vec<Placed>,
) -> bool {
    let Some((&first, rest)) = instances.split_first() else {
        return true;
    };
    let p = &profiles[first];
    // Identical instances take increasing starts: the same layout is not tried in every order.
    let after = match placed.last() {
        Some(last) if last.profile == first => Some(last.start),
        _ => None,
    };
    for &start in p.starts {
        if after.is_some_and(|a| start <= a) {
            continue;
        }
        let mask = p.mask_at(start);
        if used & mask == 0 {
            placed.push(Placed {
                profile: first,
                start,
            });
            if place(profiles, rest, used | mask, placed) {
                return true;
            }
            placed.pop();
        }
    }
    false
}

/// Remembers, per set of instances, which profiles could still be added: the packer asks the same
/// question for many GPUs in the same state.
pub(crate) struct FitCache<'m> {
    model: &'m GpuModel,
    fits: BTreeMap<Counts, u32>,
}

impl<'m> FitCache<'m> {
    pub(crate) fn new(model: &'m GpuModel) -> Self {
        FitCache {
            model,
            fits: BTreeMap::new(),
        }
    }

    /// Bit `i` is set when profile `i` can join a GPU holding `counts`.
    pub(crate) fn fits(&mut self, counts: &Counts) -> u32 {
        if let Some(&mask) = self.fits.get(counts) {
            return mask;
        }
        let mut mask = 0;
        let mut next = counts.clone();
        for i in 0..self.model.profiles.len().min(32) {
            next[i] += 1;
            if layout(self.model, &next).is_some() {
                mask |= 1 << i;
            }
            next[i] -= 1;
        }
        self.fits.insert(counts.clone(), mask);
        mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::find_model;

    fn counts(model: &GpuModel, names: &[&str]) -> Counts {
        let mut c = vec![0; model.profiles.len()];
        for n in names {
            c[model.profiles.iter().position(|p| p.name == *n).unwrap()] += 1;
        }
        c
    }

    #[test]
    fn order_dependent_layout_is_found() {
        let a100 = find_model("a100-40gb").unwrap();
        let placed = layout(a100, &counts(a100, &["3g.20gb", "2g.10gb", "2g.10gb"])).unwrap();
        let three = placed
            .iter()
            .find(|p| a100.profiles[p.profile].name == "3g.20gb")
            .unwrap();
        assert_eq!(three.start, 4);
    }

    #[test]
    fn sums_under_seven_can_still_be_impossible() {
        let a100 = find_model("a100-40gb").unwrap();
        // 3 + 3 = 6 compute slices, but two 3g need starts 0 and 4, and 4g.20gb needs 0 too.
        assert!(layout(a100, &counts(a100, &["4g.20gb", "3g.20gb"])).is_some());
        assert!(layout(a100, &counts(a100, &["3g.20gb", "3g.20gb", "1g.5gb"])).is_none());
        // Three 2g.10gb (6 compute slices) leave slice 6 for one 1g.5gb, not two.
        assert!(layout(
            a100,
            &counts(a100, &["2g.10gb", "2g.10gb", "2g.10gb", "1g.5gb"])
        )
        .is_some());
        assert!(layout(
            a100,
            &counts(a100, &["2g.10gb", "2g.10gb", "2g.10gb", "1g.5gb", "1g.5gb"])
        )
        .is_none());
        // Four 1g.10gb use all eight memory slices.
        assert!(layout(a100, &counts(a100, &["1g.10gb"; 4])).is_some());
        assert!(layout(
            a100,
            &counts(
                a100,
                &["1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.5gb"]
            )
        )
        .is_none());
        assert!(layout(a100, &counts(a100, &["1g.5gb"; 7])).is_some());
        assert!(layout(a100, &counts(a100, &["1g.5gb"; 8])).is_none());
        assert!(layout(a100, &counts(a100, &["1g.5gb+me", "1g.5gb+me"])).is_none());
    }

    #[test]
    fn placements_never_overlap_and_use_valid_starts() {
        let a100 = find_model("a100-40gb").unwrap();
        let placed = layout(
            a100,
            &counts(a100, &["1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"]),
        )
        .unwrap();
        let mut used = 0u16;
        for p in &placed {
            let prof = &a100.profiles[p.profile];
            assert!(prof.valid_start(p.start));
            assert_eq!(used & prof.mask_at(p.start), 0);
            used |= prof.mask_at(p.start);
        }
    }

    #[test]
    fn all_media_engines_only_beside_no_media_profiles() {
        let rtx = find_model("rtx-pro-6000").unwrap();
        assert!(layout(rtx, &counts(rtx, &["2g.48gb+me.all", "1g.24gb-me"])).is_some());
        assert!(layout(rtx, &counts(rtx, &["2g.48gb+me.all", "1g.24gb"])).is_none());
    }

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
}
