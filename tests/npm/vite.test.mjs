// The built npm package through a bundler: Vite builds tests/npm/vite-app, and headless Chromium runs the bundle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { resultOfPage } from "./page.mjs";

const here = dirname(fileURLToPath(import.meta.url));

test("a Vite bundle of the package runs in the browser", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "gpu-sharing-vite-"));
  await build({
    root: join(here, "vite-app"),
    base: "./",
    logLevel: "warn",
    build: { outDir: out, emptyOutDir: true, target: "es2022" },
  });
  const assets = readdirSync(join(out, "assets"));
  assert.ok(assets.some((f) => f.endsWith(".wasm")), `the .wasm is emitted as an asset: ${assets}`);
  const { result: r, errors } = await resultOfPage(t, out);
  assert.deepEqual(errors, []);
  assert.equal(r.choice.migProfile, "2g.10gb");
  assert.equal(r.pack.gpusUsed, 1);
  assert.equal(r.pack.gpus[0].instances.find((i) => i.ask === "x").start, 4);
  assert.ok(r.models > 10);
});
