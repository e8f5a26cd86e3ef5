// `cargo xtask bench`, the page as a user feels it: headless Debian Chromium with the CPU throttled 4×
// (Chrome DevTools' "mid-tier laptop"), timings from the browser's own performance timeline (Event
// Timing for keystrokes, Long Tasks, performance.now() of the last change to the plan's DOM). One
// JSON line per scenario size. Usage:
//   node tests/bench/page.mjs <dist dir> <asks>...
import { paste } from '../e2e/harness.mjs';
import { serve } from '../e2e/serve.mjs';
import { launch } from './browser.mjs';

const THROTTLE = 4;
/** The plan is drawn once nothing in the answer has changed for this long (ms, wall clock). */
const QUIET_MS = 1500;

const [dist, ...counts] = process.argv.slice(2);

/** `n` fraction asks as a CSV list (fractions 0.05–0.94, a fixed pattern): too many for a link. */
function list(n) {
  const lines = ['name,size'];
  for (let i = 0; i < n; i++) lines.push(`a${i},0.${String(5 + ((i * 37) % 90)).padStart(2, '0')}`);
  return lines.join('\n');
}

/** In the page: records keystroke timings, long tasks and the last change to the answer. */
function watchPage() {
  window.__bench = { events: [], longTasks: [], lastChange: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__bench.events.push({ name: e.name, start: e.startTime, duration: e.duration });
  }).observe({ type: 'event', durationThreshold: 16, buffered: false });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__bench.longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: false });
  new MutationObserver(() => {
    window.__bench.lastChange = performance.now();
  }).observe(document.querySelector('.answer'), { subtree: true, childList: true, characterData: true, attributes: true });
}

/** Waits until the answer has not changed for QUIET_MS; returns the page's records. */
async function settle(page) {
  for (;;) {
    const before = await page.evaluate(() => window.__bench.lastChange);
    await page.waitForTimeout(QUIET_MS);
    const b = await page.evaluate(() => window.__bench);
    if (b.lastChange === before) return b;
  }
}

/** Presses `keys` in the focused field, `gap` ms apart; the time from the first key to the plan drawn. */
async function type(page, keys, gap) {
  await page.evaluate(() => {
    window.__bench.events = [];
    window.__bench.longTasks = [];
    window.__bench.t0 = performance.now();
  });
  await page.keyboard.type(keys, { delay: gap });
  const b = await settle(page);
  const keyEvents = b.events.filter((e) => e.start >= b.t0 && ['keydown', 'keypress', 'input', 'keyup'].includes(e.name));
  const first = keyEvents.length ? Math.min(...keyEvents.map((e) => e.start)) : b.t0;
  return {
    drawn_ms: Math.max(0, b.lastChange - first),
    // The longest a keystroke waited for its frame: input delay + handlers + presentation.
    worst_key_ms: keyEvents.reduce((m, e) => Math.max(m, e.duration), 0),
    long_task_ms: b.longTasks.filter((t) => t.start >= b.t0).reduce((s, t) => s + t.duration, 0),
  };
}

async function measure(context, origin, n) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto(`${origin}/?timeslice`);
  await page.waitForSelector('html[data-ready] [data-testid="packing-diagram"]', { timeout: 60_000 });
  await page.evaluate(watchPage);
  // Pasted as a platform engineer pastes a cluster's asks (as one edit: Playwright's `fill` of
  // 10,000 lines passed a ten-minute timeout), and loaded.
  await page.locator('details.import summary').click();
  await paste(page, '#asks-paste', list(n));
  await settle(page);
  const t = Date.now();
  await page.getByRole('button', { name: 'Replace asks with this list' }).click();
  await settle(page);
  const load_ms = Date.now() - t - QUIET_MS;
  // Edits are timed as on a mid-range laptop; loading the list above was not throttled.
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
  const field = page.getByLabel(`Ask ${Math.min(50, n)} fraction`);
  await field.click();
  await page.keyboard.press('End');
  await settle(page);
  const one = await type(page, '1', 0);
  const three = await type(page, '234', 100);
  const dom_nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  const gpus = await page.locator('g.lane').count();
  await page.close();
  return { n, load_ms, edit: one, typing: three, dom_nodes, lanes: gpus };
}

const server = await serve(dist);
const { context, close } = await launch();
try {
  for (const n of counts.map(Number)) console.log(JSON.stringify(await measure(context, server.origin, n)));
} catch (e) {
  // Playwright's messages quote whole URLs and call logs: the first line says what failed.
  console.error(String(e.message ?? e).split('\n')[0].slice(0, 300));
  process.exitCode = 1;
} finally {
  await close();
  await server.close();
}
