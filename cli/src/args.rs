//! Command-line arguments (clap), turned at once into plain configs of core types.

use crate::exit::CliError;
use clap::{ArgGroup, Args, Parser, Subcommand};
use gpu_share_core::api::{
    self, parse_ask_list, parse_hours, parse_seconds, AskEntry, Cluster, ClusterGpuCaps, Detected,
    FractionalAsk, Memory, PackOptions, PackRequest, PlanRequest, Rates, RatesInput, Share,
};
use std::path::PathBuf;

mod detect;
mod export;
mod fit;
pub mod flags;
mod live;
mod repartition;
mod replay;
mod simulate_dra;
mod size;
pub use detect::{DetectArgs, DetectConfig, DetectFrom};
pub use export::{ExportArgs, ExportConfig, ValidateMigArgs, ValidateMigConfig, ValidateMigInput};
pub use fit::{FitArgs, FitConfig};
use flags::at_flag;
pub use repartition::{RepartitionArgs, RepartitionConfig};
pub use replay::{ReplayArgs, ReplayConfig};
pub use simulate_dra::{SimulateDraArgs, SimulateDraConfig};
pub use size::{SizeArgs, SizeConfig};

const EXIT_CODES: &str = "\
Exit codes: 0 success, 1 invalid input (validate-mig: an invalid layout), 2 usage error, 3 some asks unplaced (pack, export, simulate-dra, fit, repartition), 4 ledger error, 5 already recorded (--record of uses the ledger holds for these hours; --record-again records them anyway).
Environment: GPU_SHARE_LEDGER (ledger file), NO_COLOR (plain output), GPU_SHARE_NOW (Unix seconds, for reproducible reports).";

/// Plan fractional GPU asks: which mechanism serves them, how they pack, what they cost.
#[derive(Parser, Debug)]
#[command(name = "gpu-share", version, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Choose the sharing mechanism for one ask.
    Plan(PlanArgs),
    /// Pack many asks onto GPUs (first-fit-decreasing, one mechanism per GPU).
    Pack(PackCommandArgs),
    /// Summarise the ledger: requested, allocated and wasted GPU-hours, cost and carbon.
    Accounting(AccountingArgs),
    /// Close an open allocation recorded by `plan --record` without a duration.
    Release(ReleaseArgs),
    /// List the GPU catalogue, or one model's MIG profiles.
    Models(ModelsArgs),
    /// Read which GPUs there are (nvidia-smi or kubectl output) and the caps they imply.
    Detect(DetectArgs),
    /// Pack like `pack`, then write the plan for Kubernetes, KServe, the device plugin, mig-parted, nvidia-smi or Slurm.
    Export(ExportArgs),
    /// Simulate the Kubernetes DRA allocator's first fit of a plan's claims on ResourceSlices
    /// (claims a template per workload, and gpu-share's own): the GPUs used and left whole and
    /// the memory slices stranded, beside gpu-share's placement.
    SimulateDra(SimulateDraArgs),
    /// Check whether MIG profiles fit on one GPU, where each goes, and how to create them.
    ValidateMig(ValidateMigArgs),
    /// What can still be created on MIG GPUs as they are (nvidia-smi mig -lgi), what is stranded,
    /// and where new asks go without moving an instance.
    Fit(FitArgs),
    /// The fewest GPU instances moved that let new asks into live MIG layouts: the end state,
    /// ordered steps, nvidia-smi commands, what to drain, and a mig-parted config.
    Repartition(RepartitionArgs),
    /// The GPU memory a model needs, from its Hugging Face config.json: parameters, weights, KV
    /// cache and overheads, each explained; with --fit, the longest context and the most
    /// sequences that fit a budget, a whole GPU or a MIG instance.
    Size(SizeArgs),
    /// Replay a cluster's workload online (the Alibaba 2023 GPU trace's node and pod lists) under
    /// the FGD paper's placement policies and gpu-share's: the GPU allocated as demand arrives,
    /// the pods that failed, and how much the arrivals could allocate at best.
    Replay(ReplayArgs),
}

/// What the cluster supports.
#[derive(Args, Debug, Clone, Default)]
pub struct CapsArgs {
    /// The cluster's GPUs support MIG (with --caps-from: plan with MIG on GPUs that have it
    /// disabled; enable it on them before applying the plan).
    #[arg(long)]
    pub mig_capable: bool,
    /// MPS is available.
    #[arg(long)]
    pub mps: bool,
    /// Time-slicing is configured.
    #[arg(long)]
    pub timeslice: bool,
    /// GPU model (canonical, nvidia-smi or short name: A100-SXM4-40GB, "NVIDIA H200", h100).
    #[arg(long, value_name = "MODEL")]
    pub gpu_model: Option<String>,
    /// Allowed MIG profiles, comma-separated.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub mig_profiles: Option<Vec<String>>,
    /// The nodes, so that no node needs two sharing configurations and a multi-GPU ask stays on
    /// one node: NODESxGPUS (4x8: four nodes of eight GPUs) or NAME:GPUS,… (gpu-a:8,gpu-b:4).
    #[arg(long, value_name = "4x8")]
    pub nodes: Option<String>,
    /// Take the caps from discovery output instead of these flags (what `gpu-share detect --from`
    /// reads: nvidia-smi -q -x, nvidia-smi, kubectl get nodes -o json, …; `-` is stdin); repeatable.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["mps", "timeslice", "gpu_model", "mig_profiles", "nodes", "context_overhead", "driver"]
    )]
    pub caps_from: Vec<PathBuf>,
    /// The CUDA context each process with memory holds besides what it asks for (default
    /// 500MiB; 0 when the memory asked already includes it).
    #[arg(long, value_name = "MEMORY")]
    pub context_overhead: Option<String>,
    /// The NVIDIA driver the GPUs run (590.48.01): where drivers list a MIG instance's memory
    /// differently, plan with this driver's listing when one is known (default: the smallest).
    #[arg(long, value_name = "VERSION")]
    pub driver: Option<String>,
}

impl CapsArgs {
    /// Whether no flag but `--gpu-model` was given (no sharing, nodes, profiles or captures).
    fn only_a_model(&self) -> bool {
        !(self.mig_capable
            || self.mps
            || self.timeslice
            || self.mig_profiles.is_some()
            || self.nodes.is_some()
            || self.context_overhead.is_some()
            || self.driver.is_some()
            || !self.caps_from.is_empty())
    }

    /// The cluster from the flags, or from `--caps-from` files (read here, detected by the core).
    fn cluster(&self) -> Result<Cluster, CliError> {
        if !self.caps_from.is_empty() {
            // With --caps-from, --mig-capable turns MIG on for GPUs that have it disabled.
            return Ok(Cluster::Detected {
                detected: Detected {
                    inputs: detect::read_all(&self.caps_from)?,
                    turn_on_mig: self.mig_capable,
                },
            });
        }
        let context_overhead_mib = self
            .context_overhead
            .as_deref()
            .map(|t| {
                gpu_share_core::api::parse_overhead_mib(t)
                    .map_err(|e| flags::at_flag(e, "--context-overhead"))
            })
            .transpose()?;
        Ok(Cluster::Given(ClusterGpuCaps {
            context_overhead_mib,
            supports_mig: self.mig_capable,
            mig_profiles: self.mig_profiles.clone(),
            supports_mps: self.mps,
            supports_timeslicing: self.timeslice,
            gpu_model: self.gpu_model.clone(),
            gpu_count: None,
            driver: self.driver.clone(),
            nodes: self
                .nodes
                .as_deref()
                .map(gpu_share_core::api::parse_nodes)
                .transpose()
                .map_err(|e| flags::at_flag(e, "--nodes"))?,
        }))
    }
}

/// How to print results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

fn format(json: bool) -> Format {
    if json {
        Format::Json
    } else {
        Format::Text
    }
}

#[derive(Args, Debug)]
// The ask's size: a fraction, memory or both, or a MIG profile. A group, so that a plan with none
// names all three flags, not only --fraction.
#[command(group(ArgGroup::new("size").required(true).multiple(true).args(["fraction", "memory", "mig"])))]
pub struct PlanArgs {
    /// The workload's name.
    pub name: String,
    /// The share of a GPU: 0.25, 25% or 1/4 (1 or more means whole GPUs).
    #[arg(long, value_name = "F", conflicts_with = "mig")]
    pub fraction: Option<String>,
    /// The GPU memory the workload needs: 12GiB, 12288MiB, 40GB, 22649242112B (alone or with
    /// --fraction).
    #[arg(long, value_name = "MEMORY", conflicts_with = "mig")]
    pub memory: Option<String>,
    /// A named MIG profile, e.g. 2g.10gb.
    #[arg(long, value_name = "PROFILE")]
    pub mig: Option<String>,
    #[command(flatten)]
    pub caps: CapsArgs,
    #[command(flatten)]
    pub record: RecordArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `plan`, checked.
pub struct PlanConfig {
    pub request: PlanRequest,
    /// With `--record`: the duration, and whether to record again.
    pub record: Option<Record>,
    pub format: Format,
}

impl PlanArgs {
    pub fn into_config(self) -> Result<PlanConfig, CliError> {
        let memory = self
            .memory
            .as_deref()
            .map(|m| Memory::parse(m).map_err(|e| at_flag(e, "--memory")))
            .transpose()?;
        let share = self
            .fraction
            .as_deref()
            .map(|f| Share::parse(f).map_err(|e| at_flag(e, "--fraction")))
            .transpose()?;
        let ask = match (share, memory, &self.mig) {
            (Some(f), None, None) => FractionalAsk::fraction(&self.name, f)?,
            (Some(f), Some(m), None) => FractionalAsk::fraction_and_memory(&self.name, f, m)?,
            (None, Some(m), None) => FractionalAsk::memory_only(&self.name, m)?,
            (None, None, Some(p)) => FractionalAsk::mig(&self.name, p)?,
            _ => {
                return Err(CliError::Usage(
                    "give --fraction, --memory (alone or with --fraction) or --mig".into(),
                ))
            }
        };
        let cluster = self.caps.cluster()?;
        Ok(PlanConfig {
            request: PlanRequest { ask, cluster },
            record: self.record.recording()?,
            format: format(self.json),
        })
    }
}

/// `--record` with its duration, for `plan` and `pack`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("recording").args(["record", "record_again"])))]
pub struct RecordArgs {
    /// Append to the ledger (open until `release` unless --hours/--seconds is given); refused,
    /// with exit code 5, when the ledger already holds a use of these asks in these hours.
    #[arg(long)]
    pub record: bool,
    /// Append to the ledger even when it already holds a use of these asks in these hours.
    #[arg(long)]
    pub record_again: bool,
    /// With --record: how long the workload ran, in hours.
    #[arg(
        long,
        value_name = "H",
        requires = "recording",
        conflicts_with = "seconds"
    )]
    pub hours: Option<String>,
    /// With --record: how long the workload ran, in seconds.
    #[arg(long, value_name = "S", requires = "recording")]
    pub seconds: Option<String>,
}

/// What `--record` or `--record-again` asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The duration, or `None` for a use open until `release`.
    pub seconds: Option<u64>,
    /// Record even uses the ledger already holds for these hours.
    pub again: bool,
}

impl RecordArgs {
    /// `None` without `--record` or `--record-again`.
    fn recording(&self) -> Result<Option<Record>, CliError> {
        let seconds = duration(self.hours.as_deref(), self.seconds.as_deref())?;
        Ok((self.record || self.record_again).then_some(Record {
            seconds,
            again: self.record_again,
        }))
    }
}

fn duration(hours: Option<&str>, seconds: Option<&str>) -> Result<Option<u64>, CliError> {
    Ok(match (hours, seconds) {
        (Some(h), _) => Some(parse_hours(h).map_err(|e| at_flag(e, "--hours"))?),
        (None, Some(s)) => Some(parse_seconds(s).map_err(|e| at_flag(e, "--seconds"))?),
        (None, None) => None,
    })
}

#[derive(Args, Debug)]
pub struct PackArgs {
    /// An ask as NAME:FRACTION or NAME:PROFILE (a:0.5, b:25%, x:3g.20gb); repeat for more.
    #[arg(long = "ask", value_name = "NAME:SIZE")]
    pub asks: Vec<String>,
    /// Read asks from a CSV (name,size[,hours]) or JSON file; `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    pub asks_file: Option<PathBuf>,
    /// How many GPUs there are (default: as many as needed, or as many as --caps-from found).
    #[arg(long, value_name = "N")]
    pub gpus: Option<u64>,
    #[command(flatten)]
    pub caps: CapsArgs,
    /// Improve on first-fit-decreasing: search for a packing on fewer GPUs, up to a proven optimum.
    #[arg(long)]
    pub optimize: bool,
    /// With --optimize: how long the search may run, in milliseconds (a deterministic work budget
    /// calibrated to this many milliseconds of a release build).
    #[arg(long, value_name = "MS", requires = "optimize", default_value_t = api::DEFAULT_OPTIMIZE_MS)]
    pub time_limit_ms: u64,
    /// A model to serve, packed as an ask of the memory it needs: NAME=CONFIG (its config.json)
    /// with :context=L and :concurrency=N (default: the model's positions, 1); repeat for more.
    #[arg(long = "model", value_name = "NAME=CONFIG[:context=L][:concurrency=N]")]
    pub models: Vec<String>,
    /// The engine serving the --model asks and the ask list's model rows (vllm): each ask is
    /// what the engine holds, and the engines on one GPU or MIG instance are planned together,
    /// with their start order.
    #[arg(long, value_name = "NAME")]
    pub engine: Option<String>,
    #[command(flatten)]
    pub engine_flags: size::EngineFlags,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `pack`: what to pack, whether to record it, and where to draw it.
#[derive(Args, Debug)]
pub struct PackCommandArgs {
    #[command(flatten)]
    pub pack: PackArgs,
    #[command(flatten)]
    pub record: RecordArgs,
    /// Also write the packing diagram to FILE as a standalone SVG document (a lane per GPU, MIG
    /// instances at their memory slices, unplaced asks, legend); the usual output is still
    /// printed. `-` writes the SVG to standard output instead of the text (not with --json).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

impl PackCommandArgs {
    pub fn into_config(self) -> Result<PackConfig, CliError> {
        let record = self.record.recording()?;
        let pack = self.pack.into_config()?;
        let svg = svg_to(self.svg, pack.format)?;
        Ok(PackConfig {
            record,
            svg,
            ..pack
        })
    }
}

/// Where `--svg PATH` goes: `-` is standard output instead of the text, which `--json` would
/// also want.
fn svg_to(path: Option<PathBuf>, format: Format) -> Result<Option<SvgTo>, CliError> {
    match path {
        Some(path) if path.as_os_str() == "-" => {
            if format == Format::Json {
                return Err(CliError::Usage(
                    "--svg - and --json would both write to standard output; give --svg a file name".into(),
                ));
            }
            Ok(Some(SvgTo::Stdout))
        }
        Some(path) => Ok(Some(SvgTo::File(path))),
        None => Ok(None),
    }
}

/// Where `--svg` writes the diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SvgTo {
    /// `--svg -`: standard output, instead of the text.
    Stdout,
    File(PathBuf),
}

/// `pack`, checked.
pub struct PackConfig {
    pub request: PackRequest,
    /// With `--record`: the duration, and whether to record again.
    pub record: Option<Record>,
    pub format: Format,
    /// With `--svg`: where the diagram goes.
    pub svg: Option<SvgTo>,
}

impl PackArgs {
    pub fn into_config(self) -> Result<PackConfig, CliError> {
        let mut asks = Vec::new();
        for (i, spec) in self.asks.iter().enumerate() {
            let ask = FractionalAsk::parse_spec(spec)
                .map_err(|e| at_flag(e, format!("--ask #{}", i + 1)))?;
            asks.push(AskEntry { ask, seconds: None });
        }
        let mut models = self
            .models
            .iter()
            .enumerate()
            .map(|(i, m)| size::model_ask(m, i))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(path) = &self.asks_file {
            let text = read_input(path)?;
            let from_file = parse_ask_list(&text).map_err(|e| {
                let at = path.display();
                CliError::Input(gpu_share_core::api::Error {
                    message: format!("{} (in {at})", e.message),
                    ..e
                })
            })?;
            asks.extend(from_file.asks);
            for m in &from_file.models {
                models.push(size::listed_model(m, path)?);
            }
        }
        if self.engine.is_some() && models.is_empty() {
            return Err(CliError::Usage(
                "--engine serves models: give a --model, or an --asks-file with a model column"
                    .into(),
            ));
        }
        if asks.is_empty() && models.is_empty() {
            return Err(CliError::Usage(
                "give at least one --ask, an --asks-file or a --model".into(),
            ));
        }
        Ok(PackConfig {
            request: PackRequest {
                asks,
                gpu_count: self.gpus,
                cluster: self.caps.cluster()?,
                options: PackOptions {
                    optimize: self.optimize,
                    time_limit_ms: Some(self.time_limit_ms),
                    models,
                    engine: self.engine_flags.options(self.engine.as_deref())?,
                },
            },
            record: None,
            format: format(self.json),
            svg: None,
        })
    }
}

/// Reads an input file (`-`: stdin) of at most [`MAX_INPUT_BYTES`](gpu_share_core::api::MAX_INPUT_BYTES):
/// a larger regular file is refused by its size before any of it is read, and no more than the
/// limit and one byte is ever read from anything else (a pipe, a device), so an absurd input is
/// an input error (exit 1) naming the file, never exhausted memory.
fn read_input(path: &std::path::Path) -> Result<String, CliError> {
    use gpu_share_core::api::MAX_INPUT_BYTES;
    use std::io::Read;
    let name = if path.as_os_str() == "-" {
        "stdin".to_string()
    } else {
        path.display().to_string()
    };
    let too_large = || CliError::Input(api::too_large(&name, api::Oversize::Unknown));
    let cannot = |e: std::io::Error| CliError::Usage(format!("cannot read {name}: {e}"));
    let mut bytes = Vec::new();
    let limit = MAX_INPUT_BYTES as u64 + 1;
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
    } else {
        let file = std::fs::File::open(path).map_err(cannot)?;
        let meta = file.metadata().map_err(cannot)?;
        if meta.is_file() && meta.len() > MAX_INPUT_BYTES as u64 {
            return Err(too_large());
        }
        file.take(limit).read_to_end(&mut bytes).map_err(cannot)?;
    }
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| {
        cannot(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        ))
    })
}

#[derive(Args, Debug)]
pub struct AccountingArgs {
    /// Print the summary as JSON.
    #[arg(long, conflicts_with_all = ["csv", "ledger_csv"])]
    pub json: bool,
    /// Print the summary as CSV.
    #[arg(long, conflicts_with = "ledger_csv")]
    pub csv: bool,
    /// Print every ledger record as CSV.
    #[arg(long)]
    pub ledger_csv: bool,
    /// Price of one GPU-hour, for the cost column.
    #[arg(long, value_name = "PRICE")]
    pub cost_per_gpu_hour: Option<f64>,
    /// Board power in watts (default: each model's power limit, else 400 W).
    #[arg(long, value_name = "W")]
    pub watts: Option<f64>,
    /// Power usage effectiveness of the data centre.
    #[arg(long, default_value_t = gpu_share_core::api::Rates::default().pue())]
    pub pue: f64,
    /// Grid carbon intensity in gCO2e per kWh.
    #[arg(long, value_name = "G", default_value_t = gpu_share_core::api::Rates::default().grid_g_co2e_per_kwh())]
    pub grid: f64,
}

/// What `accounting` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccountingOutput {
    Text,
    Json,
    SummaryCsv,
    LedgerCsv,
}

pub struct AccountingConfig {
    pub rates: Rates,
    pub output: AccountingOutput,
}

impl AccountingArgs {
    pub fn into_config(self) -> Result<AccountingConfig, CliError> {
        let rates = Rates::new(&RatesInput {
            cost_per_gpu_hour: self.cost_per_gpu_hour,
            watts: self.watts,
            pue: Some(self.pue),
            grid_g_co2e_per_kwh: Some(self.grid),
        })?;
        let output = match (self.json, self.csv, self.ledger_csv) {
            (true, _, _) => AccountingOutput::Json,
            (_, true, _) => AccountingOutput::SummaryCsv,
            (_, _, true) => AccountingOutput::LedgerCsv,
            _ => AccountingOutput::Text,
        };
        Ok(AccountingConfig { rates, output })
    }
}

#[derive(Args, Debug)]
pub struct ReleaseArgs {
    /// The workload whose open allocation ends now.
    pub name: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ModelsArgs {
    /// Show one model's MIG profiles and placements.
    pub model: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}
