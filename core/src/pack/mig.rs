//! MIG geometry: whether a set of instances can coexist on one GPU, and at which placements.
//!
//! A GPU is a bitmap of memory slices; an instance occupies `[start, start + size)` at one of its
//! profile's valid starts, and instances may not overlap (NVML's rule, docs/hardware-facts.md §1.1). On top of that:
//! per-profile maximum counts, at most the board's compute slices in all, at most one instance with
//! media extensions, and `+me.all` only beside `-me` profiles.

use crate::catalog::{GpuModel, MigProfile, ProfileClass};

/// How many instances of each of the model's profiles a GPU holds (indexed like `model.profiles`).
pub(crate) type Counts = Vec<u8>;

/// An instance at its placement: the profile's index in `model.profiles` and its first memory slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placed {
    pub profile: usize,
    pub start: u8,
}

/// Why a set of MIG instances cannot share one GPU (the first rule it breaks, in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Violation {
    /// The model has no MIG.
    NoMig,
    /// More instances of `profile` (an index into `model.profiles`) than its maximum count.
    TooMany { profile: usize },
    /// More compute slices in all than the board has.
    Compute { total: u32 },
    /// More memory slices in all than the board has.
    Memory { total: u32 },
    /// More than one instance with media extensions (`+me`, `+me.all`).
    Media { count: u32 },
    /// A `+me.all` instance beside a profile other than `-me`.
    AllMedia,
    /// Instance `index` (of the placements checked) starts where its profile may not.
    BadStart { index: usize },
    /// Instances `a` and `b` (of the placements checked) share memory slices.
    Overlap { a: usize, b: usize },
    /// The rules above hold, but no arrangement at valid starts avoids overlap.
    NoPlacement,
}

/// The rules that depend only on how many instances of each profile there are: per-profile
/// maxima, the board's compute and memory slices, at most one instance with media extensions,
/// and `+me.all` only beside `-me` profiles.
pub(crate) fn check_counts(model: &GpuModel, counts: &[u8]) -> Result<(), Violation> {
    let geometry = model.mig.ok_or(Violation::NoMig)?;
    let profiles = model.profiles;
    let mut compute = 0u32;
    let mut memory = 0u32;
    let mut media = 0u32;
    for (i, (p, &n)) in profiles.iter().zip(counts).enumerate() {
        if n > p.max_count {
            return Err(Violation::TooMany { profile: i });
        }
        compute += u32::from(p.compute_slices) * u32::from(n);
        memory += u32::from(p.memory_slices) * u32::from(n);
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
    if compute > u32::from(geometry.compute_slices) {
        return Err(Violation::Compute { total: compute });
    }
    if memory > u32::from(geometry.memory_slices) {
        return Err(Violation::Memory { total: memory });
    }
    if media > 1 {
        return Err(Violation::Media { count: media });
    }
    if all_media && total > 1 && !only_no_me_beside {
        return Err(Violation::AllMedia);
    }
    Ok(())
}

/// Finds placements for every instance in `counts`, or `None` when no arrangement exists. Larger
/// instances are placed first and each tries its valid starts in order, backtracking, so layouts
/// that fit only in one order (3g.20gb at 4 beside two 2g.10gb) are found.
pub(crate) fn layout(model: &GpuModel, counts: &[u8]) -> Option<Vec<Placed>> {
    diagnose(model, counts).ok()
}

/// [`layout`]'s placements by start, the order a GPU's instances are listed in.
pub(crate) fn layout_by_start(model: &GpuModel, counts: &[u8]) -> Option<Vec<Placed>> {
    let mut placed = layout(model, counts)?;
    crate::sort::sort_by_key(&mut placed, |p| p.start);
    Some(placed)
}

/// Like [`layout`], but says which rule a set of instances breaks.
pub(crate) fn diagnose(model: &GpuModel, counts: &[u8]) -> Result<Vec<Placed>, Violation> {
    check_counts(model, counts)?;
    let profiles = model.profiles;
    let mut instances: Vec<usize> = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &n)| std::iter::repeat_n(i, n.into()))
        .collect();
    instances.sort_by_key(|&i| (std::cmp::Reverse(profiles[i].memory_slices), i));
    let mut placed = Vec::with_capacity(instances.len());
    if place(profiles, &instances, 0, &mut placed) {
        Ok(placed)
    } else {
        Err(Violation::NoPlacement)
    }
}

/// Checks instances at given placements against every rule: the count rules of
/// [`check_counts`], each start valid for its profile, and no two instances overlapping.
pub(crate) fn verify(model: &GpuModel, placed: &[Placed]) -> Result<(), Violation> {
    let mut counts = vec![0u8; model.profiles.len()];
    for p in placed {
        if let Some(c) = counts.get_mut(p.profile) {
            *c = c.saturating_add(1);
        }
    }
    check_counts(model, &counts)?;
    let mut masks: Vec<u16> = Vec::with_capacity(placed.len());
    for (index, p) in placed.iter().enumerate() {
        let Some(profile) = model.profiles.get(p.profile) else {
            return Err(Violation::BadStart { index });
        };
        if !profile.valid_start(p.start) {
            return Err(Violation::BadStart { index });
        }
        let mask = profile.mask_at(p.start);
        if let Some(a) = masks.iter().position(|&m| m & mask != 0) {
            return Err(Violation::Overlap { a, b: index });
        }
        masks.push(mask);
    }
    Ok(())
}

/// The starts at which profile `p` could be created next to `placed`.
pub(crate) fn starts_for(model: &GpuModel, placed: &[Placed], p: usize) -> Vec<u8> {
    let Some(profile) = model.profiles.get(p) else {
        return Vec::new();
    };
    let mut trial = placed.to_vec();
    trial.push(Placed {
        profile: p,
        start: 0,
    });
    let last = trial.len() - 1;
    profile
        .starts
        .iter()
        .copied()
        .filter(|&start| {
            trial[last].start = start;
            verify(model, &trial).is_ok()
        })
        .collect()
}

/// An order in which to create the instances of a valid layout (indices into `placed`), and
/// whether that order succeeds whatever free valid placement the driver picks at each step.
///
/// `nvidia-smi mig -cgi` and NVML's `CreateGpuInstance` choose each placement themselves, by a
/// rule NVIDIA does not document. When some order leaves room for the rest after every possible
/// choice (under the catalogue's placement rules), that order is returned with `true`. Otherwise
/// the order is largest memory footprint first (ties by planned start), with `false`: it then
/// works only if the driver picks the planned placements.
pub(crate) fn creation_order(model: &GpuModel, placed: &[Placed]) -> (Vec<usize>, bool) {
    creation_order_from(model, placed, 0)
}

/// [`creation_order`] on a GPU whose memory slices `occupied` (a bitmap) are already taken by
/// instances that stay.
pub(crate) fn creation_order_from(
    model: &GpuModel,
    placed: &[Placed],
    occupied: u16,
) -> (Vec<usize>, bool) {
    let mut largest_first: Vec<usize> = (0..placed.len()).collect();
    let size = |i: usize| {
        model
            .profiles
            .get(placed[i].profile)
            .map_or(0, |p| p.memory_slices)
    };
    largest_first.sort_by_key(|&i| (std::cmp::Reverse(size(i)), placed[i].start, i));
    // Distinct profiles, largest first, with how many instances of each remain.
    let mut kinds: Vec<(usize, u8)> = Vec::new();
    for &i in &largest_first {
        match kinds.iter_mut().find(|(p, _)| *p == placed[i].profile) {
            Some(k) => k.1 += 1,
            None => kinds.push((placed[i].profile, 1)),
        }
    }
    let mut sequence = Vec::new();
    let start = std::collections::BTreeSet::from([occupied]);
    if placed.len() <= 8 && fixed_order(model, &mut kinds, &start, &mut sequence) {
        // Map the profile sequence back onto the planned instances, in planned-start order.
        let mut taken = vec![false; placed.len()];
        let order: Vec<usize> = sequence
            .iter()
            .filter_map(|&profile| {
                let i = largest_first
                    .iter()
                    .copied()
                    .find(|&i| !taken[i] && placed[i].profile == profile)?;
                taken[i] = true;
                Some(i)
            })
            .collect();
        if order.len() == placed.len() {
            return (order, true);
        }
    }
    (largest_first, false)
}

/// Depth-first over orders of the remaining profiles (largest first): extends `sequence` with
/// an order such that every creation succeeds from every set of occupied slices (`states`) the
/// driver's choices so far can have led to.
fn fixed_order(
    model: &GpuModel,
    kinds: &mut [(usize, u8)],
    states: &std::collections::BTreeSet<u16>,
    sequence: &mut Vec<usize>,
) -> bool {
    if kinds.iter().all(|k| k.1 == 0) {
        return true;
    }
    for k in 0..kinds.len() {
        if kinds[k].1 == 0 {
            continue;
        }
        let profile = &model.profiles[kinds[k].0];
        let mut next = std::collections::BTreeSet::new();
        let every_state_has_room = states.iter().all(|&used| {
            let mut any = false;
            for &s in profile.starts {
                let mask = profile.mask_at(s);
                if used & mask == 0 {
                    next.insert(used | mask);
                    any = true;
                }
            }
            any
        });
        if !every_state_has_room {
            continue;
        }
        kinds[k].1 -= 1;
        sequence.push(kinds[k].0);
        if fixed_order(model, kinds, &next, sequence) {
            return true;
        }
        sequence.pop();
        kinds[k].1 += 1;
    }
    false
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

/// The counts of instances with these profile names (tests name instances by profile).
#[cfg(test)]
pub(crate) fn counts(model: &GpuModel, names: &[&str]) -> Counts {
    let mut c = vec![0; model.profiles.len()];
    for n in names {
        c[model.profiles.iter().position(|p| p.name == *n).unwrap()] += 1;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::find_model;

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
}
