// `cargo xtask bench`, speed through the npm package as users call it: `binPack` of n asks given as
// JavaScript objects (the sizes of the speed table, in millionths of a GPU), or with `columns`
// `binPackColumns` of the same asks as a Float64Array of fractions; one JSON line: the best time
// (`ms`) and the first call's (`first`). Usage:
//   node api.mjs <target/npm dir> <n> [columns]
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [npmDir, nText, form = "objects"] = process.argv.slice(2);
const { binPack, binPackColumns } = await import(pathToFileURL(join(npmDir, "node.js")).href);
const n = Number(nText);

// splitmix64 seeded with n, as bench/src/speed.rs draws the sizes.
const MASK = (1n << 64n) - 1n;
function sizes(count) {
  let state = BigInt(count);
  const out = new Array(count);
  for (let i = 0; i < count; i++) {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    z ^= z >> 31n;
    out[i] = 1 + Number(z % 1000000n);
  }
  return out;
}

const caps = { supportsTimeslicing: true };
let pack;
if (form === "columns") {
  const fractions = Float64Array.from(sizes(n), (s) => s / 1e6);
  binPackColumns({ fractions: fractions.subarray(0, 1000) }, null, caps); // warm-up
  pack = () => binPackColumns({ fractions }, null, caps);
} else {
  const asks = sizes(n).map((s, i) => ({ name: `a${i}`, fraction: s / 1e6 }));
  binPack(asks.slice(0, 1000), null, caps); // warm-up
  pack = () => binPack(asks, null, caps);
}
// Timed as the native side is (`best_of` in bench/src/speed.rs): one untimed call at the full
// size, then the best of `runs`. That first call is printed too: what a new process's first large
// request sees, its WebAssembly memory grown from small and its code partly in V8's baseline tier.
let start = performance.now();
let gpus = pack().gpusUsed;
const first = performance.now() - start;
const runs = n >= 1_000_000 ? 1 : 3;
let best = Infinity;
for (let r = 0; r < runs; r++) {
  start = performance.now();
  gpus = pack().gpusUsed;
  best = Math.min(best, performance.now() - start);
}
console.log(JSON.stringify({ n, gpus, ms: best, first }));
