// The package's discovery, export and MIG validation, on the real nvidia-smi captures in tests/fixtures/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { binPack, detect, exportPlan, fit, repartition, selectMechanism, validateMig } from "@examlops/gpu-sharing";

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "nvidia-smi");
const capture = (name) => readFileSync(join(fixtures, name), "utf8");

test("detect reads nvidia-smi -q -x and gives caps the planner takes", () => {
  const inv = detect(capture("qx-h100.xml"));
  assert.equal(inv.gpus.length, 8);
  assert.deepEqual(inv.sources, ["smi_xml"]);
  const gpu = inv.gpus[0];
  assert.equal(gpu.name, "NVIDIA H100 80GB HBM3");
  assert.equal(typeof gpu.model, "string");
  assert.equal(gpu.memoryMib, 81559);
  assert.equal(gpu.migCapable, true);
  assert.deepEqual(gpu.migDevices, []);
  assert.equal(inv.caps.gpuCount, 8);
  // MIG capable but disabled on all eight: left out of the caps (enabling needs a GPU reset),
  // and used once the caller turns it on.
  assert.equal(gpu.migEnabled, false);
  assert.equal(inv.caps.supportsMig, false);
  assert.ok(inv.notes.some((n) => n.startsWith("MIG is supported but disabled")), inv.notes.join("\n"));
  assert.equal(inv.caps.gpuModel, gpu.model);
  assert.notEqual(selectMechanism({ name: "a", fraction: 0.25 }, inv.caps).mechanism, "mig");
  assert.equal(selectMechanism({ name: "a", fraction: 0.25 }, { ...inv.caps, supportsMig: true }).mechanism, "mig");
});

test("detect merges several inputs and finds existing MIG devices", () => {
  const inv = detect([capture("qx-t4.xml"), capture("linux-x86_64__nvidia-h100-mig__590.48.01.txt")]);
  assert.equal(inv.gpus.length, 2);
  const mig = inv.gpus.find((g) => g.migEnabled);
  assert.ok(mig, "the H100 with MIG enabled");
  assert.ok(mig.migDevices.length > 0);
  for (const d of mig.migDevices) assert.match(d.profile, /^\dg\.\d+gb/);
  assert.ok(inv.notes.length > 0, "the inventory says what it assumed");
});

test("detect rejects garbage with a typed error and stays usable", () => {
  assert.throws(() => detect("hello world"), (e) => e instanceof Error && /nvidia-smi/.test(e.message));
  assert.throws(() => detect(["<nvidia_smi_log><gpu>", "x"]), (e) => e instanceof Error && /inputs\[0\]/.test(e.field ?? e.message));
  assert.throws(() => detect(42), Error);
  assert.equal(detect(capture("qx-t4.xml")).gpus.length, 1);
});

test("exportPlan writes Kubernetes, device-plugin, mig-parted and Slurm config for a plan", () => {
  const caps = { supportsMig: true, gpuModel: "A100-SXM4-40GB" };
  const asks = [{ name: "llm", migProfile: "3g.20gb" }, { name: "embed", fraction: 0.25 }, { name: "ocr", migProfile: "1g.5gb" }];
  const k8s = exportPlan("k8s", asks, null, caps, { namespace: "team-a" });
  assert.match(k8s, /kind: Deployment/);
  assert.match(k8s, /nvidia\.com\/mig-3g\.20gb/);
  assert.match(k8s, /namespace: team-a/);
  const parted = exportPlan("mig-parted", asks, null, caps);
  assert.match(parted, /mig-configs:/);
  assert.match(parted, /mig-devices:/);
  assert.match(exportPlan("mig-commands", asks, null, caps), /nvidia-smi mig -i 0 -cgi /);
  const shared = exportPlan("device-plugin", [{ name: "a", fraction: 0.5 }, { name: "b", fraction: 0.25 }], 1, { supportsTimeslicing: true });
  assert.match(shared, /timeSlicing:/);
  assert.match(shared, /replicas: \d+/);
  assert.match(exportPlan("slurm", asks, null, caps), /--gres=/);
  // The plan exported is the plan binPack gives.
  assert.equal(binPack(asks, null, caps).gpusUsed, 1);
});

test("exportPlan names the bad option", () => {
  const asks = [{ name: "a", fraction: 0.5 }];
  assert.throws(() => exportPlan("k8s", asks, null, {}, { namespace: "Bad_NS" }), (e) => e.field === "options.namespace");
  assert.throws(() => exportPlan("k8s", asks, null, {}, { configName: "-x" }), (e) => e.field === "options.configName");
  assert.throws(() => exportPlan("k8s", asks, null, {}, { nameSpace: "a" }), TypeError);
  assert.throws(() => exportPlan("yaml", asks), (e) => e.field === "format");
  assert.match(exportPlan("k8s", asks, null, {}, { optimize: true, timeLimitMs: 10 }), /kind: Deployment/);
});

test("validateMig checks real MIG geometry", () => {
  const ok = validateMig("A100-SXM4-40GB", "3g.20gb,2g.10gb,2g.10gb");
  assert.equal(ok.valid, true);
  assert.equal(ok.placements.length, 3);
  assert.ok(ok.commands.length > 0);
  // 4 + 4 + 1 memory slices of 8: sums to 7 compute slices, yet impossible.
  const bad = validateMig("A100-SXM4-40GB", ["3g.20gb", "3g.20gb", "1g.5gb"]);
  assert.equal(bad.valid, false);
  assert.ok(bad.reason.length > 0);
  assert.deepEqual(bad.placements, []);
  assert.throws(() => validateMig("A100-SXM4-40GB", ["9g.99gb"]), Error);
  assert.throws(() => validateMig("Tesla T4", "1g.5gb"), Error);
});

test("fit: what can still be created on GPUs as they are, and where new asks go", () => {
  const lgi = capture("mig-lgi__dra-driver-nvidia-gpu-933.txt");
  const r = fit(lgi, [{ name: "big", migProfile: "3g.40gb" }, { name: "small", fraction: 0.25 }], {
    gpuModel: "A100-SXM4-80GB",
  });
  const gpu = r.gpus[0];
  assert.equal(gpu.index, 3);
  assert.deepEqual(gpu.freeMemorySlices, [2, 3, 4, 6, 7]);
  assert.deepEqual(gpu.creatable.find((c) => c.profile === "2g.20gb").starts, [2]);
  assert.deepEqual(gpu.strandedForAsks, [4, 6, 7]);
  assert.deepEqual(r.placed.map((p) => [p.ask, p.profile, p.start]), [["small", "2g.20gb", 2]]);
  assert.deepEqual(r.unplaced.map((u) => u.name), ["big"]);
  // Without asks: the state alone; the model is asked for by this function's option name.
  assert.equal(fit([lgi], null, { gpuModel: "a100-80gb" }).placed.length, 0);
  assert.throws(() => fit(lgi), (e) => e.field === "options.gpuModel" && e.kind === "unknown_model");
  assert.throws(() => fit(lgi, [], { gpuModel: "T4" }), (e) => e.field === "options.gpuModel");
  assert.throws(() => fit(lgi, [], { model: "x" }), TypeError);
  assert.throws(() => fit(42), TypeError);
});

test("repartition: the fewest moves that fit a new ask into live MIG layouts", () => {
  const lgi = capture("mig-lgi__dra-driver-nvidia-gpu-933.txt");
  const r = repartition(lgi, [{ name: "big", migProfile: "3g.40gb" }], { gpuModel: "A100-SXM4-80GB" });
  assert.equal(r.moved, 1);
  assert.equal(r.gpusTouched, 1);
  assert.deepEqual(r.steps[0], { op: "destroy", node: null, gpu: 3, gpuInstanceId: 12, profile: "1g.10gb", start: 5 });
  const big = r.gpus[0].instances.find((i) => i.ask === "big");
  assert.deepEqual([big.profile, big.start, big.status], ["3g.40gb", 4, "new"]);
  assert.ok(r.commands.some((c) => c.startsWith("nvidia-smi mig -dgi -i 3 -gi 12")));
  // Instance 12 freed: nothing in use moves.
  const freed = repartition([lgi], [{ name: "big", migProfile: "3g.40gb" }], {
    gpuModel: "a100-80gb",
    free: [{ gpu: 3, gpuInstanceId: 12 }],
  });
  assert.equal(freed.moved, 0);
  assert.throws(
    () => repartition(lgi, [{ name: "a", migProfile: "1g.10gb" }], { gpuModel: "a100-80gb", free: [{ gpu: 3, gpuInstanceId: 99 }] }),
    (e) => e.field === "options.free[0]",
  );
  assert.throws(() => repartition(lgi, [{ name: "a", migProfile: "1g.10gb" }]), (e) => e.field === "options.gpuModel");
});
