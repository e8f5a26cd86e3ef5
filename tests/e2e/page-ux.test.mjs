// The page as a new user meets it, in headless Chromium: the answer beside the inputs, errors
// marked where they are while the rest is planned, warnings said once, the docs embed (fits a
// 520-pixel iframe, posts its height), keyboard focus, and axe-core at three sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifacts, assertClean, open, scrollToExport, shot, start } from './harness.mjs';
import { cliArgs, runCli } from '../same-answer/scenarios.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SEED = '?ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice';
const SIZES = [
  { width: 1280, height: 900 },
  { width: 800, height: 520 },
  { width: 390, height: 844 },
];

/** axe-core's serious and critical violations on the page as it is (run through the DevTools
 * protocol, which the page's CSP does not govern). */
async function axeViolations(page) {
  await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('the answer sits beside the inputs on a wide screen and stays in view while editing', async (t) => {
  const { page, server, watch } = await start(t, { viewport: { width: 1280, height: 800 } });
  await open(page, server, '');
  // The example is marked as one, with a way to clear it.
  assert.match(await page.textContent('[data-testid="example"]'), /example scenario/);
  const summary = page.locator('[data-testid="summary"]');
  const box = await summary.boundingBox();
  assert.ok(box.y < 800 && box.x > 600, `summary at ${JSON.stringify(box)}`);
  assert.match(await page.textContent('[data-testid="summary-line"]'), /2 GPUs of 2 used/);
  // Scrolled to the last input, the summary is still on screen.
  await page.locator('#detect-paste').scrollIntoViewIfNeeded();
  const after = await summary.boundingBox();
  assert.ok(after.y >= 0 && after.y < 100, `summary scrolled away: ${JSON.stringify(after)}`);
  await page.click('[data-testid="clear-example"]');
  assert.equal(await page.locator('[data-testid="ask-row"]').count(), 0);
  assert.equal(await page.locator('[data-testid="example"]').count(), 0);
  await assertClean(assert, page, watch);
});

test('a bad row is marked in place, offered a fix, and the other asks are still planned', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:0.5&ask=b:0.3&ask=c:0.4&timeslice');
  await page.getByLabel('Ask 3 name').fill('a');
  const rows = page.locator('[data-testid="ask-row"]');
  await page.waitForSelector('tr.row-error');
  assert.equal(await page.locator('tr.row-error').count(), 1);
  assert.match(await rows.nth(2).textContent(), /ask 1 is also named "a"/);
  // The other two are planned; the summary says one row is left out.
  assert.equal(await page.locator('[data-testid="plan-table"] tr.choice').count(), 2);
  assert.match(await page.textContent('[data-testid="summary-left-out"]'), /1 ask with errors left out/);
  assert.equal(await page.locator('[data-testid="plan-error"]').count(), 0, 'no plan-wide error');
  await rows.nth(2).locator('[data-testid="fix"]').click();
  assert.equal(await page.getByLabel('Ask 3 name').inputValue(), 'a-2');
  assert.equal(await page.locator('tr.row-error').count(), 0);
  assert.equal(await page.locator('[data-testid="plan-table"] tr.choice').count(), 3);
  await assertClean(assert, page, watch);
});

test('switching the model converts MIG profiles to its nearest, with undo', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=x:3g.40gb&ask=y:1g.20gb&mig-capable&gpu-model=A100-SXM4-80GB');
  await page.selectOption('#gpu-model', 'A100-SXM4-40GB');
  const converted = await page.textContent('[data-testid="converted"]');
  assert.match(converted, /x: 3g\.40gb → 3g\.20gb/);
  assert.match(converted, /y: 1g\.20gb → 1g\.10gb/);
  assert.equal(await page.getByLabel('Ask 1 MIG profile').inputValue(), '3g.20gb');
  assert.equal(await page.locator('tr.row-error').count(), 0);
  assert.equal(await page.locator('[data-testid="plan-table"] tr.choice').count(), 2);
  await page.click('[data-testid="undo-convert"]');
  assert.equal(await page.inputValue('#gpu-model'), 'A100-SXM4-80GB');
  assert.equal(await page.getByLabel('Ask 1 MIG profile').inputValue(), '3g.40gb');
  await assertClean(assert, page, watch);
});

test("the summary's small map has a tile per GPU, and a new plan redraws only the tiles that changed", async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  const titles = () => page.locator('.mini-map g.tile title').allTextContents();
  assert.deepEqual(await titles(), ['GPU 0: timeslice, 90% used', 'GPU 1: timeslice, 30% used']);
  // a:0.5 and c:0.4 share GPU 0; b moves from 0.3 to 0.35 on GPU 1 alone.
  await page.locator('.mini-map g.tile').first().evaluate((g) => { g.dataset.kept = 'yes'; });
  await page.getByLabel('Ask 2 fraction').fill('0.35');
  await page.waitForFunction(() => /35%/.test(document.querySelector('.mini-map')?.textContent ?? ''));
  assert.deepEqual(await titles(), ['GPU 0: timeslice, 90% used', 'GPU 1: timeslice, 35% used']);
  assert.equal(await page.locator('.mini-map g.tile').first().getAttribute('data-kept'), 'yes', 'GPU 0 unchanged: its tile is the same element');
  assert.equal(await page.locator('.mini-map g.tile-fill, .mini-map rect.tile-fill').count(), 2);
  // A plan that fails has no map; the map is back with the plan.
  await page.fill('#gpu-count', '0');
  await page.waitForSelector('[data-testid="summary-error"]');
  assert.equal(await page.locator('.mini-map').count(), 0);
  await page.fill('#gpu-count', '2');
  await page.waitForSelector('.mini-map g.tile');
  assert.equal(await page.locator('.mini-map g.tile').count(), 2);
  await assertClean(assert, page, watch);
});

test('a broken link loads what it can and says what it dropped; a bad GPU count is not planned around', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:zero&ask=b:0.5&ask=c:0.25&timeslice');
  assert.equal(await page.locator('[data-testid="ask-row"]').count(), 2);
  assert.match(await page.textContent('[data-testid="link-dropped"]'), /could not read/);
  assert.equal(await page.textContent('[data-testid="summary-gpus"]'), '1');
  await page.fill('#gpu-count', '0');
  assert.match(await page.textContent('[data-testid="gpu-count-error"]'), /between 1 and/);
  assert.match(await page.textContent('[data-testid="summary-error"]'), /GPU count/);
  await page.fill('#gpu-count', '-1');
  assert.match(await page.textContent('[data-testid="summary-error"]'), /GPU count/);
  assert.doesNotMatch(await page.textContent('[data-testid="diagram"]'), /Every ask is placed/);
  await assertClean(assert, page, watch);
});

test('a warning several asks share is said once, naming them', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  const text = 'time-slicing sets no memory limit';
  const body = await page.textContent('body');
  assert.equal(body.split(text).length - 1, 1, 'said once on the page');
  assert.match(await page.textContent('[data-testid="warnings"]'), /applies to a, b and c/);
  await assertClean(assert, page, watch);
});

test('Add ask focuses the new row; Remove moves focus to the next row', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  await page.click('[data-testid="add-ask"]');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Ask 4 name');
  assert.equal(await page.getByLabel('Ask 4 name').inputValue(), 'ask-4');
  await page.getByLabel('Remove ask 2').click();
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Ask 2 name');
  assert.equal(await page.getByLabel('Ask 2 name').inputValue(), 'c');
  await assertClean(assert, page, watch);
});

test('the embed fits a 520-pixel iframe, leads with the diagram and posts its height', async (t) => {
  const { page, server, watch } = await start(t, { viewport: { width: 900, height: 700 } });
  await page.setContent('<!doctype html><title>docs page</title><body></body>');
  const src = `${server.url}${SEED}&embed`;
  const height = page.evaluate(
    (src) =>
      new Promise((resolve) => {
        document.body.innerHTML = '';
        window.addEventListener('message', (e) => {
          if (e.data?.type === 'gpu-share:height') resolve(e.data.height);
        });
        const frame = document.createElement('iframe');
        frame.width = '800';
        frame.height = '520';
        frame.style.border = '0';
        frame.src = src;
        document.body.style.margin = '0';
        document.body.append(frame);
      }),
    src,
  );
  const posted = await height;
  assert.ok(posted > 100 && posted < 5000, `height ${posted}`);
  const frame = page.frames().find((f) => f.url().includes('embed'));
  await frame.waitForSelector('[data-testid="packing-diagram"]');
  const fit = await frame.evaluate(() => {
    const d = document.querySelector('[data-testid="packing-diagram"]').getBoundingClientRect();
    return { bottom: d.bottom, inner: window.innerHeight, scrollY: window.scrollY };
  });
  assert.ok(fit.bottom <= fit.inner, `diagram ends at ${fit.bottom} of ${fit.inner}`);
  assert.match(await frame.textContent('h1'), /GPU sharing plan/);
  assert.match(await frame.getAttribute('a[target="_blank"]', 'href'), /ask=a:0.5/);
  assert.equal(await frame.locator('details.embed-plan[open]').count(), 0, 'the plan starts collapsed');
  await assertClean(assert, page, watch);
});

test('a tapped or focused block says what it is; the diagram downloads as SVG and PNG', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  await page.locator('g.block[data-ask="c"]').click();
  assert.match(await page.textContent('[data-testid="block-details"]'), /^c — 0\.4 of GPU 0 by timeslice/);
  await page.locator('g.block[data-ask="b"]').focus();
  assert.match(await page.textContent('[data-testid="block-details"]'), /^b — 0\.3 of GPU 1/);
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="download-png"]')]);
  assert.equal(png.suggestedFilename(), 'gpu-share-packing.png');
  const chunks = [];
  for await (const c of await png.createReadStream()) chunks.push(c);
  const bytes = Buffer.concat(chunks);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
  assert.ok(bytes.length > 2000, `${bytes.length} bytes`);
  await assertClean(assert, page, watch);
});

test('dead ends have a way out: the single MIG strategy on a split GPU, no allowed profile', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=x:3g.20gb&ask=y:2g.10gb&gpus=1&mig-capable&gpu-model=A100-SXM4-40GB');
  await scrollToExport(page);
  await page.selectOption('[data-testid="export-format"]', 'k8s');
  await page.selectOption('[data-testid="export-strategy"]', 'single');
  assert.match(await page.textContent('[data-testid="export-strategy-error"]'), /single MIG strategy needs one profile per GPU/);
  await page.click('[data-testid="use-mixed"]');
  assert.equal(await page.locator('[data-testid="export-strategy-error"]').count(), 0);
  assert.match(await page.inputValue('[data-testid="export-output"]'), /nvidia\.com\/mig-3g\.20gb/);
  // "Only allow these profiles" with none ticked allows none, and says so at the field.
  await page.check('#limit-profiles');
  const ticked = page.locator('.profile-boxes input:checked');
  while ((await ticked.count()) > 0) await ticked.first().uncheck();
  assert.match(await page.textContent('[data-testid="profiles-error"]'), /no MIG profile is allowed/);
  await assertClean(assert, page, watch);
});

test('a CLI-written SVG opens as a picture in the browser (artifact for the README)', async (t) => {
  const { page, watch } = await start(t, { viewport: { width: 760, height: 400 } });
  const query = 'ask=x:3g.20gb&ask=y:2g.10gb&ask=z:1g.5gb&ask=t:0.5&ask=u:0.25&mig-capable&timeslice&gpu-model=A100-SXM4-40GB';
  const svg = runCli(['pack', ...cliArgs(query), '--svg', '-']).stdout;
  writeFileSync(join(artifacts, 'cli-pack.svg'), svg);
  await page.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
  const names = await page.locator('svg g.block').evaluateAll((els) => els.map((e) => e.getAttribute('data-ask')));
  assert.deepEqual([...new Set(names)].sort(), ['t', 'u', 'x', 'y', 'z']);
  await shot(page.locator('svg.gpu-share-packing'), 'cli-pack-svg');
  assert.deepEqual(watch.consoleErrors, []);
});

for (const scheme of ['light', 'dark']) {
  for (const { width, height } of SIZES) {
    test(`axe-core finds no serious or critical violation at ${width}×${height} (${scheme})`, async (t) => {
      const { page, server, watch } = await start(t, { viewport: { width, height }, colorScheme: scheme });
      for (const [name, query] of [
        ['page', SEED],
        ['embed', `${SEED}&embed`],
      ]) {
        await open(page, server, query);
        assert.deepEqual(await axeViolations(page), [], `${name} at ${width}×${height}, ${scheme}`);
        await shot(page, `ux-${name}-${width}x${height}-${scheme}`, { fullPage: name === 'page' && width < 800 });
      }
      await assertClean(assert, page, watch);
    });
  }
}

test('a MIG profile on a time-sliced cluster without MIG offers its share with memory, one click away', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=x:3g.40gb&ask=y:0.5&gpu-model=A100-SXM4-80GB&timeslice');
  await page.waitForFunction(() => /\b2\b GPUs used/.test(document.querySelector('[data-testid="summary-line"]')?.textContent ?? ''));
  const offer = page.locator('[data-testid="share-instead"]');
  assert.equal(await offer.textContent(), 'Use 0.5 with 39692MiB');
  await offer.click();
  assert.equal(await page.getByLabel('Ask 1 fraction').inputValue(), '0.5');
  assert.equal(await page.getByLabel('Ask 1 GPU memory').inputValue(), '39692MiB');
  await page.waitForFunction(() => /\b1\b GPU used/.test(document.querySelector('[data-testid="summary-line"]')?.textContent ?? ''));
  assert.equal(await offer.count(), 0);
  await assertClean(assert, page, watch);
});
