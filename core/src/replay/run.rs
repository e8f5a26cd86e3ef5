//! One replay: for each seed the arrivals, then for each policy the pods placed one by one (or
//! failed), the allocation and fragmentation sampled at every percent of arrived GPU demand as
//! the simulator's analysis does (docs/hardware-facts.md §12): every pod's arrival is an event;
//! an event falls in the percent its arrived demand rounds to (half to even); a percent's value
//! is the mean over its events, or over the percents beside it when it has none. Percents after
//! the last arrival (a short list's last copy can stop below the tune) hold the final state.

use super::bound::{largest_first, upper_bound, Bound};
use super::cluster::{ClusterState, Placement};
use super::frag::Typical;
use super::percent::Percent;
use super::policy::{Policy, Scheduler};
use super::trace::{PodGpu, Trace};
use super::workload::{arrivals, Shapes, Tune};
use crate::error::{Error, ErrorKind, Result};

/// What to replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayOptions {
    pub policies: Vec<Policy>,
    pub seeds: Vec<u64>,
    pub tune: Tune,
}

/// The most runs (policies × seeds) and the most node checks (runs × arrivals × nodes) a replay
/// may ask: about a minute of work natively.
pub const MAX_RUNS: usize = 1000;
pub const MAX_WORK: u64 = 20_000_000_000;

/// Pods that fitted no node when they arrived, by what they asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct FailedPods {
    pub no_gpu: u64,
    pub share: u64,
    pub whole: u64,
    /// The GPU-milli they asked.
    pub gpu_milli: u64,
}

/// One policy under one seed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Run {
    pub seed: u64,
    /// Allocated GPU-milli over the capacity (%), at each percent of arrived demand from 0;
    /// `null` where no arrival came near that percent.
    #[cfg_attr(feature = "ts", ts(type = "Array<number | null>"))]
    pub allocation: Vec<Option<Percent>>,
    /// Fragmented GPU-milli over the capacity (%): free GPU the typical pods cannot use.
    #[cfg_attr(feature = "ts", ts(type = "Array<number | null>"))]
    pub fragmentation: Vec<Option<Percent>>,
    pub arrived_pods: u64,
    pub placed_pods: u64,
    pub failed: FailedPods,
    pub arrived_gpu_milli: u64,
    pub allocated_gpu_milli: u64,
}

/// One policy's runs and their mean.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct PolicyRuns {
    pub policy: Policy,
    pub runs: Vec<Run>,
    /// The mean over the seeds at each percent.
    #[cfg_attr(feature = "ts", ts(type = "Array<number | null>"))]
    pub mean_allocation: Vec<Option<Percent>>,
    /// The mean at 100% of arrived demand and at the tune (the paper's two columns).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub at_100: Option<Percent>,
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub at_tune: Option<Percent>,
    /// The sample standard deviation over the seeds at the tune; `null` with fewer than two
    /// seeds, where there is no spread to tell.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub spread_at_tune: Option<Percent>,
    /// The pods that failed, by kind, as the mean over the seeds (rounded down).
    pub mean_failed: FailedPods,
}

/// A replay's answer.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct Replay {
    pub total_gpus: u64,
    pub nodes: u64,
    /// The list's pods, before copies.
    pub pods: u64,
    /// The tune, as a ratio of the capacity (1.3).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tune: f64,
    /// How many kinds of pod make up the typical pods fragmentation is measured against.
    pub typical_pods: u64,
    pub policies: Vec<PolicyRuns>,
    /// What the arrivals could allocate at best, the mean over the seeds.
    pub bound: Bound,
}

/// Replays the trace under each policy and seed.
///
/// # Errors
/// `OutOfRange` for a node list without GPUs, no policy or no seed; `TooLarge` beyond
/// [`MAX_RUNS`] or [`MAX_WORK`], or arrivals beyond the limit.
pub fn replay(trace: &Trace, options: &ReplayOptions) -> Result<Replay> {
    let capacity = trace.capacity_milli();
    if capacity == 0 {
        return Err(
            Error::new(ErrorKind::OutOfRange, "the node list has no GPUs").in_field("nodes"),
        );
    }
    for (field, empty) in [
        ("policies", options.policies.is_empty()),
        ("seeds", options.seeds.is_empty()),
    ] {
        if empty {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                format!("give at least one of {field}"),
            )
            .in_field(field));
        }
    }
    let runs = options.policies.len() * options.seeds.len();
    if runs > MAX_RUNS {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("{runs} runs; the limit is {MAX_RUNS}"),
        )
        .in_field("seeds"));
    }
    let sim = Simulation::new(trace, options.tune);
    let mut per_policy: Vec<Vec<Run>> = vec![Vec::new(); options.policies.len()];
    let mut bounds = Vec::new();
    let mut work = 0u64;
    for &seed in &options.seeds {
        let order = arrivals(trace, options.tune, seed)?;
        work = work.saturating_add(
            (order.len() as u64)
                .saturating_mul(trace.nodes.len() as u64 * options.policies.len() as u64),
        );
        if work > MAX_WORK {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!("the replay would check more than {MAX_WORK} pod–node pairs; give fewer seeds, policies or pods"),
            )
            .in_field("seeds"));
        }
        let offline = sim.run(Policy::GpuShare, seed, &largest_first(trace, &order));
        let mut best_found = offline.allocated_gpu_milli;
        for (p, &policy) in options.policies.iter().enumerate() {
            let run = sim.run(policy, seed, &order);
            best_found = best_found.max(run.allocated_gpu_milli);
            per_policy[p].push(run);
        }
        let whole = u128::from(capacity);
        bounds.push(Bound {
            upper: Percent::of(u128::from(upper_bound(trace, &order)), whole),
            offline: Percent::of(u128::from(best_found), whole),
        });
    }
    let last = options.tune.last_percent();
    Ok(Replay {
        total_gpus: capacity / 1000,
        nodes: trace.nodes.len() as u64,
        pods: trace.pods.len() as u64,
        tune: f64::from(options.tune.permille()) / 1000.0,
        typical_pods: sim.paper.typical.pods.len() as u64,
        policies: options
            .policies
            .iter()
            .zip(per_policy)
            .map(|(&policy, runs)| summarise(policy, runs, last))
            .collect(),
        bound: Bound::mean(&bounds),
    })
}

/// What one policy scores a node against: typical pods, and the pods numbered by what the score
/// depends on.
pub(super) struct Scoring {
    pub typical: Typical,
    pub shapes: Shapes,
}

/// What every run of one replay shares.
pub(super) struct Simulation<'a> {
    pub trace: &'a Trace,
    /// The paper's typical pods: fragmentation is measured against them, and the published
    /// policies score by them.
    pub paper: Scoring,
    /// The typical pods and shapes with their memory: gpu-share's policy scores by them.
    pub gpu_share: Scoring,
    pub tune: Tune,
}

/// The events that fell in one percent: how many, and the sums of allocated and fragmented
/// GPU (fragment as Σ count × milli).
#[derive(Clone, Copy, Default)]
struct Bin {
    events: u64,
    allocated: u128,
    fragment: u128,
}

impl<'a> Simulation<'a> {
    pub fn new(trace: &'a Trace, tune: Tune) -> Self {
        Simulation {
            trace,
            paper: Scoring {
                typical: Typical::of(&trace.pods),
                shapes: Shapes::of(trace),
            },
            gpu_share: Scoring {
                typical: Typical::with_memory(&trace.pods),
                shapes: Shapes::with_memory(trace),
            },
            tune,
        }
    }

    fn run(&self, policy: Policy, seed: u64, order: &[u32]) -> Run {
        self.run_traced(policy, seed, order, |_, _| {})
    }

    /// A run that tells `placed` where each arrival went (`None`: it failed), in arrival order.
    pub fn run_traced(
        &self,
        policy: Policy,
        seed: u64,
        order: &[u32],
        mut placed: impl FnMut(u32, Option<Placement>),
    ) -> Run {
        let trace = self.trace;
        let capacity = trace.capacity_milli();
        let mut state = ClusterState::new(trace);
        let node_fragment = |state: &ClusterState, n: usize| {
            self.paper
                .typical
                .node_fragment(trace.nodes[n].model, state.left(n), state.free(n))
        };
        let mut fragment: Vec<u64> = (0..trace.nodes.len())
            .map(|n| node_fragment(&state, n))
            .collect();
        let mut fragment_total: u64 = fragment.iter().sum();
        let scoring = match policy {
            Policy::GpuShare => &self.gpu_share,
            _ => &self.paper,
        };
        let mut scheduler = Scheduler::new(
            policy,
            &scoring.typical,
            seed,
            trace.nodes.len(),
            scoring.shapes.count(),
        );
        let mut bins = vec![Bin::default(); self.tune.last_percent() + 1];
        let mut run = Run {
            seed,
            allocation: Vec::new(),
            fragmentation: Vec::new(),
            arrived_pods: order.len() as u64,
            placed_pods: 0,
            failed: FailedPods::default(),
            arrived_gpu_milli: 0,
            allocated_gpu_milli: 0,
        };
        for &i in order {
            let pod = &trace.pods[i as usize];
            run.arrived_gpu_milli += pod.gpu.milli();
            let at = scheduler.place(&state, pod, scoring.shapes.of_pod(i));
            placed(i, at);
            match at {
                Some(at) => {
                    state.place(pod, at);
                    let now = node_fragment(&state, at.node);
                    fragment_total = fragment_total - fragment[at.node] + now;
                    fragment[at.node] = now;
                    run.placed_pods += 1;
                }
                None => run.failed.count(pod.gpu),
            }
            let percent = round_half_even(
                u128::from(run.arrived_gpu_milli) * 100,
                u128::from(capacity),
            );
            if let Some(bin) = bins.get_mut(percent as usize) {
                bin.events += 1;
                bin.allocated += u128::from(state.allocated_milli);
                bin.fragment += u128::from(fragment_total);
            }
        }
        run.allocated_gpu_milli = state.allocated_milli;
        // Arrivals that stop short of the tune (the next copy would have passed it) leave the
        // cluster as it is: the percents after the last arrival hold its final state.
        let last = round_half_even(
            u128::from(run.arrived_gpu_milli) * 100,
            u128::from(capacity),
        );
        for bin in bins.iter_mut().skip(last as usize + 1) {
            *bin = Bin {
                events: 1,
                allocated: u128::from(state.allocated_milli),
                fragment: u128::from(fragment_total),
            };
        }
        let total = u128::from(self.paper.typical.total.max(1));
        run.allocation = sample(&bins, |b| (b.allocated, u128::from(capacity)));
        run.fragmentation = sample(&bins, |b| (b.fragment, u128::from(capacity) * total));
        run
    }
}

impl FailedPods {
    fn count(&mut self, gpu: PodGpu) {
        match gpu {
            PodGpu::None => self.no_gpu += 1,
            PodGpu::Share(_) => self.share += 1,
            PodGpu::Whole(_) => self.whole += 1,
        }
        self.gpu_milli += gpu.milli();
    }
}

fn round_half_even(n: u128, d: u128) -> u128 {
    let (q, r) = (n / d, n % d);
    match (2 * r).cmp(&d) {
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal => q + (q & 1),
        std::cmp::Ordering::Less => q,
    }
}

/// Each percent's mean over its events (or, with none, over the events of the percents beside
/// it), as `sum / (events × whole)`.
fn sample(bins: &[Bin], part: impl Fn(&Bin) -> (u128, u128)) -> Vec<Option<Percent>> {
    (0..bins.len())
        .map(|a| {
            let window = if bins[a].events > 0 {
                a..=a
            } else {
                a.saturating_sub(1)..=(a + 1).min(bins.len() - 1)
            };
            let (mut sum, mut events, mut whole) = (0, 0, 1);
            for bin in &bins[window] {
                let (s, w) = part(bin);
                (sum, events, whole) = (sum + s, events + u128::from(bin.events), w);
            }
            (events > 0).then(|| Percent::of(sum, events * whole))
        })
        .collect()
}

fn summarise(policy: Policy, runs: Vec<Run>, last: usize) -> PolicyRuns {
    let mean_allocation: Vec<Option<Percent>> = (0..=last)
        .map(|a| {
            let values: Vec<u32> = runs
                .iter()
                .filter_map(|r| r.allocation[a])
                .map(|p| p.0)
                .collect();
            (!values.is_empty()).then(|| {
                let sum: u64 = values.iter().map(|&v| u64::from(v)).sum();
                Percent::of(u128::from(sum), values.len() as u128 * 10_000)
            })
        })
        .collect();
    let at_tune: Vec<u32> = runs
        .iter()
        .filter_map(|r| r.allocation[last])
        .map(|p| p.0)
        .collect();
    PolicyRuns {
        policy,
        at_100: mean_allocation.get(100).copied().flatten(),
        at_tune: mean_allocation[last],
        spread_at_tune: (at_tune.len() > 1).then(|| Percent(spread(&at_tune))),
        mean_failed: mean_failed(&runs),
        mean_allocation,
        runs,
    }
}

/// Each kind of failed pod as the mean over the runs, rounded down.
fn mean_failed(runs: &[Run]) -> FailedPods {
    let n = runs.len().max(1) as u64;
    let mean = |f: fn(&FailedPods) -> u64| runs.iter().map(|r| f(&r.failed)).sum::<u64>() / n;
    FailedPods {
        no_gpu: mean(|f| f.no_gpu),
        share: mean(|f| f.share),
        whole: mean(|f| f.whole),
        gpu_milli: mean(|f| f.gpu_milli),
    }
}

/// The sample standard deviation, floored to a basis point.
fn spread(values: &[u32]) -> u32 {
    let n = values.len() as u128;
    if n < 2 {
        return 0;
    }
    let sum: u128 = values.iter().map(|&v| u128::from(v)).sum();
    let squares: u128 = values.iter().map(|&v| u128::from(v) * u128::from(v)).sum();
    let variance = (n * squares - sum * sum) / (n * (n - 1));
    variance.isqrt() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_round_half_to_even_into_percents() {
        assert_eq!(round_half_even(5, 10), 0);
        assert_eq!(round_half_even(15, 10), 2);
        assert_eq!(round_half_even(151, 100), 2);
        assert_eq!(round_half_even(149, 100), 1);
    }

    #[test]
    fn a_percent_without_events_takes_its_neighbours_mean() {
        let bin = |events, allocated| Bin {
            events,
            allocated,
            fragment: 0,
        };
        let bins = [bin(2, 300), bin(0, 0), bin(1, 600), bin(0, 0), bin(0, 0)];
        let sampled = sample(&bins, |b| (b.allocated, 1000));
        // 150 / 1000, then (300 + 600) / 3 of 1000, then 600 / 1000, then 600 / 1000, then none.
        assert_eq!(
            sampled,
            [
                Some(Percent(1500)),
                Some(Percent(3000)),
                Some(Percent(6000)),
                Some(Percent(6000)),
                None
            ]
        );
        assert_eq!(spread(&[9000, 9100]), 70);
    }
}
