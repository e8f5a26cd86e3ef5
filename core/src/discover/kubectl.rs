//! `kubectl get nodes -o json`: GPU nodes from GPU Feature Discovery labels and `nvidia.com/*` allocatable resources.

use super::inventory::{DiscoveredGpu, DiscoveredMigDevice, DiscoveredNode};
use super::raw::ModelIndex;
use crate::caps::MAX_GPU_COUNT;
use crate::catalog::GpuModel;
use crate::error::{Error, ErrorKind, Result};
use std::collections::BTreeMap;

/// Most physical GPUs one node may report (a guard against absurd labels).
const MAX_GPUS_PER_NODE: u64 = 256;

/// Nodes and their GPUs, plus notes.
pub(super) type Parsed = (Vec<DiscoveredGpu>, Vec<DiscoveredNode>, Vec<String>);

/// Reads a NodeList (or any list with `items`) or a single Node.
pub(super) fn parse(text: &str, first_line: usize) -> Result<Parsed> {
    use serde_json::Value;
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        let full = e.to_string();
        let message = full
            .rsplit_once(" at line ")
            .map_or(full.as_str(), |(m, _)| m)
            .to_string();
        Error::new(ErrorKind::Syntax, format!("not valid JSON: {message}"))
            .at_line(first_line + e.line().saturating_sub(1))
    })?;
    let kind = doc.get("kind").and_then(Value::as_str);
    let (items, prefix): (Vec<&Value>, &str) = match (kind, doc.get("items")) {
        (Some("Node"), _) => (vec![&doc], ""),
        (_, Some(Value::Array(items))) => (items.iter().collect(), "items"),
        (kind, _) => {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!(
                    "expected a Node or a NodeList (kubectl get nodes -o json), got {}",
                    kind.map_or("JSON without a kind".to_string(), |k| format!("kind {k:?}"))
                ),
            )
            .in_field("kind"))
        }
    };
    let mut gpus = Vec::new();
    let mut nodes = Vec::new();
    let mut notes = Vec::new();
    let mut without_gpus = 0;
    let index = ModelIndex::new();
    for (i, item) in items.iter().enumerate() {
        let path = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}[{i}].")
        };
        if let Some(k) = item
            .get("kind")
            .and_then(Value::as_str)
            .filter(|k| *k != "Node")
        {
            notes.push(format!("{path}kind {k:?} is not a Node; skipped"));
            continue;
        }
        let name = item
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                Error::new(ErrorKind::Syntax, "a node without a name")
                    .in_field(format!("{path}metadata.name"))
            })?;
        let labels = strings(
            item.pointer("/metadata/labels"),
            &format!("{path}metadata.labels"),
        )?;
        let allocatable = strings(
            item.pointer("/status/allocatable"),
            &format!("{path}status.allocatable"),
        )?;
        let node = NodeFacts {
            name,
            path: &path,
            labels,
            allocatable,
        };
        if !node.has_gpus() {
            without_gpus += 1;
            continue;
        }
        node.read(&index, &mut gpus, &mut nodes, &mut notes)?;
        if gpus.len() as u64 > MAX_GPU_COUNT {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!("more than {MAX_GPU_COUNT} GPUs"),
            )
            .in_field(format!("{path}metadata.labels")));
        }
    }
    if without_gpus > 0 {
        notes.push(format!(
            "{without_gpus} node{} without NVIDIA GPU labels or resources skipped",
            if without_gpus == 1 { "" } else { "s" }
        ));
    }
    Ok((gpus, nodes, notes))
}

/// A string map (labels, allocatable); values that are not strings are an error.
fn strings<'a>(
    value: Option<&'a serde_json::Value>,
    field: &str,
) -> Result<BTreeMap<&'a str, &'a str>> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(BTreeMap::new());
    };
    let map = value.as_object().ok_or_else(|| {
        Error::new(ErrorKind::Syntax, "expected an object of strings").in_field(field)
    })?;
    map.iter()
        .map(|(k, v)| {
            v.as_str().map(|s| (k.as_str(), s)).ok_or_else(|| {
                Error::new(ErrorKind::Syntax, format!("expected a string, got {v}"))
                    .in_field(format!("{field}.{k}"))
            })
        })
        .collect()
}

struct NodeFacts<'a> {
    name: &'a str,
    path: &'a str,
    labels: BTreeMap<&'a str, &'a str>,
    allocatable: BTreeMap<&'a str, &'a str>,
}

impl NodeFacts<'_> {
    fn has_gpus(&self) -> bool {
        self.labels
            .keys()
            .any(|k| k.starts_with("nvidia.com/gpu.") || k.starts_with("nvidia.com/mig"))
            || self
                .allocatable
                .keys()
                .any(|k| k.starts_with("nvidia.com/"))
    }

    fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .get(key)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    fn error(&self, map: &str, key: &str, message: String) -> Error {
        Error::new(ErrorKind::Syntax, message).in_field(format!("{}{map}.{key}", self.path))
    }

    fn label_number(&self, key: &str) -> Result<Option<u64>> {
        self.label(key)
            .map(|v| {
                v.parse::<u64>().map_err(|_| {
                    self.error(
                        "metadata.labels",
                        key,
                        format!("expected a whole number, got {v:?}"),
                    )
                })
            })
            .transpose()
    }

    fn allocatable_number(&self, key: &str) -> Result<Option<u64>> {
        self.allocatable
            .get(key)
            .map(|v| {
                v.trim().parse::<u64>().map_err(|_| {
                    self.error(
                        "status.allocatable",
                        key,
                        format!("expected a whole number, got {v:?}"),
                    )
                })
            })
            .transpose()
    }

    /// Reads this node's GPUs (with their MIG devices) into `gpus` and the node into `nodes`.
    fn read(
        &self,
        index: &ModelIndex,
        gpus: &mut Vec<DiscoveredGpu>,
        nodes: &mut Vec<DiscoveredNode>,
        notes: &mut Vec<String>,
    ) -> Result<()> {
        let node = self.name;
        let product = self.label("nvidia.com/gpu.product");
        let (base, single_profile) = product.map_or((None, None), |p| {
            let (base, profile) = split_product(p);
            (Some(base), profile)
        });
        let model = self.product_model(product, base, index, notes);
        let replicas = self
            .label_number("nvidia.com/gpu.replicas")?
            .map(|r| u32::try_from(r).unwrap_or(u32::MAX));
        let per_replica = u64::from(replicas.unwrap_or(1).max(1));
        let memory = self.label_number("nvidia.com/gpu.memory")?;
        let mig_strategy = self.label("nvidia.com/mig.strategy").map(str::to_string);
        let mig_capable_label = self.label("nvidia.com/mig.capable").map(|v| v == "true");
        let labelled_count = self.label_number("nvidia.com/gpu.count")?;
        let allocated_gpus = self
            .allocatable_number("nvidia.com/gpu")?
            .or(self.allocatable_number("nvidia.com/gpu.shared")?)
            .map(|n| n / per_replica);
        let facts = GpuFacts {
            name: product.unwrap_or("unknown").to_string(),
            model,
            memory,
            mig_capable: mig_capable_label
                .unwrap_or_else(|| model.is_some_and(GpuModel::is_mig_capable)),
            count: labelled_count.or(allocated_gpus).unwrap_or(0),
        };
        let (physical, counts) = match single_profile.filter(|p| *p != "INVALID") {
            Some(profile) => self.read_single(profile, &facts, gpus, notes)?,
            None => {
                if single_profile == Some("INVALID") {
                    notes.push(format!(
                        "node {node}: the single MIG strategy is invalid there (GPUs with different MIG configurations)"
                    ));
                }
                self.read_mixed(&facts, gpus, notes)?
            }
        };
        if physical == 0 {
            notes.push(format!(
                "node {node}: no GPU count (nvidia.com/gpu.count) or nvidia.com/gpu resource"
            ));
        }
        nodes.push(DiscoveredNode {
            name: node.to_string(),
            gpu_count: physical,
            sharing_strategy: self
                .label("nvidia.com/gpu.sharing-strategy")
                .map(str::to_string),
            replicas,
            mig_strategy,
            mig_config: self.label("nvidia.com/mig.config").map(str::to_string),
            mig_device_counts: counts,
        });
        Ok(())
    }

    /// The catalogue model of the product label's `base`, with a note when there is none.
    fn product_model(
        &self,
        product: Option<&str>,
        base: Option<&str>,
        index: &ModelIndex,
        notes: &mut Vec<String>,
    ) -> Option<&'static GpuModel> {
        let node = self.name;
        let model = base.and_then(|b| index.find(b));
        match (product, model) {
            (None, _) => notes.push(format!(
                "node {node}: no nvidia.com/gpu.product label; GPU model unknown"
            )),
            (Some(p), None) => notes.push(format!(
                "node {node}: {p:?} is not in the catalogue: planned as a GPU without MIG"
            )),
            _ => {}
        }
        model
    }

    /// Single MIG strategy: every GPU has the same profile, and the count counts MIG devices; the
    /// GPUs are as many as hold them. Returns the GPUs and the devices per profile.
    fn read_single(
        &self,
        profile: &str,
        facts: &GpuFacts,
        gpus: &mut Vec<DiscoveredGpu>,
        notes: &mut Vec<String>,
    ) -> Result<(u64, BTreeMap<String, u64>)> {
        let node = self.name;
        let devices = facts.count;
        check_count(
            devices,
            MAX_GPUS_PER_NODE * 7,
            &format!("{}metadata.labels.nvidia.com/gpu.count", self.path),
        )?;
        let per_gpu = facts
            .model
            .and_then(|m| m.profile(profile))
            .map(|p| u64::from(p.max_count.max(1)));
        let physical = match per_gpu {
            Some(k) => devices.div_ceil(k),
            None => devices,
        };
        notes.push(format!(
            "node {node}: single MIG strategy, {devices} {profile} devices; {physical} GPU{} assumed ({})",
            if physical == 1 { "" } else { "s" },
            match per_gpu {
                Some(k) => format!("at most {k} per GPU"),
                None => "profile not in the catalogue: one per GPU".to_string(),
            }
        ));
        let mut left = devices;
        for index in 0..physical {
            let here = per_gpu.map_or(1, |k| k.min(left));
            left = left.saturating_sub(here);
            let mut g = gpu(node, index, &facts.name, facts.model, None, true, true);
            g.mig_devices = (0..here)
                .map(|_| DiscoveredMigDevice {
                    profile: profile.to_string(),
                    start: None,
                    gpu_instance_id: None,
                    memory_mib: facts.memory,
                    compute_instances: Vec::new(),
                })
                .collect();
            gpus.push(g);
        }
        Ok((physical, BTreeMap::from([(profile.to_string(), devices)])))
    }

    /// Mixed MIG strategy (or none): the GPU count, with the node's MIG devices per profile spread
    /// over them, and more GPUs when the devices need them. Returns the GPUs and the devices per
    /// profile.
    fn read_mixed(
        &self,
        facts: &GpuFacts,
        gpus: &mut Vec<DiscoveredGpu>,
        notes: &mut Vec<String>,
    ) -> Result<(u64, BTreeMap<String, u64>)> {
        let node = self.name;
        let first_gpu = gpus.len();
        let counts = self.mig_device_counts()?;
        let total_devices: u64 = counts.values().fold(0, |a, &n| a.saturating_add(n));
        check_count(
            total_devices,
            MAX_GPUS_PER_NODE * 7,
            &format!("{}metadata.labels", self.path),
        )?;
        let physical = facts.count;
        check_count(
            physical,
            MAX_GPUS_PER_NODE,
            &format!("{}metadata.labels.nvidia.com/gpu.count", self.path),
        )?;
        let (name, model, memory) = (&facts.name, facts.model, facts.memory);
        for index in 0..physical {
            gpus.push(gpu(
                node,
                index,
                name,
                model,
                memory,
                facts.mig_capable,
                false,
            ));
        }
        if !counts.is_empty() {
            let node_gpus = gpus.get_mut(first_gpu..).unwrap_or_default();
            let added = spread(node, node_gpus, &counts, model, self, notes);
            for index in 0..added {
                gpus.push(gpu(node, physical + index, name, model, memory, true, true));
            }
            if added > 0 {
                let node_gpus = gpus.get_mut(first_gpu..).unwrap_or_default();
                spread(node, node_gpus, &counts, model, self, notes);
            }
        }
        Ok(((gpus.len() - first_gpu) as u64, counts))
    }

    /// The node's MIG devices per profile: from the `nvidia.com/mig-<profile>.count` labels, else
    /// from the allocatable `nvidia.com/mig-<profile>` resources (divided by their replicas).
    fn mig_device_counts(&self) -> Result<BTreeMap<String, u64>> {
        let mut counts = BTreeMap::new();
        for (key, value) in &self.labels {
            if let Some(resource) = key
                .strip_prefix("nvidia.com/mig-")
                .and_then(|k| k.strip_suffix(".count"))
            {
                let n = value.trim().parse::<u64>().map_err(|_| {
                    self.error(
                        "metadata.labels",
                        key,
                        format!("expected a whole number, got {value:?}"),
                    )
                })?;
                if n > 0 {
                    counts.insert(profile_of_resource(resource), n);
                }
            }
        }
        if counts.is_empty() {
            for key in self.allocatable.keys() {
                if let Some(resource) = key.strip_prefix("nvidia.com/mig-") {
                    let replicas = self
                        .label_number(&format!("nvidia.com/mig-{resource}.replicas"))?
                        .unwrap_or(1)
                        .max(1);
                    let n = self.allocatable_number(key)?.unwrap_or(0) / replicas;
                    if n > 0 {
                        counts.insert(profile_of_resource(resource), n);
                    }
                }
            }
        }
        Ok(counts)
    }
}

/// What a node's labels say of each of its GPUs.
struct GpuFacts {
    /// The product label as given (`unknown` without one).
    name: String,
    model: Option<&'static GpuModel>,
    memory: Option<u64>,
    mig_capable: bool,
    /// The GPU count (MIG devices under the single strategy): labelled, else allocatable.
    count: u64,
}

/// A `nvidia.com/gpu.product` value, `<base>[-MIG-<profile>][-SHARED]`, as its base product and
/// the profile it names under the single MIG strategy.
fn split_product(product: &str) -> (&str, Option<&str>) {
    let p = product.strip_suffix("-SHARED").unwrap_or(product);
    match p.split_once("-MIG-") {
        Some((base, profile)) => (base, Some(profile)),
        None => (p, None),
    }
}

fn check_count(n: u64, max: u64, field: &str) -> Result<()> {
    if n > max {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("{n} is more than the {max} one node may have"),
        )
        .in_field(field));
    }
    Ok(())
}

fn gpu(
    node: &str,
    index: u64,
    name: &str,
    model: Option<&'static GpuModel>,
    memory_mib: Option<u64>,
    mig_capable: bool,
    mig_enabled: bool,
) -> DiscoveredGpu {
    DiscoveredGpu {
        node: Some(node.to_string()),
        index,
        name: name.to_string(),
        model: model.map(|m| m.name.to_string()),
        memory_mib,
        mig_capable,
        mig_enabled,
        // GFD labels show MIG devices, not the mode: a GPU without them may be enabled and empty.
        mig_mode_shown: mig_enabled,
        mig_pending: None,
        mig_devices: Vec::new(),
        uuid: None,
        pci_bus_id: None,
        pci_device_id: None,
        power_limit_w: None,
    }
}

/// `1g.10gb.me` (a resource name, where the device plugin wrote `+` as `.`) → `1g.10gb+me`.
fn profile_of_resource(resource: &str) -> String {
    match resource.split_once("gb.") {
        Some((head, attrs)) => format!("{head}gb+{attrs}"),
        None => resource.to_string(),
    }
}

/// Puts a node's MIG devices on its GPUs, largest first, each on the first GPU with room (compute
/// and memory slices); labels count devices per node, not per GPU, so this spread is an assumption.
/// Returns how many more GPUs the devices would need; on success marks the GPUs that hold devices.
fn spread(
    node: &str,
    gpus: &mut [DiscoveredGpu],
    counts: &BTreeMap<String, u64>,
    model: Option<&'static GpuModel>,
    facts: &NodeFacts,
    notes: &mut Vec<String>,
) -> u64 {
    let geometry = model.and_then(|m| m.mig);
    let (full_c, full_m) = geometry.map_or((1, 1), |g| (g.compute_slices, g.memory_slices));
    let mut devices: Vec<(&str, u8, u8)> = counts
        .iter()
        .flat_map(|(p, &n)| {
            let (c, m) = model
                .and_then(|m| m.profile(p))
                .map_or((full_c, full_m), |q| (q.compute_slices, q.memory_slices));
            std::iter::repeat_n((p.as_str(), c, m), usize::try_from(n).unwrap_or(0))
        })
        .collect();
    crate::sort::sort_by_key(&mut devices, |&(_, c, m)| std::cmp::Reverse((m, c)));
    let mut room: Vec<(u8, u8)> = vec![(full_c, full_m); gpus.len()];
    let mut placed: Vec<Vec<&str>> = vec![Vec::new(); gpus.len()];
    let mut missing = 0u64;
    let mut extra: Vec<(u8, u8)> = Vec::new();
    // GPUs before `open` are full; skipping them keeps uniform layouts linear.
    let mut open = 0;
    for (p, c, m) in devices {
        while room.get(open).is_some_and(|&(rc, rm)| rc == 0 || rm == 0) {
            open += 1;
        }
        let fits = room
            .get(open..)
            .and_then(|r| r.iter().position(|&(rc, rm)| rc >= c && rm >= m));
        if let Some(k) = fits.map(|k| k + open) {
            if let (Some(r), Some(list)) = (room.get_mut(k), placed.get_mut(k)) {
                *r = (r.0 - c, r.1 - m);
                list.push(p);
            }
        } else if let Some(r) = extra.last_mut().filter(|(rc, rm)| *rc >= c && *rm >= m) {
            *r = (r.0 - c, r.1 - m);
        } else {
            extra.push((full_c.saturating_sub(c), full_m.saturating_sub(m)));
            missing += 1;
        }
    }
    if missing > 0 {
        notes.push(format!(
            "node {node}: its MIG devices need {missing} more GPU{} than nvidia.com/gpu.count gives; counted as more GPUs",
            if missing == 1 { "" } else { "s" }
        ));
        return missing;
    }
    for (g, list) in gpus.iter_mut().zip(placed) {
        if list.is_empty() {
            continue;
        }
        g.mig_enabled = true;
        g.mig_mode_shown = true;
        g.mig_capable = true;
        g.mig_devices = list
            .into_iter()
            .map(|p| DiscoveredMigDevice {
                profile: p.to_string(),
                start: None,
                gpu_instance_id: None,
                memory_mib: facts
                    .label_number(&format!("nvidia.com/mig-{}.memory", p.replace('+', ".")))
                    .ok()
                    .flatten(),
                compute_instances: Vec::new(),
            })
            .collect();
    }
    notes.push(format!(
        "node {node}: Kubernetes labels count MIG devices per node, not per GPU; they are shown spread over its GPUs (largest first, first fit) as an assumption"
    ));
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_names_become_profiles() {
        assert_eq!(profile_of_resource("3g.20gb"), "3g.20gb");
        assert_eq!(profile_of_resource("1g.10gb.me"), "1g.10gb+me");
        assert_eq!(profile_of_resource("1g.24gb.me.all"), "1g.24gb+me.all");
        assert_eq!(profile_of_resource("1g.24gb-me"), "1g.24gb-me");
    }
}
