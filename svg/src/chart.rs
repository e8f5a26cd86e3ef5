//! The replay chart: allocation (% of GPU capacity) against arrived GPU demand (% of capacity),
//! one line per policy (its mean over the seeds), the diagonal where every arrival is placed, a
//! legend with each policy's allocation at 100% and at the tune, the pods each failed, and how
//! much the arrivals could allocate at best. The same style sheet as the packing diagram (a page
//! allows one sheet by its hash); lines take their colour from the palette as attributes.

use crate::document::{root, Body};
use crate::geometry::{px, LINE, MARGIN};
use crate::palette::PALETTE;
use crate::text::escape;
use crate::SvgOptions;
use gpu_share_core::api::{Percent, Policy, PolicyRuns, Replay};
use std::fmt::Write;

/// The plot's height and the room left of it for the axis labels.
const PLOT_HEIGHT: u32 = 260;
const AXIS: u32 = 40;

/// The chart of `replay` as a standalone SVG document. Never panics.
pub fn render_replay(replay: &Replay, options: &SvgOptions) -> String {
    let width = options.width.clamp(crate::MIN_WIDTH, crate::MAX_WIDTH);
    let title = options
        .title
        .clone()
        .unwrap_or_else(|| "Replay: GPU allocation as demand arrives".to_string());
    let desc = replay_summary(replay);
    let mut body = Body {
        out: String::new(),
        y: 0,
        width,
    };
    body.line("heading", &title, 24);
    body.paragraph("muted", &desc);
    body.y += 12;
    let last = replay
        .policies
        .first()
        .map_or(100, |p| p.mean_allocation.len().saturating_sub(1))
        .max(1) as u64;
    plot(
        &mut body,
        replay,
        View {
            x_from: 0,
            y_from: 0,
            last,
        },
    );
    // The top of the chart, where the policies part, drawn again larger.
    let lowest = replay
        .policies
        .iter()
        .filter_map(|p| p.at_tune)
        .map(|p| u64::from(p.0))
        .min()
        .unwrap_or(0);
    let y_from = (lowest.saturating_sub(300) / 500 * 500).min(9_500);
    body.y += 12;
    body.line(
        "subheading",
        &format!("The top, enlarged: {}%–100% allocated", y_from / 100),
        LINE,
    );
    body.y += 8;
    plot(
        &mut body,
        replay,
        View {
            x_from: (y_from / 100).saturating_sub(5).min(last - 1),
            y_from,
            last,
        },
    );
    body.y += 8;
    body.line("subheading", "Policies (mean over the seeds)", LINE);
    for policy in &replay.policies {
        legend_line(&mut body, policy);
    }
    body.y += 6;
    body.paragraph(
        "muted",
        &format!(
            "At best, these arrivals allocate between {}% (a placement that exists: the same pods largest first) and {}% (no placement can exceed it).",
            percent(replay.bound.offline),
            percent(replay.bound.upper)
        ),
    );
    root(width, body.y + MARGIN, options, &title, &desc, &body.out)
}

/// `6212 GPUs on 1213 nodes, 8152 pods, filled to 130% of capacity, seeds 42, 43`.
pub fn replay_summary(r: &Replay) -> String {
    let seeds: Vec<String> = r
        .policies
        .first()
        .map(|p| p.runs.iter().map(|run| run.seed.to_string()).collect())
        .unwrap_or_default();
    format!(
        "{} GPUs on {} nodes, {} pods, filled to {}% of capacity; seed{} {}",
        r.total_gpus,
        r.nodes,
        r.pods,
        (r.tune * 100.0).round(),
        if seeds.len() == 1 { "" } else { "s" },
        seeds.join(", ")
    )
}

/// A policy's colour, the same whichever policies are drawn.
fn colour(policy: &PolicyRuns) -> &'static str {
    let i = Policy::ALL
        .iter()
        .position(|&p| p == policy.policy)
        .unwrap_or(0);
    PALETTE[i % PALETTE.len()].0
}

/// `95.30`: two decimals, always.
fn percent(p: Percent) -> String {
    format!("{}.{:02}", p.0 / 100, p.0 % 100)
}

/// The part of the chart a plot shows: arrived demand from `x_from` to `last` percent, allocation
/// from `y_from` basis points to 100%.
struct View {
    x_from: u64,
    y_from: u64,
    last: u64,
}

fn plot(body: &mut Body, replay: &Replay, view: View) {
    let (left, top) = (MARGIN + AXIS, body.y);
    let plot_width = body.width.saturating_sub(left + MARGIN + 8).max(100);
    let View {
        x_from,
        y_from,
        last,
    } = view;
    let x_span = (last - x_from).max(1);
    let y_span = (10_000 - y_from).max(1);
    let x = |a: u64| {
        u64::from(left) * 100 + a.saturating_sub(x_from) * u64::from(plot_width) * 100 / x_span
    };
    let y = |bp: u64| {
        u64::from(top) * 100
            + (10_000 - bp.clamp(y_from, 10_000)) * u64::from(PLOT_HEIGHT) * 100 / y_span
    };
    let out = &mut body.out;
    let y_step = if y_span > 5_000 {
        20
    } else if y_span > 1_000 {
        5
    } else {
        1
    };
    for tick in (y_from / 100..=100).filter(|t| t % y_step == 0) {
        let ty = y(tick * 100);
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"slice-line\"/><text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{tick}%</text>",
            px(x(0)), px(ty), px(x(last)), px(ty), left - 4, px(ty + 400)
        );
    }
    for tick in (x_from..=last).filter(|t| t % if x_span > 60 { 20 } else { 10 } == 0) {
        let _ = writeln!(
            out,
            "<text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{tick}%</text>",
            px(x(tick)),
            top + PLOT_HEIGHT + 14
        );
    }
    let diagonal_end = last.min(100);
    let _ = writeln!(
        out,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"slice-line\" stroke-dasharray=\"4 3\"><title>every arrival placed</title></line>",
        px(x(x_from.max(y_from / 100))), px(y(x_from.max(y_from / 100) * 100)), px(x(diagonal_end)), px(y(diagonal_end * 100))
    );
    for policy in &replay.policies {
        let points: Vec<String> = policy
            .mean_allocation
            .iter()
            .enumerate()
            .filter(|&(a, v)| a as u64 >= x_from && v.is_some_and(|p| u64::from(p.0) >= y_from))
            .filter_map(|(a, v)| {
                v.map(|p| format!("{},{}", px(x(a as u64)), px(y(u64::from(p.0)))))
            })
            .collect();
        let _ = writeln!(
            out,
            "<polyline data-policy=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"><title>{}</title></polyline>",
            policy.policy.name(),
            points.join(" "),
            colour(policy),
            escape(policy.policy.name())
        );
    }
    body.y = top + PLOT_HEIGHT + 16;
    body.line(
        "muted",
        "x: arrived GPU demand; y: GPU allocated (both % of the cluster's GPU capacity)",
        LINE,
    );
}

fn legend_line(body: &mut Body, policy: &PolicyRuns) {
    let at = |p: Option<Percent>| p.map_or("—".to_string(), |p| format!("{}%", percent(p)));
    let spread = policy
        .spread_at_tune
        .map_or(String::new(), |s| format!(" ± {}", percent(s)));
    let text = format!(
        "{}: {} at 100%, {}{} at the end; failed {} shares, {} whole-GPU pods, {} without GPUs",
        policy.policy.name(),
        at(policy.at_100),
        at(policy.at_tune),
        spread,
        policy.mean_failed.share,
        policy.mean_failed.whole,
        policy.mean_failed.no_gpu,
    );
    body.y += LINE;
    let _ = writeln!(
        body.out,
        "<g data-policy=\"{}\"><rect x=\"{MARGIN}\" y=\"{}\" width=\"14\" height=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
        policy.policy.name(),
        body.y - 6,
        colour(policy),
        MARGIN + 20,
        body.y,
        escape(&text)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_share_core::api::{self, ReplayRequest, ReplaySettings, Tune};

    #[test]
    fn the_chart_is_well_formed_with_a_line_per_policy_twice() {
        let r = api::replay(&ReplayRequest {
            nodes_csv: "sn,cpu_milli,memory_mib,gpu,model\nn<&>,64000,262144,4,T4\n".into(),
            pods_csv: "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,4000,1024,1,500\nb,8000,2048,1,1000\nc,1000,512,0,0\n".into(),
            options: ReplaySettings {
                policies: vec![Policy::BestFit, Policy::GpuShare],
                seeds: vec![1, 2],
                tune: Some(Tune::PAPER),
            },
        })
        .unwrap();
        let svg = render_replay(
            &r,
            &SvgOptions {
                title: Some("<&>".into()),
                ..SvgOptions::default()
            },
        );
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let lines = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .count();
        assert_eq!(lines, 4, "each policy in the chart and in its enlarged top");
        assert!(svg.contains("&lt;&amp;&gt;") && svg.contains("seeds 1, 2"));
        assert!(svg.contains("best-fit: ") && svg.contains("gpu-share: "));
    }
}
