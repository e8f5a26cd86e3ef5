//! Memory in a plan: what a memory ask holds on a GPU, the MIG profiles that hold it, and asks no GPU can hold.
//!
//! Every process on a GPU holds its own CUDA context besides what it allocates (about 500 MiB,
//! docs/hardware-facts.md §10), so an ask with memory holds `memory + context` wherever it runs;
//! a shared GPU offers its total less what the driver keeps ("Reserved" in real `nvidia-smi -q`
//! captures). Asks without memory are planned by their share alone: their memory is unknown.

use crate::ask::FractionalAsk;
use crate::caps::ResolvedCaps;
use crate::catalog::{largest_gpu, smallest_gpu_holding, GpuModel, ListedInstance, MigProfile};
use crate::error::{Error, ErrorKind, Hint, Input, Result};
use crate::memory::mib_text;
use crate::units::Share;

/// What one memory ask holds on a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Need {
    /// The memory asked, in MiB rounded up.
    pub asked_mib: u64,
    /// Asked plus one CUDA context.
    pub held_mib: u64,
}

/// The ask's memory need, when it asks for memory.
pub(crate) fn need(ask: &FractionalAsk, caps: &ResolvedCaps) -> Option<Need> {
    let asked_mib = ask.memory()?.mib_ceil();
    Some(Need {
        asked_mib,
        held_mib: asked_mib + caps.context_mib,
    })
}

/// The share a memory-only ask plans with on a shared GPU: the memory it holds over the memory
/// the GPU offers, rounded up (so it denies others at least as much of the GPU as it fills).
pub(crate) fn memory_share(held_mib: u64, model: &GpuModel) -> Share {
    let usable = model.usable_memory().mib.max(1);
    Share::ratio(held_mib.min(usable), usable).unwrap_or(Share::ONE)
}

/// Whether an instance of `profile` holds `need` (on `driver`, when the user names one).
pub(crate) fn profile_holds(
    model: &GpuModel,
    profile: &MigProfile,
    need: Need,
    driver: Option<&str>,
) -> bool {
    model.profile_memory_on(profile, driver).mib >= need.held_mib
}

/// The plan's note on a MIG instance's memory: usable MiB, on what the figure rests, and what the
/// ask holds (docs/hardware-facts.md §1.6).
pub(crate) fn mig_note(
    model: &GpuModel,
    profile: &MigProfile,
    need: Need,
    driver: Option<&str>,
) -> String {
    let usable = model.profile_memory_on(profile, driver).mib;
    format!(
        "{} on {} offers {} ({usable} MiB{}); the ask holds {} ({} asked + {} CUDA context)",
        profile.name,
        model.name,
        mib_text(usable),
        memory_basis(model, profile, driver),
        mib_text(need.held_mib),
        mib_text(need.asked_mib),
        mib_text(need.held_mib - need.asked_mib)
    )
}

/// Why the next smaller instance was not taken: the allowed profile of most memory that does not
/// hold what the ask holds, and what it lacks — the memory asked itself (a profile's name is not
/// what it offers: 2g.20gb lists 19.5 GiB on an A100-80GB), or only the CUDA context each
/// process adds. `None` when no allowed profile is smaller.
pub(crate) fn smaller_refused(
    model: &GpuModel,
    allowed: &[&MigProfile],
    need: Need,
    driver: Option<&str>,
) -> Option<String> {
    let smaller: Vec<(&MigProfile, u64)> = allowed
        .iter()
        .map(|p| (*p, model.profile_memory_on(p, driver).mib))
        .filter(|(_, usable)| *usable < need.held_mib)
        .collect();
    let usable = smaller.iter().map(|(_, u)| *u).max()?;
    // The profiles of that memory, media-extension variants (`+me`) left unnamed.
    let names: Vec<&str> = smaller
        .iter()
        .filter(|(p, u)| *u == usable && !p.name.contains('+'))
        .map(|(p, _)| p.name)
        .collect();
    let named_enough = names
        .iter()
        .any(|n| nominal_gib(n) * 1024 >= need.asked_mib);
    let lacks = if usable >= need.asked_mib {
        format!(
            "which holds the {} asked but not with the {} CUDA context each process adds",
            mib_text(need.asked_mib),
            mib_text(need.held_mib - need.asked_mib)
        )
    } else if named_enough {
        format!(
            "less than the {} asked (a profile's name is not the memory it offers)",
            mib_text(need.asked_mib)
        )
    } else {
        format!("less than the {} asked", mib_text(need.asked_mib))
    };
    let (them, offer) = if names.len() == 1 {
        ("it", "offers")
    } else {
        ("each", "offers")
    };
    Some(format!(
        "not {}: {them} {offer} {}, {lacks}",
        names.join(" or "),
        mib_text(usable)
    ))
}

/// The memory a profile's name gives (`3g.40gb`: 40), 0 when it gives none.
fn nominal_gib(name: &str) -> u64 {
    name.split_once('.')
        .and_then(|(_, m)| m.split("gb").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Where an instance's memory comes from: the named driver's listing, the real listing, the
/// smallest of several that differ (a plan must hold on every driver listed), or an estimate
/// below every listing of its share.
pub(crate) fn memory_basis(model: &GpuModel, profile: &MigProfile, driver: Option<&str>) -> String {
    let listed = model.instance_listings(profile.memory_slices);
    let cite = |l: &ListedInstance| format!("{} in {}", l.listed.text(), l.listing.cite());
    if let Some(l) = model.driver_listing(profile.memory_slices, driver) {
        return format!(
            ", as listed for driver {}: {}",
            driver.unwrap_or_default(),
            cite(&l)
        );
    }
    let unlisted = match (driver, listed.is_empty()) {
        (Some(d), false) => {
            format!("; no listing from driver {d} is known for this board and size")
        }
        _ => String::new(),
    };
    smallest_basis(model, profile, &listed, cite) + &unlisted
}

/// [`memory_basis`] without a driver: the one listing, the smallest of several, or the estimate.
fn smallest_basis(
    model: &GpuModel,
    profile: &MigProfile,
    listed: &[ListedInstance],
    cite: impl Fn(&ListedInstance) -> String,
) -> String {
    match listed {
        [] => {
            let share = model
                .mig
                .and_then(|g| {
                    Share::ratio(profile.memory_slices.into(), g.memory_slices.into()).ok()
                })
                .unwrap_or(Share::ONE);
            format!(
                ", estimated: no real listing of this board and size is known; the least any listed instance of {share} of its board's memory offers, scaled to this board"
            )
        }
        [first, rest @ ..] if rest.iter().all(|l| l.mib == first.mib) => {
            format!(", as listed: {}", cite(first))
        }
        [first, rest @ ..] => {
            let others: Vec<String> = rest.iter().map(&cite).collect();
            format!(
                ", the smallest of {} listings, so that it holds on every driver listed: {}; also {}",
                listed.len(),
                cite(first),
                others.join("; ")
            )
        }
    }
}

/// Refuses memory asks the cluster cannot judge or no GPU of it can hold: memory needs a known
/// GPU model, and no ask may need more than one GPU offers. Fields are `asks[i].memory`.
///
/// # Errors
/// `OutOfRange` with a hint to give the GPU model, or naming the smallest catalogued GPU that
/// would hold the ask (or the largest there is).
pub(crate) fn check(asks: &[FractionalAsk], caps: &ResolvedCaps) -> Result<()> {
    for (i, ask) in asks.iter().enumerate() {
        let Some(need) = need(ask, caps) else {
            continue;
        };
        let field = format!("asks[{i}].memory");
        let Some(model) = caps.model else {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!(
                    "{:?} asks for memory, which needs the GPU model: how much memory a GPU offers depends on it",
                    ask.name()
                ),
            )
            .in_field(field)
            .with_hint(Hint::Give {
                input: Input::GpuModel,
            }));
        };
        let usable = model.usable_memory().mib;
        if need.held_mib > usable {
            let needed = match smallest_gpu_holding(need.held_mib) {
                Some(m) => format!(
                    "the smallest GPU in the catalogue that holds it is {} ({} usable)",
                    m.name,
                    mib_text(m.usable_memory().mib)
                ),
                None => format!(
                    "no GPU in the catalogue holds it (the largest, {}, offers {})",
                    largest_gpu().map_or("?", |m| m.name),
                    largest_gpu().map_or(String::new(), |m| mib_text(m.usable_memory().mib))
                ),
            };
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!(
                    "{:?} holds {} ({} asked + {} CUDA context), more than one {} offers ({} of {} MiB after the driver's reserve); {needed}",
                    ask.name(),
                    mib_text(need.held_mib),
                    mib_text(need.asked_mib),
                    mib_text(caps.context_mib),
                    model.name,
                    mib_text(usable),
                    model.memory_mib
                ),
            )
            .in_field(field));
        }
    }
    Ok(())
}
