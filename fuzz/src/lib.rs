//! Shared parts of the fuzz targets: structured asks and caps built with `arbitrary`, and the
//! invariants every packing must keep.

use arbitrary::Arbitrary;
use gpu_share_core::internals::ask::MAX_ASK_GPUS;
use gpu_share_core::internals::caps::MAX_GPU_COUNT;
use gpu_share_core::internals::pack::MPS_CLIENTS_PER_GPU;
use gpu_share_core::internals::validate_mig::validate_placements;
use gpu_share_core::internals::{
    catalog, ClusterGpuCaps, FractionalAsk, Mechanism, PackResult, Share,
};
use std::collections::BTreeMap;

/// Text as the readers get it: the bytes when they are UTF-8, else their lossy reading.
pub fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Names from a small pool (so duplicates are common; unicode, spaces, markup, colons) or anything.
#[derive(Arbitrary, Debug)]
pub enum NameIn {
    Pool(u8),
    Any(String),
}

const NAMES: &[&str] = &[
    "a",
    "b",
    "a ",
    "名前",
    "🙂 x",
    "ns:job",
    "<img src=x>",
    "a\u{2028}b",
    "\"q\"",
    "#c",
    "- x",
    "yes",
    "1e3",
    "é",
    " ",
];

impl NameIn {
    fn get(&self) -> String {
        match self {
            NameIn::Pool(i) => NAMES[usize::from(*i) % NAMES.len()].to_string(),
            NameIn::Any(s) => s.clone(),
        }
    }
}

/// Sizes from tiny to huge, exact ratios, whole GPUs, catalogue profiles and arbitrary text.
#[derive(Arbitrary, Debug)]
pub enum SizeIn {
    Units(u64),
    Tiny(u8),
    Ratio(u16, u16),
    Whole(u8),
    Huge(u32),
    Limit(bool),
    Profile(u8),
    Text(String),
    /// GPU memory alone, in MiB (beyond any GPU at the top: refused with an error).
    Memory(u32),
    /// A share (thousandths) and memory in MiB.
    ShareAndMemory(u16, u32),
}

/// Every MIG profile name in the catalogue.
pub fn profile_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = catalog::models()
        .iter()
        .flat_map(|m| m.profiles.iter().map(|p| p.name))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[derive(Arbitrary, Debug)]
pub struct AskIn {
    pub name: NameIn,
    pub size: SizeIn,
}

impl AskIn {
    /// The ask, when the core's constructors accept it (they validate, as every front end does).
    pub fn ask(&self, profiles: &[&str]) -> Option<FractionalAsk> {
        let name = self.name.get();
        let share = match &self.size {
            SizeIn::Units(u) => Share::from_units(*u),
            SizeIn::Tiny(u) => Share::from_units(u64::from(*u)),
            SizeIn::Ratio(n, d) => Share::ratio(u64::from(*n), u64::from(*d)).ok()?,
            SizeIn::Whole(n) => Share::whole(u64::from(*n)).ok()?,
            SizeIn::Huge(n) => Share::whole(u64::from(*n)).ok()?,
            SizeIn::Limit(over) => Share::whole(MAX_ASK_GPUS + u64::from(*over)).ok()?,
            SizeIn::Profile(i) => {
                return FractionalAsk::mig(&name, profiles[usize::from(*i) % profiles.len()]).ok()
            }
            SizeIn::Text(t) => return FractionalAsk::parse_spec(&format!("{name}:{t}")).ok(),
            SizeIn::Memory(mib) => {
                let m = gpu_share_core::internals::Memory::from_mib(u64::from(*mib)).ok()?;
                return FractionalAsk::memory_only(&name, m).ok();
            }
            SizeIn::ShareAndMemory(t, mib) => {
                let m = gpu_share_core::internals::Memory::from_mib(u64::from(*mib)).ok()?;
                let f = Share::ratio(u64::from(*t), 1000).ok()?;
                return FractionalAsk::fraction_and_memory(&name, f, m).ok();
            }
        };
        FractionalAsk::fraction(&name, share).ok()
    }
}

#[derive(Arbitrary, Debug)]
pub enum ModelIn {
    Catalogue(u8),
    Any(String),
}

#[derive(Arbitrary, Debug)]
pub enum CountIn {
    Small(u8),
    Any(u64),
}

impl CountIn {
    pub fn get(&self) -> u64 {
        match self {
            CountIn::Small(n) => u64::from(*n),
            CountIn::Any(n) => *n,
        }
    }
}

#[derive(Arbitrary, Debug)]
pub struct CapsIn {
    pub mig: bool,
    pub mps: bool,
    pub timeslice: bool,
    pub model: Option<ModelIn>,
    pub profiles: Option<Vec<u8>>,
    pub count: Option<CountIn>,
    /// Nodes as (name number, GPUs): repeats and zero GPUs included, as a caller may give them.
    pub nodes: Option<Vec<(u8, u8)>>,
    /// The CUDA context in MiB (beyond the limit at the top: refused).
    pub context: Option<u32>,
}

impl CapsIn {
    pub fn caps(&self, profiles: &[&str]) -> ClusterGpuCaps {
        let models = catalog::models();
        ClusterGpuCaps {
            supports_mig: self.mig,
            supports_mps: self.mps,
            supports_timeslicing: self.timeslice,
            gpu_model: self.model.as_ref().map(|m| match m {
                ModelIn::Catalogue(i) => models[usize::from(*i) % models.len()].name.to_string(),
                ModelIn::Any(s) => s.clone(),
            }),
            mig_profiles: self.profiles.as_ref().map(|list| {
                list.iter()
                    .map(|i| profiles[usize::from(*i) % profiles.len()].to_string())
                    .collect()
            }),
            gpu_count: self.count.as_ref().map(CountIn::get),
            nodes: self.nodes.as_ref().map(|list| {
                list.iter()
                    .map(|&(name, gpus)| gpu_share_core::internals::nodes::NodeSpec {
                        name: format!("n{name}"),
                        gpus: u64::from(gpus),
                    })
                    .collect()
            }),
            context_overhead_mib: self.context.map(u64::from),
            driver: None,
        }
    }
}

/// One packing problem: asks, caps, a GPU limit and (maybe) an optimizer budget.
#[derive(Arbitrary, Debug)]
pub struct PackIn {
    pub asks: Vec<AskIn>,
    pub caps: CapsIn,
    pub gpu_count: Option<CountIn>,
    /// Search steps for `--optimize`, kept small so each run stays fast.
    pub optimize: Option<u16>,
}

impl PackIn {
    pub fn build(&self) -> (Vec<FractionalAsk>, ClusterGpuCaps, Option<u64>) {
        let profiles = profile_names();
        let asks = self.asks.iter().filter_map(|a| a.ask(&profiles)).collect();
        let caps = self.caps.caps(&profiles);
        (asks, caps, self.gpu_count.as_ref().map(CountIn::get))
    }
}

/// `plan` packed small, for targets that write out every GPU (the exports, the diagram): each ask
/// name once, at most 64 asks, on at most 256 GPUs (10⁵ whole GPUs are long to write, not
/// interesting). `None` when the packer refuses the plan.
pub fn small_pack(plan: &PackIn) -> Option<PackResult> {
    let (asks, caps, gpu_count) = plan.build();
    let mut seen = std::collections::BTreeSet::new();
    let asks: Vec<FractionalAsk> = asks
        .into_iter()
        .filter(|a| seen.insert(a.name().to_string()))
        .take(64)
        .collect();
    let gpu_count = gpu_count.map(|n| n.min(256)).or(Some(256));
    gpu_share_core::internals::bin_pack(&asks, &caps.with_gpu_count(gpu_count)).ok()
}

/// What every packing keeps, whatever the input: one mechanism per GPU, every ask placed or
/// reported unplaced exactly once (a whole ask on exactly its count of GPUs), no GPU over full,
/// at most the GPUs allowed, MIG instances at valid non-overlapping placements, and choices
/// that never promise less than was asked.
pub fn check_pack(asks: &[FractionalAsk], limit: Option<u64>, r: &PackResult) {
    assert_eq!(r.gpus_used, r.gpus.len() as u64);
    assert!(
        r.gpus_used <= limit.unwrap_or(MAX_GPU_COUNT),
        "{} GPUs",
        r.gpus_used
    );
    assert_eq!(r.choices.len(), asks.len());
    if r.unplaced.is_empty() {
        assert!(
            r.lower_bound <= r.gpus_used,
            "{} > {}",
            r.lower_bound,
            r.gpus_used
        );
    }
    let mut on_gpus: BTreeMap<&str, u64> = BTreeMap::new();
    for (i, g) in r.gpus.iter().enumerate() {
        assert_eq!(g.index, i as u64);
        assert!(g.ask_count() > 0, "GPU {i} is empty");
        assert!(g.used_fraction() <= Share::ONE, "GPU {i} over full");
        for a in g.asks() {
            *on_gpus.entry(a).or_default() += 1;
        }
        match g.mechanism() {
            Mechanism::Whole => {
                assert_eq!(g.ask_count(), 1);
                assert_eq!(g.used_fraction(), Share::ONE);
            }
            Mechanism::Mps | Mechanism::Timeslice => {
                assert_eq!(g.slots().len(), g.ask_count());
                let total: u64 = g.slots().iter().map(|s| s.share.units()).sum();
                assert!(total <= Share::ONE.units(), "GPU {i}: {total} units");
                // Tenants with memory never hold more than the GPU offers.
                let held: u64 = g.slots().iter().filter_map(|s| s.memory_mib).sum();
                if let Some(m) = g.memory() {
                    assert_eq!(m.used_mib, held, "GPU {i}");
                    assert!(
                        held <= m.budget_mib,
                        "GPU {i}: {held} MiB of {}",
                        m.budget_mib
                    );
                }
                if g.mechanism() == Mechanism::Mps {
                    assert!(g.slots().len() <= MPS_CLIENTS_PER_GPU as usize);
                }
            }
            Mechanism::Mig => {
                assert_eq!(g.instances().len(), g.ask_count());
                let model = r
                    .gpu_model
                    .as_deref()
                    .and_then(catalog::find_model)
                    .expect("a MIG GPU has a catalogue model");
                let placed: Vec<(&str, u8)> =
                    g.instances().iter().map(|m| (m.profile, m.start)).collect();
                let v = validate_placements(model, &placed).expect("catalogue profiles");
                assert!(v.valid, "GPU {i}: {:?}", v.reason);
            }
        }
    }
    // Nodes: never more GPUs than a node has, one role per node, every GPU on its node.
    for n in &r.nodes {
        assert!(
            n.gpus.len() as u64 <= n.capacity,
            "node {} over full",
            n.name
        );
        for &g in &n.gpus {
            let gpu = &r.gpus[g as usize];
            assert_eq!(
                n.role,
                Some(gpu_share_core::internals::pack::NodeRole::of(
                    gpu.mechanism()
                ))
            );
            assert_eq!(gpu.node.as_deref(), Some(n.name.as_str()));
        }
    }
    let mut unplaced: BTreeMap<&str, u64> = BTreeMap::new();
    for u in &r.unplaced {
        *unplaced.entry(u.name.as_str()).or_default() += 1;
    }
    for (a, c) in asks.iter().zip(&r.choices) {
        assert_eq!(a.name(), c.name);
        assert!(c.allocated_fraction >= c.requested_fraction, "{c:?}");
        assert_eq!(
            c.wasted_fraction.units(),
            c.allocated_fraction.units() - c.requested_fraction.units()
        );
        let placed = on_gpus.get(a.name()).copied().unwrap_or(0);
        let missing = unplaced.get(a.name()).copied().unwrap_or(0);
        match missing {
            0 => {
                let want = if c.mechanism == Mechanism::Whole {
                    c.gpus
                } else {
                    1
                };
                assert_eq!(placed, want, "{} placed on {placed} GPUs", a.name());
            }
            1 => assert_eq!(placed, 0, "{} both placed and unplaced", a.name()),
            n => panic!("{} reported unplaced {n} times", a.name()),
        }
    }
}
