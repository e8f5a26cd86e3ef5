// The page before its WebAssembly has loaded: index.html's shell (web/src/shell.rs) shows the page's
// header and an empty workspace (an embed's link: the embed's view), greyed, inert and marked busy,
// with no test ids that could pass for the app's; once the app has loaded, the shell is gone and the
// page is the app's alone; without JavaScript it is hidden.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, assertClean, dist, start } from './harness.mjs';
import { serve } from './serve.mjs';

test('before the WebAssembly arrives the shell shows the page, inert; the app replaces it', async (t) => {
  const { page, server, watch } = await start(t, { viewport: { width: 412, height: 823 } });
  // The WebAssembly is held back until the shell has been looked at.
  const release = await holdWasm(page);
  await page.goto(`${server.url}?ask=a:0.5&ask=b:0.3&timeslice`);
  await page.waitForSelector('#shell header.top h1');
  const shell = await page.evaluate(() => {
    const s = document.getElementById('shell');
    const hint = s.querySelector('section.asks p.hint');
    return {
      inert: s.inert,
      busy: s.getAttribute('aria-busy'),
      title: getComputedStyle(s.querySelector('h1'), '::after').content,
      hint: hint?.textContent ?? '',
      testIds: s.querySelectorAll('[data-testid]').length,
      rows: s.querySelectorAll('tbody tr').length,
      app: document.querySelectorAll('body > main').length,
    };
  });
  assert.equal(shell.inert, true);
  assert.equal(shell.busy, 'true');
  assert.match(shell.title, /loading/);
  assert.match(shell.hint, /^A fraction is a decimal/);
  assert.equal(shell.testIds, 0, 'the shell carries no test ids');
  assert.equal(shell.rows, 0, 'the shell shows no asks: the link\'s are not read yet');
  assert.equal(shell.app, 0);
  // Typing into the shell does nothing: it is inert.
  await page.locator('#shell input').first().click({ force: true, timeout: 2000 }).catch(() => {});
  await page.keyboard.type('lost');
  assert.equal(await page.locator('#shell input').first().inputValue(), '');
  release();
  await page.waitForSelector('html[data-ready] [data-testid="packing-diagram"]');
  assert.equal(await page.locator('#shell').count(), 0, 'the shell is gone');
  assert.equal(await page.locator('header.top').count(), 1, 'one header');
  assert.equal(await page.locator('[data-testid="ask-row"]').count(), 2, 'the link\'s asks');
  await assertClean(assert, page, watch);
});

test('the shell and the app put the first screen\'s text in the same place', async (t) => {
  const { page, server, watch } = await start(t, { viewport: { width: 412, height: 823 } });
  const release = await holdWasm(page);
  await page.goto(server.url);
  await page.waitForSelector('#shell section.asks p.hint');
  const where = () => page.evaluate(() => {
    const r = document.querySelector('section.asks p.hint').getBoundingClientRect();
    return [r.x, r.y, r.width, r.height];
  });
  const inShell = await where();
  release();
  await page.waitForSelector('html[data-ready] [data-testid="packing-diagram"]');
  assert.deepEqual(await where(), inShell, 'the hint moved when the app replaced the shell');
  await assertClean(assert, page, watch);
});

test('while a shell is in the page, what follows it is hidden: the app is built under it', async (t) => {
  // web/style.css hides every sibling after `#shell` (the app is mounted at the end of <body>),
  // with a selector every browser has; put a shell back in front of the loaded app to see it work.
  const { page, server, watch } = await start(t);
  await page.goto(`${server.url}?ask=a:0.5&timeslice`);
  await page.waitForSelector('html[data-ready] [data-testid="packing-diagram"]');
  const shown = () => page.evaluate(() => getComputedStyle(document.querySelector('body > main')).display);
  const before = await shown();
  assert.notEqual(before, 'none');
  await page.evaluate(() => {
    const shell = document.createElement('div');
    shell.id = 'shell';
    document.body.prepend(shell);
  });
  assert.equal(await shown(), 'none', 'the app shows beside a shell');
  await page.evaluate(() => document.getElementById('shell').remove());
  assert.equal(await shown(), before);
  await assertClean(assert, page, watch);
});

test("an embed's link shows the embed's shell, not the page's, until its app replaces it", async (t) => {
  const { page, server, watch } = await start(t, { viewport: { width: 800, height: 520 } });
  const release = await holdWasm(page);
  // `embed=0` is not an embed (as the app reads it): the page's shell.
  await page.goto(`${server.url}?ask=a:0.5&timeslice&embed=0`);
  await page.waitForSelector('#shell header.top h1');
  assert.equal(await page.locator('#shell main.embed').count(), 0);
  await page.goto(`${server.url}?ask=a:0.5&timeslice&embed`);
  await page.waitForSelector('#shell main.embed .embed-head h1');
  const shell = await page.evaluate(() => ({
    page: document.querySelectorAll('#shell header.top, #shell main.full').length,
    title: getComputedStyle(document.querySelector('#shell .embed-head h1'), '::after').content,
    headings: document.querySelectorAll('[id="diagram-h"]').length,
    testIds: document.querySelectorAll('#shell [data-testid]').length,
  }));
  assert.equal(shell.page, 0, "the page's shell is not shown");
  assert.match(shell.title, /loading/);
  assert.equal(shell.headings, 1, 'one diagram heading: the template is not in the page');
  assert.equal(shell.testIds, 0);
  release();
  await page.waitForSelector('html[data-ready] [data-testid="packing-diagram"]');
  assert.equal(await page.locator('#shell, #shell-embed').count(), 0, 'the shell and its template are gone');
  assert.equal(await page.locator('main.embed').count(), 1);
  await assertClean(assert, page, watch);
});

/** Holds the page's WebAssembly back until the function it returns is called. */
async function holdWasm(page) {
  let release;
  const held = new Promise((r) => (release = r));
  await page.route(/\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

test('without JavaScript the shell stays hidden and the page says it needs JavaScript', async (t) => {
  const server = await serve(dist);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(server.url);
  // The <noscript> style that hides it is allowed by its hash in the CSP: blocked, the shell would show.
  assert.equal(await page.isVisible('#shell'), false, 'the shell says "loading" for ever');
  assert.match(await page.textContent('body'), /needs JavaScript and WebAssembly/);
});

test("no frame shows part of the shell: at a phone's width nothing moves as the rest of the HTML comes", async (t) => {
  // index.html sent in two parts half a second apart, the second from the shell's summary on: at a
  // phone's width the summary is drawn above the asks (`order: -1`), so a frame of the first part
  // alone (a layout shift of 0.126 in a Lighthouse run; BENCHMARKS.md, first load) would have moved
  // the asks down when it came. `<link rel="expect">` in index.html holds frames back until then.
  const files = await serve(dist);
  const html = await readFile(join(dist, 'index.html'), 'utf8');
  const cut = html.indexOf('class="card summary"');
  assert.ok(cut > html.indexOf('id="shell"'), "the shell's summary");
  const slow = createServer(async (req, res) => {
    if (new URL(req.url, 'http://x').pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.write(html.slice(0, cut));
      setTimeout(() => res.end(html.slice(cut)), 500);
      return;
    }
    const file = await fetch(files.origin + req.url);
    res.writeHead(file.status, { 'content-type': file.headers.get('content-type') ?? 'text/plain' });
    res.end(Buffer.from(await file.arrayBuffer()));
  });
  await new Promise((ok) => slow.listen(0, '127.0.0.1', ok));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  t.after(async () => {
    await browser.close();
    await new Promise((ok) => slow.close(ok));
    await files.close();
  });
  const page = await browser.newPage({ viewport: { width: 412, height: 823 } });
  await page.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => window.__shifts.push(...list.getEntries().map((e) => e.value)))
      .observe({ type: 'layout-shift', buffered: true });
    requestAnimationFrame(() => {
      window.__firstFrame = { summary: document.querySelectorAll('#shell .summary').length };
    });
  });
  await page.goto(`http://127.0.0.1:${slow.address().port}/?ask=a:0.5&ask=b:0.3&timeslice`);
  await page.waitForSelector('html[data-ready] [data-testid="packing-diagram"]', { timeout: 20000 });
  const seen = await page.evaluate(() => ({ first: window.__firstFrame, shifts: window.__shifts }));
  assert.deepEqual(seen.first, { summary: 1 }, "the first frame drawn has the shell's summary");
  assert.deepEqual(seen.shifts, [], 'nothing on the page moved');
});
