// Accounting in the browser: record (twice asks first; undo takes back exactly the recording), reload, download CSV and
// JSON, import (bad files change nothing, a backup adds nothing twice), clear with confirmation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, downloadText, open, shot, start } from './harness.mjs';

const SEED = '?ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice';

const KEY = 'gpu-share.ledger.v1';
const notice = (page) => page.textContent('[data-testid="ledger-notice"]');
const stored = (page) => page.evaluate((key) => localStorage.getItem(key), KEY);

async function waitForNotice(page, re) {
  await page.waitForFunction(
    (source) => new RegExp(source).test(document.querySelector('[data-testid="ledger-notice"]')?.textContent ?? ''),
    re.source,
  );
}

async function recordSeed(page) {
  await page.getByLabel('Ask 1 duration in hours').fill('2');
  await page.getByLabel('Ask 2 duration in hours').fill('1');
  await page.getByLabel('Ask 3 duration in hours').fill('0.5');
  await page.click('[data-testid="record"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="3"]');
}

test('record, reload: the ledger is intact; downloads hold the summary and the ledger', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  await recordSeed(page);
  assert.match(await page.textContent('[data-testid="ledger-notice"]'), /recorded 3 uses/);
  const stored = await page.evaluate(() => localStorage.getItem('gpu-share.ledger.v1'));
  assert.equal(stored.trim().split('\n').length, 3);
  assert.ok(stored.startsWith('{"v":1,'));

  await page.reload();
  await page.waitForSelector('[data-testid="ledger-table"][data-count="3"]');
  const names = await page.locator('[data-testid="ledger-table"] tbody th.ask-name').allTextContents();
  assert.deepEqual(names.sort(), ['a', 'b', 'c']);
  const table = await page.textContent('[data-testid="ledger-table"]');
  assert.match(table, /2 h/);
  assert.match(table, /30 min/);

  // Summary: a 0.5 × 2 h + b 0.3 × 1 h + c 0.4 × 0.5 h = 1.5 GPU-h requested and allocated (time-sliced).
  await page.fill('#rate-cost', '2');
  const csv = await downloadText(page, '[data-testid="download-csv"]');
  assert.equal(csv.name, 'gpu-share-summary.csv');
  const lines = csv.text.trim().split('\n');
  assert.equal(lines[0], 'group,key,records,running,requested_gpu_hours,allocated_gpu_hours,wasted_gpu_hours,cost,energy_kwh,co2e_kg');
  assert.ok(lines.some((l) => l.startsWith('workload,a,1,0,1.0000,1.0000,0.0000,2.00,')), csv.text);
  assert.ok(lines.some((l) => l.startsWith('mechanism,timeslice,3,0,1.5000,1.5000,0.0000,3.00,')), csv.text);
  assert.ok(lines.some((l) => l.startsWith('total,total,3,0,1.5000,')), csv.text);

  const json = await downloadText(page, '[data-testid="download-json"]');
  assert.equal(json.name, 'gpu-share-ledger.json');
  const doc = JSON.parse(json.text);
  assert.equal(doc.format, 'gpu-share-ledger');
  assert.equal(doc.version, 1);
  assert.equal(doc.entries.length, 3);
  const summary = doc.summary;
  assert.equal(summary.totals.records, 3);
  assert.equal(summary.totals.requested_gpu_hours, 1.5);
  assert.equal(summary.totals.cost, 3);
  assert.deepEqual(summary.by_workload.map((r) => r.key), ['a', 'b', 'c']);
  assert.equal(summary.by_mechanism[0].key, 'timeslice');
  assert.equal(summary.rates.cost_per_gpu_hour, 2);

  const ledgerCsv = await downloadText(page, '[data-testid="download-ledger-csv"]');
  assert.match(ledgerCsv.text, /^ask,mechanism,isolation,/);
  assert.equal(ledgerCsv.text.trim().split('\n').length, 4);
  const jsonl = await downloadText(page, '[data-testid="download-ledger-json"]');
  const entries = jsonl.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(entries.map((e) => [e.v, e.kind, e.ask, e.seconds]), [
    [1, 'usage', 'a', 7200],
    [1, 'usage', 'b', 3600],
    [1, 'usage', 'c', 1800],
  ]);
  await shot(page, 'ledger', { fullPage: true });
  await assertClean(assert, page, watch);
});

test('recording the same plan twice asks first; Record again adds it, Undo takes back exactly it', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  await recordSeed(page);
  assert.equal(await notice(page), 'recorded 3 uses · Undo');
  const once = await stored(page);

  // The second press records nothing and says why, with the time of the first.
  await page.click('[data-testid="record"]');
  await waitForNotice(
    page,
    /^already recorded at \d{4}-\d\d-\d\d \d\d:\d\d UTC: a, b, c \(3 of 3 uses\) have a use in the ledger for these hours; recording again counts them twice\. Record again\? Record again Cancel$/,
  );
  assert.equal(await page.getAttribute('[data-testid="ledger-notice"]', 'role'), 'alert');
  assert.equal(await page.getAttribute('[data-testid="ledger-table"]', 'data-count'), '3');
  assert.equal(await stored(page), once);
  await shot(page.locator('section.ledger'), 'ledger-already-recorded');
  await page.click('[data-testid="record-cancel"]');
  await waitForNotice(page, /^nothing recorded$/);
  assert.equal(await stored(page), once);

  // Asked again and confirmed: the three are recorded a second time, and said so.
  await page.click('[data-testid="record"]');
  await page.click('[data-testid="record-again"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="6"]');
  assert.equal(await notice(page), 'recorded 3 uses · Undo');
  assert.equal((await stored(page)).trim().split('\n').length, 6);

  // Undo removes exactly those three: the stored ledger is the first recording, byte for byte.
  await page.click('[data-testid="ledger-undo"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="3"]');
  assert.equal(await notice(page), 'undone: removed the 3 uses just recorded');
  assert.equal(await stored(page), once);
  assert.equal(await page.locator('[data-testid="ledger-undo"]').count(), 0, 'undo is offered once');
  await page.reload();
  await page.waitForSelector('[data-testid="ledger-table"][data-count="3"]');
  assert.equal(await stored(page), once);

  // An open use released since its recording: a new recording of it is a new use, recorded at once.
  await open(page, server, '?ask=job:0.25&timeslice');
  await page.click('[data-testid="record"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="4"]');
  await page.click('[data-testid="record"]');
  await waitForNotice(page, /: job \(1 of 1 use\) has a use in the ledger for these hours/);
  await page.locator('[data-testid="ledger-table"] button', { hasText: 'Release' }).click();
  await waitForNotice(page, /^released job$/);
  await page.click('[data-testid="record"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="5"]');
  assert.equal(await notice(page), 'recorded 1 use · Undo');
  await assertClean(assert, page, watch);
});

test('importing a bad ledger changes nothing and says why; a good one is added', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  await recordSeed(page);
  const before = await page.evaluate(() => localStorage.getItem('gpu-share.ledger.v1'));
  const good = await downloadText(page, '[data-testid="download-ledger-json"]');

  const bad = [
    ['not-json.jsonl', 'this is not a ledger\n', /import failed, nothing changed: line 1/],
    ['wrong-version.jsonl', good.text.replace('{"v":1,', '{"v":9,'), /version 9 is not supported/],
    ['bad-line-2.jsonl', good.text.split('\n')[0] + '\n{"v":1,"kind":"usage","ask":""}\n', /line 2/],
    ['orphan-release.jsonl', '{"v":1,"kind":"release","ask":"zz","at":5}\n', /no open allocation/],
    ['empty.jsonl', '\n', /no ledger entries/],
  ];
  for (const [name, text, why] of bad) {
    await page.setInputFiles('[data-testid="import-ledger"]', { name, mimeType: 'application/json', buffer: Buffer.from(text) });
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('[data-testid="ledger-notice"]')?.textContent ?? ''), why.source);
    assert.equal(await page.getAttribute('[data-testid="ledger-table"]', 'data-count'), '3', name);
    assert.equal(await page.evaluate(() => localStorage.getItem('gpu-share.ledger.v1')), before, name);
  }
  await shot(page, 'import-refused');

  // Importing one's own backup adds nothing twice (the core's api::import merges by identity).
  await page.setInputFiles('[data-testid="import-ledger"]', { name: 'good.jsonl', mimeType: 'application/json', buffer: Buffer.from(good.text) });
  await waitForNotice(page, /^added 0 entries, 3 already present$/);
  assert.equal(await page.getAttribute('[data-testid="ledger-table"]', 'data-count'), '3');
  assert.equal(await page.evaluate(() => localStorage.getItem('gpu-share.ledger.v1')), before);
  // Another ledger's entries are added.
  const other = good.text.replaceAll('"ask":"', '"ask":"other-');
  await page.setInputFiles('[data-testid="import-ledger"]', { name: 'other.jsonl', mimeType: 'application/json', buffer: Buffer.from(other) });
  await page.waitForSelector('[data-testid="ledger-table"][data-count="6"]');
  assert.match(await page.textContent('[data-testid="ledger-notice"]'), /^added 3 entries, 0 already present$/);
  // The JSON download (summary + entries) imports back too: everything in it is already present.
  const doc = await downloadText(page, '[data-testid="download-json"]');
  await page.setInputFiles('[data-testid="import-ledger"]', { name: 'doc.json', mimeType: 'application/json', buffer: Buffer.from(doc.text) });
  await waitForNotice(page, /^added 0 entries, 6 already present$/);
  assert.equal(await page.getAttribute('[data-testid="ledger-table"]', 'data-count'), '6');
  // And the same file a second time: still nothing added.
  await page.setInputFiles('[data-testid="import-ledger"]', { name: 'good-again.jsonl', mimeType: 'application/json', buffer: Buffer.from(good.text) });
  await waitForNotice(page, /^added 0 entries, 3 already present$/);
  assert.equal(await page.getAttribute('[data-testid="ledger-table"]', 'data-count'), '6');

  // Clearing asks first (the harness accepts the confirmation).
  await page.click('[data-testid="clear-ledger"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="0"]');
  assert.equal(await page.evaluate(() => localStorage.getItem('gpu-share.ledger.v1')), null);
  await assertClean(assert, page, watch, { dialogs: 1 });
  assert.match(watch.dialogs[0], /^confirm: Clear the whole ledger/);
});

test('an open use can be released; bad asks lists are refused with the line', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=job:0.25&timeslice');
  await page.click('[data-testid="record"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="1"]');
  assert.match(await page.textContent('[data-testid="ledger-table"]'), /running/);
  await page.locator('[data-testid="ledger-table"] button', { hasText: 'Release' }).click();
  await page.waitForFunction(() => !document.querySelector('[data-testid="ledger-table"]').textContent.includes('running'));

  // A full or missing storage is tested in ledger-durability.test.mjs.
  await page.click('summary:has-text("Load a CSV or JSON ask list")');
  await page.fill('#asks-paste', 'name,size,hours\ntrain,0.5,2\nbad,nope,1\n');
  await page.click('text=Replace asks with this list');
  await page.waitForSelector('[data-testid="asks-import-error"]');
  assert.match(await page.textContent('[data-testid="asks-import-error"]'), /line 3/);
  assert.equal(await page.getByLabel('Ask 1 name').inputValue(), 'job');
  await page.fill('#asks-paste', 'name,size,hours\ntrain,0.5,2\ninfer,3g.20gb,1\n');
  await page.click('text=Replace asks with this list');
  await page.waitForFunction(() => document.querySelector('[data-testid="plan-table"]')?.textContent.includes('infer'));
  assert.equal(await page.getByLabel('Ask 1 duration in hours').inputValue(), '2');
  // The same list as an uploaded file.
  await page.setInputFiles('label.file:has-text("Or upload a file") input[type="file"]', {
    name: 'asks.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('name,size\nuploaded,0.25\n'),
  });
  await page.waitForFunction(() => document.querySelector('[data-testid="plan-table"]')?.textContent.includes('uploaded'));
  await assertClean(assert, page, watch);
});

// Issue #13, rule 8, in the page: three MIG instances that fill one A100-40GB (3g.20gb + 2g.10gb + 2g.10gb,
// 0.5 + 2/7 + 2/7 = 1.07 of the GPU each alone) recorded together bill exactly one GPU-hour per hour, and
// the summary says which GPU was shared.
test('tenants recorded on one full MIG GPU bill exactly the GPU', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=x:3g.20gb&ask=y:2g.10gb&ask=z:2g.10gb&gpus=1&mig-capable');
  for (const n of [1, 2, 3]) await page.getByLabel(`Ask ${n} duration in hours`).fill('1');
  await page.click('[data-testid="record"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="3"]');
  const notes = await page.textContent('[data-testid="summary-notes"]');
  assert.match(notes, /1 shared GPU\(s\) billed at most once over/);
  const total = await page.locator('[data-testid="summary-table"] tr', { hasText: 'total' }).first().textContent();
  assert.match(total, /1\.00/, total);
  await assertClean(assert, page, watch);
});
