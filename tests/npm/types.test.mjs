// The package's declarations against what it returns: every result below, written out as a
// TypeScript object literal, must type-check under `tsc --strict` as the type index.d.ts gives
// it (mostly the data types generated from the Rust core into data.d.ts). A key the declaration
// lacks (excess-property check), a required key the result lacks, or a value of another type
// (a string where an enum value or a number goes) fails the test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  FractionalAsk,
  ClusterGpuCaps,
  selectMechanism,
  binPack,
  binPackColumns,
  gpuModels,
  parseAsks,
  parseScenario,
  detect,
  validateMig,
  Ledger,
} from "@examlops/gpu-sharing";

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name) => readFileSync(resolve(here, "..", "fixtures", "nvidia-smi", name), "utf8");
const tsc = join(here, "node_modules", ".bin", "tsc");
const pkg = dirname(fileURLToPath(import.meta.resolve("@examlops/gpu-sharing/package.json")));

/** A node labelled by GPU Feature Discovery for the mixed MIG strategy. */
const kubectlNode = JSON.stringify({
  apiVersion: "v1",
  kind: "Node",
  metadata: {
    name: "mixed-node",
    labels: {
      "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",
      "nvidia.com/gpu.count": "2",
      "nvidia.com/gpu.replicas": "1",
      "nvidia.com/gpu.sharing-strategy": "none",
      "nvidia.com/mig.capable": "true",
      "nvidia.com/mig.strategy": "mixed",
      "nvidia.com/mig.config": "all-3g.20gb",
      "nvidia.com/mig-3g.20gb.count": "2",
    },
  },
  status: { allocatable: { "nvidia.com/gpu": "1", "nvidia.com/mig-3g.20gb": "2" } },
});

const thrown = (f) => {
  try {
    f();
  } catch (e) {
    return { kind: e.kind, field: e.field, line: e.line };
  }
  throw new Error("expected an error");
};

/** [TypeScript type, value] for every kind of result, covering each optional part at least once. */
function results() {
  const a100 = { supportsMig: true, supportsMps: true, supportsTimeslicing: true, gpuModel: "A100-SXM4-40GB" };
  const out = [];
  const add = (type, value) => out.push([type, value]);

  add("T.PlanResponse", selectMechanism({ name: "mps", fraction: 0.3 }, { supportsMps: true, gpuModel: "A100-SXM4-40GB" }));
  add("T.PlanResponse", selectMechanism(new FractionalAsk("mig", { migProfile: "3g.20gb" }), a100));
  add("T.Choice", selectMechanism({ name: "whole", fraction: 2 }, {}));

  const mixed = [
    { name: "m", migProfile: "3g.20gb" },
    { name: "f", fraction: 0.25 },
    { name: "w", fraction: 2 },
  ];
  const packed = binPack(mixed, null, a100, { optimize: true, timeLimitMs: 20 });
  assert.ok(packed.optimize, "optimized");
  assert.ok(packed.gpus.some((g) => g.instances) && packed.gpus.some((g) => g.slots), "MIG and shared GPUs");
  add("T.PackResponse", packed);
  const limited = binPack([{ name: "a", fraction: 0.75 }, { name: "b", fraction: 0.75 }], 1, { supportsTimeslicing: true });
  assert.equal(limited.unplaced.length, 1);
  add("T.PackResponse", limited);
  add("T.PackResult", binPack([], null, {}));
  add("T.PackResponse", binPack([{ name: "n", fraction: 0.5 }], null, { supportsTimeslicing: true, nodes: [{ name: "a", gpus: 2 }] }));
  const columns = binPackColumns({ names: ["m", "f", "w"], fractions: [0.4, 0.05, 2] }, null, a100, { optimize: true });
  assert.ok(columns.optimize && columns.migProfiles.length > 0 && columns.warnings.length > 0, "optimized, MIG, warnings");
  add("T.PackColumns", columns);
  add("T.PackColumns", binPackColumns({ fractions: [0.75, 0.75] }, 1, { supportsTimeslicing: true, nodes: [{ name: "a", gpus: 1 }] }));

  const inventory = detect([fixture("linux-x86_64__nvidia-h100-mig__590.48.01.txt"), kubectlNode]);
  assert.ok(inventory.gpus.some((g) => g.migDevices.some((d) => d.computeInstances.length > 0)));
  assert.ok(inventory.nodes.length > 0);
  add("T.DetectResponse", inventory);
  add("T.DetectResponse", detect(fixture("qx-h100.xml")));
  add("T.DetectResponse", detect([fixture("qx-t4.xml"), fixture("qx-a100.xml")]));

  add("T.MigValidation", validateMig("A100-SXM4-40GB", ["3g.20gb", "2g.10gb"]));
  add("T.MigValidation", validateMig("A100-SXM4-40GB", "7g.40gb,1g.5gb"));
  add("T.GpuModel[]", gpuModels());
  add("T.AskEntry[]", parseAsks("name,size,hours\na,0.5,2\nb,1g.5gb,\n"));
  add("T.Scenario", parseScenario("ask=a:0.5&ask=x:3g.20gb&gpus=2&timeslice&optimize"));
  add("T.FractionalAsk", new FractionalAsk("a", { fraction: "1/3" }));
  add("T.ClusterGpuCaps", new ClusterGpuCaps({ supportsMig: true, migProfiles: ["1g.5gb"] }));

  // A ledger with a packing's tenants sharing one GPU, so the summary lists a shared GPU.
  const migPack = binPack(
    [{ name: "a", migProfile: "3g.20gb" }, { name: "b", migProfile: "2g.10gb" }],
    null,
    { supportsMig: true, gpuModel: "A100-SXM4-40GB" },
  );
  const ledger = new Ledger();
  for (const choice of migPack.choices) {
    add("T.UsageEntry", ledger.record(choice, { now: 7200, seconds: 3600 }));
  }
  const lines = ledger
    .toJsonLines()
    .trim()
    .split("\n")
    .map((line) => {
      const entry = JSON.parse(line);
      const start = migPack.gpus[0].instances.find((x) => x.ask === entry.ask).start;
      return JSON.stringify({ ...entry, gpu: { plan: "p1", index: 0, start } });
    });
  const shared = Ledger.fromJsonLines(lines.join("\n") + "\n");
  shared.record(migPack.choices[0], { now: 8000 });
  shared.release("a", 9000);
  add("T.LedgerEntry[]", shared.entries);
  const summary = shared.summarize({ now: 10000, rates: { costPerGpuHour: 2.5, watts: 300 } });
  assert.ok(summary.sharedGpus.length > 0, "a shared GPU");
  add("T.Summary", summary);
  add("T.Summary", new Ledger().summarize({ now: 0 }));
  add("ReturnType<T.Ledger['import']>", new Ledger().import(shared.toJsonLines(), { now: 10000 }));

  add("Pick<T.GpuShareError, 'kind' | 'field' | 'line'>", thrown(() => new FractionalAsk("x", { fraction: 0 })));
  add("Pick<T.GpuShareError, 'kind' | 'field' | 'line'>", thrown(() => detect("hello world")));
  add("Pick<T.GpuShareError, 'kind' | 'field' | 'line'>", thrown(() => selectMechanism({ name: "a", fraction: 0.5 }, { supportsMig: true, gpuModel: "Z9" })));
  add("Pick<T.GpuShareError, 'kind' | 'field' | 'line'>", thrown(() => validateMig("A100-SXM4-40GB", ["9g.99gb"])));
  add("Pick<T.GpuShareError, 'kind' | 'field' | 'line'>", thrown(() => binPack([{ name: "a", fraction: 0.5 }, { name: "a", fraction: 0.5 }])));
  add("Pick<T.GpuShareError, 'kind' | 'field' | 'line'>", thrown(() => new Ledger().release("nobody", 0)));
  return out;
}

/** `value` as a TypeScript literal: its JSON, typed arrays as `new Int32Array([…])`. */
function literal(value) {
  if (ArrayBuffer.isView(value)) return `new ${value.constructor.name}(${JSON.stringify(Array.from(value))})`;
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  const fields = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{${fields.map(([k, v]) => `${JSON.stringify(k)}: ${literal(v)}`).join(", ")}}`;
}

/** Runs tsc over `source` (an ES module next to nothing but the package); its output, or null when clean. */
function typeErrors(source) {
  const dir = mkdtempSync(join(tmpdir(), "gpu-sharing-types-"));
  try {
    writeFileSync(join(dir, "results.mts"), source);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", types: [] },
        files: ["results.mts"],
      }),
    );
    const run = spawnSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
    return run.status === 0 ? null : run.stdout + run.stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("every result type-checks as its declared type", () => {
  const lines = [`import type * as T from ${JSON.stringify(join(pkg, "index.js"))};`];
  results().forEach(([type, value], i) => {
    lines.push(`export const r${i}: ${type} = ${literal(value)};`);
  });
  // The check itself must bite: a key the core does not write, and an enum value it never uses.
  const choice = selectMechanism({ name: "a", fraction: 0.5 }, {});
  lines.push(`// @ts-expect-error: not a key of Choice`);
  lines.push(`export const wrongKey: T.Choice = ${JSON.stringify({ ...choice, requested_fraction: 0.5 })};`);
  lines.push(`// @ts-expect-error: not a mechanism`);
  lines.push(`export const wrongValue: T.Choice = ${JSON.stringify({ ...choice, mechanism: "vgpu" })};`);
  lines.push(`// @ts-expect-error: a required key missing`);
  lines.push(`export const missing: T.Choice = ${JSON.stringify({ ...choice, gpus: undefined })};`);
  const errors = typeErrors(lines.join("\n") + "\n");
  assert.equal(errors, null, `the package's types do not describe what it returns:\n${errors}`);
});

test("data.d.ts is generated, and index.d.ts declares no data type by hand", () => {
  const data = readFileSync(join(pkg, "data.d.ts"), "utf8");
  assert.match(data, /^\/\/ Generated from the Rust types of gpu-share-core/);
  const index = readFileSync(join(pkg, "index.d.ts"), "utf8");
  const generated = [...data.matchAll(/^export type (\w+) =/gm)].map((m) => m[1]);
  assert.ok(generated.length > 30, `${generated.length} generated types`);
  // A class may share a generated type's name (FractionalAsk, ClusterGpuCaps): it declares only its constructor.
  const classes = new Set([...index.matchAll(/^export declare class (\w+)/gm)].map((m) => m[1]));
  for (const name of generated.filter((n) => !classes.has(n))) {
    assert.doesNotMatch(index, new RegExp(`^export (interface|type) ${name}\\b`, "m"), `${name} is generated, not hand-written`);
  }
});
