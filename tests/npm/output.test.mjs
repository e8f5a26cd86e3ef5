// A result longer than one JavaScript string is read in pieces (wasm/src/output.rs): held here to
// JSON.parse of the same text, with pieces small enough that every branch of the splitting runs.
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

test("reading a result in pieces gives what JSON.parse gives", () => {
  for (let seed = 1; seed <= 300; seed++) {
    const text = JSON.stringify(value(generator(seed), 0));
    const expected = JSON.parse(text);
    for (const chunk of [1, 2, 5, 16, 64, 1 << 30]) {
      const got = raw.testParseJson(text, chunk);
      assert.deepEqual(got, expected, `seed ${seed}, chunk ${chunk}: ${text}`);
      assert.equal(JSON.stringify(got), text, `seed ${seed}, chunk ${chunk}`);
    }
  }
});

test("a __proto__ key read in pieces is a property, as JSON.parse makes it", () => {
  const text = '{"__proto__":[1,2],"b":{"__proto__":{"x":1}}}';
  const got = raw.testParseJson(text, 3);
  assert.deepEqual(Object.keys(got), ["__proto__", "b"]);
  assert.equal(Object.getPrototypeOf(got), Object.prototype);
  assert.deepEqual(got.__proto__, [1, 2]);
  assert.equal(JSON.stringify(got), text);
});
