// The same request gives the same answer from the CLI and the page: every shared scenario opened
// as a link, each export format read from the export panel and compared byte for byte with
// `gpu-share export FORMAT` for the same flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { downloadText, open, scrollToExport, start } from './harness.mjs';
import { FORMATS, SCENARIOS, cliArgs, runCli } from '../same-answer/scenarios.mjs';

test('the page exports what the CLI exports, for every scenario and format', async (t) => {
  const { page, server } = await start(t);
  for (const query of SCENARIOS) {
    await open(page, server, `?${query}`);
    await scrollToExport(page);
    for (const format of FORMATS) {
      const want = runCli(['export', format, ...cliArgs(query)]).stdout;
      await page.selectOption('[data-testid="export-format"]', format);
      await page.waitForFunction(
        (w) => document.querySelector('[data-testid="export-output"]')?.value === w,
        want,
        { timeout: 10000 },
      ).catch(() => {});
      const got = await page.locator('[data-testid="export-output"]').inputValue();
      assert.equal(got, want, `${format} for ${query}`);
    }
  }
});

test('the page draws the SVG the CLI writes, byte for byte, under a CSP that allows exactly its style', async (t) => {
  const { page, server, watch } = await start(t);
  for (const query of SCENARIOS) {
    await open(page, server, `?${query}`);
    const want = runCli(['pack', ...cliArgs(query), '--svg', '-']).stdout;
    const { name, text } = await downloadText(page, '[data-testid="download-svg"]');
    assert.equal(name, 'gpu-share-packing.svg');
    assert.equal(text, want, `SVG for ${query}`);
    // The inline diagram is the same document (the browser's serialisation aside): same names as text.
    const shown = await page.locator('[data-testid="packing-diagram"] svg.gpu-share-packing').evaluate((s) => s.querySelectorAll('g.block').length);
    assert.equal(shown, (want.match(/<g class="block /g) ?? []).length, query);
  }
  // The diagram's style sheet is allowed by its hash, so it applies without 'unsafe-inline'.
  const style = await page.locator('[data-testid="packing-diagram"] svg.gpu-share-packing > style').textContent();
  const hash = createHash('sha256').update(style, 'utf8').digest('base64');
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.ok(csp.includes(`'sha256-${hash}'`), `index.html's CSP must allow 'sha256-${hash}'`);
  assert.deepEqual(watch.consoleErrors, []);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations ?? []), []);
});
