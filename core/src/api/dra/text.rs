//! The DRA simulation in sentences: gpu-share's placement, then per slice order the scheduler's
//! first fit of claims written a template per workload and of gpu-share's claims, then where
//! gpu-share's claims avoid stranding that the templates cause.

use crate::api::PackResponse;
use crate::export::dra::allocator::{FirstFit, PlanVsScheduler, SliceOrder};
use std::fmt::Write;

/// `n thing` or `n things`.
fn count(n: u64, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// `n more thing` or `n more things`.
fn more(n: u64, thing: &str) -> String {
    format!("{n} more {thing}{}", if n == 1 { "" } else { "s" })
}

/// The whole text, one line per fact, ending in a newline.
pub(super) fn render(packed: &PackResponse, simulations: &[PlanVsScheduler]) -> String {
    let mut out = String::new();
    let result = &packed.result;
    if let Some(first) = simulations.first() {
        let placed = result.choices.len().saturating_sub(result.unplaced.len()) as u64;
        let _ = write!(
            out,
            "gpu-share's plan: {} on {}",
            count(placed, "ask"),
            count(result.gpus_used, "GPU")
        );
        if let Some(left) = first.planned_whole_gpus_left {
            let total = first.gpu_share.gpus.len() as u64;
            let _ = write!(
                out,
                "; {left} of the slices' {} left whole",
                count(total, "GPU")
            );
        }
        let _ = writeln!(
            out,
            "; {} stranded.",
            count(first.planned_stranded_memory_slices, "memory slice")
        );
    }
    for u in &result.unplaced {
        let _ = writeln!(out, "Not placed (not simulated): {}: {}", u.name, u.reason);
    }
    for s in simulations {
        let _ = writeln!(out, "{}:", order_title(s.per_ask.order));
        line(&mut out, "a template per workload", &s.per_ask);
        line(&mut out, "gpu-share's claims (export dra)", &s.gpu_share);
    }
    conclusion(&mut out, simulations);
    let mut notes: Vec<&String> = Vec::new();
    for s in simulations {
        for n in s
            .notes
            .iter()
            .chain(&s.per_ask.notes)
            .chain(&s.gpu_share.notes)
        {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
    }
    for n in notes {
        let _ = writeln!(out, "Note: {n}");
    }
    out
}

fn order_title(order: SliceOrder) -> &'static str {
    match order {
        SliceOrder::Listed => "The scheduler's first fit, slices in list order",
        SliceOrder::Spread => "The scheduler's first fit, slices spread (emptiest GPU first, an order the scheduler may take: dra-driver-nvidia-gpu#932)",
    }
}

/// One set of claims' outcome: what was allocated, the GPUs used and left, and where slices are stranded.
fn line(out: &mut String, who: &str, fit: &FirstFit) {
    let allocated = fit.claims.iter().filter(|c| c.allocated).count() as u64;
    let _ = write!(
        out,
        "  {who}: {allocated} of {} allocated on {}; {} left whole; {} stranded",
        count(fit.claims.len() as u64, "claim"),
        count(fit.gpus_used, "GPU"),
        count(fit.whole_gpus_left, "GPU"),
        count(fit.stranded_memory_slices, "memory slice"),
    );
    let at: Vec<String> = fit
        .gpus
        .iter()
        .filter(|g| !g.stranded_memory_slices.is_empty())
        .map(|g| {
            let slices: Vec<String> = g.stranded_memory_slices.iter().map(u8::to_string).collect();
            let word = if slices.len() == 1 { "slice" } else { "slices" };
            format!("{} {}: {word} {}", g.node, g.uuid, slices.join(" "))
        })
        .collect();
    if !at.is_empty() {
        let _ = write!(out, " ({})", at.join("; "));
    }
    out.push_str(".\n");
    for c in fit.claims.iter().filter(|c| !c.allocated) {
        let reason = c.reason.as_deref().unwrap_or("no fit");
        let _ = writeln!(out, "    {} not allocated: {reason}.", c.claim);
    }
}

/// Where gpu-share's claims do better than templates, order by order, or that they do not.
fn conclusion(out: &mut String, simulations: &[PlanVsScheduler]) {
    let mut any = false;
    for s in simulations {
        let (t, g) = (&s.per_ask, &s.gpu_share);
        let missed = |f: &FirstFit| f.claims.iter().filter(|c| !c.allocated).count() as u64;
        let mut worse = Vec::new();
        if t.gpus_used > g.gpus_used {
            worse.push(format!("use {}", more(t.gpus_used - g.gpus_used, "GPU")));
        }
        if t.stranded_memory_slices > g.stranded_memory_slices {
            worse.push(format!(
                "strand {}",
                more(
                    t.stranded_memory_slices - g.stranded_memory_slices,
                    "memory slice"
                )
            ));
        }
        if missed(t) > missed(g) {
            worse.push(format!(
                "leave {} unallocated",
                more(missed(t) - missed(g), "claim")
            ));
        }
        if !worse.is_empty() {
            any = true;
            let order = match t.order {
                SliceOrder::Listed => "in list order",
                SliceOrder::Spread => "in the spread order",
            };
            let _ = writeln!(
                out,
                "Stranding {order}: claims written a template per workload {} than gpu-share's claims, which hold each planned GPU's devices in one claim on one GPU (`gpu-share export dra` writes them).",
                worse.join(" and ")
            );
        }
    }
    if !any && !simulations.is_empty() {
        out.push_str("In every order simulated, claims written a template per workload do as well as gpu-share's claims.\n");
    }
}
