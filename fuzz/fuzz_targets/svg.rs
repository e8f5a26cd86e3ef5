//! The SVG renderer on packings the packer made, on their JSON edited at arbitrary places and read back by the core's checking reader (`PackResult::from_json`), and on arbitrary text: never a panic, every result read back is the one written, and every document parses as XML.
#![no_main]

use arbitrary::Arbitrary;
use gpu_share_core::internals::PackResult;
use gpu_share_fuzz::{small_pack, PackIn};
use gpu_share_svg::{render, SvgOptions};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// A JSON value to put somewhere into a pack result.
#[derive(Arbitrary, Debug)]
enum LeafIn {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    Empty(bool),
}

impl LeafIn {
    fn value(&self) -> Value {
        match self {
            LeafIn::Null => Value::Null,
            LeafIn::Bool(b) => Value::Bool(*b),
            LeafIn::Int(n) => Value::from(*n),
            LeafIn::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            LeafIn::Text(s) => Value::String(s.clone()),
            LeafIn::Empty(true) => Value::Array(Vec::new()),
            LeafIn::Empty(false) => Value::Object(serde_json::Map::new()),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum SvgIn {
    Packed {
        plan: PackIn,
        edits: Vec<(u16, LeafIn)>,
        max_gpus: u8,
        width: u16,
        title: Option<String>,
    },
    Json(String),
}

/// The JSON pointer of every value in `v`.
fn pointers(v: &Value, at: &str, out: &mut Vec<String>) {
    out.push(at.to_string());
    match v {
        Value::Object(map) => {
            for (k, item) in map {
                pointers(
                    item,
                    &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn draw(r: &PackResult, options: &SvgOptions) {
    let svg = render(r, options);
    if let Err(e) = roxmltree::Document::parse(&svg) {
        panic!("not well-formed: {e}\n{svg}");
    }
}

fuzz_target!(|input: SvgIn| {
    let (plan, edits, options) = match input {
        SvgIn::Json(text) => {
            if let Ok(r) = PackResult::from_json_str(&text) {
                draw(&r, &SvgOptions::default());
            }
            return;
        }
        SvgIn::Packed {
            plan,
            edits,
            max_gpus,
            width,
            title,
        } => {
            let options = SvgOptions {
                title,
                max_gpus: max_gpus.into(),
                width: width.into(),
                ..Default::default()
            };
            (plan, edits, options)
        }
    };
    let Some(r) = small_pack(&plan) else {
        return;
    };
    draw(&r, &options);
    let mut value = serde_json::to_value(&r).expect("a pack result serialises");
    assert_eq!(
        PackResult::from_json(&value).as_ref(),
        Ok(&r),
        "read back as written"
    );
    for (at, leaf) in edits.iter().take(8) {
        let mut all = Vec::new();
        pointers(&value, "", &mut all);
        let path = &all[usize::from(*at) % all.len()];
        if let Some(slot) = value.pointer_mut(path) {
            *slot = leaf.value();
        }
        if let Ok(edited) = PackResult::from_json(&value) {
            draw(&edited, &options);
        }
    }
});
