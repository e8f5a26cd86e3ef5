// The same request gives the same answer from the CLI and the page: every shared scenario opened
// as a link, each export format read from the export panel and compared byte for byte with
// `gpu-share export FORMAT` for the same flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, start } from './harness.mjs';
import { FORMATS, SCENARIOS, cliArgs, runCli } from '../same-answer/scenarios.mjs';

test('the page exports what the CLI exports, for every scenario and format', async (t) => {
  const { page, server } = await start(t);
  for (const query of SCENARIOS) {
    await open(page, server, `?${query}`);
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
