// What `npm publish` would ship: every file the package's JavaScript imports is in it (the tests
// import the built folder, where a file left out of package.json's "files" would still be found).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const root = realpathSync(join(dirname(fileURLToPath(import.meta.url)), "node_modules/@examlops/gpu-sharing"));

test("every module the package imports is among the files it publishes", () => {
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" }));
  const files = new Set(packed.files.map((f) => f.path));
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    assert.ok(files.has(file), `${file} is imported but not published`);
    const source = readFileSync(join(root, file), "utf8");
    for (const [, spec] of source.matchAll(/(?:import|export)[^'"]*?from\s*['"](\.[^'"]+)['"]/g)) {
      visit(normalize(join(dirname(file), spec)));
    }
  };
  for (const entry of ["index.js", "node.js"]) visit(entry);
  assert.ok([...seen].some((f) => f.startsWith("snippets/")), `the WebAssembly glue's snippets: ${[...seen]}`);
  assert.ok(files.has("gpu_share_wasm_bg.wasm") && files.has("index.d.ts") && files.has("data.d.ts"));
});
