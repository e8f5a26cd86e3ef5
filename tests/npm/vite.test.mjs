// The built npm package through a bundler: Vite builds tests/npm/vite-app, and headless Chromium runs the bundle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { chromium } from "playwright-core";
import { serve } from "../e2e/serve.mjs";

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
  const server = await serve(out);
  const browser = await chromium.launch({
    executablePath: process.env.GPU_SHARE_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  t.after(async () => {
    await browser.close();
    await server.close();
    rmSync(out, { recursive: true, force: true });
  });
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => window.__result, null, { timeout: 20000 });
  const r = await page.evaluate(() => window.__result);
  assert.deepEqual(errors, []);
  assert.equal(r.choice.migProfile, "2g.10gb");
  assert.equal(r.pack.gpusUsed, 1);
  assert.equal(r.pack.gpus[0].instances.find((i) => i.ask === "x").start, 4);
  assert.ok(r.models > 10);
});
