//! The diagram's maths, one lane per GPU: each block (an ask's MIG instance or share, or free
//! room) placed in exact units of the lane's width, with its label and its details. MIG lanes are
//! the GPU's memory-slice map, every instance at its real start and width; time-sliced and MPS
//! lanes stack the shares left to right, the rest free; a whole GPU is full.
//!
//! A lane is [`LANE`] units wide, the units of [`Share`] (7,207,200,000 to a GPU): a share is its
//! own width, and since 720,720 divides the unit count, so are memory slices of 4, 7 or 8.

use gpu_share_core::api::{
    find_model, mib_text, GpuLayout, Mechanism, MigInstance, PackResult, Share, SharedSlot, Tenants,
};

/// The width of a lane, in share units.
pub const LANE: u64 = Share::ONE.units();

/// One block of a lane: an ask's instance or share, or free room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The ask; `None` for free room.
    pub ask: Option<String>,
    /// Left edge and width, in share units of the lane.
    pub start: u64,
    pub width: u64,
    /// The short visible label (cut to fit when drawn).
    pub label: String,
    /// The details: ask, profile or share, mechanism, GPU.
    pub title: String,
}

/// One GPU of the diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    pub index: u64,
    pub mechanism: Mechanism,
    pub node: Option<String>,
    /// The line above the bar: `GPU 0 on node-1 · mig · 7 of 8 memory slices used`.
    pub title: String,
    /// MIG lanes: the memory slices, for the slice grid.
    pub slices: Option<u8>,
    pub blocks: Vec<Block>,
    /// Shared GPUs whose tenants asked for memory: each one's memory, then the free rest, in
    /// units of the lane's width as parts of the memory the GPU offers (drawn under the bar).
    pub memory: Vec<Block>,
}

/// The lanes of `max` GPUs from the `first`, in GPU order.
pub fn lanes(pack: &PackResult, first: usize, max: usize) -> Vec<Lane> {
    let slices = pack
        .gpu_model
        .as_deref()
        .and_then(find_model)
        .and_then(|m| m.mig)
        .map_or(8, |g| g.memory_slices);
    pack.gpus
        .iter()
        .skip(first)
        .take(max)
        .map(|gpu| lane(gpu, slices))
        .collect()
}

fn lane(gpu: &GpuLayout, slices: u8) -> Lane {
    match gpu.tenants() {
        Tenants::Mig(instances) => mig_lane(gpu, instances, slices),
        Tenants::Mps(slots) | Tenants::Timeslice(slots) => shared_lane(gpu, slots),
        Tenants::Whole(ask) => shared_lane(gpu, &[SharedSlot::new(ask.clone(), Share::ONE, None)]),
    }
}

/// Slice `s` of `n` as a position in the lane.
pub fn at_slice(s: u8, n: u8) -> u64 {
    (u128::from(LANE) * u128::from(s) / u128::from(n.max(1))) as u64
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Memory-slice map: every instance at its real start and width, the free runs between them.
fn mig_lane(gpu: &GpuLayout, instances: &[MigInstance], slices: u8) -> Lane {
    let mut used = vec![false; usize::from(slices)];
    let mut blocks = Vec::new();
    for inst in instances {
        let end = inst.start.saturating_add(inst.memory_slices).min(slices);
        let start = inst.start.min(end);
        used[usize::from(start)..usize::from(end)].fill(true);
        blocks.push(Block {
            ask: Some(inst.ask.clone()),
            start: at_slice(start, slices),
            width: at_slice(end, slices) - at_slice(start, slices),
            label: format!("{} {}", inst.ask, inst.profile),
            title: format!(
                "{} — MIG {} on GPU {}: memory slices {}–{} of {slices}, {}",
                inst.ask,
                inst.profile,
                gpu.index,
                start,
                end.saturating_sub(1),
                plural(inst.compute_slices.into(), "compute slice")
            ),
        });
    }
    let free = free_runs(&used);
    let free_count: u64 = free.iter().map(|&(_, len)| u64::from(len)).sum();
    for (start, len) in free {
        let which = match len {
            1 => format!("slice {start}"),
            _ => format!("slices {start}–{}", start + len - 1),
        };
        blocks.push(Block {
            ask: None,
            start: at_slice(start, slices),
            width: at_slice(start + len, slices) - at_slice(start, slices),
            label: "free".into(),
            title: format!("GPU {}: memory {which} free", gpu.index),
        });
    }
    Lane {
        index: gpu.index,
        mechanism: Mechanism::Mig,
        node: gpu.node.clone(),
        title: format!(
            "GPU {}{} · mig · {} of {slices} memory slices used",
            gpu.index,
            on_node(gpu),
            u64::from(slices) - free_count
        ),
        slices: Some(slices),
        blocks,
        memory: Vec::new(),
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
    let mut blocks = Vec::new();
    let mut at = 0u64;
    for SharedSlot { ask, share, .. } in slots {
        let width = share.units().min(LANE - at);
        let what = match gpu.mechanism() {
            Mechanism::Whole => format!("whole GPU {}, exclusive", gpu.index),
            m => format!("{share} of GPU {} by {m}", gpu.index),
        };
        blocks.push(Block {
            ask: Some(ask.clone()),
            start: at,
            width,
            label: ask.clone(),
            title: format!("{ask} — {what}"),
        });
        at += width;
    }
    let title = format!("GPU {}: {} free", gpu.index, Share::from_units(LANE - at));
    push_free(&mut blocks, at, "free", title);
    let memory_title = gpu
        .memory()
        .map(|m| {
            format!(
                " · {} of {} memory",
                mib_text(m.used_mib),
                mib_text(m.budget_mib)
            )
        })
        .unwrap_or_default();
    Lane {
        index: gpu.index,
        mechanism: gpu.mechanism(),
        node: gpu.node.clone(),
        title: format!(
            "GPU {}{} · {} · {} used{memory_title}",
            gpu.index,
            on_node(gpu),
            gpu.mechanism(),
            gpu.used_fraction()
        ),
        slices: None,
        blocks,
        memory: memory_blocks(gpu, slots),
    }
}

/// The memory bar of a shared GPU with memory asks: each ask's memory as a part of what the GPU
/// offers, left to right, then the free rest (exact: widths rounded down, the rest free).
fn memory_blocks(gpu: &GpuLayout, slots: &[SharedSlot]) -> Vec<Block> {
    let Some(m) = gpu.memory() else {
        return Vec::new();
    };
    let budget = u128::from(m.budget_mib.max(1));
    let mut blocks = Vec::new();
    let mut at = 0u64;
    for slot in slots {
        let Some(mib) = slot.memory_mib else {
            continue;
        };
        let width = ((u128::from(mib) * u128::from(LANE) / budget) as u64).min(LANE - at);
        blocks.push(Block {
            ask: Some(slot.ask.clone()),
            start: at,
            width,
            label: String::new(),
            title: format!(
                "{} — holds {} of GPU {}'s {} memory (with its CUDA context)",
                slot.ask,
                mib_text(mib),
                gpu.index,
                mib_text(m.budget_mib)
            ),
        });
        at += width;
    }
    let title = format!(
        "GPU {}: {} of memory free",
        gpu.index,
        mib_text(m.budget_mib.saturating_sub(m.used_mib))
    );
    push_free(&mut blocks, at, "", title);
    blocks
}

/// The free rest of a bar from `at`, if any.
fn push_free(blocks: &mut Vec<Block>, at: u64, label: &str, title: String) {
    if at < LANE {
        blocks.push(Block {
            ask: None,
            start: at,
            width: LANE - at,
            label: label.to_string(),
            title,
        });
    }
}

/// ` on node-1` for a GPU on a node, else nothing.
fn on_node(gpu: &GpuLayout) -> String {
    gpu.node
        .as_deref()
        .map(|n| format!(" on {n}"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_share_core::api::{self, ClusterGpuCaps, FractionalAsk, PackRequest};

    fn pack(specs: &[&str], caps: ClusterGpuCaps) -> PackResult {
        let asks: Vec<FractionalAsk> = specs
            .iter()
            .map(|s| FractionalAsk::parse_spec(s).unwrap())
            .collect();
        api::pack(&PackRequest::new(asks, caps)).unwrap().result
    }

    fn asks(lane: &Lane) -> Vec<&str> {
        lane.blocks
            .iter()
            .filter_map(|b| b.ask.as_deref())
            .collect()
    }

    #[test]
    fn shared_gpus_with_memory_asks_get_a_memory_bar() {
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            gpu_model: Some("L40S".into()),
            context_overhead_mib: Some(0),
            ..Default::default()
        };
        // L40S offers 46068 − 609 = 45459 MiB: a third and a ninth of it.
        let p = pack(&["a:0.5:15153MiB", "b:0.25:5051MiB", "c:0.1"], caps);
        let lane = &lanes(&p, 0, 10)[0];
        assert!(
            lane.title.ends_with("· 19.73 GiB of 44.39 GiB memory"),
            "{}",
            lane.title
        );
        let widths: Vec<(Option<&str>, u64)> = lane
            .memory
            .iter()
            .map(|b| (b.ask.as_deref(), b.width))
            .collect();
        assert_eq!(widths[0], (Some("a"), LANE / 3));
        assert_eq!(widths[1], (Some("b"), LANE / 9));
        assert_eq!(
            widths[2].0, None,
            "c asked no memory: only the free rest follows"
        );
        assert_eq!(widths.iter().map(|w| w.1).sum::<u64>(), LANE);
        let plain = pack(
            &["a:0.5"],
            ClusterGpuCaps {
                supports_timeslicing: true,
                ..Default::default()
            },
        );
        assert!(lanes(&plain, 0, 10)[0].memory.is_empty());
    }

    #[test]
    fn the_seed_pack_stacks_shares() {
        let caps = ClusterGpuCaps {
            supports_timeslicing: true,
            gpu_count: Some(2),
            ..Default::default()
        };
        let l = lanes(&pack(&["a:0.5", "b:0.3", "c:0.4"], caps), 0, 500);
        assert_eq!(l.len(), 2);
        assert_eq!(asks(&l[0]), ["a", "c"]);
        assert_eq!(asks(&l[1]), ["b"]);
        let (a, c, free) = (&l[0].blocks[0], &l[0].blocks[1], &l[0].blocks[2]);
        assert_eq!((a.start, a.width), (0, LANE / 2));
        assert_eq!((c.start, c.width), (LANE / 2, LANE / 10 * 4));
        assert_eq!(
            (free.ask.as_deref(), free.start, free.width),
            (None, LANE / 10 * 9, LANE / 10)
        );
        assert_eq!(free.title, "GPU 0: 0.1 free");
        assert_eq!(a.title, "a — 0.5 of GPU 0 by timeslice");
        assert_eq!(l[0].title, "GPU 0 · timeslice · 0.9 used");
    }

    #[test]
    fn mig_instances_sit_at_their_real_placement() {
        let caps = ClusterGpuCaps {
            supports_mig: true,
            gpu_count: Some(1),
            ..Default::default()
        };
        let l = lanes(
            &pack(&["x:3g.20gb", "y:2g.10gb", "z:2g.10gb"], caps),
            0,
            500,
        );
        assert_eq!(l[0].slices, Some(8));
        let x = l[0]
            .blocks
            .iter()
            .find(|b| b.ask.as_deref() == Some("x"))
            .unwrap();
        assert_eq!(
            (x.start, x.width),
            (LANE / 2, LANE / 2),
            "3g.20gb starts at memory slice 4"
        );
        assert_eq!(
            x.title,
            "x — MIG 3g.20gb on GPU 0: memory slices 4–7 of 8, 3 compute slices"
        );
        assert_eq!(x.label, "x 3g.20gb");
        let total: u64 = l[0].blocks.iter().map(|b| b.width).sum();
        assert_eq!(total, LANE, "blocks cover the lane");
        assert_eq!(l[0].title, "GPU 0 · mig · 8 of 8 memory slices used");
    }

    #[test]
    fn an_a30_has_four_memory_slices_and_free_runs() {
        let caps = ClusterGpuCaps {
            supports_mig: true,
            gpu_model: Some("A30".into()),
            ..Default::default()
        };
        let l = lanes(&pack(&["m:1g.6gb"], caps), 0, 500);
        assert_eq!(l[0].slices, Some(4));
        let free: Vec<&Block> = l[0].blocks.iter().filter(|b| b.ask.is_none()).collect();
        assert_eq!(free.len(), 1);
        assert_eq!(free[0].width, LANE / 4 * 3);
        assert!(
            free[0].title.ends_with("memory slices 1–3 free"),
            "{}",
            free[0].title
        );
        assert!(l[0].blocks[0].title.ends_with("1 compute slice"));
    }

    #[test]
    fn whole_gpus_fill_their_lanes_and_max_cuts() {
        let p = pack(&["big:2", "s:0.5"], ClusterGpuCaps::default());
        let l = lanes(&p, 0, 500);
        assert_eq!(l.len(), 3);
        for lane in &l {
            assert_eq!((lane.blocks[0].start, lane.blocks[0].width), (0, LANE));
        }
        assert_eq!(l[0].blocks[0].title, "big — whole GPU 0, exclusive");
        assert_eq!(lanes(&p, 0, 1).len(), 1);
        assert!(lanes(&p, 0, 0).is_empty());
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
}
