// Types of @examlops/gpu-sharing: the shapes the Rust core reads and returns, in JavaScript casing.

export type Mechanism = "mig" | "mps" | "timeslice" | "whole";
export type Isolation = "hardware" | "partial" | "soft" | "exclusive";

/** A share of a GPU: a number (0.25) or text ("0.25", "25%", "1/4"). Numbers ≥ 1 are whole GPUs. */
export type FractionInput = number | string;

export type AskSize = { fraction: FractionInput; migProfile?: never } | { migProfile: string; fraction?: never };

/** A plain ask object, accepted wherever a FractionalAsk is. */
export type PlainAsk = { name: string } & AskSize;

export declare class FractionalAsk {
  /** @throws {TypeError | RangeError} on an empty name, a fraction ≤ 0, or a malformed profile name. */
  constructor(name: string, size: AskSize);
  readonly name: string;
  readonly fraction?: number;
  readonly migProfile?: string;
}

export interface CapsInit {
  supportsMig?: boolean;
  /** The MIG profiles the cluster allows; null allows every profile of the model. */
  migProfiles?: string[] | null;
  supportsMps?: boolean;
  supportsTimeslicing?: boolean;
  /** Canonical, nvidia-smi or short name: "A100-SXM4-40GB", "NVIDIA H200", "h100". */
  gpuModel?: string | null;
  gpuCount?: number | null;
}

export declare class ClusterGpuCaps {
  /** @throws {Error} for an unknown model or profile, or MIG on a model without it. */
  constructor(options?: CapsInit);
  readonly supportsMig: boolean;
  readonly migProfiles: string[] | null;
  readonly supportsMps: boolean;
  readonly supportsTimeslicing: boolean;
  readonly gpuModel: string | null;
  readonly gpuCount: number | null;
}

export interface MpsLimits {
  activeThreadPercentage: number;
  pinnedMemoryMib: number | null;
}

export interface Choice {
  name: string;
  mechanism: Mechanism;
  isolation: Isolation;
  requestedFraction: number;
  allocatedFraction: number;
  wastedFraction: number;
  /** Physical GPUs occupied or shared: ⌈fraction⌉ for "whole", else 1. */
  gpus: number;
  migProfile: string | null;
  gpuModel: string | null;
  mps: MpsLimits | null;
  notes: string[];
  warnings: string[];
}

export interface SharedSlot {
  ask: string;
  share: number;
}

export interface MigInstance {
  ask: string;
  profile: string;
  /** First memory slice of the placement. */
  start: number;
  memorySlices: number;
  computeSlices: number;
}

export interface GpuLayout {
  index: number;
  mechanism: Mechanism;
  asks: string[];
  usedFraction: number;
  slots?: SharedSlot[];
  instances?: MigInstance[];
}

export interface UnplacedAsk {
  name: string;
  mechanism: Mechanism;
  reason: string;
}

export interface PackResult {
  gpusUsed: number;
  lowerBound: number;
  gpuCount: number | null;
  gpuModel: string | null;
  utilisation: number;
  /** Names of the asks that found no room. */
  unplaced: string[];
  unplacedReasons: UnplacedAsk[];
  gpus: GpuLayout[];
  choices: Choice[];
  notes: string[];
  /** Present when binPack was asked to optimize. */
  optimize?: OptimizeReport;
}

export interface UsageEntry {
  kind: "usage";
  ask: string;
  mechanism: Mechanism;
  isolation: Isolation;
  requestedFraction: number;
  allocatedFraction: number;
  migProfile?: string;
  gpuModel?: string;
  /** Unix seconds. */
  startedAt: number;
  /** Absent while the use is open. */
  seconds?: number;
}

export interface ReleaseEntry {
  kind: "release";
  ask: string;
  at: number;
}

export type LedgerEntry = UsageEntry | ReleaseEntry;

export interface Rates {
  costPerGpuHour?: number | null;
  watts?: number | null;
  pue?: number;
  gridGCo2ePerKwh?: number;
}

export interface SummaryRow {
  key: string;
  records: number;
  running: number;
  requestedGpuHours: number;
  allocatedGpuHours: number;
  wastedGpuHours: number;
  cost: number | null;
  energyKwh: number;
  co2eKg: number;
}

export interface Summary {
  totals: SummaryRow;
  byWorkload: SummaryRow[];
  byMechanism: SummaryRow[];
  rates: Required<Rates>;
}

export type Certainty = { certainty: "known" } | { certainty: "uncertain"; why: string };

export interface MigProfile {
  name: string;
  computeSlices: number;
  memorySlices: number;
  maxCount: number;
  starts: number[];
  class: "plain" | "media_extensions" | "all_media_engines" | "no_media_engines" | "graphics";
  certainty: Certainty;
}

export interface GpuModel {
  name: string;
  smiNames: string[];
  aliases: string[];
  memoryMib: number;
  powerLimitW: number | null;
  mig: { computeSlices: number; memorySlices: number } | null;
  profiles: MigProfile[];
  certainty: Certainty;
  source: string;
}

export interface AskEntry {
  ask: PlainAsk;
  seconds: number | null;
}

export interface Scenario {
  asks: PlainAsk[];
  caps: Required<CapsInit>;
}

/** Errors thrown for bad input carry where the input was wrong. */
export interface GpuShareError extends Error {
  kind: "out_of_range" | "syntax" | "unknown_model" | "unknown_profile" | "duplicate_name" | "too_large" | "ledger";
  field: string | null;
  line: number | null;
}

export declare function selectMechanism(ask: FractionalAsk | PlainAsk, caps?: ClusterGpuCaps | CapsInit): Choice;
export interface PackOptions {
  /** Search for a packing on fewer GPUs than first-fit-decreasing, up to a proven optimum. */
  optimize?: boolean;
  /** The search's budget, calibrated to milliseconds of a native release build (default 1000). */
  timeLimitMs?: number;
}

export interface OptimizeReport {
  provenOptimal: boolean;
  lowerBound: number;
  /** GPUs above the lower bound. */
  gap: number;
  /** GPUs plain first-fit-decreasing used. */
  ffdGpus: number;
}

export declare function binPack(
  asks: ReadonlyArray<FractionalAsk | PlainAsk>,
  gpuCount?: number | null,
  caps?: ClusterGpuCaps | CapsInit,
  options?: PackOptions,
): PackResult;
export declare function fractionalGpuHours(fraction: FractionInput, seconds: number): number;
export declare function gpuModels(): GpuModel[];
export declare function parseAsks(text: string): AskEntry[];
export declare function parseScenario(query: string): Scenario;
export declare function scenarioToQuery(scenario: { asks: ReadonlyArray<FractionalAsk | PlainAsk>; caps: CapsInit }): string;

/** The formats `detect` reads. */
export type SourceFormat = "smi_xml" | "smi_query_csv" | "smi_list" | "smi_table" | "smi_mig_profiles" | "kubectl_nodes";

/** One GPU instance (nvidia-smi lists its compute instances as MIG devices). */
export interface DiscoveredMigDevice {
  /** The GPU-instance profile ("3g.40gb"); "unknown" when neither named nor derivable. */
  profile: string;
  /** The first memory slice, when the input gives the placement. */
  start: number | null;
  gpuInstanceId: number | null;
  memoryMib: number | null;
  /** Its compute instances, in the order listed; empty when the input shows none. */
  computeInstances: DiscoveredComputeInstance[];
}

/** One compute instance of a GPU instance: one MIG device in nvidia-smi's listings. */
export interface DiscoveredComputeInstance {
  /** "1c.3g.71gb" for 1 of the GPU instance's compute slices, "3g.71gb" when it spans them all; null when not named. */
  profile: string | null;
  computeInstanceId: number | null;
  /** nvidia-smi's MIG device index. */
  deviceIndex: number | null;
  multiprocessors: number | null;
}

export interface DiscoveredGpu {
  node: string | null;
  index: number;
  /** The product name as reported ("NVIDIA A100-SXM4-40GB"). */
  name: string;
  /** The catalogue's canonical model ("A100-SXM4-40GB"); null when the catalogue does not know it. */
  model: string | null;
  memoryMib: number | null;
  migCapable: boolean;
  migEnabled: boolean;
  migPending: boolean | null;
  migDevices: DiscoveredMigDevice[];
  uuid: string | null;
  pciBusId: string | null;
  pciDeviceId: string | null;
  powerLimitW: number | null;
}

export interface DiscoveredNode {
  name: string;
  gpuCount: number;
  sharingStrategy: string | null;
  replicas: number | null;
  migStrategy: string | null;
  migConfig: string | null;
  migDeviceCounts: Record<string, number>;
}

export interface Inventory {
  gpus: DiscoveredGpu[];
  nodes: DiscoveredNode[];
  migProfiles: string[];
  sources: SourceFormat[];
  /** What was assumed rather than read, one sentence each. */
  notes: string[];
  /** The capabilities the inventory implies, ready for selectMechanism / binPack. */
  caps: Required<CapsInit>;
}

/**
 * Reads nvidia-smi output (`-q -x`, `--query-gpu … --format=csv`, `-L`, the summary table, `mig -lgip`)
 * or `kubectl get nodes -o json`, recognised by content; an array of texts is merged.
 * @throws {Error} with `line`/`field` for malformed input or an unrecognised format.
 */
export declare function detect(inputs: string | ReadonlyArray<string>): Inventory;

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

export interface MigPlacement {
  profile: string;
  start: number;
  memorySlices: number;
}

export interface MigValidation {
  model: string;
  profiles: string[];
  valid: boolean;
  /** Why not, when not valid. */
  reason: string | null;
  /** Where each instance goes, in creation order. */
  placements: MigPlacement[];
  /** `nvidia-smi mig -i 0 -cgi … -C` commands in that order. */
  commands: string[];
  /** The order works whatever placement the driver picks (else: if it picks the listed ones). */
  orderWorksForAnyPlacement: boolean;
  warnings: string[];
}

/**
 * Whether MIG instances can share one GPU of `model`, where each goes and how to create them.
 * @throws {Error} for an unknown model, a model without MIG, or an unknown profile.
 */
export declare function validateMig(model: string, profiles: string | ReadonlyArray<string>): MigValidation;

export declare class Ledger {
  constructor(entries?: LedgerEntry[]);
  /** Reads JSON Lines (toJsonLines, the CLI's ledger file) or the JSON document of toJson. */
  static fromJson(text: string): Ledger;
  static fromJsonLines(text: string): Ledger;
  readonly entries: LedgerEntry[];
  /** A run of `seconds` that has just finished at `now` (default: the clock), or a use open until release(). */
  record(choice: Choice, options?: { now?: number; seconds?: number | null }): UsageEntry;
  /** Closes the latest open use of `ask`; throws (and changes nothing) when there is none. */
  release(ask: string, at?: number): void;
  /** Merges a ledger text; entries already present are not added twice. */
  import(text: string, options?: { now?: number }): { added: number; alreadyPresent: number };
  summarize(options?: { now?: number; rates?: Rates | null }): Summary;
  toCsv(options?: { now?: number }): string;
  summaryCsv(options?: { now?: number; rates?: Rates | null }): string;
  toJson(options?: { now?: number; rates?: Rates | null }): string;
  toJsonLines(): string;
}
