//! Layout maths of the packing diagram: each GPU lane as segments placed in fractions of the lane's width.

use gpu_share_core::pack::{GpuLayout, MigInstance, PackResult, SharedSlot, Tenants};
use gpu_share_core::{find_model, Mechanism, Share};

/// Height of one lane (label line plus bar), in pixels.
pub const LANE_HEIGHT: u32 = 44;
/// Top of the bar inside a lane.
pub const BAR_TOP: u32 = 18;
/// Height of the bar.
pub const BAR_HEIGHT: u32 = 22;

/// One block of a lane: an ask's share or MIG instance, or free room.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// The ask this block belongs to; `None` for free room.
    pub ask: Option<String>,
    /// Left edge as a percentage of the lane's width, as SVG attribute text (`"37.5%"`).
    pub x: String,
    /// Width as a percentage of the lane's width.
    pub width: String,
    /// Short visible label.
    pub label: String,
    /// Tooltip with the details.
    pub tooltip: String,
}

/// One GPU of the diagram.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lane {
    pub index: u64,
    pub mechanism: Mechanism,
    /// The line above the bar: `GPU 0 · mig · 7 of 8 memory slices`.
    pub title: String,
    /// MIG lanes: the number of memory slices, for the slice grid.
    pub slices: Option<u8>,
    pub segments: Vec<Segment>,
}

/// A fraction (0–1) of the lane as SVG percentage text, at most four decimals.
pub fn percent(fraction: f64) -> String {
    let p = (fraction.clamp(0.0, 1.0) * 100.0 * 10_000.0).round() / 10_000.0;
    format!("{p}%")
}

/// The lanes of a packing, in GPU order.
pub fn lanes(pack: &PackResult) -> Vec<Lane> {
    let slices = pack
        .gpu_model
        .as_deref()
        .and_then(find_model)
        .and_then(|m| m.mig)
        .map_or(8, |g| g.memory_slices);
    pack.gpus.iter().map(|gpu| lane(gpu, slices)).collect()
}

fn lane(gpu: &GpuLayout, slices: u8) -> Lane {
    match gpu.tenants() {
        Tenants::Mig(instances) => mig_lane(gpu, instances, slices),
        Tenants::Mps(slots) | Tenants::Timeslice(slots) => shared_lane(gpu, slots),
        Tenants::Whole(ask) => shared_lane(
            gpu,
            &[SharedSlot {
                ask: ask.clone(),
                share: Share::ONE,
            }],
        ),
    }
}

/// Memory-slice map: every instance at its real start and width, the free runs between them.
fn mig_lane(gpu: &GpuLayout, instances: &[MigInstance], slices: u8) -> Lane {
    let n = f64::from(slices.max(1));
    let mut used = vec![false; usize::from(slices)];
    let mut segments = Vec::new();
    for inst in instances {
        let end = inst.start.saturating_add(inst.memory_slices).min(slices);
        for s in inst.start..end {
            used[usize::from(s)] = true;
        }
        let last = end.saturating_sub(1);
        segments.push(Segment {
            ask: Some(inst.ask.clone()),
            x: percent(f64::from(inst.start) / n),
            width: percent(f64::from(end - inst.start.min(end)) / n),
            label: format!("{} {}", inst.ask, inst.profile),
            tooltip: format!(
                "{} — MIG {} on GPU {}: memory slices {}–{} of {slices}, {} compute slices",
                inst.ask, inst.profile, gpu.index, inst.start, last, inst.compute_slices
            ),
        });
    }
    let free = free_runs(&used);
    let free_count: usize = free.iter().map(|(_, len)| usize::from(*len)).sum();
    for (start, len) in free {
        let last = start + len - 1;
        let which = if len == 1 {
            format!("slice {start}")
        } else {
            format!("slices {start}–{last}")
        };
        segments.push(Segment {
            ask: None,
            x: percent(f64::from(start) / n),
            width: percent(f64::from(len) / n),
            label: "free".into(),
            tooltip: format!("GPU {}: memory {which} free", gpu.index),
        });
    }
    let taken = usize::from(slices) - free_count;
    Lane {
        index: gpu.index,
        mechanism: Mechanism::Mig,
        title: format!(
            "GPU {}{} · mig · {taken} of {slices} memory slices used",
            gpu.index,
            on_node(gpu)
        ),
        slices: Some(slices),
        segments,
    }
}

/// Runs of free slices as `(start, length)`.
pub fn free_runs(used: &[bool]) -> Vec<(u8, u8)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, &u) in used.iter().chain(std::iter::once(&true)).enumerate() {
        match (u, start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                runs.push((s as u8, (i - s) as u8));
                start = None;
            }
            _ => {}
        }
    }
    runs
}

/// Time-sliced, MPS and whole GPUs: shares stacked left to right, the rest free.
fn shared_lane(gpu: &GpuLayout, slots: &[SharedSlot]) -> Lane {
    let mut segments = Vec::new();
    let mut at = 0.0f64;
    for SharedSlot { ask, share } in slots {
        let share = share.to_f64();
        let width = share.min(1.0 - at).max(0.0);
        let what = match gpu.mechanism() {
            Mechanism::Whole => format!("whole GPU {}, exclusive", gpu.index),
            m => format!("{} of GPU {} by {m}", fmt_share(share), gpu.index),
        };
        segments.push(Segment {
            ask: Some(ask.clone()),
            x: percent(at),
            width: percent(width),
            label: ask.clone(),
            tooltip: format!("{ask} — {what}"),
        });
        at += width;
    }
    let free = 1.0 - at;
    if free > 1e-9 {
        segments.push(Segment {
            ask: None,
            x: percent(at),
            width: percent(free),
            label: "free".into(),
            tooltip: format!("GPU {}: {} free", gpu.index, fmt_share(free)),
        });
    }
    Lane {
        index: gpu.index,
        mechanism: gpu.mechanism(),
        title: format!(
            "GPU {}{} · {} · {} used",
            gpu.index,
            on_node(gpu),
            gpu.mechanism(),
            gpu.used_fraction()
        ),
        slices: None,
        segments,
    }
}

/// ` on node-1` for a GPU on a node, else nothing.
fn on_node(gpu: &GpuLayout) -> String {
    gpu.node
        .as_deref()
        .map(|n| format!(" on {n}"))
        .unwrap_or_default()
}

fn fmt_share(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A share as a whole percentage for display (`0.375` → `38%`).
pub fn share_percent(share: Share) -> String {
    format!("{}%", share.percent_of(Share::ONE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_share_core::{bin_pack, ClusterGpuCaps, FractionalAsk};

    fn asks(specs: &[&str]) -> Vec<FractionalAsk> {
        specs
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect()
    }

    #[test]
    fn the_seed_pack_stacks_shares() {
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            ..Default::default()
        };
        let pack = bin_pack(
            &asks(&["a:0.5", "b:0.3", "c:0.4"]),
            &caps.clone().with_gpu_count(Some(2)),
        )
        .unwrap();
        let l = lanes(&pack);
        assert_eq!(l.len(), 2);
        let names = |lane: &Lane| {
            lane.segments
                .iter()
                .filter_map(|s| s.ask.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&l[0]), ["a", "c"]);
        assert_eq!(names(&l[1]), ["b"]);
        assert_eq!(l[0].segments[0].x, "0%");
        assert_eq!(l[0].segments[0].width, "50%");
        assert_eq!(l[0].segments[1].x, "50%");
        assert_eq!(l[0].segments[1].width, "40%");
        let free = l[0].segments.last().unwrap();
        assert!(free.ask.is_none());
        assert_eq!(free.x, "90%");
        assert_eq!(free.width, "10%");
    }

    #[test]
    fn mig_instances_sit_at_their_real_placement() {
        let caps = ClusterGpuCaps {
            supports_mig: true,
            ..Default::default()
        };
        let pack = bin_pack(
            &asks(&["x:3g.20gb", "y:2g.10gb", "z:2g.10gb"]),
            &caps.clone().with_gpu_count(Some(1)),
        )
        .unwrap();
        let l = lanes(&pack);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].slices, Some(8));
        let x = l[0]
            .segments
            .iter()
            .find(|s| s.ask.as_deref() == Some("x"))
            .unwrap();
        assert_eq!(x.x, "50%", "3g.20gb starts at memory slice 4");
        assert_eq!(x.width, "50%");
        assert!(x.tooltip.contains("slices 4–7"), "{}", x.tooltip);
        let total: f64 = l[0]
            .segments
            .iter()
            .map(|s| s.width.trim_end_matches('%').parse::<f64>().unwrap())
            .sum();
        assert!(
            (total - 100.0).abs() < 1e-6,
            "segments cover the lane: {total}"
        );
    }

    #[test]
    fn free_runs_are_maximal() {
        assert_eq!(
            free_runs(&[true, false, false, true, false]),
            vec![(1, 2), (4, 1)]
        );
        assert_eq!(free_runs(&[false; 4]), vec![(0, 4)]);
        assert!(free_runs(&[true; 8]).is_empty());
        assert!(free_runs(&[]).is_empty());
    }

    #[test]
    fn percentages_are_clamped_and_short() {
        assert_eq!(percent(0.125), "12.5%");
        assert_eq!(percent(1.0 / 3.0), "33.3333%");
        assert_eq!(percent(-1.0), "0%");
        assert_eq!(percent(2.0), "100%");
    }

    #[test]
    fn whole_gpus_fill_their_lanes() {
        let pack = bin_pack(&asks(&["big:2", "s:0.5"]), &ClusterGpuCaps::default()).unwrap();
        let l = lanes(&pack);
        assert_eq!(l.len(), 3);
        for lane in &l {
            let first = &lane.segments[0];
            assert_eq!(first.x, "0%");
            assert_eq!(first.width, "100%", "{lane:?}");
        }
    }

    #[test]
    fn a_thousand_asks_lay_out_quickly() {
        let specs: Vec<String> = (0..1000).map(|i| format!("w{i}:0.{}", 1 + i % 9)).collect();
        let list: Vec<FractionalAsk> = specs
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect();
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            ..Default::default()
        };
        let pack = bin_pack(&list, &caps.clone().with_gpu_count(Some(200))).unwrap();
        let l = lanes(&pack);
        assert_eq!(l.len() as u64, pack.gpus_used);
        let placed: usize = l
            .iter()
            .map(|lane| lane.segments.iter().filter(|s| s.ask.is_some()).count())
            .sum();
        assert_eq!(placed + pack.unplaced.len(), 1000);
    }
}
