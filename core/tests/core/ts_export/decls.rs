//! The declaration file: every type the package returns, collected with what it refers to,
//! written as `data.d.ts` in a readable layout.

use super::*;

pub const FILE: &str = "data.d.ts";

/// How the generated types are configured: 64-bit integers are JavaScript numbers, since the
/// package converts JSON numbers to numbers (never to `BigInt`).
pub fn config() -> Config {
    Config::from_env().with_large_int("number")
}

/// Every declaration reachable from a type, by its TypeScript name.
pub struct Collect<'a> {
    cfg: &'a Config,
    seen: HashSet<TypeId>,
    decls: BTreeMap<String, (String, String)>,
}

impl TypeVisitor for Collect<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if T::output_path().is_none() || !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        let name = T::ident(self.cfg);
        let text = format!(
            "{}export {}",
            T::docs().unwrap_or_default(),
            T::decl(self.cfg)
        );
        let previous = self.decls.insert(name.clone(), (T::inline(self.cfg), text));
        assert!(
            previous.is_none(),
            "two Rust types are both {name} in TypeScript"
        );
        T::visit_dependencies(self);
    }
}

/// The types the package returns (and the ones its functions take back, such as ledger entries),
/// each with everything it refers to.
pub fn collect(cfg: &Config) -> BTreeMap<String, (String, String)> {
    let mut c = Collect {
        cfg,
        seen: HashSet::new(),
        decls: BTreeMap::new(),
    };
    c.visit::<PlanResponse>(); // selectMechanism
    c.visit::<PackResponse>(); // binPack
    c.visit::<gpu_share_core::api::PackColumnsSummary>(); // binPackColumns, beside its typed arrays
    c.visit::<DetectResponse>(); // detect
    c.visit::<FitResponse>(); // fit
    c.visit::<gpu_share_core::api::SimulateDraResponse>(); // simulateDra
    c.visit::<gpu_share_core::api::SizeResponse>(); // sizeModel
    c.visit::<RepartitionResponse>(); // repartition
    c.visit::<gpu_share_core::internals::replay::Replay>(); // replay
    c.visit::<MigValidation>(); // validateMig
    c.visit::<GpuModel>(); // gpuModels
    c.visit::<AskEntry>(); // parseAsks
    c.visit::<Scenario>(); // parseScenario
    c.visit::<FractionalAsk>(); // checkAsk (the FractionalAsk class)
    c.visit::<ClusterGpuCaps>(); // checkCaps (the ClusterGpuCaps class)
    c.visit::<LedgerEntry>(); // Ledger.record, .entries, parseLedger
    c.visit::<Imported>(); // Ledger.import
    c.visit::<Summary>(); // Ledger.summarize
    c.visit::<Usage>(); // a record with its duration settled (`gpu-share accounting --json`)
    c.visit::<ErrorKind>(); // the `kind` of every error thrown
                            // What the functions take: each options object as its reader reads it.
    c.visit::<api::PackOptions>(); // binPack, binPackColumns
    c.visit::<api::ExportFormat>(); // exportPlan's format
    c.visit::<api::ExportSettings>(); // exportPlan
    c.visit::<api::SimulateDraSettings>(); // simulateDra
    c.visit::<api::LiveOptions>(); // fit
    c.visit::<api::RepartitionOptions>(); // repartition
    c.visit::<api::SizingOptions>(); // sizeModel
    c.visit::<api::ReplaySettings>(); // replay, replaySvg
    c.visit::<api::RatesInput>(); // Ledger.summarize and the summaries' rates
    c.visit::<gpu_share_core::ts::PlainAsk>(); // every ask given as an object
    c.visit::<gpu_share_core::ts::ScenarioInit>(); // scenarioToQuery
    c.visit::<gpu_share_core::ts::RecordOptions>(); // Ledger.record
    c.visit::<gpu_share_core::ts::ClockOptions>(); // Ledger.import, .alreadyRecorded, .undo, .toCsv
    c.visit::<gpu_share_core::ts::SummaryOptions>(); // Ledger.summarize, .summaryCsv, .toJson
    c.visit::<api::AlreadyRecorded>(); // Ledger.alreadyRecorded
    c.visit::<gpu_share_svg::SvgOptionsInput>(); // renderSvg
    c.visit::<api::AskColumns>(); // binPackColumns' asks
    c.visit::<api::PackColumns>(); // binPackColumns, with its typed arrays
    c.visit::<api::Error>(); // every error thrown
    c.decls
}

/// The whole `data.d.ts`.
pub fn declarations(cfg: &Config) -> String {
    let mut out = String::from(
        "// Generated from the Rust types of gpu-share-core by core/tests/ts_export/ (run by\n\
         // `cargo xtask npm`): do not edit. Keys are camelCase, as the package returns them; enum\n\
         // values are the core's own (\"mig\", \"timeslice\", \"out_of_range\").\n\n",
    );
    for (_, text) in collect(cfg).values() {
        out.push_str(&pretty(text));
        out.push_str("\n\n");
    }
    out
}

/// ts-rs writes a type on one line with its fields' docs in between; this puts each field of a
/// top-level object type on its own line, indented, with its doc comment above it.
pub fn pretty(decl: &str) -> String {
    let (head, body) = match decl.find(" = ") {
        Some(i) => decl.split_at(i + 3),
        None => return decl.to_string(),
    };
    let mut out = head.to_string();
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '{' {
            let end = closing(&chars, i);
            let inner: String = chars[i + 1..end].iter().collect();
            let fields = split_fields(&inner);
            if fields.len() > 2 || inner.contains("/*") {
                out.push_str("{\n");
                for field in fields {
                    out.push_str("  ");
                    out.push_str(&field.replace('\n', "\n  "));
                    out.push_str(",\n");
                }
                out.push('}');
            } else {
                out.push('{');
                out.push_str(&inner);
                out.push('}');
            }
            i = end + 1;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The index of the `}` that closes the `{` at `open`.
pub fn closing(chars: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (i, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    chars.len() - 1
}

/// The fields of an object type's body, each with its doc comment (one `/** … */` block, its
/// lines trimmed) on the lines above it.
pub fn split_fields(body: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut doc = String::new();
    let mut field = String::new();
    let mut depth = 0i32;
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                let mut comment = String::from("/");
                let mut last = ' ';
                for d in chars.by_ref() {
                    comment.push(d);
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
                let lines: Vec<&str> = comment.lines().map(str::trim).collect();
                doc = lines
                    .iter()
                    .enumerate()
                    .map(|(n, l)| {
                        if n == 0 {
                            l.to_string()
                        } else {
                            format!(" {l}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                doc.push('\n');
            }
            '{' | '<' | '(' | '[' => {
                depth += 1;
                field.push(c);
            }
            '}' | '>' | ')' | ']' => {
                depth -= 1;
                field.push(c);
            }
            ',' if depth == 0 => {
                fields.push(format!("{doc}{}", field.trim()));
                doc.clear();
                field.clear();
            }
            _ => field.push(c),
        }
    }
    if !field.trim().is_empty() {
        fields.push(format!("{doc}{}", field.trim()));
    }
    fields
}
