// Asks with memory through the built npm package, as a consumer calls it (issue #14's reports).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FractionalAsk, selectMechanism, binPack, parseAsks, parseScenario, scenarioToQuery } from "@examlops/gpu-sharing";

test("memory asks are checked and kept exact", () => {
  const a = new FractionalAsk("m", { fraction: 0.25, memory: "12GiB" });
  assert.equal(a.memory, "12GiB");
  assert.equal(new FractionalAsk("b", { memory: 22649242112 }).memory, "22649242112B");
  assert.throws(() => new FractionalAsk("x", { memory: "12 bananas" }), (e) => e.field === "memory");
  assert.throws(() => new FractionalAsk("x", { migProfile: "1g.10gb", memory: "1GiB" }), (e) => e.field === "memory");
});

test("22,649,242,112 bytes on an H100 need a 40 GB-class profile", () => {
  const choice = selectMechanism({ name: "rag", memory: "22649242112B" }, { supportsMig: true, gpuModel: "H100-80GB-HBM3" });
  assert.equal(choice.migProfile, "3g.40gb");
  assert.equal(choice.memoryMib, 21601);
  assert.equal(choice.allocatedMemoryMib, 40448);
});

test("three 12 GiB asks on one A10: one placed, two unplaced for memory", () => {
  const asks = ["a", "b", "c"].map((n) => ({ name: n, memory: "12GiB" }));
  const r = binPack(asks, 1, { supportsTimeslicing: true, gpuModel: "A10" });
  assert.equal(r.gpusUsed, 1);
  assert.deepEqual(r.unplaced, ["b", "c"]);
  assert.match(r.unplacedReasons[0].reason, /^memory: 12 GiB asked/);
  assert.equal(r.gpus[0].memoryUsedMib, 12 * 1024 + 500);
  assert.equal(r.gpus[0].memoryBudgetMib, 23028 - 609);
  assert.equal(r.gpus[0].slots[0].memoryMib, 12 * 1024 + 500);
});

test("the CUDA context overhead is the caller's to set", () => {
  const r = binPack([{ name: "a", memory: "11GiB" }, { name: "b", memory: "10GiB" }], 1, {
    supportsTimeslicing: true,
    gpuModel: "A10",
    contextOverheadMib: 0,
  });
  assert.deepEqual(r.unplaced, []);
  assert.throws(() => binPack([{ name: "a", memory: "1GiB" }], 1, { supportsTimeslicing: true }), (e) => e.hint?.do === "give" || /GPU model/.test(e.message));
});

test("asks files and links carry memory", () => {
  const list = parseAsks("name,fraction,memory\na,0.25,12GiB\nb,,40GB\n");
  assert.equal(list[0].ask.memory, "12GiB");
  assert.equal(list[1].ask.memory, "40GB");
  const s = parseScenario("ask=m:0.25:12GiB&gpu-model=A10&timeslice&context-overhead=300MiB");
  assert.equal(s.caps.contextOverheadMib, 300);
  assert.equal(scenarioToQuery(s), "ask=m:0.25:12GiB&timeslice&gpu-model=A10&context-overhead=300MiB");
});
