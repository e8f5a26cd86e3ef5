// The built npm package in headless Chromium: a plain page imports index.js with <script type="module">.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { resultOfPage } from "./page.mjs";

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
  const { result: r, errors } = await resultOfPage(t, site);
  assert.deepEqual(errors, []);
  assert.equal(r.choice.mechanism, "mig");
  assert.equal(r.choice.migProfile, "2g.10gb");
  assert.equal(r.pack.gpusUsed, 2);
  assert.deepEqual(r.pack.gpus.map((g) => g.asks), [["a", "c"], ["b"]]);
  assert.match(r.error, /^RangeError: field "fraction": must be greater than 0$/);
});
