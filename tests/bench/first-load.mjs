// `cargo xtask bench`, the first load: a shared link opened in a new headless Debian Chromium profile
// (nothing cached), its files served gzipped as a static host serves them, the CPU throttled 4× from
// before the first byte; the time from navigation start to the first plan drawn (the packing diagram
// with its lanes), by the page's own clock (performance.now() from a MutationObserver set before any
// script runs). The seed example is loaded once more over a network slowed as Lighthouse's mobile run
// slows it: what a user on a slow connection waits for, where requesting the WebAssembly early counts.
// The median of RUNS cold loads per link; one JSON line per link. Usage:
//   node tests/bench/first-load.mjs <dist dir>
import { serve } from '../e2e/serve.mjs';
import { launch } from './browser.mjs';

const THROTTLE = 4;
const RUNS = 5;

/** `n` fraction asks as the link grammar writes them (the same fixed pattern as page.mjs). */
function asks(n) {
  return Array.from({ length: n }, (_, i) => `ask=a${i}:0.${String(5 + ((i * 37) % 90)).padStart(2, '0')}`).join('&');
}

/** Lighthouse's "slow 4G" (its mobile default): 150 ms round trips, 1.6 Mbit/s down, 750 kbit/s up,
 * with the 0.9 factor DevTools applies to its presets. */
const SLOW_4G = {
  offline: false,
  latency: 150,
  downloadThroughput: ((1.6 * 1024 * 1024) / 8) * 0.9,
  uploadThroughput: ((750 * 1024) / 8) * 0.9,
};

const SEED = 'ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice';

/** The links a docs page or a colleague shares: the README's example, and a team's 100 asks. */
const LINKS = [
  { link: 'seed example (3 asks)', query: SEED },
  { link: '100 asks', query: `${asks(100)}&timeslice` },
  { link: 'seed example (3 asks) over slow 4G', query: SEED, network: SLOW_4G },
];

/** In the page, before its scripts: the time the diagram first has a lane. */
function watchFirstPlan() {
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid="packing-diagram"] g.lane')) {
      window.__firstPlan = performance.now();
      observer.disconnect();
    }
  }).observe(document, { subtree: true, childList: true });
}

async function coldLoad(origin, query, network) {
  const { context, close } = await launch();
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.addInitScript(watchFirstPlan);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
    if (network) {
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', network);
    }
    await page.goto(`${origin}/?${query}`);
    await page.waitForFunction(() => window.__firstPlan !== undefined, null, { timeout: 60_000 });
    return await page.evaluate(() => window.__firstPlan);
  } finally {
    await close();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const [dist] = process.argv.slice(2);
const server = await serve(dist, { gzip: true });
try {
  for (const { link, query, network } of LINKS) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await coldLoad(server.origin, query, network));
    console.log(JSON.stringify({ link, first_plan_ms: median(runs), runs }));
  }
} catch (e) {
  console.error(String(e.message ?? e).split('\n')[0].slice(0, 300));
  process.exitCode = 1;
} finally {
  await server.close();
}
