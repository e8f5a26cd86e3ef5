// "GPUs as they are" in the browser: real `nvidia-smi mig -lgi` output (kubernetes-sigs/dra-driver-nvidia-gpu#933)
// pasted into the page shows each memory slice as held, new, free or stranded, and where the scenario's asks go.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertClean, open, repo, shot, start } from './harness.mjs';

const lgi = readFileSync(join(resolve(repo, 'tests', 'fixtures', 'nvidia-smi'), 'mig-lgi__dra-driver-nvidia-gpu-933.txt'), 'utf8');

async function paste(page, text) {
  await page.locator('[data-testid="fit-input"]').evaluate((el, value) => {
    el.focus();
    el.value = value;
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
  }, text);
}

test('pasted -lgi output: held, new, free and stranded slices, and where the asks go without moving anything', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=small:2g.20gb&ask=big:3g.40gb&mig-capable&gpu-model=A100-SXM4-80GB');
  await paste(page, lgi);
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
