// Shared by the browser consumers: serve a folder, open its index.html in headless Debian Chromium,
// and return what the page left in `window.__result`, with the page's errors.
import { chromium } from "playwright-core";
import { rmSync } from "node:fs";
import { serve } from "../e2e/serve.mjs";

/** Serves `site`, loads it, waits for `window.__result`; `t.after` closes everything and removes `site`. */
export async function resultOfPage(t, site) {
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
  return { result: await page.evaluate(() => window.__result), errors };
}
