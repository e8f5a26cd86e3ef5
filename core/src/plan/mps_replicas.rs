//! What the NVIDIA device plugin's MPS daemon gives each client: the same `100/replicas` of the
//! threads and `total/replicas` of the memory, with at least 2 replicas (docs/hardware-facts.md §3).
//! Known at plan time, so the planner warns of an ask the plugin cannot give and the
//! device-plugin export refuses it with the same rule.

use crate::catalog::GpuModel;
use crate::units::Share;

/// Whether the equal share the device plugin's MPS daemon gives every client at `replicas` covers
/// an ask of `fraction`: `100/replicas` percent of the threads, rounded down as the daemon computes
/// it, at least the exact fraction; and `total/replicas` MiB of pinned memory, rounded down, at
/// least the ask's memory in whole MiB (the daemon's limits are whole MiB, so half a MiB cannot be
/// given), docs/hardware-facts.md §3.
fn equal_share_covers(replicas: u32, fraction: Share, memory_mib: Option<u64>) -> bool {
    let one = u128::from(Share::ONE.units());
    let f = u128::from(fraction.units());
    let replicas = replicas.max(1);
    let threads = u128::from(100 / replicas) * one >= f * 100;
    let memory = memory_mib
        .is_none_or(|mib| u128::from(mib / u64::from(replicas)) >= u128::from(mib) * f / one);
    threads && memory
}

/// Whether the equal share at `replicas` covers a client of `fraction` that asked `asked_mib` of memory, if any, on a GPU
/// of `total_mib`: what the planner checks before any export (so a plan says at once what the
/// device plugin cannot give).
pub(crate) fn share_covered(
    replicas: u32,
    fraction: Share,
    asked_mib: Option<u64>,
    total_mib: Option<u64>,
) -> bool {
    match (asked_mib, total_mib) {
        (Some(asked), Some(total)) => {
            equal_share_covers(replicas, fraction, None)
                && total / u64::from(replicas.max(1)) >= asked
        }
        _ => equal_share_covers(replicas, fraction, total_mib),
    }
}

/// The plugin's least number of replicas ("replicas must be at least 2", its README): the most
/// any one MPS client can get is the equal share at this many.
pub(crate) const MIN_REPLICAS: u32 = 2;

/// The pinned memory an MPS client gets at the plugin's least 2 replicas, as words to follow "at
/// most 50% of the threads" (` and 40960 MiB of the H100-80GB-HBM3's 81920 MiB`); empty without a
/// model. The planner's warning (`warn_of_device_plugin`) and the device-plugin export both say it.
pub(crate) fn half_the_memory(model: Option<&GpuModel>) -> String {
    model
        .map(|m| {
            format!(
                " and {} MiB of the {}'s {} MiB",
                m.memory_mib / 2,
                m.name,
                m.memory_mib
            )
        })
        .unwrap_or_default()
}
