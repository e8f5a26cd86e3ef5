// binPackColumns, the compact form for many asks, imported from the built package: the packing binPack
// makes for the same asks, said by position in typed arrays; every bad column refused in its field.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { binPack, binPackColumns } from "@examlops/gpu-sharing";

const pkg = dirname(fileURLToPath(import.meta.resolve("@examlops/gpu-sharing/package.json")));

const GIB = 2 ** 30;

/** Holds the columns to binPack's result for the same asks (named `names`). */
function agrees(columns, packed, names) {
  assert.equal(columns.gpusUsed, packed.gpusUsed);
  assert.equal(columns.lowerBound, packed.lowerBound);
  assert.equal(columns.utilisation, packed.utilisation);
  assert.deepEqual(columns.notes, packed.notes);
  assert.deepEqual(
    columns.unplaced.map((u) => [names[u.ask], u.reason]),
    packed.unplacedReasons.map((u) => [u.name, u.reason]),
  );
  const { gpus, asks } = columns;
  assert.equal(gpus.askStart.length, packed.gpus.length + 1);
  packed.gpus.forEach((gpu, g) => {
    const on = Array.from(gpus.asks.subarray(gpus.askStart[g], gpus.askStart[g + 1]), (i) => names[i]);
    const expected = gpu.instances?.map((m) => m.ask) ?? gpu.slots?.map((s) => s.ask) ?? [gpu.ask];
    assert.deepEqual(on, expected, `GPU ${g}`);
    assert.equal(columns.mechanisms[gpus.mechanism[g]], gpu.mechanism);
    assert.equal(gpus.used[g], gpu.usedFraction);
    for (const m of gpu.instances ?? []) {
      const i = names.indexOf(m.ask);
      assert.equal(columns.migProfiles[asks.migProfile[i]], m.profile);
      assert.equal(asks.migStart[i], m.start);
    }
  });
  packed.choices.forEach((choice, i) => {
    const first = packed.gpus.findIndex((gpu) => JSON.stringify(gpu).includes(JSON.stringify(choice.name)));
    assert.equal(asks.gpu[i], first, choice.name);
    assert.equal(columns.mechanisms[asks.mechanism[i]], choice.mechanism);
    assert.equal(asks.allocated[i], choice.allocatedFraction);
  });
  const warnings = packed.choices.flatMap((c) => c.warnings);
  assert.equal(columns.warnings.reduce((sum, w) => sum + w.asks, 0), warnings.length);
}

test("binPackColumns packs as binPack does, by position", () => {
  const names = ["mig-half", "big", "two-gpus", "mem", "quarter", "tiny", "mixed"];
  const fractions = new Float64Array([0.5, 0.9, 2, 0, 0.25, 0.05, 0.3]);
  const memory = new Float64Array([0, 0, 0, 8 * GIB, 0, 0, 12 * GIB]);
  const plain = names.map((name, i) => {
    const ask = { name };
    if (fractions[i]) ask.fraction = fractions[i];
    if (memory[i]) ask.memory = memory[i];
    return ask;
  });
  for (const caps of [
    { supportsMig: true, supportsTimeslicing: true, gpuModel: "A100-SXM4-40GB" },
    { supportsMps: true, gpuModel: "A100-SXM4-80GB", gpuCount: 2 },
    { supportsTimeslicing: true, gpuModel: "L40S", nodes: [{ name: "a", gpus: 2 }, { name: "b", gpus: 4 }] },
  ]) {
    const columns = binPackColumns({ names, fractions, memory }, null, caps);
    agrees(columns, binPack(plain, null, caps), names);
    const optimized = binPackColumns({ names, fractions, memory }, null, caps, { optimize: true, timeLimitMs: 20 });
    agrees(optimized, binPack(plain, null, caps, { optimize: true, timeLimitMs: 20 }), names);
    assert.equal(typeof optimized.optimize.provenOptimal, "boolean");
  }
});

test("without names, asks are named by position; the columns are typed arrays; -1 is none", () => {
  const r = binPackColumns({ fractions: [0.75, 0.5, 0.125] }, 1, { supportsTimeslicing: true });
  assert.ok(r.asks.gpu instanceof Int32Array && r.asks.mechanism instanceof Uint8Array);
  assert.ok(r.asks.allocated instanceof Float64Array && r.asks.migProfile instanceof Int8Array);
  assert.ok(r.gpus.asks instanceof Uint32Array && r.gpus.askStart instanceof Uint32Array);
  assert.deepEqual(Array.from(r.asks.gpu), [0, -1, 0]);
  assert.deepEqual(Array.from(r.asks.migProfile), [-1, -1, -1]);
  assert.deepEqual(r.unplaced.map((u) => [u.ask, u.name]), [[1, "1"]]);
  assert.deepEqual(r.mechanisms, ["mig", "mps", "timeslice", "whole"]);
  assert.deepEqual(r.warnings.map((w) => [w.asks, w.first]), [[3, 0]]);
  // Any numeric typed array reads as its numbers.
  const f32 = binPackColumns({ fractions: new Float32Array([0.5, 0.25]) }, null, { supportsTimeslicing: true });
  assert.equal(f32.gpusUsed, 1);
});

test("a bad column is refused in its field, and the module stays usable", () => {
  const caps = { supportsTimeslicing: true };
  const cases = [
    [{}, TypeError, "fractions"],
    [[0.5], TypeError, "columns"],
    [new Float64Array([0.5]), TypeError, "columns"],
    ["0.5", TypeError, "columns"],
    [null, TypeError, "columns"],
    [{ fractions: [0.5], size: [1] }, TypeError, "size"],
    [{ fractions: "0.5" }, TypeError, "fractions"],
    [{ fractions: new BigInt64Array(2) }, TypeError, "fractions"],
    [{ fractions: [0.5, "0.5"] }, TypeError, "fractions[1]"],
    [{ fractions: [0.5, NaN] }, RangeError, "fractions[1]"],
    [{ fractions: [0.5, -1] }, RangeError, "fractions[1]"],
    [{ fractions: [0.5, 0] }, RangeError, "fractions[1]"],
    [{ fractions: [0.5], memory: [1, 2] }, TypeError, "memory"],
    [{ memory: [1.5] }, RangeError, "memory[0]"],
    [{ fractions: [2], memory: [GIB] }, RangeError, "fractions[0]"],
    [{ fractions: [0.5, 0.5], names: ["a"] }, TypeError, "names"],
    [{ fractions: [0.5], names: [1] }, TypeError, "names"],
    [{ fractions: [0.5, 0.5], names: ["a", ""] }, TypeError, "names[1]"],
    [{ fractions: new Float64Array(2_000_001) }, RangeError, "fractions"],
  ];
  cases.forEach(([columns, type, field], i) => {
    assert.throws(
      () => binPackColumns(columns, null, caps),
      (e) => e instanceof type && e.field === field,
      `case ${i}: ${type.name} in ${field}`,
    );
  });
  assert.throws(() => binPackColumns({ fractions: [0.5, 0.5], names: ["a", "a"] }, null, caps), /both named/);
  assert.throws(() => binPackColumns({ fractions: [0.5] }, 0, caps), (e) => e instanceof RangeError && e.field === "gpuCount");
  assert.throws(() => binPackColumns({ fractions: [0.5] }, null, caps, { optimise: true }), TypeError);
  assert.equal(binPackColumns({ fractions: [0.5] }, null, caps).gpusUsed, 1);
});

test("the README's example of binPackColumns runs as written", () => {
  const readme = readFileSync(join(pkg, "README.md"), "utf8");
  const block = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes("binPackColumns"));
  assert.ok(block, "the README shows binPackColumns");
  const body = block.replace(/^import .*$/m, "");
  const run = new Function("binPackColumns", `${body}\nreturn r;`);
  const r = run(binPackColumns);
  assert.equal(r.gpusUsed, 1);
  assert.deepEqual(Array.from(r.asks.gpu), [0, 0, 0]);
  assert.equal(r.mechanisms[r.asks.mechanism[0]], "timeslice");
});
