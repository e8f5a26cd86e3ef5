// Types of @examlops/gpu-sharing.
//
// What the functions return — plans, packings, inventories, ledger entries, summaries — is
// declared in data.d.ts, generated from the Rust core's own types (core/tests/core/ts_export/, run
// by `cargo xtask npm`), so it says exactly what the core returns: keys in camelCase, enum values
// as the core writes them ("mig", "timeslice"). So are what they take: the options objects, the
// asks as given and the looser inputs the core reads (a fraction as "25%", memory as "12GiB"),
// each checked there against the core's reader. This file declares only what Rust cannot: the
// functions and classes of api.js.

import type {
  AlreadyRecorded,
  AskColumns,
  AskEntry,
  AskSize,
  Choice,
  ClockOptions,
  ClusterGpuCaps as ClusterGpuCapsData,
  DetectResponse,
  ExportFormat,
  ExportOptions,
  FitResponse,
  FractionInput,
  GpuModel,
  Imported,
  LedgerEntry,
  LiveOptions,
  MigValidation,
  PackColumns,
  PackOptions,
  PackResponse,
  PackResult,
  PlainAsk,
  PlanResponse,
  RecordOptions,
  RatesInit,
  RepartitionOptions,
  RepartitionResponse,
  Replay,
  ReplayOptions,
  Scenario,
  ScenarioInit,
  SimulateDraOptions,
  SimulateDraResponse,
  SizeOptions,
  SizeResponse,
  SummaryOptions,
  SvgOptions,
  Summary,
  Unplaced,
} from "./data.js";

// Every generated type, except where a class below has the same name (FractionalAsk, ClusterGpuCaps).
export * from "./data.js";

export declare class FractionalAsk {
  /** @throws {TypeError | RangeError} on an empty name, a fraction ≤ 0, memory that is not memory, or a malformed profile name. */
  constructor(name: string, size: AskSize);
  readonly name: string;
  readonly fraction?: number;
  /** The memory asked, as exact text ("12GiB"). */
  readonly memory?: string;
  readonly migProfile?: string;
}

/** What the cluster supports, each part optional: the ClusterGpuCaps the core reads, with its defaults. */
export type CapsInit = Partial<ClusterGpuCapsData>;

/** The capabilities, checked against the GPU catalogue, with every field as the core returns it. */
export interface ClusterGpuCaps extends Readonly<ClusterGpuCapsData> {}
export declare class ClusterGpuCaps {
  /** @throws {Error} for an unknown model or profile, or MIG on a model without it. */
  constructor(options?: CapsInit);
}

/** A ledger entry that records a use (Ledger.record returns one). */
export type UsageEntry = Extract<LedgerEntry, { kind: "usage" }>;
/** A ledger entry that closes a use. */
export type ReleaseEntry = Extract<LedgerEntry, { kind: "release" }>;
/** @deprecated The ask that found no room is `Unplaced`. */
export type UnplacedAsk = Unplaced;

/** The mechanism that serves one ask (a Choice; `capsFrom` only when the caps were detected). */
export declare function selectMechanism(ask: FractionalAsk | PlainAsk, caps?: ClusterGpuCaps | CapsInit): PlanResponse;

/** Packs the asks onto as few GPUs as it can; `optimize` is present when options.optimize was set. */
export declare function binPack(
  asks: ReadonlyArray<FractionalAsk | PlainAsk>,
  gpuCount?: number | null,
  caps?: ClusterGpuCaps | CapsInit,
  options?: PackOptions,
): PackResponse;
/**
 * `binPack` for many asks (a hundred thousand and more): columns of numbers in, typed arrays out, no object per ask.
 * @throws {TypeError | RangeError} with `field` (`fractions[3]`, `names`) for a value or column that is wrong.
 */
export declare function binPackColumns(
  columns: AskColumns,
  gpuCount?: number | null,
  caps?: ClusterGpuCaps | CapsInit,
  options?: PackOptions,
): PackColumns;
export declare function fractionalGpuHours(fraction: FractionInput, seconds: number): number;
export declare function gpuModels(): GpuModel[];
export declare function parseAsks(text: string): AskEntry[];
export declare function parseScenario(query: string): Scenario;
export declare function scenarioToQuery(scenario: ScenarioInit): string;

/**
 * Reads nvidia-smi output (`-q -x`, `--query-gpu … --format=csv`, `-L`, the summary table, `mig -lgip`)
 * or `kubectl get nodes -o json`, recognised by content; an array of texts is merged.
 * @throws {Error} with `line`/`field` for malformed input or an unrecognised format.
 */
export declare function detect(inputs: string | ReadonlyArray<string>): DetectResponse;

/**
 * Packs the asks as `binPack` does and writes the plan as YAML (k8s, kserve, device-plugin,
 * mig-parted) or text (mig-commands, slurm).
 * @throws {Error} for bad asks, caps or options (`field` names the option).
 */
export declare function exportPlan(
  format: ExportFormat,
  asks: ReadonlyArray<FractionalAsk | PlainAsk>,
  gpuCount?: number | null,
  caps?: ClusterGpuCaps | CapsInit,
  options?: ExportOptions,
): string;

/**
 * Packs the asks as `binPack` does (caps: those the slices show, unless given) and simulates the
 * Kubernetes DRA allocator's first fit (devices in slice order, no scoring) of the plan's claims on
 * `slices` (`kubectl get resourceslices -o json`; an array: one text each): claims written a
 * template per workload and gpu-share's own (`exportPlan("dra")`), per slice order (`listed`,
 * `spread`, or both by default): GPUs used, left whole, memory slices stranded, and the `text`.
 * @throws {Error} with `field` (`slices`, `slices[i]`, `options.dra.…`) for bad input.
 */
export declare function simulateDra(
  slices: string | ReadonlyArray<string>,
  asks: ReadonlyArray<FractionalAsk | PlainAsk>,
  gpuCount?: number | null,
  caps?: ClusterGpuCaps | CapsInit | null,
  options?: SimulateDraOptions,
): SimulateDraResponse;

/**
 * Whether MIG instances can share one GPU of `model`, where each goes and how to create them.
 * @throws {Error} for an unknown model, a model without MIG, or an unknown profile.
 */
export declare function validateMig(model: string, profiles: string | ReadonlyArray<string>): MigValidation;

/**
 * MIG GPUs as they are, from `nvidia-smi mig -lgi` output (with `-L` or `-q -x` in the same text to
 * name the model; an array: one text per machine): per GPU, which profiles can still be created at
 * which starts and which free memory slices are stranded; with `asks`, where each goes without
 * moving an instance (the rest in `unplaced`).
 * @throws {Error} with `field: "options.gpuModel"` when the text does not name the model and its
 * profiles do not settle it; with `field` for a malformed text or ask.
 */
export declare function fit(
  current: string | ReadonlyArray<string>,
  asks?: ReadonlyArray<FractionalAsk | PlainAsk> | null,
  options?: LiveOptions,
): FitResponse;

/**
 * The fewest GPU instances moved (then the fewest GPUs touched) that let `asks` into the live MIG
 * layouts of `current` (`nvidia-smi mig -lgi` output, one text per machine), found exactly: every
 * instance not listed in `options.free` is in use and may move, never disappear. Returns the end
 * state per GPU (`kept` / `moved` / `new`), steps valid in order, nvidia-smi commands, what to drain,
 * and a mig-parted config of the end state; asks that fit nowhere are `unplaced` and nothing is destroyed.
 * @throws {Error} with `field` (`current`, `options.gpuModel`, `options.free[i]`, `asks[i]`) for bad input;
 * a RangeError for a search too large to be exact.
 */
export declare function repartition(
  current: string | ReadonlyArray<string>,
  asks: ReadonlyArray<FractionalAsk | PlainAsk>,
  options?: RepartitionOptions,
): RepartitionResponse;

/**
 * The packing diagram of a result `binPack` returned, as a standalone SVG document (the same bytes as
 * `gpu-share pack --svg`): a lane per GPU (`data-gpu`, `data-mechanism`, `data-node`), MIG instances at their
 * memory slices, shared GPUs as stacked shares with the free rest dashed, a focusable block per ask
 * (`data-ask`, details in its `<title>`), the unplaced asks with their reasons and a legend; light and dark
 * colour schemes. Every name is escaped text.
 * @throws {TypeError | RangeError | Error} with `field` (`result.gpus[0].instances`, `options.width`) for a
 * result that is not what `binPack` returns — edited into overlapping MIG instances, shares above one GPU, asks
 * on the wrong GPUs — or bad options.
 */
export declare function renderSvg(result: PackResponse | PackResult, options?: SvgOptions): string;

/**
 * The GPU memory a model needs, from its Hugging Face config.json (the parsed object or its text):
 * parameters counted from the architecture's shapes, weights, KV cache and overheads, each with why,
 * the total as an ask (`askName`: the config's `_name_or_path`'s last part, else its `model_type`;
 * `askMemory`). An architecture it does not know is an error naming it.
 * @throws {Error} with `field` (`config.num_key_value_heads`, `options.kvDtype`, `options.fit.gpuModel`)
 * for a bad config or options, or a budget the weights alone exceed.
 */
export declare function sizeModel(config: string | object, options?: SizeOptions): SizeResponse;

/**
 * Replays a cluster's workload online, as the FGD paper's simulator does (USENIX ATC 2023, "Beware of
 * Fragmentation"): `nodes` and `pods` are CSV text in the Alibaba 2023 GPU trace's form
 * (`sn,cpu_milli,memory_mib,gpu,model` and `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,…`). Per
 * policy and seed: the GPU allocated (% of capacity) at every percent of arrived demand, the fragmentation,
 * the pods that failed; the mean over the seeds; and how much the arrivals could allocate at best.
 * @throws {Error} with `field` (`pods.gpu_milli` with its `line`, `options.policies[1]`, `options.tune`).
 */
export declare function replay(nodes: string, pods: string, options?: ReplayOptions): Replay;

/** The same replay's chart (allocation against arrived demand, one line per policy) as a standalone SVG document. */
export declare function replaySvg(nodes: string, pods: string, options?: ReplayOptions): string;

export declare class Ledger {
  constructor(entries?: ReadonlyArray<LedgerEntry>);
  /** Reads JSON Lines (toJsonLines, the CLI's ledger file) or the JSON document of toJson. */
  static fromJson(text: string): Ledger;
  static fromJsonLines(text: string): Ledger;
  readonly entries: LedgerEntry[];
  /** A run of `seconds` that has just finished at `now` (default: the clock), or a use open until release(). */
  record(choice: Choice, options?: RecordOptions): UsageEntry;
  /** Closes the latest open use of `ask`; throws (and changes nothing) when there is none. */
  release(ask: string, at?: number): void;
  /** Merges a ledger text; entries already present are not added twice. */
  import(text: string, options?: ClockOptions): Pick<Imported, "added" | "alreadyPresent">;
  /** The uses already here that `entries` would count again (same ask, overlapping hours). */
  alreadyRecorded(entries: ReadonlyArray<LedgerEntry>, options?: ClockOptions): AlreadyRecorded[];
  /** Takes back entries just recorded; throws (and changes nothing) when one is not here or a later release closes it. */
  undo(entries: ReadonlyArray<LedgerEntry>, options?: ClockOptions): void;
  summarize(options?: SummaryOptions): Summary;
  toCsv(options?: ClockOptions): string;
  summaryCsv(options?: SummaryOptions): string;
  toJson(options?: SummaryOptions): string;
  toJsonLines(): string;
}
