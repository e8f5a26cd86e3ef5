//! Billing tenants who shared one GPU: never more than the GPU.
//!
//! A MIG instance denies others the larger of its compute and memory shares, so each is billed
//! that share — but those shares can add up to more than the GPU (3g.20gb + 2g.10gb + 2g.10gb on
//! an A100-40GB is 0.5 + 0.29 + 0.29 = 1.07). The rule, applied to each moment a GPU is shared:
//! tenants are billed their shares while those add up to at most one GPU and the layout still has
//! room for another instance; otherwise the GPU is billed exactly once, split among the tenants in
//! proportion to what each denies the others. Split exactly: every unit goes to someone (largest
//! remainder), so a full GPU bills exactly one GPU-hour per hour.
//!
//! Who shared a GPU is known from records made by a packing (`api::record_pack`): they carry the
//! plan, the GPU and, for MIG, the instance's placement. Records without a GPU are billed alone.

use super::{GpuHours, Usage};
use crate::catalog::{self, GpuModel};
use crate::pack::fit_cache::FitCache;
use crate::plan::Mechanism;
use crate::units::UNITS_PER_GPU;
use std::collections::BTreeMap;

/// What one GPU cost while shared: billed to tenants, and left over (free, billed to nobody).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct SharedGpu {
    /// The packing the tenants were recorded from.
    pub plan: String,
    pub gpu: u64,
    pub tenants: Vec<String>,
    pub billed_gpu_hours: GpuHours,
    /// GPU time while shared that no tenant was billed for: free capacity.
    pub idle_gpu_hours: GpuHours,
}

/// Settles each usage's allocated GPU-hours by the rule above and returns the shared GPUs.
pub(crate) fn bill(usages: &mut [Usage]) -> Vec<SharedGpu> {
    for u in usages.iter_mut() {
        u.allocated = super::fractional_gpu_hours(u.record.allocated_fraction, u.seconds);
    }
    let mut groups: BTreeMap<(&str, u64), Vec<usize>> = BTreeMap::new();
    for (i, u) in usages.iter().enumerate() {
        if let (Some(at), false) = (&u.record.gpu, u.record.mechanism == Mechanism::Whole) {
            groups
                .entry((at.plan.as_str(), at.index))
                .or_default()
                .push(i);
        }
    }
    let groups: Vec<((String, u64), Vec<usize>)> = groups
        .into_iter()
        .map(|((p, g), m)| ((p.to_string(), g), m))
        .collect();
    groups
        .into_iter()
        .map(|((plan, gpu), members)| bill_gpu(usages, plan, gpu, &members))
        .collect()
}

fn bill_gpu(usages: &mut [Usage], plan: String, gpu: u64, members: &[usize]) -> SharedGpu {
    let span = |i: usize| {
        let start = i128::from(usages[i].record.started_at);
        (start, start + i128::from(usages[i].seconds))
    };
    let mut times: Vec<i128> = members
        .iter()
        .flat_map(|&i| [span(i).0, span(i).1])
        .collect();
    times.sort_unstable();
    times.dedup();
    let model = usages[members[0]]
        .record
        .gpu_model
        .as_deref()
        .and_then(catalog::find_model);
    let mut fits = model.filter(|m| m.is_mig_capable()).map(FitCache::new);
    let mut billed = vec![0u128; members.len()];
    let mut idle = 0u128;
    for w in times.windows(2) {
        let (t0, t1) = (w[0], w[1]);
        let len = u128::try_from(t1 - t0).unwrap_or(0);
        let active: Vec<usize> = (0..members.len())
            .filter(|&k| span(members[k]).0 <= t0 && t0 < span(members[k]).1)
            .collect();
        if active.is_empty() {
            continue;
        }
        let shares: Vec<u128> = active
            .iter()
            .map(|&k| u128::from(usages[members[k]].record.allocated_fraction.units()))
            .collect();
        let sum: u128 = shares.iter().sum();
        let gpu_units = u128::from(UNITS_PER_GPU);
        let full = match (&mut fits, model) {
            (Some(cache), Some(m)) => {
                is_full(cache, m, active.iter().map(|&k| &usages[members[k]]))
            }
            _ => false,
        };
        let total = if full || sum > gpu_units {
            gpu_units
        } else {
            sum
        };
        for (k, part) in active.iter().zip(split(total * len, &shares)) {
            billed[*k] += part;
        }
        idle += (gpu_units - total) * len;
    }
    for (k, &i) in members.iter().enumerate() {
        usages[i].allocated = GpuHours(billed[k]);
    }
    SharedGpu {
        plan,
        gpu,
        tenants: members
            .iter()
            .map(|&i| usages[i].record.ask.clone())
            .collect(),
        billed_gpu_hours: GpuHours(billed.iter().sum()),
        idle_gpu_hours: GpuHours(idle),
    }
}

/// Whether no further instance of any profile fits beside these MIG instances.
fn is_full<'a>(
    cache: &mut FitCache<'_>,
    model: &GpuModel,
    tenants: impl Iterator<Item = &'a Usage>,
) -> bool {
    let mut counts = vec![0u8; model.profiles.len()];
    for u in tenants {
        let Some(p) = u
            .record
            .mig_profile
            .as_deref()
            .and_then(|name| model.profiles.iter().position(|p| p.name == name))
        else {
            return false;
        };
        counts[p] = counts[p].saturating_add(1);
    }
    cache.fits(&counts) == 0
}

/// `total` split in proportion to `weights`, exactly: floors first, then one unit more to the
/// largest remainders (earlier first on ties).
fn split(total: u128, weights: &[u128]) -> Vec<u128> {
    let sum: u128 = weights.iter().sum();
    if sum == 0 {
        return vec![0; weights.len()];
    }
    let mut parts: Vec<u128> = weights.iter().map(|w| total * w / sum).collect();
    let mut left = total - parts.iter().sum::<u128>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    crate::sort::sort_by_key(&mut order, |&i| std::cmp::Reverse(total * weights[i] % sum));
    for i in order {
        if left == 0 {
            break;
        }
        parts[i] += 1;
        left -= 1;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_are_exact() {
        assert_eq!(split(10, &[1, 1, 1]), [4, 3, 3]);
        assert_eq!(split(7, &[0, 0]), [0, 0]);
        assert_eq!(split(100, &[50, 25, 25]), [50, 25, 25]);
        let parts = split(1_000_003, &[3, 7, 11, 13]);
        assert_eq!(parts.iter().sum::<u128>(), 1_000_003);
    }
}
