//! The request declarations against the readers: every key a declaration names is one its
//! type's reader takes (as `wasm/src/case.rs` hands it over, snake_case), every key the reader
//! takes is declared, the keys it defaults are the optional ones, and each value a union of
//! literals lists is one the reader accepts.

use super::*;
use gpu_share_core::api::{ExportFormat, ExportSettings};
use serde::de::DeserializeOwned;

/// `configName` → `config_name`, as `wasm/src/case.rs` converts keys.
fn snake(key: &str) -> String {
    let mut out = String::new();
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

/// Reads `json` as `T`; the reader's error message when it refuses.
fn read<T: DeserializeOwned>(json: Value) -> Result<T, String> {
    serde_json::from_value(json).map_err(|e| e.to_string())
}

/// The fields an unknown-key error lists: ``unknown field `x`, expected one of `a`, `b` ``.
fn listed_fields(message: &str) -> Vec<String> {
    let Some((_, expected)) = message.split_once("expected") else {
        return Vec::new();
    };
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Checks `T`'s declaration against its reader: keys and which are optional.
fn check_request<T: TS + DeserializeOwned + 'static>() {
    let cfg = config();
    let decls = collect(&cfg);
    let name = T::ident(&cfg);
    let declared = keys_of(&T::inline(&cfg), &decls)
        .unwrap_or_else(|| panic!("{name}: cannot read the keys of its declaration"));
    let unknown = read::<T>(serde_json::json!({ "not_a_field_of_any_request": 0 }))
        .err()
        .unwrap_or_else(|| panic!("{name} takes a key it does not know"));
    for field in listed_fields(&unknown) {
        assert!(
            declared.iter().any(|(k, _)| snake(k) == field),
            "{name}: its reader takes {field}, which is not declared"
        );
    }
    for (key, _) in &declared {
        let one = serde_json::json!({ snake(key): null });
        if let Err(e) = read::<T>(one) {
            assert!(
                !e.contains("unknown field"),
                "{name}.{key} is declared, but its reader does not take it: {e}"
            );
        }
    }
    let required: Vec<&String> = declared
        .iter()
        .filter(|(_, r)| *r)
        .map(|(k, _)| k)
        .collect();
    match read::<T>(serde_json::json!({})) {
        Ok(_) => assert!(
            required.is_empty(),
            "{name}: {required:?} are declared required, but {{}} reads"
        ),
        Err(e) => assert!(
            required
                .iter()
                .any(|k| e.contains(&format!("missing field `{}`", snake(k)))),
            "{name}: {{}} is refused ({e}), but every key is declared optional"
        ),
    }
}

/// The string literals of a union declaration, through the names it refers to.
fn literals(ty: &str, decls: &BTreeMap<String, (String, String)>) -> Vec<String> {
    let mut out = Vec::new();
    for member in split_top(ty, '|') {
        if let Some(text) = member.strip_prefix('"').and_then(|m| m.strip_suffix('"')) {
            out.push(text.to_string());
        } else if let Some((inline, _)) = decls.get(&member) {
            out.extend(literals(inline, decls));
        }
    }
    out
}

#[test]
fn every_options_object_is_declared_as_its_reader_reads_it() {
    check_request::<api::PackOptions>();
    check_request::<ExportSettings>();
    check_request::<api::ExportOptions>();
    check_request::<api::DraOptions>();
    check_request::<api::SimulateDraSettings>();
    check_request::<api::SimulationOptions>();
    check_request::<api::LiveOptions>();
    check_request::<api::RepartitionOptions>();
    check_request::<api::FreeInstance>();
    check_request::<api::SizingOptions>();
    check_request::<api::EngineOptions>();
    check_request::<api::ModelAsk>();
    check_request::<api::SizePlan>();
    check_request::<api::Detected>();
    check_request::<api::ReplaySettings>();
    check_request::<api::RatesInput>();
    check_request::<gpu_share_svg::SvgOptionsInput>();
}

#[test]
fn every_literal_a_request_declares_is_read() {
    let cfg = config();
    let decls = collect(&cfg);
    let formats = literals(&decls["ExportFormat"].0, &decls);
    for format in &formats {
        assert!(format.parse::<ExportFormat>().is_ok(), "format {format}");
    }
    assert_eq!(
        formats.len(),
        ExportFormat::NAMED.len() + 1,
        "every format and k8s"
    );
    let dtypes = literals(&decls["DtypeInput"].0, &decls);
    assert!(dtypes.len() >= 9, "{dtypes:?}");
    for dtype in dtypes {
        read::<gpu_share_core::internals::size::Dtype>(Value::String(dtype.clone()))
            .unwrap_or_else(|e| panic!("dtype {dtype}: {e}"));
    }
    for (name, values) in [
        (
            "Tune",
            vec![serde_json::json!(1.3), serde_json::json!("130%")],
        ),
        (
            "FitTarget",
            vec![
                serde_json::json!(1_000_000),
                serde_json::json!("40GiB"),
                serde_json::json!({"gpu_model": "A100-SXM4-80GB", "profile": "3g.40gb"}),
            ],
        ),
    ] {
        assert!(decls.contains_key(name), "{name} is declared");
        for value in values {
            let options = match name {
                "Tune" => serde_json::json!({ "tune": value }),
                _ => serde_json::json!({ "fit": value }),
            };
            let read_ok = match name {
                "Tune" => read::<api::ReplaySettings>(options).map(|_| ()),
                _ => read::<api::SizingOptions>(options).map(|_| ()),
            };
            read_ok.unwrap_or_else(|e| panic!("{name} {value}: {e}"));
        }
    }
}

/// A sample value of a declared field's type, for the ask shapes.
fn sample(key: &str) -> Value {
    match key {
        "fraction" => Value::String("25%".into()),
        "memory" => Value::String("12GiB".into()),
        "migProfile" => Value::String("3g.20gb".into()),
        other => panic!("no sample for {other}"),
    }
}

/// Whether a union member declares an object with exactly these keys (none of them `never`).
fn declares(shape: &str, given: &[String], decls: &BTreeMap<String, (String, String)>) -> bool {
    let keys = keys_of(shape, decls).unwrap();
    let allowed = |k: &String| !shape.contains(&format!("{k}?: never"));
    keys.iter()
        .all(|(k, required)| !required || given.contains(k))
        && given
            .iter()
            .all(|g| g == "name" || keys.iter().any(|(k, _)| k == g && allowed(k)))
}

#[test]
fn every_ask_shape_declared_is_read() {
    let cfg = config();
    let decls = collect(&cfg);
    let shapes = split_top(&decls["AskSize"].0, '|');
    assert_eq!(shapes.len(), 3, "fraction, memory, MIG profile");
    let all = ["fraction", "memory", "migProfile"];
    // Every set of the keys: read exactly when a shape declares it.
    for bits in 0..(1 << all.len()) {
        let given: Vec<String> = (0..all.len())
            .filter(|i| bits & (1 << i) != 0)
            .map(|i| all[i].to_string())
            .collect();
        let mut ask = serde_json::Map::new();
        ask.insert("name".into(), Value::String("a".into()));
        for key in &given {
            ask.insert(snake(key), sample(key));
        }
        let read = FractionalAsk::from_json(&Value::Object(ask));
        let declared = shapes.iter().any(|s| declares(s, &given, &decls));
        assert_eq!(read.is_ok(), declared, "an ask with {given:?}: {read:?}");
    }
    let plain = split_top(&decls["PlainAsk"].0, '&');
    assert_eq!(plain, ["{ name: string, }", "AskSize"], "a name and a size");
}

/// The keys of declaration `name`, snake_case as the core names them.
fn declared_keys(name: &str) -> Vec<String> {
    let cfg = config();
    let decls = collect(&cfg);
    keys_of(&decls[name].0, &decls)
        .unwrap_or_else(|| panic!("{name}: cannot read its keys"))
        .into_iter()
        .map(|(k, _)| snake(&k))
        .collect()
}

#[test]
fn a_scenario_as_given_has_the_keys_of_a_scenario() {
    let mut given = declared_keys("ScenarioInit");
    let mut scenario = declared_keys("Scenario");
    given.sort();
    scenario.sort();
    assert_eq!(given, scenario);
    let query = read::<gpu_share_core::internals::Scenario>(serde_json::json!({
        "asks": [{"name": "a", "fraction": 0.5}],
        "caps": {},
    }))
    .map(|s| s.to_query());
    assert!(query.is_ok(), "{query:?}");
}

/// The ledger methods' options are the fields of their use case's request that the `Ledger`
/// class does not hold itself (its entries) or take as an argument (the choice, the text).
#[test]
fn the_ledger_methods_options_are_their_requests_fields() {
    let rates: Vec<String> = (api::use_case("summarise").unwrap().fields)()
        .into_iter()
        .filter(|f| !["entries", "now"].contains(&f.as_str()))
        .collect();
    for (declaration, case, held) in [
        ("RecordOptions", "record", &["choice"][..]),
        ("ClockOptions", "import", &["entries", "text"][..]),
        ("SummaryOptions", "summarise", &["entries"][..]),
    ] {
        let mut declared = declared_keys(declaration);
        if declared.iter().any(|k| k == "rates") {
            declared.retain(|k| k != "rates");
            declared.extend(rates.iter().cloned());
        }
        declared.extend(held.iter().map(|h| h.to_string()));
        declared.sort();
        let mut fields = (api::use_case(case).unwrap().fields)();
        fields.sort();
        assert_eq!(declared, fields, "{declaration} against {case}'s request");
    }
}
