// A list of plain {name, fraction} objects crosses into WebAssembly as two columns instead of its
// JSON (wasm/js/transfer.js fractionColumns, wasm/src/asks.rs fraction_list). Held here to the JSON
// path on random lists, good and bad: the same list with one more key whose value is undefined
// goes through JSON (which drops that key), so both must pack alike or fail with the same error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { binPack, exportPlan } from "@examlops/gpu-sharing";

function generator(seed) {
  let x = seed >>> 0;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const FRACTIONS = [0.25, 0.3, 1 / 3, 0.1 + 0.2, 0.123457, 1, 1.5, 2, 0.000001, 1e-12, 0, -0, -0.5, NaN, Infinity, 1e7, 5e-324];
const NAMES = ["a", "b-1", "train.job", "名前", "x".repeat(300), "", " lead", "a b", "a\u0000", "\ud800", "é"];

function list(next) {
  const n = 1 + Math.floor(next() * 6);
  return Array.from({ length: n }, (_, i) => {
    const name = next() < 0.8 ? `ask${i}` : NAMES[Math.floor(next() * NAMES.length)];
    const fraction = next() < 0.5 ? Math.ceil(next() * 1e6) / 1e6 : FRACTIONS[Math.floor(next() * FRACTIONS.length)];
    return { name, fraction };
  });
}

/** What a call gave: its result, or its error's class, kind, field and message. */
function outcome(call) {
  try {
    return { result: call() };
  } catch (e) {
    return { error: [e.constructor.name, e.kind, e.field, e.message] };
  }
}

const viaJson = (asks) => asks.map((a) => ({ ...a, padding: undefined }));

test("a list of {name, fraction} packs as its JSON does, and fails with the same error", () => {
  const next = generator(17);
  let failed = 0;
  for (let round = 0; round < 400; round++) {
    const asks = list(next);
    const caps = { supportsTimeslicing: next() < 0.7, supportsMps: next() < 0.3 };
    const gpus = next() < 0.3 ? 1 : null;
    const columns = outcome(() => binPack(asks, gpus, caps));
    assert.deepEqual(columns, outcome(() => binPack(viaJson(asks), gpus, caps)), JSON.stringify(asks));
    if (columns.error) failed++;
  }
  // Both kinds of list were met: the comparison covers errors and packings.
  assert.ok(failed > 20 && failed < 380, `${failed} of 400 lists failed`);
});

test("exportPlan reads such a list as binPack does", () => {
  const asks = [{ name: "a", fraction: 0.3 }, { name: "b", fraction: 0.25 }];
  const caps = { supportsTimeslicing: true };
  assert.deepEqual(exportPlan("k8s", asks, 1, caps), exportPlan("k8s", viaJson(asks), 1, caps));
});

test("lists of other shapes still go through JSON: class instances, extra keys, holes", () => {
  class Ask {
    constructor(name, fraction) {
      this.name = name;
      this.fraction = fraction;
    }
    toJSON() {
      return { name: this.name, fraction: 0.5 };
    }
  }
  const caps = { supportsTimeslicing: true };
  // The class's toJSON gives 0.5, as JSON.stringify would: two asks of 0.5 fill one GPU.
  assert.equal(binPack([new Ask("a", 0.9), new Ask("b", 0.9)], null, caps).gpusUsed, 1);
  assert.throws(() => binPack([{ name: "a", fraction: 0.5, gpu: 1 }], null, caps), /gpu/);
  // eslint-disable-next-line no-sparse-arrays
  assert.throws(() => binPack([{ name: "a", fraction: 0.5 }, , { name: "c", fraction: 0.5 }], null, caps), /asks\[1\]/);
});
