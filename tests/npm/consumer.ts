// A TypeScript consumer of @examlops/gpu-sharing, type-checked with `tsc --noEmit --strict` against the package's declarations.
import {
  FractionalAsk,
  ClusterGpuCaps,
  selectMechanism,
  binPack,
  binPackColumns,
  fractionalGpuHours,
  gpuModels,
  Ledger,
  detect,
  exportPlan,
  validateMig,
  renderSvg,
  type SvgOptions,
  type DetectResponse,
  type Inventory,
  type MigValidation,
  type Choice,
  type PackResult,
  type PackResponse,
  type Mechanism,
  type Summary,
  type GpuShareError,
  type ErrorKind,
  type LedgerEntry,
  type UsageEntry,
} from "@examlops/gpu-sharing";

const caps = new ClusterGpuCaps({ supportsMig: true, migProfiles: ["1g.5gb", "2g.10gb"] });
const choice: Choice = selectMechanism(new FractionalAsk("JPCP", { fraction: 0.2 }), caps);
const mechanism: Mechanism = choice.mechanism;
const wasted: number = choice.wastedFraction;
const profile: string | null = choice.migProfile;

const result: PackResult = binPack([new FractionalAsk("a", { fraction: "50%" }), { name: "b", migProfile: "1g.5gb" }], 1, caps);
const used: number = result.gpusUsed;
const names: string[] = result.unplaced;
const starts: number[] = result.gpus.flatMap((g) => (g.instances ?? []).map((i) => i.start));
const optimized = binPack([{ name: "o", fraction: 0.5 }], null, caps, { optimize: true, timeLimitMs: 50 });
const proven: boolean | undefined = optimized.optimize?.provenOptimal;
const response: PackResponse = optimized;
const slots: number[] = response.gpus.flatMap((g) => (g.slots ?? []).map((s) => s.share));
// Many asks as columns: typed arrays in and out.
const columns = binPackColumns({ fractions: new Float64Array([0.5, 0.25]), memory: [0, 2 ** 30] }, null, caps);
const firstGpu: Int32Array = columns.asks.gpu;
const columnMechanism: string = columns.mechanisms[columns.asks.mechanism[0]];
const onGpu0: Uint32Array = columns.gpus.asks.subarray(columns.gpus.askStart[0], columns.gpus.askStart[1]);
const carried: number = columns.warnings.reduce((n, w) => n + w.asks, 0);
// @ts-expect-error: names are strings.
binPackColumns({ fractions: [0.5], names: [1] });
// The caps a class instance holds are the generated ClusterGpuCaps, read-only.
const count: number | null = caps.gpuCount;
// @ts-expect-error: a class instance's caps are read-only.
caps.gpuCount = 2;

const hours: number = fractionalGpuHours(0.25, 7200);
const memory: number[] = gpuModels().map((m) => m.memoryMib);

const ledger = new Ledger();
const entry: UsageEntry = ledger.record(choice, { seconds: 3600 });
const entries: LedgerEntry[] = ledger.entries;
const twice: Array<{ ask: string; recordedAt: number }> = ledger.alreadyRecorded([entry]);
ledger.undo([entry]);
ledger.record(choice, { seconds: 3600 });
const started: number = entry.startedAt;
const kinds: ("usage" | "release")[] = entries.map((e) => e.kind);
const summary: Summary = ledger.summarize({ rates: { costPerGpuHour: 2 } });
const cost: number | null = summary.totals.cost;
const idle: number = summary.idleGpuHours;
const pue: number = summary.rates.pue;

try {
  new FractionalAsk("x", { fraction: 0 });
} catch (e) {
  const err = e as GpuShareError;
  const where: string | null = err.field;
  const kind: ErrorKind = err.kind;
  console.log(where, kind);
}

// @ts-expect-error: an ask is a fraction or a profile, never both.
new FractionalAsk("bad", { fraction: 0.5, migProfile: "1g.5gb" });
// @ts-expect-error: mechanisms are a closed set.
const nope: Mechanism = "vgpu";

const inventory: DetectResponse = detect(["<nvidia_smi_log/>"]);
const inventoryOnly: Inventory = inventory;
const models: (string | null)[] = inventoryOnly.gpus.map((g) => g.model);
const yaml: string = exportPlan("mig-parted", [{ name: "a", migProfile: "1g.5gb" }], null, inventory.caps, { migStrategy: "mixed" });
const check: MigValidation = validateMig("A100-SXM4-40GB", ["3g.20gb", "2g.10gb"]);
const starts2: number[] = check.placements.map((p) => p.start);
// @ts-expect-error: export formats are a closed set.
exportPlan("helm", []);

const svgOptions: SvgOptions = { title: "Plan", maxGpus: 10, width: 640, idPrefix: "plan" };
const svg: string = renderSvg(optimized, svgOptions) + renderSvg(result);
// @ts-expect-error: the diagram is drawn from a pack result, not from asks.
renderSvg([{ name: "a", fraction: 0.5 }]);
// @ts-expect-error: options are the documented ones.
renderSvg(result, { colour: "red" });

// @ts-expect-error: error kinds are a closed set.
const badKind: ErrorKind = "oops";

console.log(mechanism, wasted, profile, used, names, starts, hours, memory, cost, nope, proven, models, yaml, starts2);
console.log(slots, count, started, kinds, idle, pue, badKind, svg);
