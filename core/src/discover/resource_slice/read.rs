//! Reading ResourceSlices from kubectl's JSON (or YAML, with the core's `yaml` feature) into [`ResourceSlices`].
//!
//! Accepts a `ResourceSliceList` or a `List` of ResourceSlices (what `kubectl get resourceslices
//! -o json|yaml` prints), one ResourceSlice, or several YAML documents of either. Other kinds in a
//! list are skipped with a note. Errors name the field (`items[2].spec.devices[0].name`).

use super::quantity;
use super::{
    Attribute, Capacity, CounterSet, CounterUse, ResourceSlice, ResourceSlices, SliceDevice,
    MAX_DEVICES,
};
use crate::error::{Error, ErrorKind, Result};
use serde_json::Value;
use std::collections::BTreeMap;

/// Reads `kubectl get resourceslices -o json` (or `-o yaml` with the `yaml` feature).
///
/// # Errors
/// `TooLarge` above [`MAX_INPUT_BYTES`](crate::parse::MAX_INPUT_BYTES) or [`MAX_DEVICES`];
/// `Syntax` for text that is neither JSON nor YAML, or for a slice without its required fields
/// (the error names the field).
pub fn read_resource_slices(text: &str) -> Result<ResourceSlices> {
    crate::parse::check_size(text, "the ResourceSlice list")?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let docs = documents(text)?;
    let mut out = ResourceSlices::default();
    for (i, doc) in docs.iter().enumerate() {
        let one = resource_slices_from_value(doc).map_err(|e| {
            if docs.len() > 1 {
                e.in_field(format!("documents[{i}]"))
            } else {
                e
            }
        })?;
        out.slices.extend(one.slices);
        out.notes.extend(one.notes);
    }
    let devices: usize = out.slices.iter().map(|s| s.devices.len()).sum();
    if devices > MAX_DEVICES {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("{devices} devices; the limit is {MAX_DEVICES}"),
        ));
    }
    Ok(out)
}

/// The JSON documents of `text`: one JSON value, or the YAML documents.
fn documents(text: &str) -> Result<Vec<Value>> {
    if text.trim_start().starts_with(['{', '[']) {
        return serde_json::from_str(text).map(|v| vec![v]).map_err(|e| {
            let full = e.to_string();
            let message = full
                .rsplit_once(" at line ")
                .map_or(full.as_str(), |(m, _)| m);
            Error::new(ErrorKind::Syntax, format!("not valid JSON: {message}")).at_line(e.line())
        });
    }
    yaml_documents(text)
}

#[cfg(feature = "yaml")]
fn yaml_documents(text: &str) -> Result<Vec<Value>> {
    use serde::Deserialize;
    let mut docs = Vec::new();
    for doc in serde_norway::Deserializer::from_str(text) {
        let value = Value::deserialize(doc).map_err(|e| {
            let mut err = Error::new(ErrorKind::Syntax, format!("not valid YAML: {e}"));
            if let Some(at) = e.location() {
                err = err.at_line(at.line());
            }
            err
        })?;
        if !value.is_null() {
            docs.push(value);
        }
    }
    Ok(docs)
}

#[cfg(not(feature = "yaml"))]
fn yaml_documents(_text: &str) -> Result<Vec<Value>> {
    Err(Error::new(
        ErrorKind::Syntax,
        "reading `kubectl get resourceslices -o yaml` needs gpu-share-core's `yaml` feature; give `-o json`",
    ))
}

/// Reads one parsed document: a list of ResourceSlices or one ResourceSlice.
///
/// # Errors
/// As [`read_resource_slices`].
pub fn resource_slices_from_value(doc: &Value) -> Result<ResourceSlices> {
    let kind = doc.get("kind").and_then(Value::as_str);
    let (items, prefix): (Vec<&Value>, &str) = match (kind, doc.get("items")) {
        (Some("ResourceSlice"), _) => (vec![doc], ""),
        (_, Some(Value::Array(items))) => (items.iter().collect(), "items"),
        (kind, _) => {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!(
                    "expected a ResourceSlice or a list of them (kubectl get resourceslices -o json), got {}",
                    kind.map_or("a document without a kind".to_string(), |k| format!("kind {k:?}"))
                ),
            )
            .in_field("kind"))
        }
    };
    let mut out = ResourceSlices::default();
    for (i, item) in items.iter().enumerate() {
        let path = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}[{i}].")
        };
        match item.get("kind").and_then(Value::as_str) {
            Some("ResourceSlice") | None => out.slices.push(slice(item, &path)?),
            Some(other) => out.notes.push(format!(
                "{path}kind {other:?} is not a ResourceSlice; skipped"
            )),
        }
    }
    Ok(out)
}

fn syntax(path: &str, field: &str, message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Syntax, message).in_field(format!("{path}{field}"))
}

fn slice(item: &Value, path: &str) -> Result<ResourceSlice> {
    let spec = item
        .get("spec")
        .ok_or_else(|| syntax(path, "spec", "a ResourceSlice without a spec"))?;
    let text = |field: &str| spec.get(field).and_then(Value::as_str).map(str::to_string);
    let driver = text("driver")
        .ok_or_else(|| syntax(path, "spec.driver", "a ResourceSlice without a driver"))?;
    let pool = spec
        .get("pool")
        .ok_or_else(|| syntax(path, "spec.pool", "a ResourceSlice without a pool"))?;
    let pool_name = pool
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| syntax(path, "spec.pool.name", "a pool without a name"))?;
    let number = |field: &str| pool.get(field).and_then(Value::as_i64);
    let mut devices = Vec::new();
    if let Some(list) = spec.get("devices") {
        let list = list
            .as_array()
            .ok_or_else(|| syntax(path, "spec.devices", "must be a list"))?;
        for (d, device_value) in list.iter().enumerate() {
            let at = format!("{path}spec.devices[{d}].");
            devices.push(device(device_value, &driver, &at)?);
        }
    }
    let mut counter_sets = Vec::new();
    if let Some(Value::Array(sets)) = spec.get("sharedCounters") {
        for (c, set) in sets.iter().enumerate() {
            let at = format!("{path}spec.sharedCounters[{c}].");
            let name = set
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| syntax(&at, "name", "a counter set without a name"))?;
            counter_sets.push(CounterSet {
                name: name.to_string(),
                counters: counters(set.get("counters"), &format!("{at}counters"))?,
            });
        }
    }
    Ok(ResourceSlice {
        name: item
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        driver,
        pool: pool_name.to_string(),
        generation: number("generation").unwrap_or(0),
        slice_count: number("resourceSliceCount").unwrap_or(1),
        node: text("nodeName"),
        devices,
        counter_sets,
    })
}

fn device(value: &Value, driver: &str, at: &str) -> Result<SliceDevice> {
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| syntax(at, "name", "a device without a name"))?;
    // v1beta1 keeps the fields under `basic`; v1 and v1beta2 on the device.
    let body = value.get("basic").unwrap_or(value);
    let mut attributes = BTreeMap::new();
    if let Some(map) = body.get("attributes").and_then(Value::as_object) {
        for (key, v) in map {
            let typed = attribute(v).ok_or_else(|| {
                syntax(
                    at,
                    &format!("attributes.{key}"),
                    "an attribute needs one of string, int, bool or version",
                )
            })?;
            attributes.insert(qualified(key, driver), typed);
        }
    }
    let mut capacity = BTreeMap::new();
    if let Some(map) = body.get("capacity").and_then(Value::as_object) {
        for (key, v) in map {
            let text = quantity_text(v.get("value").unwrap_or(v)).ok_or_else(|| {
                syntax(
                    at,
                    &format!("capacity.{key}.value"),
                    "a capacity needs a value",
                )
            })?;
            let value = quantity::integer(&text);
            capacity.insert(qualified(key, driver), Capacity { text, value });
        }
    }
    let mut consumes = Vec::new();
    if let Some(Value::Array(list)) = body.get("consumesCounters") {
        for (c, use_value) in list.iter().enumerate() {
            let here = format!("{at}consumesCounters[{c}].");
            let set = use_value
                .get("counterSet")
                .and_then(Value::as_str)
                .ok_or_else(|| syntax(&here, "counterSet", "names no counter set"))?;
            consumes.push(CounterUse {
                counter_set: set.to_string(),
                counters: counters(use_value.get("counters"), &format!("{here}counters"))?,
            });
        }
    }
    Ok(SliceDevice {
        name: name.to_string(),
        attributes,
        capacity,
        consumes,
    })
}

/// `{name: {value: "1"}}` as whole numbers.
fn counters(value: Option<&Value>, at: &str) -> Result<BTreeMap<String, u128>> {
    let mut out = BTreeMap::new();
    let Some(map) = value.and_then(Value::as_object) else {
        return Ok(out);
    };
    for (key, v) in map {
        let text = quantity_text(v.get("value").unwrap_or(v));
        let value = text.as_deref().and_then(quantity::integer).ok_or_else(|| {
            Error::new(
                ErrorKind::Syntax,
                format!(
                    "counter {key:?} is {}, not a whole quantity",
                    text.as_deref().unwrap_or("missing")
                ),
            )
            .in_field(format!("{at}.{key}.value"))
        })?;
        out.insert(key.clone(), value);
    }
    Ok(out)
}

/// A quantity is a string in the API; a bare number is read too.
fn quantity_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn attribute(v: &Value) -> Option<Attribute> {
    if let Some(s) = v.get("string").and_then(Value::as_str) {
        return Some(Attribute::String(s.to_string()));
    }
    if let Some(n) = v.get("int").and_then(Value::as_i64) {
        return Some(Attribute::Int(n));
    }
    if let Some(b) = v.get("bool").and_then(Value::as_bool) {
        return Some(Attribute::Bool(b));
    }
    v.get("version")
        .and_then(Value::as_str)
        .map(|s| Attribute::Version(s.to_string()))
}

/// `name` with the driver's domain when it has none.
fn qualified(name: &str, driver: &str) -> String {
    if name.contains('/') {
        name.to_string()
    } else {
        format!("{driver}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSliceList","items":[
      {"kind":"ResourceSlice","metadata":{"name":"n1-gpu.nvidia.com-abc"},
       "spec":{"driver":"gpu.nvidia.com","nodeName":"n1","pool":{"name":"n1","generation":2,"resourceSliceCount":1},
         "devices":[{"name":"gpu-0","attributes":{"type":{"string":"gpu"},"resource.kubernetes.io/pciBusID":{"string":"0000:3b:00.0"},
            "cudaComputeCapability":{"version":"8.0.0"}},"capacity":{"memory":{"value":"80Gi"}}}]}},
      {"kind":"Node","metadata":{"name":"x"}}]}"#;

    #[test]
    fn names_are_qualified_and_quantities_whole() {
        let s = read_resource_slices(ONE).unwrap();
        assert_eq!(s.slices.len(), 1);
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        let d = &s.slices[0].devices[0];
        assert_eq!(d.nvidia("type"), Some("gpu"));
        assert_eq!(
            d.string("resource.kubernetes.io/pciBusID"),
            Some("0000:3b:00.0")
        );
        assert_eq!(d.nvidia_capacity("memory"), Some(80 << 30));
        assert_eq!(s.slices[0].generation, 2);
        assert_eq!(s.slices[0].node.as_deref(), Some("n1"));
    }

    #[test]
    fn v1beta1_devices_keep_their_fields_under_basic() {
        let text = r#"{"kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"gpu.nvidia.com","pool":{"name":"p"},
          "devices":[{"name":"gpu-0-mig-1","basic":{"attributes":{"type":{"string":"mig"},"profile":{"string":"1g.10gb"}},
            "capacity":{"memorySlice3":{"value":"1"}}}}]}}"#;
        let s = read_resource_slices(text).unwrap();
        let d = &s.slices[0].devices[0];
        assert_eq!(d.nvidia("profile"), Some("1g.10gb"));
        assert_eq!(d.memory_slices(), vec![3]);
    }

    #[test]
    fn errors_name_the_field() {
        let e = read_resource_slices(
            r#"{"kind":"ResourceSliceList","items":[{"kind":"ResourceSlice","spec":{"driver":"d","pool":{"name":"p"},"devices":[{"attributes":{}}]}}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("items[0].spec.devices[0].name"));
        let e = read_resource_slices(r#"{"kind":"NodeList"}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("kind"));
        let e = read_resource_slices("{").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax);
        let e = read_resource_slices(
            r#"{"kind":"ResourceSlice","spec":{"driver":"d","pool":{"name":"p"},"sharedCounters":[{"name":"c","counters":{"x":{"value":"1.5"}}}]}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.field.as_deref(),
            Some("spec.sharedCounters[0].counters.x.value")
        );
    }
}
