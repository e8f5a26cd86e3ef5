//! The replay use case: a node list and a pod list in the Alibaba 2023 GPU trace's form, placed
//! online under the FGD paper's policies and gpu-share's, seed by seed — the allocation and
//! fragmentation at every percent of arrived demand, failed pods by kind, and how much the
//! arrivals could allocate at best (docs/hardware-facts.md §12).

use crate::error::{Error, ErrorKind, Result};
use crate::replay::workload::Tune;
use crate::replay::{self, Policy, Replay, ReplayOptions, Trace};

/// The seed a replay uses when none is given: the first of the paper's (42–51).
pub const DEFAULT_SEED: u64 = 42;

/// What to replay: npm `replay(nodes, pods, options)`, `gpu-share replay --nodes FILE --pods FILE`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ReplayRequest {
    /// The node list's CSV text (`sn,cpu_milli,memory_mib,gpu,model`).
    #[cfg_attr(feature = "serde", serde(rename = "nodes"))]
    pub nodes_csv: String,
    /// The pod list's CSV text (`name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,…`).
    #[cfg_attr(feature = "serde", serde(rename = "pods"))]
    pub pods_csv: String,
    #[cfg_attr(feature = "serde", serde(default))]
    pub options: ReplaySettings,
}

/// Which policies and seeds, and how far to fill. Empty `policies` replays all seven; empty
/// `seeds` replays seed 42; no `tune` fills to the paper's 130%.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "ReplayOptions", rename_all = "camelCase"))]
pub struct ReplaySettings {
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "ts", ts(type = "Array<Policy | string>"))]
    pub policies: Vec<Policy>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub seeds: Vec<u64>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub tune: Option<Tune>,
}

/// Replays the pod list on the nodes under each policy and seed.
///
/// # Errors
/// The lists' errors (fields `nodes`, `pods`, with line and column); `DuplicateName` for a
/// policy or seed given twice (`options.policies[i]`, `options.seeds[i]`); the limits of [`replay::run::MAX_RUNS`] and
/// [`replay::run::MAX_WORK`].
pub fn replay(request: &ReplayRequest) -> Result<Replay> {
    let trace = Trace::read(&request.nodes_csv, &request.pods_csv)?;
    let request = &request.options;
    let policies = if request.policies.is_empty() {
        Policy::ALL.to_vec()
    } else {
        no_repeats(&request.policies, "options.policies", |p| {
            p.name().to_string()
        })?;
        request.policies.clone()
    };
    let seeds = if request.seeds.is_empty() {
        vec![DEFAULT_SEED]
    } else {
        no_repeats(&request.seeds, "options.seeds", u64::to_string)?;
        request.seeds.clone()
    };
    let options = ReplayOptions {
        policies,
        seeds,
        tune: request.tune.unwrap_or(Tune::PAPER),
    };
    replay::replay(&trace, &options)
}

fn no_repeats<T: PartialEq>(items: &[T], field: &str, name: impl Fn(&T) -> String) -> Result<()> {
    for (i, item) in items.iter().enumerate() {
        if items[..i].contains(item) {
            return Err(Error::new(
                ErrorKind::DuplicateName,
                format!("{} is given twice", name(item)),
            )
            .in_field(format!("{field}[{i}]")));
        }
    }
    Ok(())
}
