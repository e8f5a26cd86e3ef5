//! TypeScript descriptions of what the npm functions take, as their readers read it: the looser
//! inputs (a tune as 1.3 or "130%", a budget as bytes, text or a board), asks as given and as
//! columns, and the options of the package's own functions around a request.

use super::*;

// ---- Requests: what the npm functions read, as their deserializers read it ----

// replay/workload.rs: a ratio or a percentage, as `Tune::parse` reads it.
declared!(
    crate::replay::workload::Tune,
    "Tune",
    " How far to fill: the arrivals' demand as a share of the GPU capacity, a ratio (1.3) or a percentage (\"130%\").",
    tune,
    []
);

fn tune(_: &Config) -> String {
    "number | string".to_owned()
}

/// The dtypes `Dtype`'s reader takes: its own names and config.json's spellings of them.
pub enum DtypeInput {}

declared!(
    DtypeInput,
    "DtypeInput",
    " The weights' or the KV cache's dtype: config.json's spellings (\"bfloat16\") are accepted too.",
    dtype_input,
    [Dtype]
);

fn dtype_input(cfg: &Config) -> String {
    format!(
        "{} | \"float32\" | \"bfloat16\" | \"float16\"",
        n::<Dtype>(cfg)
    )
}

// api/size.rs: bytes, memory text, or a board (a whole GPU, or a MIG instance with `profile`).
declared!(
    FitTarget,
    "FitTarget",
    " A budget to fit: bytes, memory text (\"40GiB\"), a whole GPU (`{ gpuModel }`: what processes can allocate, less one CUDA context) or a MIG instance (`{ gpuModel, profile }`).",
    fit_target,
    []
);

fn fit_target(cfg: &Config) -> String {
    let board = object(&[
        ("", "gpuModel", n::<String>(cfg)),
        ("", "profile?", n::<Option<String>>(cfg)),
    ]);
    format!("{} | {} | {board}", n::<u64>(cfg), n::<String>(cfg))
}

// api/cluster.rs: untagged, the caps as given (every field has its default) or discovery output.
declared!(
    Cluster,
    "Cluster",
    " The cluster: its capabilities, each part optional, or discovery output to read them from.",
    cluster,
    [ClusterGpuCaps, Detected]
);

fn cluster(cfg: &Config) -> String {
    let detected = object(&[("", "detected", n::<Detected>(cfg))]);
    format!("Partial<{}> | {detected}", n::<ClusterGpuCaps>(cfg))
}

// api/export.rs: the packing's options and the format's in one object.
declared!(
    ExportSettings,
    "ExportOptions",
    " The options of exportPlan: the packing's (as binPack's) and the format's.",
    export_settings,
    [ApiPackOptions, ExportOptions]
);

fn export_settings(cfg: &Config) -> String {
    format!("{} & {}", n::<ApiPackOptions>(cfg), n::<ExportOptions>(cfg))
}

// api/dra: the packing's options and the simulation's in one object.
declared!(
    crate::api::SimulateDraSettings,
    "SimulateDraOptions",
    " The options of simulateDra: the packing's (as binPack's) and the simulation's.",
    simulate_dra_settings,
    [ApiPackOptions, crate::api::SimulationOptions]
);

fn simulate_dra_settings(cfg: &Config) -> String {
    format!(
        "{} & {}",
        n::<ApiPackOptions>(cfg),
        n::<crate::api::SimulationOptions>(cfg)
    )
}

// export/mod.rs: `FromStr`, which takes `k8s` beside the formats' own names.
declared!(
    ExportFormat,
    "ExportFormat",
    " What exportPlan writes (\"k8s\" is \"kubernetes\").",
    export_format,
    []
);

fn export_format(_: &Config) -> String {
    let mut names = vec!["\"k8s\"".to_owned()];
    names.extend(
        ExportFormat::NAMED
            .iter()
            .map(|f| format!("{:?}", f.as_str())),
    );
    names.join(" | ")
}

// ---- Asks as given (ask/json.rs) and as columns (api/columns.rs, read by wasm/src/columns.rs) ----

/// A share of a GPU as `Share`'s reader takes it.
pub enum FractionInput {}
/// GPU memory as the ask reader's `memory_from_json` takes it.
pub enum MemoryInput {}
/// The size of an ask, as `FractionalAsk::from_json_fields` takes it.
pub enum AskSize {}
/// An ask as `FractionalAsk::from_json` takes it.
pub enum PlainAsk {}
/// A column of `binPackColumns`, as the npm layer copies it into an `f64` column.
pub enum NumberColumn {}

declared!(
    FractionInput,
    "FractionInput",
    " A share of a GPU: a number (0.25) or text (\"0.25\", \"25%\", \"1/4\"). Numbers ≥ 1 are whole GPUs.",
    fraction_input,
    []
);

fn fraction_input(_: &Config) -> String {
    "number | string".to_owned()
}

declared!(
    MemoryInput,
    "MemoryInput",
    " GPU memory: text with its unit (\"12GiB\", \"12288MiB\", \"40GB\", \"22649242112B\") or a whole number of bytes.",
    memory_input,
    []
);

fn memory_input(_: &Config) -> String {
    "string | number".to_owned()
}

declared!(
    AskSize,
    "AskSize",
    " What an ask asks for: a fraction (with memory or not), memory alone, or a MIG profile.",
    ask_size,
    [FractionInput, MemoryInput]
);

fn ask_size(cfg: &Config) -> String {
    let (fraction, memory) = (n::<FractionInput>(cfg), n::<MemoryInput>(cfg));
    let never = || "never".to_owned();
    [
        object(&[
            ("", "fraction", fraction),
            ("", "memory?", memory.clone()),
            ("", "migProfile?", never()),
        ]),
        object(&[
            ("", "memory", memory),
            ("", "fraction?", never()),
            ("", "migProfile?", never()),
        ]),
        object(&[
            ("", "migProfile", n::<String>(cfg)),
            ("", "fraction?", never()),
            ("", "memory?", never()),
        ]),
    ]
    .join(" | ")
}

declared!(
    PlainAsk,
    "PlainAsk",
    " A plain ask object, accepted wherever a FractionalAsk is.",
    plain_ask,
    [AskSize]
);

fn plain_ask(cfg: &Config) -> String {
    format!(
        "{} & {}",
        object(&[("", "name", n::<String>(cfg))]),
        n::<AskSize>(cfg)
    )
}

declared!(
    NumberColumn,
    "NumberColumn",
    " A column of numbers, one per ask: a Float64Array (no copy in JavaScript), another numeric typed array, or numbers.",
    number_column,
    []
);

fn number_column(_: &Config) -> String {
    "Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array | Uint8ClampedArray | ReadonlyArray<number>".to_owned()
}

declared!(
    crate::api::AskColumns,
    "AskColumns",
    " Many asks as columns, for `binPackColumns`: ask `i` is `fractions[i]` of a GPU, `memory[i]` bytes of GPU memory, or both (0 in a column: not given for that ask). Every column given has one value per ask.",
    ask_columns,
    [NumberColumn]
);

fn ask_columns(cfg: &Config) -> String {
    object(&[
        ("", "fractions?", n::<NumberColumn>(cfg)),
        (
            "GPU memory in bytes (whole numbers).",
            "memory?",
            n::<NumberColumn>(cfg),
        ),
        (
            "Names, unique; without them ask `i` is named `\"i\"`.",
            "names?",
            "ReadonlyArray<string>".to_owned(),
        ),
    ])
}

// api/columns.rs: the summary's fields, with the columns as the typed arrays wasm/src/columns.rs fills.
declared!(
    crate::api::PackColumns,
    "PackColumns",
    " The packing `binPack` gives for the same asks, by position: the summary (totals, unplaced asks, each distinct warning with how many asks carry it, the legends of the codes) and typed arrays; `-1` is \"none\". Left out: each ask's notes and each GPU's memory total (`binPack` gives them).",
    pack_columns,
    [crate::api::PackColumnsSummary]
);

fn pack_columns(cfg: &Config) -> String {
    let asks = object(&[
        ("The (first) GPU the ask is on; -1 when unplaced.", "gpu", "Int32Array".into()),
        ("A code of `mechanisms`.", "mechanism", "Uint8Array".into()),
        (
            "What the ask denies to others, as a share of one GPU: its MIG instance's share, its fraction, or whole GPUs.",
            "allocated",
            "Float64Array".into(),
        ),
        (
            "The MIG instance's profile, a code of `migProfiles`; -1 for other mechanisms.",
            "migProfile",
            "Int8Array".into(),
        ),
        (
            "The MIG instance's first memory slice; -1 for other mechanisms.",
            "migStart",
            "Int8Array".into(),
        ),
    ]);
    let gpus = object(&[
        ("A code of `mechanisms`.", "mechanism", "Uint8Array".into()),
        ("The share of the GPU its tenants take.", "used", "Float64Array".into()),
        (
            "The asks on GPU `g` are `asks.subarray(askStart[g], askStart[g + 1])` (a multi-GPU ask on each of its GPUs).",
            "asks",
            "Uint32Array".into(),
        ),
        ("", "askStart", "Uint32Array".into()),
    ]);
    let columns = object(&[
        ("One value per ask, in input order.", "asks", asks),
        (
            "One value per GPU, in index order (`askStart` has one more).",
            "gpus",
            gpus,
        ),
    ]);
    format!("{} & {columns}", n::<crate::api::PackColumnsSummary>(cfg))
}

// error.rs, as wasm/src/error.rs throws it: a JavaScript Error with the core error's parts.
declared!(
    crate::error::Error,
    "GpuShareError",
    " Errors thrown for bad input carry where the input was wrong.",
    gpu_share_error,
    [crate::error::ErrorKind]
);

fn gpu_share_error(cfg: &Config) -> String {
    let parts = object(&[
        ("", "kind", n::<crate::error::ErrorKind>(cfg)),
        ("", "field", n::<Option<String>>(cfg)),
        ("", "line", n::<Option<u64>>(cfg)),
    ]);
    format!("Error & {parts}")
}

// ---- What the npm package's own functions take around a request: a scenario to write as a link,
// ---- and the ledger methods' clock, duration and rates (the fields of `api::USE_CASES`' record,
// ---- import and summarise that the Ledger class does not hold itself) ----

/// A scenario as `Scenario`'s reader takes it: asks as given, caps with their defaults.
pub enum ScenarioInit {}
/// `Ledger.record`'s options: the request's `now` and `seconds`.
pub enum RecordOptions {}
/// The clock of a ledger method: the request's `now`.
pub enum ClockOptions {}
/// The options of a ledger summary: the request's `now` and rates.
pub enum SummaryOptions {}

declared!(
    ScenarioInit,
    "ScenarioInit",
    " A scenario to write as a link: what parseScenario returns, or asks and caps as given.",
    scenario_init,
    [FractionalAsk, PlainAsk, ClusterGpuCaps]
);

fn scenario_init(cfg: &Config) -> String {
    object(&[
        (
            "",
            "asks",
            format!(
                "ReadonlyArray<{} | {}>",
                n::<FractionalAsk>(cfg),
                n::<PlainAsk>(cfg)
            ),
        ),
        ("", "caps", format!("Partial<{}>", n::<ClusterGpuCaps>(cfg))),
        ("", "optimize?", "boolean".to_owned()),
        ("", "seconds?", "ReadonlyArray<number | null>".to_owned()),
    ])
}

declared!(
    RecordOptions,
    "RecordOptions",
    " When a use is recorded: `now` (Unix seconds, default the clock) and how long it ran (`seconds`; none: open until released).",
    record_options,
    []
);

fn record_options(_: &Config) -> String {
    object(&[
        ("", "now?", "number".to_owned()),
        ("", "seconds?", "number | null".to_owned()),
    ])
}

declared!(
    ClockOptions,
    "ClockOptions",
    " The time a ledger method reads the ledger at: `now`, Unix seconds (default the clock).",
    clock_options,
    []
);

fn clock_options(_: &Config) -> String {
    object(&[("", "now?", "number".to_owned())])
}

declared!(
    SummaryOptions,
    "SummaryOptions",
    " A summary's time (`now`, Unix seconds, default the clock) and rates (each optional).",
    summary_options,
    [crate::account::RatesInput]
);

fn summary_options(cfg: &Config) -> String {
    object(&[
        ("", "now?", "number".to_owned()),
        (
            "",
            "rates?",
            format!("{} | null", n::<crate::account::RatesInput>(cfg)),
        ),
    ])
}
