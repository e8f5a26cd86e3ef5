// "GPUs as they are" in the browser: real `nvidia-smi mig -lgi` output (kubernetes-sigs/dra-driver-nvidia-gpu#933)
// pasted into the page shows each memory slice as held, new, free or stranded, and where the scenario's asks go.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertClean, open, paste, repo, shot, start } from './harness.mjs';

const lgi = readFileSync(join(resolve(repo, 'tests', 'fixtures', 'nvidia-smi'), 'mig-lgi__dra-driver-nvidia-gpu-933.txt'), 'utf8');

test('pasted -lgi output: held, new, free and stranded slices, and where the asks go without moving anything', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=small:2g.20gb&ask=big:3g.40gb&mig-capable&gpu-model=A100-SXM4-80GB');
  await paste(page, '[data-testid="fit-input"]', lgi);
  const gpu = page.locator('[data-testid="fit-gpu-3"]');
  await gpu.waitFor();
  const kinds = await gpu.locator('ol.slices > li').evaluateAll((cells) => cells.map((c) => c.className.replace('slice ', '')));
  assert.deepEqual(kinds, ['held', 'held', 'new', 'new', 'free', 'held', 'free', 'free']);
  assert.match(await gpu.locator('ol.slices > li').nth(5).getAttribute('aria-label'), /GPU instance 12/);
  const placed = await page.locator('[data-testid="fit-placed"]').textContent();
  assert.match(placed, /small: 2g\.20gb at memory slice 2 of GPU 3/);
  assert.match(placed, /big: no room — no GPU has a free placement for 3g\.40gb/);
  assert.match(await gpu.locator('[data-testid="fit-creatable"]').textContent(), /2g\.20gb at 2/);
  // The pasted text is not put in the link.
  assert.ok(!page.url().includes('1g.10gb'), page.url());
  await shot(page.locator('section.fit'), 'fit-dra-933');

  // With "not specified" as the model, the page asks for the GPU model in its own words.
  await page.selectOption('#gpu-model', '');
  const error = page.locator('[data-testid="fit-error"]');
  await error.waitFor();
  assert.match(await error.textContent(), /choose the GPU model/);
  await assertClean(assert, page, watch);
});

test('make room: the fewest moves after the pasted layout, and marking an instance free changes the plan', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=big:3g.40gb&mig-capable&gpu-model=A100-SXM4-80GB');
  await paste(page, '[data-testid="fit-input"]', lgi);
  const summary = page.locator('[data-testid="repartition-summary"]');
  await summary.waitFor();
  assert.equal(await summary.textContent(), '1 instance moved, 1 GPU touched');
  const after = page.locator('[data-testid="after-gpu-3"] ol.slices > li');
  const kinds = await after.evaluateAll((cells) => cells.map((c) => c.className.replace('slice ', '')));
  assert.deepEqual(kinds, ['held', 'held', 'moved', 'free', 'new', 'new', 'new', 'new']);
  const steps = await page.locator('[data-testid="repartition-steps"]').textContent();
  assert.match(steps, /destroy 1g\.10gb at slice 5 \(GPU instance 12\) on GPU 3/);
  assert.match(await page.locator('[data-testid="repartition-commands"]').textContent(), /nvidia-smi mig -dgi -i 3 -gi 12/);
  await shot(page.locator('section.fit'), 'repartition-dra-933');
  // Instance 12 is not in use: nothing has to move.
  await page.getByRole('checkbox', { name: /GPU instance 12\)/ }).check();
  await page.waitForFunction(() => document.querySelector('[data-testid="repartition-summary"]')?.textContent.startsWith('0 instances moved'));
  await assertClean(assert, page, watch);
});

test('make room: an ask that fits nowhere, even moving instances, is listed with the core\'s reason', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=big:3g.40gb&ask=huge:7g.80gb&mig-capable&gpu-model=A100-SXM4-80GB');
  await paste(page, '[data-testid="fit-input"]', lgi);
  const unplaced = page.locator('[data-testid="repartition-unplaced"]');
  await unplaced.waitFor();
  assert.match(await unplaced.textContent(), /huge: fits nowhere, even moving instances/);
  assert.equal(await page.locator('[data-testid="repartition-summary"]').textContent(), '1 instance moved, 1 GPU touched');
  await assertClean(assert, page, watch);
});

test('nodes: the page keeps one sharing configuration per node and says what a node rule leaves out', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=s:0.3&ask=w:2&ask=big:3&mps&nodes=2x2');
  assert.equal(await page.locator('[data-testid="nodes"]').inputValue(), '2x2');
  const diagram = await page.locator('svg.gpu-share-packing').textContent();
  assert.match(diagram, /GPU 0 on node-\d/);
  const body = await page.locator('body').textContent();
  assert.match(body, /needs 3 whole GPUs on one node/);
  // A bad value is marked at the field, in the page's words.
  await page.fill('[data-testid="nodes"]', '4x0');
  await page.waitForFunction(() => document.querySelector('#nodes')?.getAttribute('aria-invalid') === 'true');
  // The link carries the nodes.
  await page.fill('[data-testid="nodes"]', '3x4');
  await page.waitForFunction(() => location.search.includes('nodes=3x4'));
  await assertClean(assert, page, watch);
});

test('a refused row is left out of GPUs as they are, Make room and Export, each saying so with its fix; the rest go on', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=small:2g.20gb&ask=big:3g.40gb&ask=small:1g.10gb&mig-capable&gpu-model=A100-SXM4-80GB');
  await page.waitForSelector('tr.row-error');
  await paste(page, '[data-testid="fit-input"]', lgi);
  const fitNote = page.locator('section.fit [data-testid="left-out-note"]');
  await fitNote.waitFor();
  assert.match(await fitNote.textContent(), /small: ask 1 is also named "small"; names must be unique/);
  // The other two are fitted and repartitioned, not refused.
  assert.match(await page.locator('[data-testid="fit-placed"]').textContent(), /small: 2g\.20gb at memory slice 2 of GPU 3/);
  assert.equal(await page.locator('[data-testid="fit-error"]').count(), 0);
  await page.locator('[data-testid="repartition-summary"]').waitFor();
  // Export writes the other two, and offers the same fix.
  const exportNote = page.locator('section.export [data-testid="left-out-note"]');
  await exportNote.scrollIntoViewIfNeeded();
  const deployments = () => page.evaluate(() =>
    ((document.querySelector('[data-testid="export-output"]')?.value ?? '').match(/^kind: Deployment$/gm) ?? []).length);
  await page.waitForFunction(() => /kind: Deployment/.test(document.querySelector('[data-testid="export-output"]')?.value ?? ''));
  assert.equal(await deployments(), 2);
  await exportNote.locator('[data-testid="fix"]').click();
  assert.equal(await page.getByLabel('Ask 3 name').inputValue(), 'small-2');
  await page.waitForFunction(() =>
    ((document.querySelector('[data-testid="export-output"]')?.value ?? '').match(/^kind: Deployment$/gm) ?? []).length === 3);
  assert.equal(await page.locator('[data-testid="left-out-note"]').count(), 0);
  await assertClean(assert, page, watch);
});
