// Results cross from WebAssembly as flat arrays and a string table (wasm/src/transfer.rs) and are
// built into objects by wasm/js/transfer.js: held here to JSON.parse of the core's JSON, keys in
// camelCase, on random values.
import { test } from "node:test";
import assert from "node:assert/strict";
import "@examlops/gpu-sharing";

const raw = await import(new URL("./node_modules/@examlops/gpu-sharing/gpu_share_wasm.js", import.meta.url).href);

// A small seeded generator, so a failure names a case that can be run again.
function generator(seed) {
  let x = seed >>> 0;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const STRINGS = ["", "a", ",", ":", "[", "]", "{", "}", '"', "\\", "\\\"", "é", "名前", "\u2028", "\n", "__proto__", "a_b"];

function value(next, depth) {
  const k = next();
  if (depth > 3 || k < 0.3) {
    const s = next();
    if (s < 0.25) return STRINGS[Math.floor(next() * STRINGS.length)] + STRINGS[Math.floor(next() * STRINGS.length)];
    if (s < 0.5) return Math.floor(next() * 2e6) / 7 - 1e5;
    if (s < 0.75) return [true, false, null][Math.floor(next() * 3)];
    return 1e21 * next();
  }
  const n = Math.floor(next() * 6);
  if (k < 0.65) return Array.from({ length: n }, () => value(next, depth + 1));
  const o = {};
  for (let i = 0; i < n; i++) {
    Object.defineProperty(o, STRINGS[Math.floor(next() * STRINGS.length)] + i, {
      value: value(next, depth + 1), enumerable: true, writable: true, configurable: true,
    });
  }
  return o;
}

test("a result is built as JSON.parse reads the same JSON", () => {
  for (let seed = 1; seed <= 300; seed++) {
    const text = JSON.stringify(value(generator(seed), 0));
    const camel = raw.testCamelJson(text);
    const expected = JSON.parse(camel);
    const got = raw.testOutput(text);
    assert.deepEqual(got, expected, `seed ${seed}: ${text}`);
  }
});

test("keys are camelCase, so none is __proto__ and no result has a prototype set from data", () => {
  const got = raw.testOutput('{"__proto__":[1,2],"b":{"__proto__":{"x":1}}}');
  assert.deepEqual(Object.keys(got), ["Proto", "b"]);
  assert.equal(Object.getPrototypeOf(got), Object.prototype);
  assert.equal(Object.getPrototypeOf(got.b), Object.prototype);
  assert.deepEqual(got.b.Proto, { x: 1 });
});

test("a string that occurs many times is one string, and every array is its own", () => {
  const got = raw.testOutput(JSON.stringify([{ w: ["same"] }, { w: ["same"] }]));
  assert.notEqual(got[0].w, got[1].w);
  got[0].w.push("mine");
  assert.deepEqual(got[1].w, ["same"]);
});

test("objects of a shape met many times are built as JSON.parse builds them, keys in order", () => {
  // Past the eighth object of a shape, transfer.js builds its objects with one object literal:
  // 40 objects of one shape with keys JavaScript must quote, each holding two of another shape.
  const keys = ['"', "\\", "\u2028", "é", "名前", "10", "a_b", "", "z", "constructor", "toString"];
  const one = (i) => Object.fromEntries(keys.map((k, j) => [k, j % 3 === 0 ? i : j % 3 === 1 ? `s${i % 4}` : [i, null, true]]));
  const list = Array.from({ length: 40 }, (_, i) => ({ ...one(i), inner: [one(i + 1), one(i + 2)], last: i % 2 === 0 }));
  const text = JSON.stringify(list);
  const expected = JSON.parse(raw.testCamelJson(text));
  const got = raw.testOutput(text);
  assert.deepEqual(got, expected);
  assert.equal(JSON.stringify(got), JSON.stringify(expected), "the same keys in the same order");
  for (const o of [got[39], got[39].inner[1]]) {
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.ok(Object.hasOwn(o, "constructor") && Object.hasOwn(o, "toString"));
  }
  got[30].z = "mine";
  got[31].inner[0].z = "mine";
  assert.deepEqual([got[29].z, got[32].z, got[31].inner[1].z], [expected[29].z, expected[32].z, expected[31].inner[1].z]);
});
