// Types of @examlops/gpu-sharing.
//
// What the functions return — plans, packings, inventories, ledger entries, summaries — is
// declared in data.d.ts, generated from the Rust core's own types (core/tests/core/ts_export/, run
// by `cargo xtask npm`), so it says exactly what the core returns: keys in camelCase, enum values
// as the core writes them ("mig", "timeslice"). This file declares only what Rust cannot: the
// functions and classes of api.js and the looser inputs they accept.

import type {
  AskEntry,
  Choice,
  ClusterGpuCaps as ClusterGpuCapsData,
  DetectResponse,
  ErrorKind,
  FitResponse,
  RepartitionResponse,
  Replay,
  Policy,
  SizeResponse,
  GpuModel,
  Imported,
  LedgerEntry,
  MigValidation,
  PackColumnsSummary,
  PackResponse,
  PackResult,
  PlanResponse,
  Rates,
  Scenario,
  Summary,
  Unplaced,
} from "./data.js";

// Every generated type, except where a class below has the same name (FractionalAsk, ClusterGpuCaps).
export * from "./data.js";

/** A share of a GPU: a number (0.25) or text ("0.25", "25%", "1/4"). Numbers ≥ 1 are whole GPUs. */
export type FractionInput = number | string;

/** GPU memory: text with its unit ("12GiB", "12288MiB", "40GB", "22649242112B") or a whole number of bytes. */
export type MemoryInput = string | number;

export type AskSize =
  | { fraction: FractionInput; memory?: MemoryInput; migProfile?: never }
  | { memory: MemoryInput; fraction?: never; migProfile?: never }
  | { migProfile: string; fraction?: never; memory?: never };

/** A plain ask object, accepted wherever a FractionalAsk is. */
export type PlainAsk = { name: string } & AskSize;

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

/** Rates for the ledger's summary, each optional (the defaults are in Summary.rates). */
export type RatesInit = Partial<Rates>;

/** A ledger entry that records a use (Ledger.record returns one). */
export type UsageEntry = Extract<LedgerEntry, { kind: "usage" }>;
/** A ledger entry that closes a use. */
export type ReleaseEntry = Extract<LedgerEntry, { kind: "release" }>;
/** @deprecated The ask that found no room is `Unplaced`. */
export type UnplacedAsk = Unplaced;

/** Errors thrown for bad input carry where the input was wrong. */
export interface GpuShareError extends Error {
  kind: ErrorKind;
  field: string | null;
  line: number | null;
}

/** The mechanism that serves one ask (a Choice; `capsFrom` only when the caps were detected). */
export declare function selectMechanism(ask: FractionalAsk | PlainAsk, caps?: ClusterGpuCaps | CapsInit): PlanResponse;

export interface PackOptions {
  /** Search for a packing on fewer GPUs than first-fit-decreasing, up to a proven optimum. */
  optimize?: boolean;
  /** The search's budget, calibrated to milliseconds of a native release build (default 1000). */
  timeLimitMs?: number;
}

/** Packs the asks onto as few GPUs as it can; `optimize` is present when options.optimize was set. */
export declare function binPack(
  asks: ReadonlyArray<FractionalAsk | PlainAsk>,
  gpuCount?: number | null,
  caps?: ClusterGpuCaps | CapsInit,
  options?: PackOptions,
): PackResponse;
/** A column of numbers, one per ask: a Float64Array (no copy in JavaScript), another numeric typed array, or numbers. */
export type NumberColumn = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array | Uint8ClampedArray | ReadonlyArray<number>;

/**
 * Many asks as columns, for `binPackColumns`: ask `i` is `fractions[i]` of a GPU, `memory[i]` bytes of GPU
 * memory, or both (0 in a column: not given for that ask). Every column given has one value per ask.
 */
export interface AskColumns {
  fractions?: NumberColumn;
  /** GPU memory in bytes (whole numbers). */
  memory?: NumberColumn;
  /** Names, unique; without them ask `i` is named `"i"`. */
  names?: ReadonlyArray<string>;
}

/**
 * The packing `binPack` gives for the same asks, by position: the summary (totals, unplaced asks, each distinct
 * warning with how many asks carry it, the legends of the codes) and typed arrays; `-1` is "none". Left out:
 * each ask's notes and each GPU's memory total (`binPack` gives them).
 */
export interface PackColumns extends PackColumnsSummary {
  /** One value per ask, in input order. */
  asks: {
    /** The (first) GPU the ask is on; -1 when unplaced. */
    gpu: Int32Array;
    /** A code of `mechanisms`. */
    mechanism: Uint8Array;
    /** What the ask denies to others, as a share of one GPU: its MIG instance's share, its fraction, or whole GPUs. */
    allocated: Float64Array;
    /** The MIG instance's profile, a code of `migProfiles`; -1 for other mechanisms. */
    migProfile: Int8Array;
    /** The MIG instance's first memory slice; -1 for other mechanisms. */
    migStart: Int8Array;
  };
  /** One value per GPU, in index order (`askStart` has one more). */
  gpus: {
    /** A code of `mechanisms`. */
    mechanism: Uint8Array;
    /** The share of the GPU its tenants take. */
    used: Float64Array;
    /** The asks on GPU `g` are `asks.subarray(askStart[g], askStart[g + 1])` (a multi-GPU ask on each of its GPUs). */
    asks: Uint32Array;
    askStart: Uint32Array;
  };
}

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
export declare function scenarioToQuery(scenario: {
  asks: ReadonlyArray<FractionalAsk | PlainAsk>;
  caps: CapsInit;
  optimize?: boolean;
}): string;

/**
 * Reads nvidia-smi output (`-q -x`, `--query-gpu … --format=csv`, `-L`, the summary table, `mig -lgip`)
 * or `kubectl get nodes -o json`, recognised by content; an array of texts is merged.
 * @throws {Error} with `line`/`field` for malformed input or an unrecognised format.
 */
export declare function detect(inputs: string | ReadonlyArray<string>): DetectResponse;

export type ExportFormat = "k8s" | "kubernetes" | "kserve" | "device-plugin" | "mig-parted" | "mig-commands" | "slurm";

export interface ExportOptions extends PackOptions {
  /** How the device plugin exposes MIG devices (default "mixed"). */
  migStrategy?: "single" | "mixed";
  /** Namespace of the workloads (a DNS-1123 label). */
  namespace?: string | null;
  /** Container image of the workloads (default: a placeholder under `.invalid`). */
  image?: string;
  /** Name of the mig-parted and device-plugin configs (default "gpu-share"). */
  configName?: string;
}

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
  options?: PackOptions & {
    order?: import("./data.js").SliceOrder | null;
    dra?: {
      kubernetesVersion?: string;
      mig?: "static" | "dynamic";
      timeSliceInterval?: "Default" | "Short" | "Medium" | "Long";
      consumableMemory?: boolean;
    };
  },
): import("./data.js").SimulateDraResponse;

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
  options?: { gpuModel?: string | null },
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
  options?: {
    gpuModel?: string | null;
    free?: ReadonlyArray<{ gpu: number; gpuInstanceId: number; node?: string | null }>;
  },
): RepartitionResponse;

export interface SvgOptions {
  /** The diagram's heading and `<title>` (default "GPU packing"). */
  title?: string | null;
  /** GPU lanes drawn (default 500); the GPUs beyond are counted in one line "… N more GPUs, listed in the plan". */
  maxGpus?: number;
  /** The first GPU drawn, by position in the packing (default 0): a window of lanes, the GPUs before it counted in one line "… N GPUs before these, listed in the plan". */
  firstGpu?: number;
  /** Width in pixels, a whole number from 320 to 10000 (default 720); the height follows the content. */
  width?: number;
  /**
   * Prefix of the ids of the diagram's `<title>` and `<desc>` (default "gpu-share": `gpu-share-title`), so that
   * two diagrams inlined into one page keep unique ids: ASCII letters, digits, `-` and `_`, starting with a letter.
   */
  idPrefix?: string;
}

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

/** The weights' or the KV cache's dtype: config.json's spellings ("bfloat16") are accepted too. */
export type DtypeInput = "fp32" | "bf16" | "fp16" | "fp8" | "int8" | "int4" | "float32" | "bfloat16" | "float16";

export interface SizeOptions {
  /** The weights' dtype (default: the config's quantization_config, else its torch_dtype). */
  dtype?: DtypeInput | null;
  /** The KV cache's dtype (default: the dtype the model computes in). */
  kvDtype?: DtypeInput | null;
  /** Tokens per sequence (default: the model's max_position_embeddings). */
  context?: number | null;
  /** Sequences at once (default 1). */
  concurrency?: number | null;
  /**
   * A budget to fit: bytes, memory text ("40GiB"), a whole GPU (`{ gpuModel }`: what processes can
   * allocate, less one CUDA context) or a MIG instance (`{ gpuModel, profile }`). The result's `fit`
   * says whether the model fits, and the longest context and the most sequences that do.
   */
  fit?: number | string | { gpuModel: string; profile?: string | null } | null;
  /** Plan the model on these caps as an ask of its memory named `name`; the result's `plan` is selectMechanism's answer. */
  plan?: { name: string; caps?: CapsInit } | null;
}

/**
 * The GPU memory a model needs, from its Hugging Face config.json (the parsed object or its text):
 * parameters counted from the architecture's shapes, weights, KV cache and overheads, each with why,
 * the total as an ask (`askName`: the config's `_name_or_path`'s last part, else its `model_type`;
 * `askMemory`). An architecture it does not know is an error naming it.
 * @throws {Error} with `field` (`config.num_key_value_heads`, `options.kvDtype`, `options.fit.gpuModel`)
 * for a bad config or options, or a budget the weights alone exceed.
 */
export declare function sizeModel(config: string | object, options?: SizeOptions): SizeResponse;

export interface ReplayOptions {
  /** Policies to replay (default: all seven): "random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd", "gpu-share" (the paper's names, "DotProd", "FGD", … are read too). */
  policies?: ReadonlyArray<Policy | string> | null;
  /** Seeds of the arrivals' order and copies (default [42]; the paper's are 42–51). */
  seeds?: ReadonlyArray<number> | null;
  /** Fill until the arrivals ask this share of the GPU capacity: 1.3 or "130%" (default 1.3). */
  tune?: number | string | null;
}

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
  record(choice: Choice, options?: { now?: number; seconds?: number | null }): UsageEntry;
  /** Closes the latest open use of `ask`; throws (and changes nothing) when there is none. */
  release(ask: string, at?: number): void;
  /** Merges a ledger text; entries already present are not added twice. */
  import(text: string, options?: { now?: number }): Pick<Imported, "added" | "alreadyPresent">;
  /** The uses already here that `entries` would count again (same ask, overlapping hours). */
  alreadyRecorded(entries: ReadonlyArray<LedgerEntry>, options?: { now?: number }): Array<{ ask: string; recordedAt: number }>;
  /** Takes back entries just recorded; throws (and changes nothing) when one is not here or a later release closes it. */
  undo(entries: ReadonlyArray<LedgerEntry>, options?: { now?: number }): void;
  summarize(options?: { now?: number; rates?: RatesInit | null }): Summary;
  toCsv(options?: { now?: number }): string;
  summaryCsv(options?: { now?: number; rates?: RatesInit | null }): string;
  toJson(options?: { now?: number; rates?: RatesInit | null }): string;
  toJsonLines(): string;
}
