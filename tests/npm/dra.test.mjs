// The package's DRA simulation (simulateDra) on the dra-driver-nvidia-gpu#932 case: seven pods, each
// with a template asking one 1g.10gb, on tests/fixtures/resourceslices' four H100 PCIe with dynamic MIG.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { simulateDra } from "@examlops/gpu-sharing";

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "resourceslices");
const slices = readFileSync(join(fixtures, "h100-pcie-dynamic-mig.json"), "utf8");
const asks = Array.from({ length: 7 }, (_, i) => ({ name: `mig-claim-${i + 1}`, migProfile: "1g.10gb" }));

test("the #932 case: templates strand a slice on every GPU in the spread order, gpu-share's claims do not", () => {
  const r = simulateDra(slices, asks, null, undefined, { dra: { mig: "dynamic" } });
  assert.equal(r.pack.gpusUsed, 1);
  assert.deepEqual(
    r.simulations.map((s) => s.perAsk.order),
    ["listed", "spread"],
  );
  const spread = r.simulations[1];
  assert.equal(spread.plannedWholeGpusLeft, 3);
  assert.equal(spread.perAsk.gpusUsed, 4);
  assert.equal(spread.perAsk.wholeGpusLeft, 0);
  assert.equal(spread.perAsk.strandedMemorySlices, 4);
  assert.equal(spread.gpuShare.gpusUsed, 1);
  assert.equal(spread.gpuShare.strandedMemorySlices, 1);
  for (const g of spread.perAsk.gpus) assert.deepEqual(g.strandedMemorySlices, [7]);
  assert.match(r.text, /Stranding in the spread order: claims written a template per workload use 3 more GPUs and strand 3 more memory slices/);
});

test("one order when asked", () => {
  const r = simulateDra([slices], asks, null, null, { order: "listed", dra: { mig: "dynamic" } });
  assert.equal(r.simulations.length, 1);
  assert.equal(r.simulations[0].perAsk.gpusUsed, 1);
});

test("bad slices and options throw with the field", () => {
  assert.throws(() => simulateDra("{", asks), (e) => e.field === "slices");
  assert.throws(() => simulateDra([slices, "[1]"], asks), (e) => e.field.startsWith("slices[1]"));
  assert.throws(() => simulateDra(slices, asks, null, null, { order: "random" }), (e) => e.field === "options" && /random/.test(e.message));
  assert.throws(() => simulateDra(slices, asks, null, null, { dra: { kubernetesVersion: "1.20" } }), (e) => e.field === "options.dra.kubernetesVersion");
});
