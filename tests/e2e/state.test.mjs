// What the page keeps across a reload besides the ledger (ledger*.test.mjs): the accounting rates and the export
// panel's format and fields, in local storage, checked through the core when read back (a refused value is ignored
// with a note); and each export format shows only the fields it reads (Slurm and mig-parted no Kubernetes ones).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, open, scrollToExport, shot, start } from './harness.mjs';

const SEED = '?ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice';
// One MIG profile only, so the single MIG strategy is valid for every format.
const MIG = '?ask=x:3g.20gb&ask=y:3g.20gb&gpus=1&mig-capable';
const RATES = 'gpu-share.rates.v1';
const EXPORT = 'gpu-share.export.v1';

const stored = (page, key) => page.evaluate((k) => localStorage.getItem(k), key);
const value = (page, selector) => page.inputValue(selector);
const rates = async (page) => Promise.all(['#rate-cost', '#rate-watts', '#rate-pue', '#rate-grid'].map((s) => value(page, s)));

async function waitForStored(page, key, test) {
  await page.waitForFunction(
    ([k, source]) => new RegExp(source).test(localStorage.getItem(k) ?? ''),
    [key, test.source],
  );
}

async function reloadWith(page, key, text) {
  await page.evaluate(([k, v]) => localStorage.setItem(k, v), [key, text]);
  await page.reload();
  await page.waitForSelector('[data-testid="packing-diagram"]');
}

test('the rates survive a reload; stored rates the core refuses are ignored with a note', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  assert.deepEqual(await rates(page), ['', '', '1', '475'], 'the defaults');
  assert.equal(await stored(page, RATES), null, 'nothing stored before an edit');
  await page.fill('#rate-cost', '2.5');
  await page.fill('#rate-watts', '300');
  await page.fill('#rate-grid', '400');
  await page.fill('#rate-pue', '1.3');
  await waitForStored(page, RATES, /"pue":"1\.3"/);
  // A value the core refuses is shown as an error and not stored: the last accepted one stays.
  await page.fill('#rate-pue', '0.5');
  await page.waitForSelector('section.ledger p.error:has-text("PUE: must be a number ≥ 1, got 0.5")');
  assert.match(await stored(page, RATES), /"pue":"1\.3"/);
  await page.fill('#rate-pue', '1.2');
  await waitForStored(page, RATES, /"pue":"1\.2"/);

  await page.reload();
  await page.waitForSelector('[data-testid="packing-diagram"]');
  assert.deepEqual(await rates(page), ['2.5', '300', '1.2', '400']);
  assert.equal(await page.locator('[data-testid="rates-note"]').count(), 0);
  // The restored rates are the ones in force: a 0.5 × 2 h + b 0.3 × 1 h + c 0.4 × 0.5 h = 1.5 GPU-h at 2.5 = 3.75.
  await page.getByLabel('Ask 1 duration in hours').fill('2');
  await page.getByLabel('Ask 2 duration in hours').fill('1');
  await page.getByLabel('Ask 3 duration in hours').fill('0.5');
  await page.click('[data-testid="record"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="3"]');
  const total = await page.locator('[data-testid="summary-table"] tr', { hasText: 'total' }).last().textContent();
  assert.match(total, /3\.75/, total);

  // Back to the defaults: nothing is stored.
  await page.fill('#rate-cost', '');
  await page.fill('#rate-watts', '');
  await page.fill('#rate-grid', '475');
  await page.fill('#rate-pue', '1');
  await page.waitForFunction((k) => localStorage.getItem(k) === null, RATES);

  // Stored rates the core refuses, or text that is not the page's: the defaults, and a note that says why.
  await reloadWith(page, RATES, '{"cost":"3","pue":"0.2"}');
  assert.equal(
    await page.textContent('[data-testid="rates-note"]'),
    'The rates stored in this browser could not be used (PUE: must be a number ≥ 1, got 0.2); the defaults are shown.',
  );
  assert.deepEqual(await rates(page), ['', '', '1', '475']);
  await reloadWith(page, RATES, 'garbage{');
  assert.match(await page.textContent('[data-testid="rates-note"]'), /^The rates stored in this browser could not be used \(not JSON: /);
  assert.equal(await page.locator('section.ledger p.error').count(), 0, 'the summary is made with the defaults');
  await shot(page.locator('section.ledger'), 'rates-stored-refused');
  // Typing a rate stores it over the refused one and the note goes.
  await page.fill('#rate-cost', '4');
  await waitForStored(page, RATES, /"cost":"4"/);
  assert.equal(await page.locator('[data-testid="rates-note"]').count(), 0);
  await assertClean(assert, page, watch);
});

test('the export format and its fields survive a reload; a stored field the core refuses is ignored with a note', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, MIG);
  assert.equal(await value(page, '[data-testid="export-format"]'), 'k8s');
  await page.selectOption('[data-testid="export-format"]', 'kserve');
  await page.selectOption('[data-testid="export-strategy"]', 'single');
  await page.fill('[data-testid="export-namespace"]', 'ml-team');
  await page.fill('[data-testid="export-image"]', 'registry.example.invalid/serve:1');
  await waitForStored(page, EXPORT, /"image":"registry\.example\.invalid\/serve:1"/);
  // A namespace Kubernetes refuses is flagged next to the field and not stored.
  await page.fill('[data-testid="export-namespace"]', 'Bad_NS');
  await page.locator('[data-testid="export-namespace-error"]').waitFor();
  assert.match(await stored(page, EXPORT), /"namespace":"ml-team"/);
  await page.fill('[data-testid="export-namespace"]', 'ml-team');

  await page.reload();
  await page.waitForSelector('[data-testid="packing-diagram"]');
  assert.equal(await value(page, '[data-testid="export-format"]'), 'kserve');
  assert.equal(await value(page, '[data-testid="export-strategy"]'), 'single');
  assert.equal(await value(page, '[data-testid="export-namespace"]'), 'ml-team');
  assert.equal(await value(page, '[data-testid="export-image"]'), 'registry.example.invalid/serve:1');
  await scrollToExport(page);
  await page.waitForFunction(() => /kind: InferenceService[\s\S]*namespace: ml-team/.test(document.querySelector('[data-testid="export-output"]')?.value ?? ''));
  assert.equal(await page.locator('[data-testid="export-settings-note"]').count(), 0);

  // Slurm survives a reload too, with its fields hidden, and the Kubernetes fields come back when chosen again.
  await page.selectOption('[data-testid="export-format"]', 'slurm');
  await waitForStored(page, EXPORT, /"format":"slurm"/);
  await page.reload();
  await page.waitForSelector('[data-testid="packing-diagram"]');
  assert.equal(await value(page, '[data-testid="export-format"]'), 'slurm');
  assert.equal(await page.locator('[data-testid="export-namespace"]').count(), 0);
  await scrollToExport(page);
  await page.waitForFunction(() => /gres/i.test(document.querySelector('[data-testid="export-output"]')?.value ?? ''));
  await page.selectOption('[data-testid="export-format"]', 'k8s');
  assert.equal(await value(page, '[data-testid="export-namespace"]'), 'ml-team');

  // Stored choices the core refuses: each is its default, the rest is kept, and the note names them.
  await reloadWith(page, EXPORT, '{"format":"yaml","mig_strategy":"single","namespace":"Bad_NS","image":"img:2"}');
  assert.match(
    await page.textContent('[data-testid="export-settings-note"]'),
    /^The export settings stored in this browser could not all be used \(format: unknown export format "yaml".*; namespace: .*\); the defaults are shown for them\.$/,
  );
  assert.equal(await value(page, '[data-testid="export-format"]'), 'k8s');
  assert.equal(await value(page, '[data-testid="export-strategy"]'), 'single');
  assert.equal(await value(page, '[data-testid="export-namespace"]'), '');
  assert.equal(await value(page, '[data-testid="export-image"]'), 'img:2');
  await shot(page.locator('section.export'), 'export-stored-refused');
  await assertClean(assert, page, watch);
});

test('each export format shows only the fields it reads: Slurm and mig-parted no Kubernetes fields', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, MIG);
  await scrollToExport(page);
  // format → [namespace and image, MIG strategy]: what the core's text depends on (checked in web/src/components/export.rs).
  const fields = {
    k8s: [true, true],
    kserve: [true, true],
    'device-plugin': [false, true],
    'mig-parted': [false, false],
    'mig-commands': [false, false],
    slurm: [false, false],
  };
  for (const [format, [workload, strategy]] of Object.entries(fields)) {
    await page.selectOption('[data-testid="export-format"]', format);
    await page.waitForFunction(
      ([w, s]) =>
        !!document.querySelector('[data-testid="export-namespace"]') === w &&
        !!document.querySelector('[data-testid="export-image"]') === w &&
        !!document.querySelector('[data-testid="export-strategy"]') === s,
      [workload, strategy],
    );
    // The panel writes its text once it is seen in view (web/src/in_view.rs): an observer's callback after the scroll.
    await page.waitForFunction(() => (document.querySelector('[data-testid="export-output"]')?.value ?? '').length > 0);
    assert.ok((await value(page, '[data-testid="export-output"]')).length > 0, format);
  }
  await shot(page.locator('section.export'), 'export-slurm-fields');
  await assertClean(assert, page, watch);
});
