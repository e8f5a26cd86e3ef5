// The browser's ledger when things go wrong: failed imports leave it exactly as it was (before and
// after a reload), a full storage is shown (the entry stays in the page, the error says to download
// it), and a browser without local storage still records and says the ledger will not persist.
// That a recorded ledger survives a reload is proven by the first test of ledger.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, downloadText, open, shot, start } from './harness.mjs';

const SEED = '?ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice';
const KEY = 'gpu-share.ledger.v1';

async function record(page, count) {
  await page.click('[data-testid="record"]');
  await page.waitForSelector(`[data-testid="ledger-table"][data-count="${count}"]`);
}

const notice = (page) => page.textContent('[data-testid="ledger-notice"]');
const stored = (page) => page.evaluate((key) => localStorage.getItem(key), KEY);
const names = (page) => page.locator('[data-testid="ledger-table"] tbody th.ask-name').allTextContents();

async function waitForNotice(page, re) {
  await page.waitForFunction(
    (source) => new RegExp(source).test(document.querySelector('[data-testid="ledger-notice"]')?.textContent ?? ''),
    re.source,
  );
}

test('a failed import names the line and leaves the ledger exactly as it was, also after a reload', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  await page.getByLabel('Ask 1 duration in hours').fill('2');
  await record(page, 3);
  const before = await stored(page);
  const shown = await names(page);
  const lines = (await downloadText(page, '[data-testid="download-ledger-json"]')).text.trim().split('\n');
  assert.equal(lines.length, 3);

  // Each notice names another line than the one before, so waiting for it waits for this import.
  const bad = [
    // A JSON Lines file cut short in its last line, as a crash mid-write leaves it.
    ['torn.jsonl', `${lines[0]}\n${lines[1]}\n${lines[2].slice(0, 40)}`, 3],
    // Not JSON at all after a good first line.
    ['garbage.jsonl', `${lines[0]}\nthis is not JSON\n`, 2],
    // One corrupt line between good ones: nothing of the file is taken, not even the good lines.
    ['corrupt-middle.jsonl', `${lines[0]}\n${lines[1]}\n{"v":1,"kind":"usage",oops}\n${lines[2]}\n${lines[0]}\n`, 3],
  ];
  for (const [name, text, line] of bad) {
    await page.setInputFiles('[data-testid="import-ledger"]', { name, mimeType: 'application/json', buffer: Buffer.from(text) });
    await waitForNotice(page, new RegExp(`^import failed, nothing changed: line ${line}:`));
    assert.equal(await page.getAttribute('[data-testid="ledger-notice"]', 'role'), 'alert', name);
    assert.equal(await page.getAttribute('[data-testid="ledger-table"]', 'data-count'), '3', name);
    assert.deepEqual(await names(page), shown, name);
    assert.equal(await stored(page), before, `${name}: the stored ledger is byte for byte what it was`);
  }

  await page.reload();
  await page.waitForSelector('[data-testid="ledger-table"][data-count="3"]');
  assert.deepEqual(await names(page), shown);
  assert.equal(await stored(page), before);
  assert.equal(await page.locator('[data-testid="ledger-notice"]').count(), 0, 'no error on reload');
  await assertClean(assert, page, watch);
});

test('a full storage is shown, not swallowed: the entry stays in the page and the error says to download it', async (t) => {
  const { page, context, server, watch } = await start(t);
  await open(page, server, '?ask=job:0.25&timeslice');
  await record(page, 1);
  const before = await stored(page);

  // From now on every write to storage fails as a full storage does.
  await context.addInitScript(() => {
    Storage.prototype.setItem = function () {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
  });
  await page.reload();
  await page.waitForSelector('[data-testid="ledger-table"][data-count="1"]');
  // The open use is still running, so the page asks before counting it twice; confirmed, it records.
  await page.click('[data-testid="record"]');
  await waitForNotice(page, /^already recorded at .*Record again\?/);
  await page.click('[data-testid="record-again"]');
  await page.waitForSelector('[data-testid="ledger-table"][data-count="2"]');
  const text = await notice(page);
  assert.equal(
    text,
    'recorded 1 use, but the ledger could not be saved in this browser: its storage is full ' +
      '(QuotaExceededError: The quota has been exceeded.). The ledger shown is kept in this page only ' +
      'until it is closed or reloaded: download it (Ledger JSON lines) to keep it.',
  );
  assert.equal(await page.getAttribute('[data-testid="ledger-notice"]', 'role'), 'alert');
  assert.ok(await page.locator('[data-testid="ledger-notice"]').isVisible());
  assert.equal(await stored(page), before, 'the stored ledger is what it was');
  await shot(page.locator('section.ledger'), 'ledger-quota-error');
  // The remedy works: the download holds both uses.
  const jsonl = await downloadText(page, '[data-testid="download-ledger-json"]');
  assert.deepEqual(jsonl.text.trim().split('\n').map((l) => JSON.parse(l).ask), ['job', 'job']);
  // Releasing the open use is kept in the page the same way, and said so.
  await page.locator('[data-testid="ledger-table"] button', { hasText: 'Release' }).first().click();
  await waitForNotice(page, /^released job, but the ledger could not be saved in this browser: its storage is full/);
  await assertClean(assert, page, watch);

  // As the error said: after a reload only what was stored is left.
  await page.reload();
  await page.waitForSelector('[data-testid="ledger-table"][data-count="1"]');
  assert.equal(await stored(page), before);
  await assertClean(assert, page, watch);
});

test('without local storage the page still plans and records, and says the ledger will not persist', async (t) => {
  const { page, context, server, watch } = await start(t);
  // As in some privacy modes: merely reading window.localStorage throws.
  await context.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', {
      configurable: true,
      get() {
        throw new DOMException('Access is denied for this document.', 'SecurityError');
      },
    });
  });
  await open(page, server, SEED);
  assert.equal(await page.evaluate(() => { try { localStorage; return 'readable'; } catch (e) { return e.name; } }), 'SecurityError');
  assert.equal(await page.textContent('[data-testid="gpus-used"]'), '2');
  assert.equal(
    await notice(page),
    'local storage is not available in this browser (SecurityError: Access is denied for this document.), ' +
      'so the ledger will not persist: what you record is kept in this page only until it is closed or reloaded. ' +
      'Download it (Ledger JSON lines) to keep it.',
  );
  await record(page, 3);
  assert.match(await notice(page), /^recorded 3 uses, but the ledger could not be saved in this browser: local storage is not available in this browser/);
  const jsonl = await downloadText(page, '[data-testid="download-ledger-json"]');
  assert.deepEqual(jsonl.text.trim().split('\n').map((l) => JSON.parse(l).ask), ['a', 'b', 'c']);
  // Importing works in the page too: its own download adds nothing twice, another ledger's entries are added.
  await page.setInputFiles('[data-testid="import-ledger"]', { name: 'l.jsonl', mimeType: 'application/json', buffer: Buffer.from(jsonl.text) });
  await waitForNotice(page, /^added 0 entries, 3 already present/);
  const other = jsonl.text.replaceAll('"ask":"', '"ask":"other-');
  await page.setInputFiles('[data-testid="import-ledger"]', { name: 'other.jsonl', mimeType: 'application/json', buffer: Buffer.from(other) });
  await page.waitForSelector('[data-testid="ledger-table"][data-count="6"]');
  assert.match(await notice(page), /^added 3 entries, 0 already present, but the ledger could not be saved/);
  await assertClean(assert, page, watch);
});

test('a stored ledger the page cannot read is left untouched: recording and importing refuse until it is cleared', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  const line =
    '{"v":1,"kind":"usage","ask":"a","mechanism":"timeslice","isolation":"soft",' +
    '"requested_fraction":0.5,"allocated_fraction":0.5,"started_at":5,"seconds":60}';
  const unreadable = `${line}\n${line.slice(0, 30)}`;
  await page.evaluate(([key, text]) => localStorage.setItem(key, text), [KEY, unreadable]);
  await page.reload();
  await page.waitForSelector('[data-testid="ledger-table"][data-count="0"]');
  assert.match(await notice(page), /^the ledger stored in this browser cannot be read \(line 2: .*\)\. It is left untouched; clear it to start a new one\.$/);
  await page.click('[data-testid="record"]');
  await waitForNotice(page, /^the stored ledger could not be read; clear it before recording$/);
  await page.setInputFiles('[data-testid="import-ledger"]', { name: 'l.jsonl', mimeType: 'application/json', buffer: Buffer.from(`${line}\n`) });
  await waitForNotice(page, /^import failed, nothing changed: the stored ledger could not be read; clear it before importing$/);
  assert.equal(await stored(page), unreadable, 'left byte for byte');
  await page.click('[data-testid="clear-ledger"]');
  await waitForNotice(page, /^ledger cleared$/);
  assert.equal(await stored(page), null);
  await record(page, 3);
  await assertClean(assert, page, watch, { dialogs: 1 });
});
