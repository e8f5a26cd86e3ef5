//! The plan, shared through context: the request the rows and the cluster form make once the
//! edits settle (`settle`), and the core's answer to it (`api::pack_given_leaving_out`).

use gpu_share_core::api::{
    self, find_model, Cluster, Error, ErrorKind, GpuModel, LeftOut, PackOptions, PackRequest,
    PackResponse, DEFAULT_MIG_MODEL,
};
use leptos::prelude::*;

use super::{Asks, ClusterForm, OPTIMIZE_MS};

/// The settled request and its plan.
#[derive(Clone, Copy)]
pub struct Planned {
    /// Changes once the typed request has changed and the edits have settled (`settle`): the
    /// request, the plan, the address bar and the share links follow it.
    pub settled: Signal<u64>,
    /// The request the plan is made from, as the edits settled (`settled`); the export panel and
    /// "Record this plan" use it too, so they always agree with the plan shown.
    pub request: Memo<PackRequest>,
    /// The core's answer to the settled `request` (`api::pack_given_leaving_out`: the caps
    /// here are always given, and that keeps discovery out of the first load): the packing of every
    /// ask that can be packed and, with `optimize`, how the optimizer did; an error in the
    /// cluster fields.
    pub plan: Memo<Result<PackResponse, Error>>,
    /// Rows the core left out of the plan (a name used twice, a profile the model lacks), by row id.
    pub left_out: Memo<Vec<(u64, LeftOut)>>,
    /// The request the plan shown was made of: `request` without the asks left out. What is
    /// made from the plan (the export, the fit on live GPUs, "Make room", a recording) uses it,
    /// so one refused row leaves the others in every panel.
    pub kept: Memo<PackRequest>,
    /// The MIG-capable model whose profiles the pickers offer.
    pub profile_model: Memo<&'static GpuModel>,
}

impl Planned {
    /// The plan of `asks` on the cluster `form` describes, made as the edits settle.
    pub fn new(asks: Asks, form: ClusterForm) -> Planned {
        let settled = settled(asks, form);
        let request = request(settled, asks, form);
        let plan = plan(settled, request, form);
        Planned {
            settled,
            request,
            plan,
            left_out: left_out(settled, asks, plan),
            kept: Memo::new(move |_| {
                request.with(|r| {
                    plan.with(|p| {
                        p.as_ref()
                            .map_or_else(|_| r.clone(), |p| r.without(&p.left_out))
                    })
                })
            }),
            profile_model: profile_model(plan, form),
        }
    }
}

/// The edits that change the request, tracked one by one; the request itself (another copy of
/// every ask) is made once they settle, not on every keystroke.
fn settled(asks: Asks, form: ClusterForm) -> Signal<u64> {
    // Read, not only tracked: a memo first computed after this effect's first run (by the
    // first plan, made in a task of its own: `app::App`) would have counted as an edit.
    crate::settle::after_edits(move || {
        form.gpu_count_error.with(|_| ());
        form.nodes_error.with(|_| ());
        form.context_overhead_error.with(|_| ());
        form.caps.with(|_| ());
        form.optimize.track();
        asks.entries.with(Vec::len)
    })
}

/// The request of the asks and the caps as they were when the edits settled.
fn request(settled: Signal<u64>, asks: Asks, form: ClusterForm) -> Memo<PackRequest> {
    Memo::new(move |_| {
        settled.track();
        PackRequest {
            asks: asks.entries.get_untracked(),
            gpu_count: None,
            cluster: Cluster::Given(form.caps.get_untracked()),
            options: PackOptions {
                optimize: form.optimize.get_untracked(),
                time_limit_ms: Some(OPTIMIZE_MS),
                ..PackOptions::default()
            },
        }
    })
}

/// The core's plan of `request`. A field the page cannot read is not planned around: the plan
/// waits for it.
fn plan(
    settled: Signal<u64>,
    request: Memo<PackRequest>,
    form: ClusterForm,
) -> Memo<Result<PackResponse, Error>> {
    Memo::new(move |_| {
        settled.track();
        untrack(|| {
            let unread = |field: &str, e: Option<String>| {
                e.map(|m| Err(Error::new(ErrorKind::Syntax, m).in_field(field)))
            };
            unread("gpu_count", form.gpu_count_error.get())
                .or_else(|| unread("nodes", form.nodes_error.get()))
                .or_else(|| unread("context_overhead_mib", form.context_overhead_error.get()))
                .unwrap_or_else(|| request.with(api::pack_given_leaving_out))
        })
    })
}

/// The rows whose asks the plan left out, by the row ids of the asks it was made of (the rows
/// may have changed since).
fn left_out(
    settled: Signal<u64>,
    asks: Asks,
    plan: Memo<Result<PackResponse, Error>>,
) -> Memo<Vec<(u64, LeftOut)>> {
    let planned_rows = Memo::new(move |_| {
        settled.track();
        asks.entry_rows.get_untracked()
    });
    Memo::new(move |_| {
        let ids = planned_rows.get();
        plan.with(|p| {
            p.as_ref().map_or_else(
                |_| Vec::new(),
                |p| {
                    p.left_out
                        .iter()
                        .filter_map(|l| Some((*ids.get(l.index)?, l.clone())))
                        .collect()
                },
            )
        })
    })
}

/// The plan's model when it has MIG, else the form's, else the core's default MIG model.
fn profile_model(
    plan: Memo<Result<PackResponse, Error>>,
    form: ClusterForm,
) -> Memo<&'static GpuModel> {
    Memo::new(move |_| {
        let from_plan = plan.with(|p| {
            p.as_ref()
                .ok()
                .and_then(|p| p.result.gpu_model.as_deref().and_then(find_model))
        });
        let from_caps = form
            .caps
            .with(|c| c.gpu_model.as_deref().and_then(find_model));
        from_plan
            .filter(|m| m.is_mig_capable())
            .or(from_caps.filter(|m| m.is_mig_capable()))
            .or_else(|| find_model(DEFAULT_MIG_MODEL))
            .unwrap_or(&gpu_share_core::api::models()[0])
    })
}
