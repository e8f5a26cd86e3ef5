//! What still fits on one MIG GPU as it is: the profiles that can be created now and at which
//! starts, the memory slices free, and those stranded — free, but inside no placement that could
//! still be created. Nothing here moves an existing instance.
//!
//! Every candidate is checked with the packer's own rules (`pack::mig::verify`: valid starts, no
//! overlap, per-profile maxima, compute slices, media engines; docs/hardware-facts.md §1.1–1.2).

use crate::catalog::GpuModel;
use crate::pack::mig::{starts_for, Placed};

/// A GPU's instances at their placements, on its catalogue model.
#[derive(Clone, Debug)]
pub(crate) struct LiveGpu {
    pub model: &'static GpuModel,
    pub placed: Vec<Placed>,
}

impl LiveGpu {
    /// The starts at which an instance of profile `p` (an index into the model's profiles) can be
    /// created now, lowest first.
    pub fn starts_for(&self, p: usize) -> Vec<u8> {
        starts_for(self.model, &self.placed, p)
    }

    /// The memory slices in use, as a bitmap.
    pub fn used_mask(&self) -> u16 {
        self.placed
            .iter()
            .filter_map(|p| Some(self.model.profiles.get(p.profile)?.mask_at(p.start)))
            .fold(0, |a, m| a | m)
    }

    pub fn memory_slices(&self) -> u8 {
        self.model.mig.map_or(0, |g| g.memory_slices)
    }

    pub fn free_compute_slices(&self) -> u8 {
        let used: u32 = self
            .placed
            .iter()
            .filter_map(|p| self.model.profiles.get(p.profile))
            .map(|p| u32::from(p.compute_slices))
            .sum();
        let total = self.model.mig.map_or(0, |g| u32::from(g.compute_slices));
        total.saturating_sub(used) as u8
    }

    /// Free memory slices that no creatable placement of the profiles in `considered` covers.
    pub fn stranded(&self, considered: &[usize]) -> Vec<u8> {
        let mut usable = 0u16;
        for &p in considered {
            for start in self.starts_for(p) {
                usable |= self.model.profiles[p].mask_at(start);
            }
        }
        let used = self.used_mask();
        (0..self.memory_slices())
            .filter(|&s| (used | usable) & (1 << s) == 0)
            .collect()
    }

    /// How many placements of the profiles in `considered` could still be created: the room a
    /// choice of start leaves for what comes next.
    pub fn room(&self, considered: &[usize]) -> usize {
        considered.iter().map(|&p| self.starts_for(p).len()).sum()
    }

    /// The start for a new instance of `p` that leaves the most room for `considered` (lowest
    /// start on a tie), or `None` when none can be created.
    pub fn best_start(&self, p: usize, considered: &[usize]) -> Option<u8> {
        let mut best: Option<(usize, u8)> = None;
        for start in self.starts_for(p) {
            let mut after = self.clone();
            after.placed.push(Placed { profile: p, start });
            let room = after.room(considered);
            if best.is_none_or(|(r, _)| room > r) {
                best = Some((room, start));
            }
        }
        best.map(|(_, start)| start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::find_model;
    use crate::pack::mig::verify;
    use proptest::prelude::*;

    fn gpu(model: &str, instances: &[(&str, u8)]) -> LiveGpu {
        let model = find_model(model).unwrap();
        let placed = instances
            .iter()
            .map(|(name, start)| Placed {
                profile: model.profiles.iter().position(|p| p.name == *name).unwrap(),
                start: *start,
            })
            .collect();
        LiveGpu { model, placed }
    }

    fn index(g: &LiveGpu, name: &str) -> usize {
        g.model
            .profiles
            .iter()
            .position(|p| p.name == name)
            .unwrap()
    }

    #[test]
    fn three_small_instances_strand_a_3g() {
        // kubernetes-sigs/dra-driver-nvidia-gpu#933 (real `nvidia-smi mig -lgi`): 1g.10gb at 0, 1
        // and 5 on an 8-slice board leave five slices free; a 3g.40gb starts only at 0 or 4
        // (NVML placements {0,4}:4, docs/hardware-facts.md §1.2), and both overlap.
        let g = gpu(
            "A100-SXM4-80GB",
            &[("1g.10gb", 0), ("1g.10gb", 1), ("1g.10gb", 5)],
        );
        let three = index(&g, "3g.40gb");
        assert!(g.starts_for(three).is_empty());
        assert_eq!(g.stranded(&[three]), vec![2, 3, 4, 6, 7]);
        let two = index(&g, "2g.20gb");
        // 2g.20gb starts only at 0, 2 or 4 ({0,2,4}:2, §1.2).
        assert_eq!(g.starts_for(two), vec![2]);
        assert_eq!(g.stranded(&[two]), vec![4, 6, 7]);
    }

    #[test]
    fn compute_runs_out_before_memory() {
        // Seven 1g.5gb use all seven compute slices of an A100-40GB: the eighth memory slice is free
        // but nothing can be created in it.
        let starts: Vec<(&str, u8)> = (0..7).map(|s| ("1g.5gb", s)).collect();
        let g = gpu("A100-SXM4-40GB", &starts);
        assert_eq!(g.free_compute_slices(), 0);
        let all: Vec<usize> = (0..g.model.profiles.len()).collect();
        assert_eq!(g.stranded(&all), vec![7]);
    }

    #[test]
    fn the_start_chosen_leaves_room() {
        // On an empty A100-40GB a 4g.20gb starts only at 0 and spans slices 0–3 (§1.2), so a 1g.5gb
        // at 0–3 would block it: the first start that keeps it open is 4.
        let g = gpu("A100-SXM4-40GB", &[]);
        let one = index(&g, "1g.5gb");
        let four = index(&g, "4g.20gb");
        assert_eq!(g.starts_for(one), vec![0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(g.best_start(one, &[one, four]), Some(4));
        assert_eq!(g.best_start(one, &[one]), Some(0));
        let full = gpu("A100-SXM4-40GB", &[("7g.40gb", 0)]);
        assert_eq!(full.best_start(one, &[one]), None);
    }

    proptest! {
        /// Against brute force: a start is reported exactly when adding the instance there keeps
        /// every rule, and a stranded slice is free and covered by no such placement.
        #[test]
        fn starts_and_stranded_agree_with_brute_force(
            picks in prop::collection::vec((0usize..16, 0u8..8), 0..7),
        ) {
            let model = find_model("A100-SXM4-40GB").unwrap();
            let mut g = LiveGpu { model, placed: Vec::new() };
            for (p, s) in picks {
                let p = p % model.profiles.len();
                let mut trial = g.placed.clone();
                trial.push(Placed { profile: p, start: s });
                if verify(model, &trial).is_ok() {
                    g.placed = trial;
                }
            }
            let mut usable = 0u16;
            for p in 0..model.profiles.len() {
                let starts = g.starts_for(p);
                for s in 0..8u8 {
                    let mut trial = g.placed.clone();
                    trial.push(Placed { profile: p, start: s });
                    let ok = verify(model, &trial).is_ok();
                    prop_assert_eq!(ok, starts.contains(&s), "{} at {}", model.profiles[p].name, s);
                    if ok {
                        usable |= model.profiles[p].mask_at(s);
                    }
                }
            }
            let all: Vec<usize> = (0..model.profiles.len()).collect();
            for s in g.stranded(&all) {
                prop_assert_eq!(g.used_mask() & (1 << s), 0);
                prop_assert_eq!(usable & (1 << s), 0);
            }
        }
    }
}
