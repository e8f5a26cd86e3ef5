// `cargo xtask bench`, speed through the npm package: first-fit-decreasing in Node on the sizes the
// Rust side wrote (little-endian u32 files), one JSON line per size. Usage:
//   node speed.mjs <target/npm dir> <capacity> <file>...
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [npmDir, capacityText, ...files] = process.argv.slice(2);
// node.js instantiates the module; the raw exports live in the wasm-bindgen glue it loaded.
await import(pathToFileURL(join(npmDir, "node.js")).href);
const raw = await import(pathToFileURL(join(npmDir, "gpu_share_wasm.js")).href);
const capacity = Number(capacityText);

for (const file of files) {
  const bytes = readFileSync(file);
  const sizes = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  raw.benchFfd(sizes.subarray(0, Math.min(1000, sizes.length)), capacity); // warm-up
  const runs = 5;
  let best = Infinity;
  let bins = 0;
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    bins = raw.benchFfd(sizes, capacity);
    best = Math.min(best, performance.now() - t);
  }
  console.log(JSON.stringify({ n: sizes.length, bins, ms: best }));
}
