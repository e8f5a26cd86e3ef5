//! Key-case conversion between JavaScript (`supportsMig`) and the core's serde names (`supports_mig`).

use serde_json::{Map, Value};

/// Renames every object key from camelCase to snake_case, recursively.
pub fn to_snake(value: Value) -> Value {
    rename(value, &snake, &|k| {
        k.bytes().any(|b| b.is_ascii_uppercase())
    })
}

/// Renames every object key from snake_case to camelCase, recursively (what the package's
/// results are held to in the tests).
pub fn to_camel(value: Value) -> Value {
    rename(value, &camel, &|k| k.contains('_'))
}

/// `timeLimitMs` → `time_limit_ms`.
pub fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `config_name` → `configName`.
pub fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        match (c, upper) {
            ('_', _) => upper = true,
            (c, true) => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            (c, false) => out.push(c),
        }
    }
    out
}

/// A field path of the core's (`options.kv_dtype`, `asks[2].mig_profile`) as JavaScript spells it
/// (`options.kvDtype`, `asks[2].migProfile`). Under a text the user wrote whose keys are its own —
/// a model's `config`, the trace's `nodes` and `pods` columns — the path is kept as it is.
pub fn camel_path(path: &str) -> String {
    if ["config", "nodes", "pods"].iter().any(|own| {
        path.strip_prefix(own)
            .is_some_and(|rest| rest.starts_with('.'))
    }) {
        return path.to_string();
    }
    path.split('.').map(camel).collect::<Vec<_>>().join(".")
}

/// `value` with its keys renamed by `f`, in place: an object is rebuilt only when one of its keys
/// `changes`. (An ask list does not come here: `asks.rs` renames its keys as it reads them.)
fn rename(mut value: Value, f: &dyn Fn(&str) -> String, changes: &dyn Fn(&str) -> bool) -> Value {
    rename_in_place(&mut value, f, changes);
    value
}

fn rename_in_place(value: &mut Value, f: &dyn Fn(&str) -> String, changes: &dyn Fn(&str) -> bool) {
    match value {
        Value::Object(map) => {
            map.values_mut()
                .for_each(|v| rename_in_place(v, f, changes));
            if map.keys().any(|k| changes(k)) {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (f(&k), v))
                    .collect::<Map<_, _>>();
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| rename_in_place(v, f, changes)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_are_spelt_as_javascript_spells_them_but_inside_the_users_own_texts() {
        assert_eq!(camel_path("options.kv_dtype"), "options.kvDtype");
        assert_eq!(camel_path("asks[2].mig_profile"), "asks[2].migProfile");
        assert_eq!(camel_path("gpu_count"), "gpuCount");
        assert_eq!(
            camel_path("config.num_key_value_heads"),
            "config.num_key_value_heads"
        );
        assert_eq!(camel_path("pods.gpu_milli"), "pods.gpu_milli");
        assert_eq!(camel_path("nodes"), "nodes");
    }

    #[test]
    fn round_trips_keys_not_values() {
        let js = json!({"supportsMig": true, "migProfiles": ["1g.5gb"], "nested": [{"gpuCount": 2, "name": "a_b"}]});
        let snake = to_snake(js.clone());
        assert_eq!(
            snake,
            json!({"supports_mig": true, "mig_profiles": ["1g.5gb"], "nested": [{"gpu_count": 2, "name": "a_b"}]})
        );
        assert_eq!(to_camel(snake), js);
    }
}
