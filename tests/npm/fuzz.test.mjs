// Every export of the npm package on arbitrary JSON (and a few JavaScript oddities), from a seeded
// generator so a failure repeats: each call returns or throws an Error, never crashes the module.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as api from "@examlops/gpu-sharing";

/** The cases run per export; the total is printed as a test diagnostic. */
const CASES = Number(process.env.GPU_SHARE_NPM_FUZZ_CASES ?? 5000);

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ["name", "fraction", "migProfile", "profile", "supportsMig", "supportsMps", "supportsTimeslicing",
  "gpuModel", "migProfiles", "gpuCount", "optimize", "timeLimitMs", "kind", "ask", "at", "startedAt", "seconds",
  "mechanism", "isolation", "requestedFraction", "allocatedFraction", "asks", "caps", "namespace", "image",
  "configName", "migStrategy", "costPerGpuHour", "watts", "pue", "gridGCo2ePerKwh", "fractions", "memory", "names",
  "__proto__", "constructor", ""];
const STRINGS = ["", "a", "a:0.5", "1/3", "25%", "3g.20gb", "1g.5gb+me", "a100", "h100", "mig", "mps", "timeslice",
  "whole", "usage", "release", "🙂", "名前", "\u0000", "\u2028", "<img src=x>", "-1", "NaN", "1e9", "x".repeat(300),
  "a,0.5\nb,1/3", "ask=a:0.5&gpus=2&timeslice", "GPU 0: Tesla T4 (UUID: GPU-1)", "{\"v\":1}", "k8s", "slurm"];
const NUMBERS = [0, -0, 1, -1, 0.5, 1 / 3, 1e-12, 1e9, 1e308, -1e308, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity, 2 ** 32];

function value(r, depth = 0) {
  const pick = (list) => list[Math.floor(r() * list.length)];
  const k = r();
  if (depth > 4 || k < 0.35) return pick([...STRINGS, ...NUMBERS, true, false, null, undefined]);
  if (k < 0.6) return Array.from({ length: Math.floor(r() * 5) }, () => value(r, depth + 1));
  if (k < 0.62) return [pick([10n, Symbol.iterator, () => 1, new Date(0), new Map(), new Uint8Array(3)])];
  if (k < 0.64) return pick([new Float64Array([0.5, NaN, -1, 0, 1e300]), new Float32Array(2), new BigInt64Array(1), new Int8Array([-1, 3])]);
  const o = {};
  for (let i = Math.floor(r() * 6); i > 0; i--) o[pick(KEYS)] = value(r, depth + 1);
  return o;
}

function deep(n) {
  let v = [];
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

test("every export on arbitrary JSON returns or throws an Error", (t) => {
  const r = rng(20260131);
  const exports = Object.entries(api).filter(([, f]) => typeof f === "function");
  let calls = 0;
  for (const [name, fn] of exports) {
    for (let i = 0; i < CASES; i++) {
      const args = Array.from({ length: 5 }, () => value(r));
      try {
        const isClass = /^[A-Z]/.test(name);
        if (isClass) new fn(...args);
        else fn(...args);
      } catch (e) {
        assert.ok(e instanceof Error, `${name} threw a non-Error: ${String(e)}`);
        assert.ok(!/internal error|unreachable|RuntimeError/.test(`${e.name} ${e.message}`), `${name}: ${e.stack}`);
      }
      calls++;
    }
  }
  // Deeply nested input, a value that contains itself and an endless iterator are refused, not a
  // stack overflow or an endless loop inside WebAssembly.
  const cyclic = { name: "a", fraction: 0.5 };
  cyclic.self = cyclic;
  const endless = { *[Symbol.iterator]() { for (;;) yield 1; } };
  for (const [name, fn] of exports) {
    for (const odd of [deep(5000), [cyclic], cyclic, ...(name === "binPack" ? [endless] : [])]) {
      try {
        /^[A-Z]/.test(name) ? new fn(odd) : fn(odd, odd, odd, odd);
      } catch (e) {
        assert.ok(e instanceof Error, `${name}: ${String(e)}`);
        assert.ok(!(e instanceof WebAssembly.RuntimeError), `${name}: ${e.stack}`);
      }
      calls++;
    }
  }
  t.diagnostic(`${calls} calls over ${exports.length} exports (${CASES} random cases each)`);
  // The module still answers correctly.
  const r2 = api.binPack([{ name: "a", fraction: 0.5 }, { name: "b", fraction: 0.5 }], 1, { supportsTimeslicing: true });
  assert.equal(r2.gpusUsed, 1);
});
