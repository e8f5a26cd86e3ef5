// `cargo xtask bench`, peers: the npm package bin-packer on BPPLIB instances, one JSON line each.
// Usage: node peers.mjs <file list> ; each line of the list is "<path>\t<name>".
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import binPacker from "bin-packer";

const list = readFileSync(process.argv[2], "utf8").trim().split("\n");
const size = (x) => x;

for (const line of list) {
  const [path, name] = line.split("\t");
  const [n, c, ...weights] = readFileSync(path, "utf8").trim().split(/\s+/).map(Number);
  const out = { file: name, n };
  for (const algo of ["firstFitDecreasing", "bestFitDecreasing"]) {
    const t = performance.now();
    const r = binPacker[algo](weights.slice(), size, c);
    out[algo] = { bins: r.bins.length + r.oversized.length, ms: performance.now() - t };
  }
  console.log(JSON.stringify(out));
}
