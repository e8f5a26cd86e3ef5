//! Rows the core left out of the plan (a name used twice, a profile the model lacks): the fix
//! button the asks table shows beside such a row, and the note a panel that works from the
//! plan (export, GPUs as they are, Make room) shows — what it left out, why, and the same fix.

use gpu_share_core::api::{Fix, LeftOut};
use leptos::prelude::*;

use crate::state::{AskRow, Asks, Planned};
use crate::words;

/// Why the core left this row's ask out of the plan, if it did.
pub fn left_out(planned: Planned, row: AskRow) -> Option<LeftOut> {
    planned.left_out.with(|l| {
        l.iter()
            .find(|(id, _)| *id == row.id)
            .map(|(_, out)| out.clone())
    })
}

/// The core's suggested fix for a left-out row, as a button that applies it.
#[component]
pub fn FixButton(row: AskRow) -> impl IntoView {
    let planned = expect_context::<Planned>();
    move || {
        let fix = left_out(planned, row)?.fix?;
        let (label, apply): (String, Box<dyn Fn() + Send + Sync>) = match fix {
            Fix::Rename { name } => (
                format!("Rename to {name}"),
                Box::new(move || row.name.set(name.clone())),
            ),
            Fix::UseProfile { profile } => (
                format!("Use {profile}"),
                Box::new(move || row.profile.set(profile.clone())),
            ),
        };
        Some(
            view! { <button type="button" class="small fix" data-testid="fix" on:click=move |_| apply()>{label}</button> },
        )
    }
}

/// What a panel made from the plan does not hold: each left-out ask, why, and its fix.
#[component]
pub fn LeftOutNote() -> impl IntoView {
    let planned = expect_context::<Planned>();
    let asks = expect_context::<Asks>();
    move || {
        let list = planned.left_out.get();
        (!list.is_empty()).then(|| {
            let items = list
                .into_iter()
                .map(|(id, out)| {
                    let row = asks.rows.with(|r| r.iter().find(|r| r.id == id).copied());
                    let what = format!("{}: {}", out.name, words::message(&out.error));
                    view! { <li>{what}" "{row.map(|row| view! { <FixButton row /> })}</li> }
                })
                .collect_view();
            view! {
                <div class="left-out" data-testid="left-out-note" role="status">
                    <p>"Left out here, as in the plan (the other asks are all here):"</p>
                    <ul>{items}</ul>
                </div>
            }
        })
    }
}
