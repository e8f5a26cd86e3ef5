// Replay on the page (issue #18): the bundled example or picked node and pod lists, the policies chosen, the
// shared renderer's chart — the bytes `gpu-share replay --svg` writes — with the table of allocation and failed
// pods; bad lists are an error naming the list, line and column, and nothing else on the page changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertClean, open, repo, shot, start } from './harness.mjs';

const fixture = (name) => join(repo, 'tests', 'fixtures', 'replay', name);
const cli = join(repo, 'target', 'debug', 'gpu-share');

test('the example replayed under three policies: the CLI chart, the table and the bound', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server);
  await page.click('[data-testid="replay-example"]');
  await page.click('[data-testid="replay-run"]');
  await page.waitForSelector('[data-testid="replay-chart"] svg');
  const rows = page.locator('[data-testid="replay-table"] tbody tr');
  assert.deepEqual(await rows.evaluateAll((r) => r.map((x) => x.dataset.policy)), ['best-fit', 'fgd', 'gpu-share']);
  // The same replay as the CLI, drawn the same.
  const dir = mkdtempSync(join(tmpdir(), 'gpu-share-replay-'));
  t.after(() => rmSync(dir, { recursive: true }));
  const file = join(dir, 'chart.svg');
  const r = spawnSync(cli, ['replay', '--nodes', fixture('nodes.csv'), '--pods', fixture('pods.csv'), '--policy', 'best-fit,fgd,gpu-share', '--svg', file, '--json'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  const fgd = json.policies.find((p) => p.policy === 'fgd');
  assert.equal(await rows.nth(1).locator('td').nth(1).textContent(), `${fgd.at_tune.toFixed(2)}%`);
  const onPage = await page.locator('[data-testid="replay-chart"] svg').evaluate((s) => s.outerHTML);
  const fromCli = readFileSync(file, 'utf8').replaceAll('gpu-share-title', 'replay-title').replaceAll('gpu-share-desc', 'replay-desc');
  // The DOM re-serialises the same document: compare what it draws.
  const points = (svg) => [...svg.matchAll(/points="([^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(points(onPage), points(fromCli));
  assert.match(await page.textContent('[data-testid="replay-bound"]'), /between \d+\.\d\d% .* and 100\.00%/);
  await shot(page.locator('section.replay'), 'replay-example');
  await assertClean(assert, page, watch);
});

test('picked lists are read; a bad pod list names its line and column, and seeds take a range', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:0.5&timeslice');
  const dir = mkdtempSync(join(tmpdir(), 'gpu-share-replay-'));
  t.after(() => rmSync(dir, { recursive: true }));
  const bad = join(dir, 'pods.csv');
  writeFileSync(bad, 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\nok,1000,1024,1,500\nbad,1000,1024,2,500\n');
  await page.setInputFiles('[data-testid="replay-nodes-file"]', fixture('nodes.csv'));
  await page.setInputFiles('[data-testid="replay-pods-file"]', bad);
  await page.click('[data-testid="replay-run"]');
  await page.waitForSelector('[data-testid="replay-error"]');
  assert.match(await page.textContent('[data-testid="replay-error"]'), /^pod list, column gpu_milli, line 3: num_gpu 2 with gpu_milli 500/);
  await page.setInputFiles('[data-testid="replay-pods-file"]', fixture('pods.csv'));
  await page.fill('[data-testid="replay-seeds"]', '1-3');
  await page.click('[data-testid="replay-policy-gpu-share"]');
  await page.click('[data-testid="replay-run"]');
  await page.waitForSelector('[data-testid="replay-chart"] svg');
  assert.equal(await page.locator('[data-testid="replay-error"]').count(), 0);
  assert.deepEqual(await page.locator('[data-testid="replay-table"] tbody tr').evaluateAll((r) => r.map((x) => x.dataset.policy)), ['best-fit', 'fgd']);
  assert.match(await page.textContent('[data-testid="replay-chart"]'), /seeds 1, 2, 3/);
  await page.fill('[data-testid="replay-seeds"]', 'forty-two');
  await page.click('[data-testid="replay-run"]');
  assert.match(await page.textContent('[data-testid="replay-error"]'), /^Seeds: expected seeds/);
  // The plan above is untouched.
  assert.match(await page.textContent('[data-testid="summary-unplaced"]'), /0 unplaced|every ask/i);
  await assertClean(assert, page, watch);
});
