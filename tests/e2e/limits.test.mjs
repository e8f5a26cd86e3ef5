// Oversized input on the page: a 70 MB file or paste (over the 64 MiB limit) is refused by its
// size before it is read, with a visible message; nothing changes and the page stays responsive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertClean, open, shot, start } from './harness.mjs';

const SEED = '?ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice';
const SIZE = 70_000_000;

/** A 70 MB file that takes no disk space (sparse), removed after the test. */
function hugeFile(t, name) {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-share-limits-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  ftruncateSync(fd, SIZE);
  closeSync(fd);
  return path;
}

/** Puts `length` characters into a paste box as a paste does (one input event), built in the page. */
async function pasteHuge(page, selector, length) {
  await page.locator(selector).evaluate((el, n) => {
    el.focus();
    el.value = 'x'.repeat(n);
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
  }, length);
}

const rows = (page) => page.locator('[data-testid="ask-row"]').count();

test('a 70 MB asks file or paste is refused with a message; the asks stay', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  const plan = await page.textContent('[data-testid="plan-table"]');
  assert.equal(await rows(page), 3);

  await page.click('summary:has-text("Load a CSV or JSON ask list")');
  const started = Date.now();
  await page.setInputFiles('label.file:has-text("Or upload a file") input[type="file"]', hugeFile(t, 'asks.csv'));
  const error = page.locator('[data-testid="asks-import-error"]');
  await error.waitFor();
  assert.match(await error.textContent(), /the file asks\.csv is 70 MB; the limit is 64 MiB \(67108864 bytes\), so it was not read; nothing changed/);
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  assert.equal(await rows(page), 3);
  assert.equal(await page.textContent('[data-testid="plan-table"]'), plan);
  await shot(page, 'limits-asks-file');

  await pasteHuge(page, '#asks-paste', SIZE);
  await page.waitForFunction(() => document.querySelector('[data-testid="asks-import-error"]')?.textContent.includes('pasted text'));
  assert.match(await error.textContent(), /the pasted text is 70 MB; the limit is 64 MiB/);
  assert.equal(await page.locator('#asks-paste').inputValue(), '', 'the oversized paste is cleared');
  assert.equal(await rows(page), 3);

  // Still responsive: an ordinary list loads, and an ask can be added.
  await page.fill('#asks-paste', 'name,size\nsmall,0.25\n');
  await page.click('text=Replace asks with this list');
  await page.waitForFunction(() => document.querySelector('[data-testid="plan-table"]')?.textContent.includes('small'));
  await page.click('[data-testid="add-ask"]');
  assert.equal(await rows(page), 2);
  await assertClean(assert, page, watch);
});

test('a 70 MB nvidia-smi file or paste is refused with a message; the caps stay', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  const url = page.url();
  const count = await page.locator('#gpu-count').inputValue();

  await page.setInputFiles('[data-testid="detect-file"]', hugeFile(t, 'gpus.xml'));
  const error = page.locator('[data-testid="detect-error"]');
  await error.waitFor();
  assert.match(await error.textContent(), /the file gpus\.xml is 70 MB; the limit is 64 MiB \(67108864 bytes\), so it was not read; the form is unchanged/);

  await pasteHuge(page, '[data-testid="detect-input"]', SIZE);
  await page.waitForFunction(() => document.querySelector('[data-testid="detect-error"]')?.textContent.includes('pasted text'));
  assert.equal(await page.locator('[data-testid="detect-input"]').inputValue(), '');
  assert.ok(await page.locator('[data-testid="detect-fill"]').isDisabled());

  assert.equal(await page.locator('#gpu-count').inputValue(), count);
  assert.equal(page.url(), url);
  // Still responsive: a real paste fills the form.
  await page.locator('[data-testid="detect-input"]').fill('GPU 0: Tesla T4 (UUID: GPU-1)\nGPU 1: Tesla T4 (UUID: GPU-2)\nGPU 2: Tesla T4 (UUID: GPU-3)\n');
  await page.click('[data-testid="detect-fill"]');
  await page.locator('[data-testid="detect-summary"]').waitFor();
  assert.equal(await page.locator('#gpu-count').inputValue(), '3');
  await assertClean(assert, page, watch);
});

test('a 70 MB ledger import is refused by its size; the ledger stays', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  const before = await page.getAttribute('[data-testid="ledger-table"]', 'data-count');
  await page.setInputFiles('[data-testid="import-ledger"]', hugeFile(t, 'ledger.jsonl'));
  await page.waitForFunction(() => /so it was not read/.test(document.querySelector('[data-testid="ledger-notice"]')?.textContent ?? ''));
  assert.match(
    await page.textContent('[data-testid="ledger-notice"]'),
    /^import failed, nothing changed: the file ledger\.jsonl is 70 MB; the limit is 64 MiB/,
  );
  assert.equal(await page.getAttribute('[data-testid="ledger-table"]', 'data-count'), before);
  await assertClean(assert, page, watch);
});
