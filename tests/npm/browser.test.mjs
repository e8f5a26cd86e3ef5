// The built npm package in headless Chromium: a plain page imports index.js with <script type="module">.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "../e2e/serve.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = join(repo, "target", "npm");

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>gpu-sharing in a page</title>
<link rel="icon" href="data:,">
<script type="module">
  import { selectMechanism, binPack, FractionalAsk } from "./node_modules/@examlops/gpu-sharing/index.js";
  const out = {};
  try { new FractionalAsk("x", { fraction: 0 }); } catch (e) { out.error = e.constructor.name + ": " + e.message; }
  out.choice = selectMechanism({ name: "JPCP", fraction: 0.25 }, { supportsMig: true });
  out.pack = binPack([{ name: "a", fraction: 0.5 }, { name: "b", fraction: 0.3 }, { name: "c", fraction: 0.4 }], 2, { supportsTimeslicing: true });
  window.__result = out;
</script>`;

test("a plain static page imports the package and plans", async (t) => {
  assert.ok(existsSync(join(pkg, "package.json")), "build the package first: cargo xtask npm");
  const site = mkdtempSync(join(tmpdir(), "gpu-sharing-page-"));
  cpSync(pkg, join(site, "node_modules", "@examlops", "gpu-sharing"), { recursive: true });
  writeFileSync(join(site, "index.html"), PAGE);
  const server = await serve(site);
  const browser = await chromium.launch({
    executablePath: process.env.GPU_SHARE_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  t.after(async () => {
    await browser.close();
    await server.close();
    rmSync(site, { recursive: true, force: true });
  });
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => window.__result, null, { timeout: 20000 });
  const r = await page.evaluate(() => window.__result);
  assert.deepEqual(errors, []);
  assert.equal(r.choice.mechanism, "mig");
  assert.equal(r.choice.migProfile, "2g.10gb");
  assert.equal(r.pack.gpusUsed, 2);
  assert.deepEqual(r.pack.gpus.map((g) => g.asks), [["a", "c"], ["b"]]);
  assert.match(r.error, /^RangeError: field "fraction": must be greater than 0$/);
});
