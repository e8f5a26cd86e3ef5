//! A mig-parted config checked against the same rules: each entry's devices and their MIG
//! layout, as mig-parted reads them, with errors at the entry's path.

use super::{profile_index, validate_counts, MigValidation};
use crate::catalog::GpuModel;
use crate::error::{Error, ErrorKind, Result};
use serde_json::{Map, Value};

fn schema(path: &str, message: impl Into<String>) -> Error {
    let e = Error::new(ErrorKind::Syntax, message);
    if path.is_empty() {
        e
    } else {
        e.in_field(path)
    }
}

fn object<'v>(value: &'v Value, path: &str, what: &str) -> Result<&'v Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| schema(path, format!("must be a mapping ({what})")))
}

/// Validates every MIG-enabled entry of a mig-parted config (`version: v1`, `mig-configs:
/// <name>: [ {devices, device-filter?, mig-enabled, mig-devices} ]`, docs/hardware-facts.md §1.5) against
/// `model`, following mig-parted's own schema checks (`api/spec/v1/spec.go`): `version` must
/// be `v1`; each config needs at least one entry; each entry needs `devices` (`all` or a list
/// of indices) and `mig-enabled`; `mig-devices` is required when MIG is enabled and must be
/// empty when it is not; no other fields. The caller parses the YAML (the core reads none).
///
/// Returns `(config name, entry index, validation)` for each MIG-enabled entry, in config-name
/// order. Entries with a `device-filter` that name profiles this model does not offer are taken
/// to be for other boards and skipped.
///
/// # Errors
/// `Syntax` for a schema error, naming the field path (`mig-configs.all-balanced[0].mig-devices`);
/// `UnknownProfile` for a profile the model does not offer in an entry without a device filter;
/// `OutOfRange` for a model without MIG.
pub fn validate_mig_parted(
    doc: &Value,
    model: &GpuModel,
) -> Result<Vec<(String, usize, MigValidation)>> {
    super::require_mig(model)?;
    let top = object(doc, "", "a mig-parted config with version and mig-configs")?;
    match top.get("version") {
        Some(Value::String(v)) if v == "v1" => {}
        Some(Value::String(v)) => {
            return Err(schema(
                "version",
                format!("unknown version {v:?}; expected v1"),
            ))
        }
        Some(_) => return Err(schema("version", "must be the string v1")),
        None => return Err(schema("version", "missing; expected version: v1")),
    }
    if let Some(key) = top.keys().find(|k| *k != "version" && *k != "mig-configs") {
        return Err(schema(
            key,
            "unexpected field; expected version and mig-configs",
        ));
    }
    let configs = match top.get("mig-configs") {
        Some(v) => object(v, "mig-configs", "config name to a list of entries")?,
        None => return Err(schema("mig-configs", "missing")),
    };
    if configs.is_empty() {
        return Err(schema("mig-configs", "needs at least one config"));
    }
    let mut out = Vec::new();
    for (name, entries) in configs {
        let path = format!("mig-configs.{name}");
        let entries = entries
            .as_array()
            .ok_or_else(|| schema(&path, "must be a list of entries"))?;
        if entries.is_empty() {
            return Err(schema(&path, "needs at least one entry"));
        }
        for (i, entry) in entries.iter().enumerate() {
            let path = format!("{path}[{i}]");
            if let Some(v) = entry_validation(entry, &path, model)? {
                out.push((name.clone(), i, v));
            }
        }
    }
    Ok(out)
}

/// One entry of a config: its schema checked field by field (in mig-parted's order, so the
/// first error named is the one mig-parted names), then its profiles validated on `model`.
/// `None` for an entry with MIG off, or one whose device filter marks it for other boards.
fn entry_validation(entry: &Value, path: &str, model: &GpuModel) -> Result<Option<MigValidation>> {
    let map = object(entry, path, "devices, mig-enabled, mig-devices")?;
    let field = |f: &str| format!("{path}.{f}");
    reject_unknown_entry_field(map, &field)?;
    check_devices(map, &field)?;
    let filtered = has_device_filter(map, &field)?;
    let enabled = mig_enabled(map, &field)?;
    let Some(devices) = enabled_mig_devices(map, enabled, &field)? else {
        return Ok(None);
    };
    let Some((counts, names)) = profile_counts(devices, &field("mig-devices"), model, filtered)?
    else {
        return Ok(None);
    };
    Ok(Some(validate_counts(model, &counts, names)))
}

/// mig-parted's entry has four fields and no others.
fn reject_unknown_entry_field(
    map: &Map<String, Value>,
    field: &impl Fn(&str) -> String,
) -> Result<()> {
    if let Some(key) = map.keys().find(|k| {
        !matches!(
            k.as_str(),
            "devices" | "device-filter" | "mig-enabled" | "mig-devices"
        )
    }) {
        return Err(schema(
            &field(key),
            "unexpected field; expected devices, device-filter, mig-enabled or mig-devices",
        ));
    }
    Ok(())
}

/// `devices` is required: `all` or a list of GPU indices.
fn check_devices(map: &Map<String, Value>, field: &impl Fn(&str) -> String) -> Result<()> {
    match map.get("devices") {
        Some(Value::String(s)) if s == "all" => Ok(()),
        Some(Value::Array(list)) if list.iter().all(|v| v.as_u64().is_some()) => Ok(()),
        Some(_) => Err(schema(
            &field("devices"),
            "must be all or a list of GPU indices",
        )),
        None => Err(schema(&field("devices"), "missing required field")),
    }
}

/// Whether the entry has a (well-formed) `device-filter`, i.e. is meant for some boards only.
fn has_device_filter(map: &Map<String, Value>, field: &impl Fn(&str) -> String) -> Result<bool> {
    match map.get("device-filter") {
        None => Ok(false),
        Some(Value::String(_)) => Ok(true),
        Some(Value::Array(list)) if list.iter().all(Value::is_string) => Ok(true),
        Some(_) => Err(schema(
            &field("device-filter"),
            "must be a PCI device ID or a list of them",
        )),
    }
}

/// `mig-enabled` is required and a boolean.
fn mig_enabled(map: &Map<String, Value>, field: &impl Fn(&str) -> String) -> Result<bool> {
    match map.get("mig-enabled") {
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(schema(&field("mig-enabled"), "must be true or false")),
        None => Err(schema(&field("mig-enabled"), "missing required field")),
    }
}

/// The `mig-devices` mapping to validate: required when MIG is enabled, and must be absent or
/// empty when it is not (then `None`: nothing to check).
fn enabled_mig_devices<'v>(
    map: &'v Map<String, Value>,
    enabled: bool,
    field: &impl Fn(&str) -> String,
) -> Result<Option<&'v Map<String, Value>>> {
    let devices = match map.get("mig-devices") {
        None | Some(Value::Null) if enabled => {
            return Err(schema(
                &field("mig-devices"),
                "missing; required when mig-enabled is true",
            ))
        }
        None | Some(Value::Null) => None,
        Some(v) => Some(object(
            v,
            &field("mig-devices"),
            "profile name to instance count",
        )?),
    };
    let Some(devices) = devices else {
        return Ok(None);
    };
    if !enabled {
        if devices.is_empty() {
            return Ok(None);
        }
        return Err(schema(
            &field("mig-devices"),
            "MIG devices given while mig-enabled is false",
        ));
    }
    Ok(Some(devices))
}

/// The instance count per catalogue profile and the profile names to validate, largest first.
/// `None` when a profile is not this model's but the entry is filtered to some boards (so it is
/// for other boards).
fn profile_counts(
    devices: &Map<String, Value>,
    path: &str,
    model: &GpuModel,
    filtered: bool,
) -> Result<Option<(Vec<usize>, Vec<String>)>> {
    let mut counts = vec![0usize; model.profiles.len()];
    let mut names = Vec::new();
    for (profile, count) in devices {
        let n = count.as_u64().ok_or_else(|| {
            schema(
                &format!("{path}.{profile}"),
                "must be a whole number of instances",
            )
        })?;
        let Some(p) = model.profile(profile) else {
            if filtered {
                return Ok(None);
            }
            return Err(model
                .require_profile(profile)
                .map(|_| Error::new(ErrorKind::UnknownProfile, ""))
                .unwrap_or_else(|e| e)
                .in_field(path));
        };
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let index = profile_index(model, p);
        counts[index] = counts[index].saturating_add(n);
        // A count beyond any GPU's maximum is listed only up to 64 times.
        for _ in 0..n.min(64) {
            names.push(p.name.to_string());
        }
    }
    // Largest first: the mapping's key order says nothing.
    crate::sort::sort_by_key(&mut names, |n| {
        model.profile(n).map(|p| {
            (
                std::cmp::Reverse(p.memory_slices),
                std::cmp::Reverse(p.compute_slices),
            )
        })
    });
    Ok(Some((counts, names)))
}
