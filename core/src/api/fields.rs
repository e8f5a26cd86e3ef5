//! Each use case once, with the fields of its request that an error may name, as the core names
//! them: the table every front end's words are held to (the CLI's flags, the page's labels, the
//! npm package's generated types), so a field added to a request without a word in a front end
//! fails that front end's test.
//!
//! The fields are read from the request types' own serde readers (the names a derived
//! `Deserialize` knows), so a field renamed or added in a request is renamed or added here.
//! Errors name the parts of a request by their path (`options.gpu_model`, `options.dra.mig`);
//! an ask's and the caps' fields by their own names (`fraction`, `gpu_model`), as every front end
//! has always named them.

use super::{
    EngineOptions, ExportOptions, LiveOptions, PackOptions, RepartitionOptions, ReplaySettings,
    SizingOptions,
};
use crate::account::RatesInput;
use crate::caps::ClusterGpuCaps;
use crate::export::dra::allocator::SimulationOptions;
use crate::export::dra::DraOptions;
use serde::de::{self, Deserialize, Deserializer, Visitor};

/// One use case: its name (the npm function's, the CLI command's) and its request's fields.
#[derive(Clone, Copy, Debug)]
pub struct UseCase {
    pub name: &'static str,
    /// Every field an error about the request may name.
    pub fields: fn() -> Vec<String>,
}

/// Every use case whose request has fields of its own, once.
pub const USE_CASES: &[UseCase] = &[
    UseCase {
        name: "plan",
        fields: plan,
    },
    UseCase {
        name: "pack",
        fields: pack,
    },
    UseCase {
        name: "export",
        fields: export,
    },
    UseCase {
        name: "simulate_dra",
        fields: simulate_dra,
    },
    UseCase {
        name: "detect",
        fields: || names(&["inputs"]),
    },
    UseCase {
        name: "validate_mig",
        fields: || names(&["model", "profiles"]),
    },
    UseCase {
        name: "fit",
        fields: || live::<LiveOptions>(),
    },
    UseCase {
        name: "repartition",
        fields: || live::<RepartitionOptions>(),
    },
    UseCase {
        name: "size",
        fields: size,
    },
    UseCase {
        name: "replay",
        fields: replay,
    },
    UseCase {
        name: "record",
        fields: || names(&["choice", "now", "seconds"]),
    },
    UseCase {
        name: "release",
        fields: || names(&["entries", "ask", "now"]),
    },
    UseCase {
        name: "import",
        fields: || names(&["entries", "text", "now"]),
    },
    UseCase {
        name: "summarise",
        fields: summarise,
    },
];

/// The use case named `name`.
pub fn use_case(name: &str) -> Option<&'static UseCase> {
    USE_CASES.iter().find(|u| u.name == name)
}

/// The fields of an ask, as a request's asks carry them.
const ASK: [&str; 4] = ["name", "fraction", "memory", "mig_profile"];

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn plan() -> Vec<String> {
    let mut out = names(&ASK);
    out.extend(fields_of::<ClusterGpuCaps>(""));
    out
}

fn pack() -> Vec<String> {
    let mut out = names(&["asks", "gpu_count"]);
    out.extend(plan());
    out.extend(fields_of::<PackOptions>("options.").filter(|f| f != "options.engine"));
    out.extend(fields_of::<EngineOptions>("options.engine."));
    out
}

fn export() -> Vec<String> {
    let mut out = pack();
    out.push("format".into());
    out.extend(fields_of::<ExportOptions>("options.").filter(|f| f != "options.dra"));
    out.extend(fields_of::<DraOptions>("options.dra."));
    out
}

fn simulate_dra() -> Vec<String> {
    let mut out = pack();
    out.push("slices".into());
    out.extend(fields_of::<SimulationOptions>("options.").filter(|f| f != "options.dra"));
    out.extend(fields_of::<DraOptions>("options.dra."));
    out
}

fn live<O: for<'de> Deserialize<'de>>() -> Vec<String> {
    let mut out = names(&["current", "asks"]);
    out.extend(fields_of::<O>("options."));
    out
}

fn size() -> Vec<String> {
    let mut out = names(&["config"]);
    out.extend(fields_of::<SizingOptions>("options.").filter(|f| f != "options.engine"));
    out.extend(fields_of::<EngineOptions>("options.engine."));
    out
}

fn replay() -> Vec<String> {
    let mut out = names(&["nodes", "pods"]);
    out.extend(fields_of::<ReplaySettings>("options."));
    out
}

fn summarise() -> Vec<String> {
    let mut out = names(&["entries", "now"]);
    out.extend(fields_of::<RatesInput>(""));
    out
}

/// The field names `T`'s derived serde reader knows, each after `prefix`.
fn fields_of<T: for<'de> Deserialize<'de>>(prefix: &str) -> impl Iterator<Item = String> + '_ {
    let mut names = Names(&[]);
    // The reader stops at the first thing it asks of the `Names` deserializer, which is the list.
    let _ = T::deserialize(&mut names);
    names.0.iter().map(move |f| format!("{prefix}{f}"))
}

/// A deserializer that only notes the field names of the struct asked for.
struct Names(&'static [&'static str]);

/// What stops the reader once the names are noted.
#[derive(Debug)]
struct Noted;

impl std::fmt::Display for Noted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("noted the fields")
    }
}

impl std::error::Error for Noted {}

impl de::Error for Noted {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Noted
    }
}

impl<'de> Deserializer<'de> for &mut Names {
    type Error = Noted;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Noted> {
        self.0 = fields;
        Err(Noted)
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Noted> {
        Err(Noted)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_are_the_request_types_own() {
        let pack = (use_case("pack").unwrap().fields)();
        for f in [
            "asks",
            "gpu_count",
            "fraction",
            "gpu_model",
            "nodes",
            "options.time_limit_ms",
        ] {
            assert!(pack.iter().any(|p| p == f), "{f} in {pack:?}");
        }
        let export = (use_case("export").unwrap().fields)();
        for f in [
            "format",
            "options.namespace",
            "options.dra.kubernetes_version",
        ] {
            assert!(export.iter().any(|p| p == f), "{f} in {export:?}");
        }
        assert!(!export.iter().any(|p| p == "options.dra"));
        let fit = (use_case("fit").unwrap().fields)();
        assert_eq!(fit, ["current", "asks", "options.gpu_model"]);
        let size = (use_case("size").unwrap().fields)();
        assert!(size.iter().any(|p| p == "options.kv_dtype"), "{size:?}");
        assert!(
            size.iter()
                .any(|p| p == "options.engine.tensor_parallel_size"),
            "{size:?}"
        );
    }

    #[test]
    fn every_use_case_is_named_once() {
        for (i, u) in USE_CASES.iter().enumerate() {
            assert!(!(u.fields)().is_empty(), "{}", u.name);
            assert!(
                USE_CASES[..i].iter().all(|v| v.name != u.name),
                "{}",
                u.name
            );
        }
    }
}
