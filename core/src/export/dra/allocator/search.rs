//! The scheduler's structured allocator on one node, re-written for the simulation: an exhaustive search that takes the first full solution.
//!
//! As kubernetes `staging/src/k8s.io/dynamic-resource-allocation/structured/internal/stable/
//! allocator_stable.go` does (docs/hardware-facts.md §13): a claim's requests in order, each
//! device of a request in turn; for each, the pool's slices and their devices in order, skipping
//! devices in use, those the class or the request's selectors reject, those whose counters the
//! pool no longer has, and those that break a `matchAttribute` constraint; backtracking when a
//! later request finds nothing, and stopping at the first complete allocation. No scoring.

use super::{Candidate, NodeView};
use crate::discover::resource_slice::{SliceDevice, NVIDIA_DRIVER};
use crate::export::dra::claims::{DraClaim, DraRequest};
use crate::export::dra::manifests::PARENT_UUID;
use std::collections::{BTreeMap, BTreeSet};

/// Steps the search may take for one claim on one node (the scheduler bounds its own by time).
pub(super) const STEP_BUDGET: u64 = 2_000_000;

/// Why a claim found no devices on a node.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Miss {
    NoSolution,
    OverBudget,
}

/// Whether `device` is in `request`'s class and passes its selectors (the CEL the export writes,
/// evaluated natively; the tests evaluate the CEL itself against the same devices).
pub(super) fn selects(request: &DraRequest, device: &SliceDevice, driver: &str) -> bool {
    if driver != NVIDIA_DRIVER || device.nvidia("type") != Some(request.class.device_type()) {
        return false;
    }
    if let Some(p) = &request.profile {
        if device.nvidia("profile") != Some(p.as_str()) {
            return false;
        }
    }
    request.product_names.is_empty()
        || device
            .nvidia("productName")
            .is_some_and(|n| request.product_names.iter().any(|p| p == n))
}

/// The search state of one claim on one node.
struct Search<'a> {
    claim: &'a DraClaim,
    node: &'a NodeView<'a>,
    in_use: &'a BTreeSet<usize>,
    /// Counters left per (counter set) before this claim.
    counters: BTreeMap<&'a str, BTreeMap<&'a str, u128>>,
    chosen: Vec<(usize, usize)>,
    taken: BTreeSet<usize>,
    parent: Option<&'a str>,
    parent_holders: usize,
    steps: u64,
}

/// The devices (candidate indices, with the request each is for) the allocator would give
/// `claim` on `node`, given the devices already `in_use` and the counters `left`.
pub(super) fn allocate(
    claim: &DraClaim,
    node: &NodeView,
    in_use: &BTreeSet<usize>,
    left: &BTreeMap<String, BTreeMap<String, u128>>,
) -> Result<Vec<(usize, usize)>, Miss> {
    let counters = left
        .iter()
        .map(|(set, c)| {
            (
                set.as_str(),
                c.iter().map(|(k, v)| (k.as_str(), *v)).collect(),
            )
        })
        .collect();
    let mut s = Search {
        claim,
        node,
        in_use,
        counters,
        chosen: Vec::new(),
        taken: BTreeSet::new(),
        parent: None,
        parent_holders: 0,
        steps: 0,
    };
    match s.next(0, 0) {
        Ok(true) => Ok(s.chosen),
        Ok(false) => Err(Miss::NoSolution),
        Err(miss) => Err(miss),
    }
}

impl<'a> Search<'a> {
    /// Allocates device `k` of request `r` and everything after it.
    fn next(&mut self, r: usize, k: u32) -> Result<bool, Miss> {
        let Some(request) = self.claim.requests.get(r) else {
            return Ok(true);
        };
        if k >= request.count {
            return self.next(r + 1, 0);
        }
        for &i in &self.node.order {
            self.steps += 1;
            if self.steps > STEP_BUDGET {
                return Err(Miss::OverBudget);
            }
            if self.in_use.contains(&i) || self.taken.contains(&i) {
                continue;
            }
            let c: &Candidate = &self.node.candidates[i];
            if !selects(request, c.device, c.driver) || !self.counters_allow(c) {
                continue;
            }
            let parent = c.device.string(PARENT_UUID);
            if self.claim.same_gpu && !self.parent_allows(parent) {
                continue;
            }
            self.take(i, r, parent);
            if self.next(r, k + 1)? {
                return Ok(true);
            }
            self.give_back(i, parent);
        }
        Ok(false)
    }

    /// `matchAttribute: gpu.nvidia.com/parentUUID`: a device without it never matches; the
    /// first device sets the value the others must have.
    fn parent_allows(&self, parent: Option<&str>) -> bool {
        match (parent, self.parent) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(p), Some(q)) => p == q,
        }
    }

    fn counters_allow(&self, c: &Candidate) -> bool {
        c.device.consumes.iter().all(|u| {
            let Some(left) = self.counters.get(u.counter_set.as_str()) else {
                return false;
            };
            u.counters
                .iter()
                .all(|(name, need)| left.get(name.as_str()).is_some_and(|have| have >= need))
        })
    }

    fn take(&mut self, i: usize, r: usize, parent: Option<&'a str>) {
        let c: &'a Candidate = &self.node.candidates[i];
        for u in &c.device.consumes {
            if let Some(left) = self.counters.get_mut(u.counter_set.as_str()) {
                for (name, need) in &u.counters {
                    if let Some(have) = left.get_mut(name.as_str()) {
                        *have -= need;
                    }
                }
            }
        }
        self.taken.insert(i);
        self.chosen.push((i, r));
        if self.claim.same_gpu {
            self.parent_holders += 1;
            self.parent = self.parent.or(parent);
        }
    }

    fn give_back(&mut self, i: usize, _parent: Option<&'a str>) {
        let c: &'a Candidate = &self.node.candidates[i];
        for u in &c.device.consumes {
            if let Some(left) = self.counters.get_mut(u.counter_set.as_str()) {
                for (name, need) in &u.counters {
                    if let Some(have) = left.get_mut(name.as_str()) {
                        *have += need;
                    }
                }
            }
        }
        self.taken.remove(&i);
        self.chosen.pop();
        if self.claim.same_gpu {
            self.parent_holders -= 1;
            if self.parent_holders == 0 {
                self.parent = None;
            }
        }
    }
}
