// `cargo xtask bench`, the first load as Lighthouse scores it: Lighthouse's mobile run of the seed
// example's link on `cargo xtask dist`'s page, served gzipped from 127.0.0.1, in Debian's headless
// Chromium, two ways: the default, which loads the page at full speed and simulates slow 4G and a 4×
// slower CPU from that load (Lantern), and DevTools throttling, which really slows the load. The
// score varies from run to run, so each way runs several times and reports the run with the median
// score, with every run's score and largest contentful paint. One JSON line per way. Usage:
//   node bench/scripts/lighthouse.mjs <dist dir>
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import { serve } from '../../tests/e2e/serve.mjs';

const CHROMIUM = process.env.GPU_SHARE_CHROMIUM ?? '/usr/bin/chromium';
const WAYS = [
  { method: 'simulate', runs: 5 },
  { method: 'devtools', runs: 3 },
];
const LINK = '?ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice';

const [dist] = process.argv.slice(2);
const server = await serve(dist, { gzip: true });
const chrome = await chromeLauncher.launch({
  chromePath: CHROMIUM,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'],
});
try {
  for (const { method, runs: count } of WAYS) {
    const runs = [];
    for (let i = 0; i < count; i++) {
      const { lhr } = await lighthouse(`${server.origin}/${LINK}`, {
        port: chrome.port,
        onlyCategories: ['performance'],
        logLevel: 'error',
        output: 'json',
        throttlingMethod: method,
      });
      const ms = (id) => lhr.audits[id]?.numericValue ?? null;
      runs.push({
        method,
        score: lhr.categories.performance.score,
        fcp_ms: ms('first-contentful-paint'),
        lcp_ms: ms('largest-contentful-paint'),
        tbt_ms: ms('total-blocking-time'),
        speed_index_ms: ms('speed-index'),
        cls: ms('cumulative-layout-shift'),
        version: lhr.lighthouseVersion,
        chromium: lhr.environment?.hostUserAgent?.match(/Chrome\/([\d.]+)/)?.[1] ?? null,
      });
    }
    const scores = runs.map((r) => r.score);
    const lcps = runs.map((r) => r.lcp_ms);
    runs.sort((a, b) => a.score - b.score);
    console.log(JSON.stringify({ ...runs[Math.floor(count / 2)], scores, lcps_ms: lcps }));
  }
} catch (e) {
  console.error(String(e.message ?? e).split('\n')[0].slice(0, 300));
  process.exitCode = 1;
} finally {
  await chrome.kill();
  await server.close();
}
