//! `select_mechanism`: the strongest sharing mechanism the cluster allows that can serve one ask.

use crate::ask::{AskSize, FractionalAsk};
use crate::caps::{ClusterGpuCaps, ResolvedCaps};
use crate::catalog::{Certainty, GpuModel, MigProfile, ProfileSms};
use crate::error::Result;
use crate::memory::mib_text;
use crate::units::Share;

mod choice;
pub(crate) mod memory;
pub(crate) mod mps_replicas;
mod percent;
mod warnings;
pub use choice::{Choice, Isolation, Mechanism, MpsLimits, ShareInstead};
use memory::Need;
use percent::percent_text;
use warnings::UNCERTAIN;
pub use warnings::{warning_groups, WarningGroup, WarningKind};

/// Chooses the mechanism for one ask on a cluster.
///
/// # Errors
/// The ask's profile or the caps are not valid for the GPU model (see [`ClusterGpuCaps::resolve`]).
pub fn select_mechanism(ask: &FractionalAsk, caps: &ClusterGpuCaps) -> Result<Choice> {
    let asked: Vec<&str> = ask.mig_profile().into_iter().collect();
    let resolved = caps.resolve(&asked)?;
    memory::check(std::slice::from_ref(ask), &resolved).map_err(|mut e| {
        e.field = Some("memory".into());
        e
    })?;
    let mut choice = select_resolved(ask, &resolved);
    if let Some(note) = &resolved.model_note {
        choice.notes.insert(0, note.clone());
    }
    Ok(choice)
}

/// [`select_mechanism`] on caps already resolved (so a pack resolves them once). Memory asks
/// are checked first by the caller (`memory::check`); here one without a model falls back whole.
pub fn select_resolved(ask: &FractionalAsk, caps: &ResolvedCaps) -> Choice {
    let model = caps.model;
    let need = memory::need(ask, caps);
    let mut c = match &ask.size() {
        AskSize::Fraction(f) if *f >= Share::ONE => whole_gpus(ask, *f, model),
        AskSize::Fraction(f) | AskSize::FractionAndMemory(f, _) => {
            shared_or_mig(ask, caps, Sized::new(*f, need, false))
        }
        AskSize::Memory(_) => match (model, need) {
            (Some(m), Some(n)) => shared_or_mig(
                ask,
                caps,
                Sized::new(memory::memory_share(n.held_mib, m), need, true),
            ),
            _ => fallback(
                ask,
                Share::ONE,
                model,
                "memory asks need the GPU model",
                None,
            ),
        },
        AskSize::MigProfile(name) => named_profile(ask, caps, name),
    };
    if let Some(n) = need {
        add_memory(&mut c, caps, n);
    }
    c
}

/// A share to plan with, the memory it holds (if asked), and whether only memory was asked (then
/// a MIG profile need only hold the memory; the share is the memory's).
#[derive(Clone, Copy)]
struct Sized {
    fraction: Share,
    need: Option<Need>,
    memory_only: bool,
}

impl Sized {
    fn new(fraction: Share, need: Option<Need>, memory_only: bool) -> Self {
        Sized {
            fraction,
            need,
            memory_only,
        }
    }
}

/// A share of one GPU: MIG's least-waste profile, else MPS, else time-slicing, else a whole GPU.
fn shared_or_mig(ask: &FractionalAsk, caps: &ResolvedCaps, size: Sized) -> Choice {
    let (model, f) = (caps.model, size.fraction);
    if caps.mig {
        if let Some(m) = model {
            if let Some(p) = best_profile(m, caps, size) {
                let mut c = mig_choice(ask, m, p, f);
                warn_of_waste(&mut c, caps);
                warn_of_sms(&mut c, m, p, size);
                return c;
            }
        }
    }
    if caps.mps {
        return mps_choice(ask, f, model, size.need);
    }
    if caps.timeslicing {
        return timeslice_choice(ask, f, model);
    }
    let what = match size.need {
        Some(n) if size.memory_only => mib_text(n.held_mib),
        Some(n) => format!("{f} of a GPU with {}", mib_text(n.held_mib)),
        None => format!("{f} of a GPU"),
    };
    let reason = if caps.mig {
        let largest = caps
            .allowed_profiles
            .iter()
            .max_by_key(|p| (p.compute_slices, p.memory_slices));
        match largest {
            Some(p) => format!(
                "no allowed MIG profile covers {what} (largest allowed: {})",
                p.name
            ),
            None => "no allowed MIG profile".to_string(),
        }
    } else {
        "no fractional support".to_string()
    };
    fallback(ask, f, model, &reason, None)
}

/// An ask naming its MIG profile: that profile when allowed, else the honest whole-GPU fallback.
fn named_profile(ask: &FractionalAsk, caps: &ResolvedCaps, name: &str) -> Choice {
    let model = caps.model;
    let profile = model.and_then(|m| m.profile(name));
    let share = match (model, profile) {
        (Some(m), Some(p)) => m.profile_share(p),
        _ => Share::ONE,
    };
    let in_allowed =
        profile.is_some_and(|p| !caps.profiles_limited || caps.allowed_profiles.contains(&p));
    match (caps.mig, model, profile) {
        (true, Some(m), Some(p)) if in_allowed => mig_choice(ask, m, p, share),
        (true, Some(_), Some(_)) => {
            let allowed: Vec<&str> = caps.allowed_profiles.iter().map(|p| p.name).collect();
            let reason = format!(
                "{name} is not among the allowed MIG profiles ({})",
                allowed.join(", ")
            );
            fallback(ask, share, model, &reason, Some(name))
        }
        _ => {
            let on = model
                .map(|m| format!(" (= {share:.4} of the GPU on {})", m.name))
                .unwrap_or_default();
            let reason = format!("no MIG on this cluster for {name}{on}");
            let mut c = fallback(ask, share, model, &reason, Some(name));
            if caps.timeslicing || caps.mps {
                if let (Some(m), Some(p)) = (model, profile) {
                    offer_share(&mut c, caps, m, p, share);
                }
            }
            c
        }
    }
}

/// The profile as a share with memory, for a cluster that shares GPUs without MIG: the same share
/// of the GPU, and the instance's memory less the CUDA context the plan adds for the process.
fn offer_share(c: &mut Choice, caps: &ResolvedCaps, m: &GpuModel, p: &MigProfile, share: Share) {
    let usable = m.profile_memory_on(p, caps.driver.as_deref()).mib;
    let Ok(memory) = crate::memory::Memory::from_mib(usable.saturating_sub(caps.context_mib))
    else {
        return;
    };
    let instead = ShareInstead {
        fraction: share.to_exact_text(),
        memory: memory.to_exact_text(),
    };
    c.notes.push(format!(
        "to share a GPU instead, ask for {} with {} ({}'s share, and its {} less the {} CUDA context the plan adds): {} can then place it beside other asks, without MIG's isolation",
        instead.fraction,
        instead.memory,
        p.name,
        mib_text(usable),
        mib_text(caps.context_mib),
        if caps.timeslicing { "time-slicing" } else { "MPS" }
    ));
    c.share_instead = Some(instead);
}

/// Records what a memory ask asked, holds and is given, with the notes and uncertain facts.
fn add_memory(c: &mut Choice, caps: &ResolvedCaps, need: Need) {
    c.memory_mib = Some(need.asked_mib);
    c.held_memory_mib = Some(need.held_mib);
    let Some(model) = caps.model else {
        return;
    };
    match c.mechanism {
        Mechanism::Mig => {
            if let Some(p) = c.mig_profile.as_deref().and_then(|p| model.profile(p)) {
                let driver = caps.driver.as_deref();
                let usable = model.profile_memory_on(p, driver);
                c.allocated_memory_mib = Some(usable.mib);
                c.notes.push(memory::mig_note(model, p, need, driver));
                c.notes.extend(memory::smaller_refused(
                    model,
                    &caps.allowed_profiles,
                    need,
                    driver,
                ));
                if let Certainty::Uncertain(why) = usable.certainty {
                    c.warn(format!(
                        "{} memory of {} is{UNCERTAIN}{why}",
                        p.name, model.name
                    ));
                }
            }
        }
        Mechanism::Mps | Mechanism::Timeslice => {
            if c.mechanism == Mechanism::Mps {
                c.allocated_memory_mib = Some(need.asked_mib);
            }
            let usable = model.usable_memory();
            c.notes.push(format!(
                "holds {} of a GPU's {} ({} asked + {} CUDA context; {} MiB total less {} MiB the driver keeps); the GPU's tenants with memory never hold more than it offers",
                mib_text(need.held_mib),
                mib_text(usable.mib),
                mib_text(need.asked_mib),
                mib_text(caps.context_mib),
                model.memory_mib,
                model.memory_mib - usable.mib
            ));
            if let Certainty::Uncertain(why) = usable.certainty {
                c.warn(format!("{} reserved memory is{UNCERTAIN}{why}", model.name));
            }
        }
        Mechanism::Whole => {
            c.allocated_memory_mib = Some(model.usable_memory().mib);
        }
    }
}

/// Every mechanism the cluster offers for a fractional ask, strongest isolation first (MIG's
/// least-waste profile, MPS, time-slicing); empty for whole-GPU and named-profile asks, which have
/// one way to run. The packer moves asks down this list when a GPU limit leaves some unplaced.
pub fn alternatives(ask: &FractionalAsk, caps: &ResolvedCaps) -> Vec<Choice> {
    let model = caps.model;
    let need = memory::need(ask, caps);
    let size = match (ask.size(), model, need) {
        (&AskSize::Fraction(f), _, _) if f < Share::ONE => Sized::new(f, None, false),
        (&AskSize::FractionAndMemory(f, _), _, _) => Sized::new(f, need, false),
        (AskSize::Memory(_), Some(m), Some(n)) => {
            Sized::new(memory::memory_share(n.held_mib, m), need, true)
        }
        _ => return Vec::new(),
    };
    let f = size.fraction;
    let mut out = Vec::new();
    if let (true, Some(m)) = (caps.mig, model) {
        if let Some(p) = best_profile(m, caps, size) {
            let mut c = mig_choice(ask, m, p, f);
            warn_of_waste(&mut c, caps);
            warn_of_sms(&mut c, m, p, size);
            out.push(c);
        }
    }
    if caps.mps {
        out.push(mps_choice(ask, f, model, need));
    }
    if caps.timeslicing {
        out.push(timeslice_choice(ask, f, model));
    }
    if let Some(n) = need {
        for c in &mut out {
            add_memory(c, caps, n);
        }
    }
    out
}

/// The allowed profile of least waste that covers the ask; ties go to the smaller profile, then
/// to the earlier one in the catalogue. Without memory, its compute and memory shares both cover
/// the fraction; with memory, its usable memory holds what the ask holds and (unless only memory
/// was asked) its compute share covers the fraction.
fn best_profile(model: &GpuModel, caps: &ResolvedCaps, size: Sized) -> Option<&'static MigProfile> {
    let allowed = &caps.allowed_profiles;
    let covers = |p: &MigProfile| match size.need {
        None => model.profile_covers(p, size.fraction),
        Some(need) => {
            memory::profile_holds(model, p, need, caps.driver.as_deref())
                && (size.memory_only || model.profile_compute_covers(p, size.fraction))
        }
    };
    allowed
        .iter()
        .copied()
        .filter(|p| covers(p))
        .min_by_key(|p| (model.profile_share(p), p.memory_slices, p.compute_slices))
}

fn base(
    ask: &FractionalAsk,
    mechanism: Mechanism,
    requested: Share,
    allocated: Share,
    model: Option<&GpuModel>,
) -> Choice {
    Choice {
        name: ask.name().to_string(),
        mechanism,
        isolation: mechanism.isolation(),
        requested_fraction: requested,
        allocated_fraction: allocated,
        wasted_fraction: allocated.saturating_sub(requested),
        gpus: allocated.ceil_gpus().max(1),
        mig_profile: None,
        gpu_model: model.map(|m| m.name.to_string()),
        mps: None,
        memory_mib: None,
        held_memory_mib: None,
        allocated_memory_mib: None,
        share_instead: None,
        notes: Vec::new(),
        warnings: Vec::new(),
    }
}

/// A MIG instance that wastes more than this share of itself (percent) gets a ⚠.
pub const WASTE_WARNING_PERCENT: u64 = 50;

/// Warns when a fractional ask's MIG instance is mostly waste, and names the cheaper mechanism
/// the cluster also offers (the plan keeps MIG for its isolation; the user decides).
fn warn_of_waste(c: &mut Choice, caps: &ResolvedCaps) {
    if c.wasted_fraction.percent_of(c.allocated_fraction) <= WASTE_WARNING_PERCENT {
        return;
    }
    let percent = percent_text(c.wasted_fraction, c.allocated_fraction);
    let cheaper = if caps.mps {
        format!("MPS would allocate just {}", c.requested_fraction)
    } else if caps.timeslicing {
        format!("time-slicing would allocate just {}", c.requested_fraction)
    } else {
        "the cluster offers no cheaper mechanism".to_string()
    };
    let profile = c.mig_profile.as_deref().unwrap_or("the instance");
    c.warn(format!(
        "{percent} of {profile} wasted: the smallest allowed profile covering {} is {:.2} of the GPU; {cheaper}, with weaker isolation.",
        c.requested_fraction, c.allocated_fraction
    ));
}

/// Warns when the instance chosen for a fractional ask has a smaller share of the board's SMs than
/// was asked: its compute slices cover the ask, but slices are not equal SM shares (an H100 SXM's
/// 4g.40gb is 4/7 of the slices but 64 of 132 SMs, docs/hardware-facts.md §1.3). An ask of memory
/// alone asked for no compute: its share is its memory's, and nothing is said of SMs.
fn warn_of_sms(c: &mut Choice, model: &GpuModel, profile: &MigProfile, size: Sized) {
    let fraction = size.fraction;
    let Some(sms) = model.profile_sms(profile).filter(|_| !size.memory_only) else {
        return;
    };
    if let (Some(true), Some(gpu)) = (sms.below(fraction), sms.gpu) {
        c.warn(format!(
            "{} has {} of {gpu} SMs ({:.2} of the GPU's SMs), less than the {fraction} asked; compute slices are not equal SM shares",
            profile.name,
            sms.sms,
            f64::from(sms.sms) / f64::from(gpu)
        ));
    }
}

fn mig_choice(
    ask: &FractionalAsk,
    model: &GpuModel,
    profile: &MigProfile,
    requested: Share,
) -> Choice {
    let share = model.profile_share(profile);
    let mut c = base(ask, Mechanism::Mig, requested, share, Some(model));
    c.mig_profile = Some(profile.name.to_string());
    let g = model.mig.expect("MIG choices are only made on MIG models");
    let mut note = format!(
        "{} on {}: {} of {} compute slices, {} of {} memory slices = {share:.4} of the GPU",
        profile.name,
        model.name,
        profile.compute_slices,
        g.compute_slices,
        profile.memory_slices,
        g.memory_slices
    );
    // A share is counted in NVIDIA's compute and memory slices; the board's SMs, where a real
    // `nvidia-smi mig -lgip` shows them, say how much compute that is (docs/hardware-facts.md §1.3).
    let sms = model.profile_sms(profile);
    match sms {
        Some(ProfileSms {
            sms,
            gpu: Some(gpu),
            ..
        }) => {
            note.push_str(&format!(" ({sms} of {gpu} SMs)"));
        }
        Some(ProfileSms { sms, gpu: None, .. }) => note.push_str(&format!(" ({sms} SMs)")),
        None => {}
    }
    if !c.wasted_fraction.is_zero() {
        note.push_str(&format!(", {:.4} more than asked", c.wasted_fraction));
    }
    c.notes.push(note);
    if let Some(ProfileSms {
        certainty: Certainty::Uncertain(why),
        ..
    }) = sms
    {
        c.warn(format!("{} SM counts are{UNCERTAIN}{why}", model.name));
    }
    if let Certainty::Uncertain(why) = profile.certainty {
        c.warn(format!("{} geometry is{UNCERTAIN}{why}", model.name));
    }
    if let Certainty::Uncertain(why) = model.certainty {
        c.warn(format!("{} catalogue entry is{UNCERTAIN}{why}", model.name));
    }
    c
}

/// An MPS client: the thread percentage from the share; the pinned-memory limit is the memory
/// asked, or else the share of the GPU's memory.
fn mps_choice(
    ask: &FractionalAsk,
    fraction: Share,
    model: Option<&GpuModel>,
    need: Option<Need>,
) -> Choice {
    let mut c = base(ask, Mechanism::Mps, fraction, fraction, model);
    let percent = fraction
        .units()
        .saturating_mul(100)
        .div_ceil(Share::ONE.units())
        .min(100) as u8;
    let pinned = match need {
        Some(n) => Some(n.asked_mib),
        None => model.map(|m| {
            (u128::from(m.memory_mib) * u128::from(fraction.units()))
                .div_ceil(u128::from(Share::ONE.units())) as u64
        }),
    };
    c.mps = Some(MpsLimits {
        active_thread_percentage: percent,
        pinned_memory_mib: pinned,
    });
    let memory = pinned
        .map(|mib| format!(", CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0={mib}M"))
        .unwrap_or_default();
    c.notes.push(format!(
        "MPS client limits: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE={percent}{memory}; the thread percentage is a ceiling, not a reservation (NVIDIA MPS docs)"
    ));
    c.warn("MPS has no error isolation: a fault in one client can end every client on the GPU");
    warn_of_device_plugin(&mut c, model, need);
    c
}

/// Says at plan time what the NVIDIA device plugin cannot give an MPS client: every client gets
/// the same 100/replicas of the threads and total/replicas of the memory, with at least 2 replicas
/// (docs/hardware-facts.md §3), so a larger ask is refused by the exports that configure it.
fn warn_of_device_plugin(c: &mut Choice, model: Option<&GpuModel>, need: Option<Need>) {
    use mps_replicas::{half_the_memory, share_covered, MIN_REPLICAS};
    let total = model.map(|m| m.memory_mib);
    let asked = need.map(|n| n.asked_mib);
    if share_covered(MIN_REPLICAS, c.allocated_fraction, asked, total) {
        return;
    }
    let memory = half_the_memory(model);
    c.warn(format!(
        "the NVIDIA device plugin gives every MPS client the same 100/replicas of the threads and total/replicas of the memory, with at least 2 replicas: at most 50% of the threads{memory}, less than this ask, so the device-plugin, k8s and kserve exports refuse it; Slurm's mps GRES (export slurm) gives each job its own percentage"
    ));
}

fn timeslice_choice(ask: &FractionalAsk, fraction: Share, model: Option<&GpuModel>) -> Choice {
    let mut c = base(ask, Mechanism::Timeslice, fraction, fraction, model);
    c.notes.push(format!(
        "time-sliced: {fraction} of a GPU is a planning share, taken in turns and not enforced"
    ));
    // Each process keeps its own context; what is missing is limits, shares and a separate fault
    // domain (docs/hardware-facts.md §2).
    c.warn("time-slicing sets no memory limit, compute share or fault isolation: each process keeps its own CUDA context and memory protection, but any one can take all GPU memory, all take turns on the whole GPU, and they share one fault domain (NVIDIA k8s-device-plugin docs)");
    c
}

fn whole_gpus(ask: &FractionalAsk, fraction: Share, model: Option<&GpuModel>) -> Choice {
    let gpus = fraction.ceil_gpus();
    let allocated = Share::from_units(gpus * Share::ONE.units());
    let mut c = base(ask, Mechanism::Whole, fraction, allocated, model);
    let plural = if gpus == 1 { "" } else { "s" };
    if c.wasted_fraction.is_zero() {
        c.notes.push(format!("{gpus} whole GPU{plural}, exclusive"));
    } else {
        let percent = percent_text(c.wasted_fraction, allocated);
        c.notes.push(format!(
            "{fraction} GPUs rounded up to {gpus} whole GPU{plural} ({} GPU, {percent} wasted)",
            c.wasted_fraction
        ));
        c.warn(format!(
            "{percent} GPU capacity wasted by rounding up to whole GPUs."
        ));
    }
    c
}

/// The honest fallback: a whole GPU, with the waste said out loud.
fn fallback(
    ask: &FractionalAsk,
    requested: Share,
    model: Option<&GpuModel>,
    reason: &str,
    profile: Option<&str>,
) -> Choice {
    let mut c = base(ask, Mechanism::Whole, requested, Share::ONE, model);
    let percent = percent_text(c.wasted_fraction, Share::ONE);
    let what = profile.map_or_else(|| requested.to_string(), str::to_string);
    c.notes.push(format!(
        "{reason} — rounded {what} up to a whole GPU ({percent} wasted)"
    ));
    if !c.wasted_fraction.is_zero() {
        c.warn(format!("{percent} GPU capacity wasted by this fallback."));
    }
    c
}

#[cfg(test)]
mod tests;
