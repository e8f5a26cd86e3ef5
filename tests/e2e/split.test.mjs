// The page's WebAssembly in parts (web/src/lazy.rs, xtask/src/split.rs): the first plan needs only the
// main file; the panels after it load their parts from a folder named by the build, and a part that
// cannot be fetched costs its panel alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, shot, start } from './harness.mjs';

const PART = /\/snippets\/split-[0-9a-f]{16}\/[\w-]+\.wasm$/;
const MAIN = /\/gpu-share-web-[0-9a-f]+_bg\.wasm$/;
const LATER_PANELS = ['section.size', 'section.detect', 'section.fit', 'section.export', 'section.ledger', 'section.replay'];

test('the first plan is drawn from the main WebAssembly alone; the later panels come with their parts', async (t) => {
  const { page, server, watch } = await start(t);
  const wasm = [];
  page.on('request', (r) => {
    if (r.url().endsWith('.wasm')) wasm.push(r.url());
  });
  let release;
  const held = new Promise((r) => (release = r));
  await page.route(PART, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${server.url}?ask=a:0.5&ask=b:0.3&gpus=2&timeslice`);
  await page.waitForSelector('g.lane[data-gpu="0"]');
  assert.match(wasm[0], MAIN, 'the main file is fetched first');
  assert.equal(await page.locator('html[data-ready]').count(), 0, 'not ready while parts are held back');
  for (const panel of LATER_PANELS) assert.equal(await page.locator(panel).count(), 0, `${panel} waits for its part`);
  release();
  await page.waitForSelector('html[data-ready]');
  for (const panel of LATER_PANELS) assert.equal(await page.locator(panel).count(), 1, `${panel} is built`);
  const parts = wasm.filter((u) => PART.test(u));
  assert.ok(parts.length >= 6, `one part per later panel at least: ${parts.join(', ')}`);
  assert.equal(new Set(parts.map((u) => u.replace(/[^/]+$/, ''))).size, 1, 'every part from one build folder');
  assert.deepEqual(wasm.filter((u) => !MAIN.test(u) && !PART.test(u)), [], 'no other WebAssembly');
  await assertClean(assert, page, watch);
});

test('a part that cannot be fetched leaves a message in its panel and the rest of the page working', async (t) => {
  const { page, server, watch } = await start(t);
  await page.route(/\/split_ledger\.wasm$/, (route) => route.abort('internetdisconnected'));
  await page.goto(`${server.url}?ask=a:0.5&ask=b:0.3&gpus=2&timeslice`);
  await page.waitForSelector('html[data-ready] [data-testid="packing-diagram"]');
  const alert = page.locator('section[aria-label="Accounting"] p.error[role="alert"]');
  assert.match(await alert.textContent(), /could not be loaded: its code did not arrive\. Reload the page/);
  assert.equal(await page.locator('section.ledger').count(), 0);
  assert.equal(await page.locator('section.export').count(), 1, 'the other panels are built');
  // The plan still follows the asks: 0.9 and 0.3 no longer share a GPU.
  assert.equal(await page.textContent('[data-testid="gpus-used"]'), '1');
  await page.locator('[data-testid="ask-row"] input[name="fraction"]').first().fill('0.9');
  await page.waitForFunction(() => document.querySelector('[data-testid="gpus-used"]')?.textContent === '2');
  await shot(page, 'split-part-failed', { fullPage: true });
  assert.ok(watch.consoleErrors.length > 0 && watch.consoleErrors.every((e) => /fetch|network|Failed/i.test(e)), watch.consoleErrors.join('\n'));
  assert.deepEqual(watch.offOrigin, []);
});
