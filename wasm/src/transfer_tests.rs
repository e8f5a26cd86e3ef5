//! The stream `encode` writes, read back here as `js/transfer.js` reads it, against serde_json's
//! text of the same value with its keys renamed (what the package returned before, through
//! `JSON.parse`). `tests/npm/output.test.mjs` holds the JavaScript reader to `JSON.parse`.

use super::*;
use gpu_share_core::api::{self, parse_asks, Cluster, PackRequest};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};

/// The value `js/transfer.js` builds from `encoded`, numbers as f64 (JavaScript has no other).
fn read(encoded: &Encoded) -> Value {
    let units: Vec<u16> = encoded.strings.encode_utf16().collect();
    let table: Vec<String> = encoded
        .offsets
        .windows(2)
        .map(|w| String::from_utf16(&units[w[0] as usize..w[1] as usize]).unwrap())
        .collect();
    check_shapes(encoded);
    let (mut op, mut number) = (0, 0);
    let value = read_value(encoded, &table, &mut op, &mut number);
    assert_eq!(op, encoded.ops.len(), "ops left over");
    assert_eq!(number, encoded.numbers.len(), "numbers left over");
    value
}

fn read_value(e: &Encoded, table: &[String], op: &mut usize, number: &mut usize) -> Value {
    let mut next = || {
        *op += 1;
        e.ops[*op - 1]
    };
    match next() {
        NULL => Value::Null,
        FALSE => Value::Bool(false),
        TRUE => Value::Bool(true),
        NUMBER => {
            *number += 1;
            json!(e.numbers[*number - 1])
        }
        STRING => Value::String(table[next() as usize].clone()),
        ARRAY => (0..next())
            .map(|_| read_value(e, table, op, number))
            .collect(),
        OBJECT => {
            let mut map = Map::new();
            let count = next();
            let _shape = next();
            for _ in 0..count {
                *op += 1;
                let key = table[e.ops[*op - 1] as usize].clone();
                map.insert(key, read_value(e, table, op, number));
            }
            Value::Object(map)
        }
        tag => panic!("unknown tag {tag}"),
    }
}

/// What JavaScript got before: serde_json's text, read back, keys renamed.
fn expected<T: Serialize>(value: &T) -> Value {
    let text = serde_json::to_string(value).unwrap();
    as_f64(case::to_camel(serde_json::from_str(&text).unwrap()))
}

fn as_f64(value: Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64().unwrap()),
        Value::Array(items) => items.into_iter().map(as_f64).collect(),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, as_f64(v))).collect()),
        other => other,
    }
}

fn same_as_json<T: Serialize>(value: &T) {
    let encoded = encode(value).unwrap();
    assert_eq!(read(&encoded), expected(value));
}

struct Bytes(&'static [u8]);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Wrapper(u8);

#[derive(Serialize)]
struct Pair(i8, &'static str);

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Shape {
    PlainUnit,
    NewType(u32),
    TupleVariant(u8, String),
    StructVariant { inner_field: Option<f32> },
}

#[derive(Serialize)]
struct Inner {
    deep_key: Vec<Shape>,
}

#[derive(Serialize)]
struct Everything {
    snake_case_field: &'static str,
    none: Option<u8>,
    some: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    #[serde(flatten)]
    flat: Inner,
    floats: (f32, f64, f64, f64, f64),
    extremes: (u64, i64, i128, u128),
    text: (char, &'static str, &'static str, &'static str),
    bytes: Bytes,
    unit: (),
    unit_struct: Unit,
    newtype: Wrapper,
    pair: Pair,
    by_number: BTreeMap<u32, bool>,
    by_name: BTreeMap<&'static str, ()>,
    by_flag: HashMap<bool, u8>,
}

#[test]
fn every_kind_of_value_reads_back_as_json_text_would() {
    same_as_json(&Everything {
        snake_case_field: "value_with_underscores",
        none: None,
        some: Some(-7),
        skipped: None,
        flat: Inner {
            deep_key: vec![
                Shape::PlainUnit,
                Shape::NewType(3),
                Shape::TupleVariant(1, "x_y".into()),
                Shape::StructVariant {
                    inner_field: Some(0.1),
                },
                Shape::StructVariant { inner_field: None },
            ],
        },
        floats: (0.1, -0.0, f64::NAN, f64::INFINITY, 1e300),
        extremes: (u64::MAX, i64::MIN, i128::MAX, u128::MAX),
        text: ('ß', "名前 é", "😀 \"quoted\" \\ \n", ""),
        bytes: Bytes(&[0, 255, 7]),
        unit: (),
        unit_struct: Unit,
        newtype: Wrapper(9),
        pair: Pair(-1, "p"),
        by_number: BTreeMap::from([(1, true), (20, false)]),
        by_name: BTreeMap::from([("map_key", ()), ("__proto__", ())]),
        by_flag: HashMap::from([(true, 1)]),
    });
    same_as_json(&json!([{"a_b": [1.5, "c_d", null, {"": {"_": "_"}}]}, -3, "plain"]));
    same_as_json(&Vec::<u8>::new());
    same_as_json(&"just a string");
}

#[test]
fn a_string_crosses_once_however_often_it_occurs() {
    let warning = "time-slicing sets no memory limit".to_string();
    let value = vec![json!({"warnings": [warning], "name": "a"}); 1000];
    let encoded = encode(&value).unwrap();
    // The key "warnings", the warning, the key "name" and "a".
    assert_eq!(encoded.offsets.len() - 1, 4);
    assert_eq!(read(&encoded), expected(&value));
}

#[test]
fn fields_keep_the_order_serde_gives_them() {
    #[derive(Serialize)]
    struct Order {
        z_last: u8,
        a_first: u8,
    }
    let encoded = encode(&Order {
        z_last: 1,
        a_first: 2,
    })
    .unwrap();
    // Shape 0; keys "zLast" (string 0) and "aFirst" (string 1) in serde's order.
    assert_eq!(encoded.ops, [OBJECT, 2, 0, 0, NUMBER, 1, NUMBER]);
    assert_eq!(encoded.strings, "zLastaFirst");
}

/// Each object of `encoded` in prefix order: its shape and its key ids.
fn objects(encoded: &Encoded) -> Vec<(u32, Vec<u32>)> {
    fn walk(ops: &[u32], op: &mut usize, found: &mut Vec<(u32, Vec<u32>)>) {
        *op += 1;
        match ops[*op - 1] {
            STRING => *op += 1,
            ARRAY => {
                *op += 1;
                for _ in 0..ops[*op - 1] {
                    walk(ops, op, found);
                }
            }
            OBJECT => {
                let (count, at) = (ops[*op], found.len());
                found.push((ops[*op + 1], Vec::new()));
                *op += 2;
                for _ in 0..count {
                    found[at].1.push(ops[*op]);
                    *op += 1;
                    walk(ops, op, found);
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(&encoded.ops, &mut 0, &mut found);
    found
}

fn shapes(encoded: &Encoded) -> Vec<u32> {
    objects(encoded)
        .into_iter()
        .map(|(shape, _)| shape)
        .collect()
}

/// Two objects have the same shape exactly when they have the same keys in the same order, and
/// the shapes are numbered 0, 1, … without gaps.
fn check_shapes(encoded: &Encoded) {
    let mut keys_of: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (shape, keys) in objects(encoded) {
        let known = keys_of.entry(shape).or_insert_with(|| keys.clone());
        assert_eq!(*known, keys, "shape {shape}");
    }
    let distinct: std::collections::BTreeSet<_> = keys_of.values().collect();
    assert_eq!(distinct.len(), keys_of.len(), "keys with two shapes");
    assert!(keys_of.keys().copied().eq(0..keys_of.len() as u32), "gaps");
}

#[test]
fn objects_with_the_same_keys_in_the_same_order_share_a_shape() {
    let with = |v: Value| {
        let encoded = encode(&v).unwrap();
        assert_eq!(read(&encoded), as_f64(v));
        encoded
    };
    // {a, b} twice, {a, c}, {a}, then {a, b} again, and {} twice.
    let encoded = with(json!([
        {"a": 1, "b": 2}, {"a": 3, "b": 4}, {"a": 5, "c": 6}, {"a": 7}, {"a": 8, "b": 9}, {}, {}
    ]));
    assert_eq!(shapes(&encoded), [0, 0, 1, 2, 0, 3, 3]);
}

#[test]
fn a_nested_object_does_not_change_the_shape_around_it() {
    #[derive(Serialize)]
    struct Outer {
        first: u8,
        inner: Inner,
        last: u8,
    }
    #[derive(Serialize)]
    enum Inner {
        Pair { x: u8, y: u8 },
    }
    let outer = || Outer {
        first: 1,
        inner: Inner::Pair { x: 2, y: 3 },
        last: 4,
    };
    let encoded = encode(&[outer(), outer()]).unwrap();
    assert_eq!(read(&encoded), expected(&[outer(), outer()]));
    // Outer's keys are first, inner, last whatever inner holds: two shapes for the pair
    // ({x, y} and the variant's {Pair}), one for the outer objects, each used twice.
    let mut counts = BTreeMap::new();
    for shape in shapes(&encoded) {
        *counts.entry(shape).or_insert(0) += 1;
    }
    assert_eq!(counts.values().copied().collect::<Vec<_>>(), [2, 2, 2]);
    assert_eq!(encoded.shapes.len(), 3);
}

#[test]
fn offsets_count_utf16_units_as_javascript_does() {
    let encoded = encode(&["😀", "é", "a"]).unwrap();
    assert_eq!(encoded.offsets, [0, 2, 3, 4]);
}

#[test]
fn a_map_key_that_json_cannot_write_is_an_error() {
    let map = HashMap::from([((1, 2), 3)]);
    assert!(serde_json::to_string(&map).is_err());
    assert!(encode(&map).is_err());
}

#[test]
fn a_pack_response_reads_back_as_its_json() {
    let asks = parse_asks("a,0.3\nb,3g.20gb\nc,12GiB\nd,0.5\ne,1.5\n").unwrap();
    let request = PackRequest {
        asks,
        cluster: Cluster::Given(serde_json::from_value(json!({"supports_timeslicing": true, "supports_mig": true, "gpu_model": "A100-SXM4-40GB"})).unwrap()),
        ..PackRequest::default()
    };
    same_as_json(&api::pack(&request).unwrap());
}

#[test]
fn long_strings_that_differ_only_where_the_hash_does_not_look_stay_apart() {
    let (head, tail) = ("h".repeat(32), "t".repeat(8));
    let long = |middle: &str| format!("{head}{middle}{tail}");
    let list = [long("one"), long("two"), long("one"), long("two")];
    assert_eq!(
        intern_hash(list[0].as_bytes()),
        intern_hash(list[1].as_bytes())
    );
    let encoded = encode(&list).unwrap();
    assert_eq!(read(&encoded), expected(&list));
    // 41 bytes and more are sampled; each string is still found again while it is recent.
    let short = [
        "a".repeat(40),
        "a".repeat(41),
        "a".repeat(40),
        "a".repeat(41),
    ];
    let encoded = encode(&short).unwrap();
    assert_eq!(read(&encoded), expected(&short));
    assert_eq!(encoded.offsets, [0, 40, 81]);
}
