// Shared set-up of the browser tests: the built dist/, the static server, headless Debian Chromium
// through playwright-core, and watchers for off-origin requests, console errors and dialogs.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
export const dist = resolve(process.env.GPU_SHARE_DIST ?? join(repo, 'dist'));
export const artifacts = join(repo, 'tests', 'artifacts');
export const CHROMIUM = process.env.GPU_SHARE_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Puts `text` in the field at `selector` as a paste does: the whole text, one `input` event.
 * Playwright's `fill` types a many-line text into a textarea in time quadratic in its lines in
 * headless Chromium (1,000 lines 3.9 s, 2,000 lines 12.8 s, in a blank page too).
 */
export async function paste(page, selector, text) {
  await page.locator(selector).evaluate((el, value) => {
    el.focus();
    el.value = value;
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
  }, text);
}

/** Starts the server and a fresh browser profile; `t.after` cleans both up. */
export async function start(t, { prefix = '/', colorScheme = 'light', viewport = { width: 1280, height: 900 } } = {}) {
  if (!existsSync(join(dist, 'index.html'))) {
    throw new Error(
      `no built page at ${dist} (index.html missing): build it first with ` +
        '`PATH="$PWD/tests/node_modules/.bin:$PATH" trunk build --release --offline`, or set GPU_SHARE_DIST',
    );
  }
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}`);
  mkdirSync(artifacts, { recursive: true });
  const server = await serve(dist, { prefix });
  const profile = mkdtempSync(join(tmpdir(), 'gpu-share-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    acceptDownloads: true,
    colorScheme,
    viewport,
  });
  const watch = { offOrigin: [], consoleErrors: [], dialogs: [], failed: [] };
  context.on('request', (req) => {
    const u = req.url();
    if (u.startsWith('blob:') || u.startsWith('data:')) return;
    if (new URL(u).origin !== server.origin) watch.offOrigin.push(u);
  });
  context.on('requestfailed', (req) => {
    const why = req.failure()?.errorText;
    // A reload or navigation cancels what the old document still loads (its favicon, say): not a failure.
    if (why === 'net::ERR_ABORTED') return;
    watch.failed.push(`${req.url()} ${why}`);
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const track = (p) => {
    p.on('console', (msg) => {
      if (msg.type() === 'error') watch.consoleErrors.push(msg.text());
    });
    p.on('pageerror', (err) => watch.consoleErrors.push(`pageerror: ${err.message}`));
    p.on('dialog', async (d) => {
      watch.dialogs.push(`${d.type()}: ${d.message()}`);
      if (d.type() === 'confirm') await d.accept();
      else await d.dismiss();
    });
  };
  track(page);
  context.on('page', track);
  // CSP violations, recorded by the page itself.
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  t.after(async () => {
    await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return { page, context, server, watch };
}

/** Opens the page with a query and waits until the app has built every panel (`data-ready`). */
export async function open(page, server, query = '') {
  await page.goto(`${server.url}${query}`);
  await page.waitForSelector('html[data-ready] [data-testid="packing-diagram"]', { timeout: 20000 });
}

/** The names shown as text in a lane. */
export async function laneText(page, n) {
  return page.locator(`g.lane[data-gpu="${n}"]`).textContent();
}

/** The asks drawn in a lane, left to right (each block carries its ask's name). */
export async function laneAsks(page, n) {
  return page.locator(`g.lane[data-gpu="${n}"] g.block[data-ask]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-ask')));
}

/** Checks no request left the origin, nothing was logged as an error, no dialog and no CSP violation. */
export async function assertClean(assert, page, watch, { dialogs = 0 } = {}) {
  assert.deepEqual(watch.offOrigin, [], 'requests left the origin');
  assert.deepEqual(watch.consoleErrors, [], 'console errors');
  assert.equal(watch.dialogs.length, dialogs, `dialogs: ${watch.dialogs.join('; ')}`);
  assert.deepEqual(watch.failed, [], 'failed requests');
  const violations = await page.evaluate(() => window.__cspViolations ?? []);
  assert.deepEqual(violations, [], 'CSP violations');
}

/** Saves a screenshot of a page or a locator under tests/artifacts/. */
export async function shot(target, name, options = {}) {
  await target.screenshot({ path: join(artifacts, `${name}.png`), ...options });
}

/** Reads a download started by clicking `selector`. */
export async function downloadText(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const stream = await download.createReadStream();
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return { name: download.suggestedFilename(), text: Buffer.concat(chunks).toString('utf8') };
}

/** Scrolls to the export panel, as a user does: it makes its text only while it is in view. */
export async function scrollToExport(page) {
  await page.locator('section.export').scrollIntoViewIfNeeded();
  // The panel makes its text once it is seen in view (web/src/in_view.rs): in an observer's callback after the
  // scroll, so wait for it (its text, its error, or its note that the plan has an error).
  await page.waitForFunction(() => {
    const panel = document.querySelector('section.export');
    const out = panel?.querySelector('[data-testid="export-output"]');
    return (out?.value ?? '').length > 0 || !!panel?.querySelector('[data-testid="export-error"]') || /Fix the plan's error/.test(panel?.textContent ?? '');
  });
}
