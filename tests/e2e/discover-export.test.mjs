// Discovery and export in the browser: a real `nvidia-smi -q -x` capture fills the capabilities form, garbage changes
// nothing, a MIG plan exports as mig-parted and Kubernetes configuration (shown, downloaded), hostile names stay text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertClean, downloadText, open, paste, repo, scrollToExport, shot, start } from './harness.mjs';

// The real captures, kept unchanged in the repository's tests/fixtures/.
const FIXTURES = resolve(repo, 'tests', 'fixtures', 'nvidia-smi');
const fixture = (name) => readFileSync(join(FIXTURES, name), 'utf8');

const SEED = '?ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice';
const MIG = '?ask=x:3g.20gb&ask=y:2g.10gb&ask=z:1g.5gb&gpus=1&mig-capable';

/** The capabilities form as the user sees it. */
async function capsForm(page) {
  return {
    model: await page.locator('#gpu-model').inputValue(),
    count: await page.locator('#gpu-count').inputValue(),
    mig: await page.locator('#mig').isChecked(),
    mps: await page.locator('#mps').isChecked(),
    timeslice: await page.locator('#timeslice').isChecked(),
  };
}

/** Pastes text into the discovery box (as a paste does: the whole text, one input event) and presses "Fill capabilities". */
async function pasteAndFill(page, text) {
  await paste(page, '[data-testid="detect-input"]', text);
  await page.click('[data-testid="detect-fill"]');
}

/** The export panel's text once it holds `needle`. */
async function exportHolding(page, needle) {
  await scrollToExport(page);
  await page.waitForFunction(
    (n) => document.querySelector('[data-testid="export-output"]')?.value.includes(n),
    needle,
    { timeout: 10000 },
  );
  return page.locator('[data-testid="export-output"]').inputValue();
}

test('a real nvidia-smi -q -x capture (8 × H100) fills the capabilities form; the capture stays out of the link', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  const xml = fixture('qx-h100.xml');
  await pasteAndFill(page, xml);
  const summary = page.locator('[data-testid="detect-summary"]');
  await summary.waitFor();
  const text = await summary.textContent();
  assert.match(text, /8 × H100-80GB-HBM3, MIG capable \(disabled\)/, text);
  assert.match(text, /nvidia-smi -q -x/, text);
  // The inventory's notes say what was assumed (MIG disabled needs a reset; sharing not visible to nvidia-smi).
  assert.match(text, /disabled/);
  assert.ok((await summary.locator('.detect-notes li').count()) >= 1, 'notes listed');
  const form = await capsForm(page);
  assert.equal(form.model, 'H100-80GB-HBM3');
  assert.match(await page.locator('#gpu-model option:checked').textContent(), /^H100-80GB-HBM3 \(/);
  assert.equal(form.count, '8');
  // MIG capable but disabled: said so, and MIG stays off until the user turns it on.
  assert.equal(form.mig, false);
  assert.match(await page.textContent('[data-testid="detect-mig-disabled"]'), /MIG capable, disabled on 8 GPUs/);
  assert.match(await page.textContent('[data-testid="mig-capable-disabled"]'), /tick MIG to plan with it/);
  assert.equal(await page.locator('[data-testid="summary-mig-reset"]').count(), 0);
  await page.getByLabel('MIG (hardware partitions)').check();
  assert.match(await page.textContent('[data-testid="summary-mig-reset"]'), /disabled on 8 of your GPUs/);
  // The plan follows the filled caps, and the link carries the caps but not the pasted text.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('gpus') === '8');
  const params = new URLSearchParams(new URL(page.url()).search);
  assert.equal(params.get('gpu-model'), 'H100-80GB-HBM3');
  assert.ok(params.has('mig-capable'), page.url(), 'turned on by the user');
  assert.ok(page.url().length < 400, `the link is short (${page.url().length} chars)`);
  assert.doesNotMatch(page.url(), /nvidia_smi_log|product_name/);
  assert.equal(await page.locator('[data-testid="detect-error"]').count(), 0);
  await shot(page.locator('section.detect'), 'detect-h100');
  await assertClean(assert, page, watch);
});

test('garbage pasted into the discovery box shows the error and changes nothing', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  const before = await capsForm(page);
  const url = page.url();
  await pasteAndFill(page, 'hello, this is not nvidia-smi output\n<<<>>>\n');
  const error = page.locator('[data-testid="detect-error"]');
  await error.waitFor();
  const message = await error.textContent();
  assert.ok(message.length > 20, message);
  assert.match(message, /form is unchanged/);
  assert.deepEqual(await capsForm(page), before);
  assert.equal(page.url(), url);
  assert.equal(await page.locator('[data-testid="detect-summary"]').count(), 0);
  // An XML capture cut short names the line where it stopped.
  await pasteAndFill(page, fixture('qx-a100.xml').split('\n').slice(0, 40).join('\n').replace(/<\/product_name>/, ''));
  await page.waitForFunction((m) => document.querySelector('[data-testid="detect-error"]')?.textContent !== m, message);
  assert.match(await error.textContent(), /line \d+/);
  assert.deepEqual(await capsForm(page), before);
  assert.equal(await page.textContent('[data-testid="gpus-used"]'), '2');
  await assertClean(assert, page, watch);
});

test('a MIG plan exports as a mig-parted config and Kubernetes YAML; the YAML downloads', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, MIG);
  const output = page.locator('[data-testid="export-output"]');
  // Far below the fold the panel has made nothing yet (a large plan's text costs every edit).
  const below = await page.evaluate(() => document.querySelector('section.export').getBoundingClientRect().top / innerHeight);
  assert.ok(below > 1.5, `the export panel starts ${below.toFixed(2)} viewports down`);
  assert.equal(await output.inputValue(), '');
  // Kubernetes Deployments are the default format.
  const k8s = await exportHolding(page, 'nvidia.com/mig-');
  assert.match(k8s, /nvidia\.com\/mig-3g\.20gb/);
  assert.match(k8s, /kind: Deployment/);
  const file = await downloadText(page, '[data-testid="export-download"]');
  assert.equal(file.name, 'gpu-share-k8s.yaml');
  assert.equal(file.text, k8s);

  await page.selectOption('[data-testid="export-format"]', 'mig-parted');
  const parted = await exportHolding(page, 'mig-devices');
  assert.match(parted, /mig-configs/);
  assert.match(parted, /3g\.20gb/);
  assert.match(await page.textContent('[data-testid="export-download"]'), /gpu-share-mig-parted\.yaml/);

  // Every format renders something for this plan.
  for (const format of ['kserve', 'device-plugin', 'mig-commands', 'slurm']) {
    await page.selectOption('[data-testid="export-format"]', format);
    await page.waitForFunction(
      (prev) => {
        const v = document.querySelector('[data-testid="export-output"]')?.value ?? '';
        return v.length > 0 && v !== prev;
      },
      parted,
    );
  }
  await page.selectOption('[data-testid="export-format"]', 'mig-commands');
  assert.match(await output.inputValue(), /nvidia-smi mig/);

  // A namespace Kubernetes refuses is flagged next to the field; fixing it brings the output back.
  await page.selectOption('[data-testid="export-format"]', 'k8s');
  await page.fill('[data-testid="export-namespace"]', 'Bad_Namespace!');
  const nsError = page.locator('[data-testid="export-namespace-error"]');
  await nsError.waitFor();
  assert.ok((await nsError.textContent()).length > 0);
  assert.equal(await output.inputValue(), '');
  assert.equal(await page.getAttribute('[data-testid="export-namespace"]', 'aria-invalid'), 'true');
  await page.fill('[data-testid="export-namespace"]', 'ml-team');
  const namespaced = await exportHolding(page, 'namespace: ml-team');
  assert.match(namespaced, /nvidia\.com\/mig-/);
  assert.equal(await nsError.count(), 0);

  // Copy: granted, the clipboard holds the text; otherwise the page says how to copy by hand.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  await page.click('[data-testid="export-copy"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="export-status"]')?.textContent.length > 0);
  const status = await page.textContent('[data-testid="export-status"]');
  if (status === 'Copied.') {
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), namespaced);
  } else {
    assert.match(status, /Copying is blocked/);
  }
  await shot(page.locator('section.export'), 'export-mig');
  await assertClean(assert, page, watch);
});

test('copying when the clipboard is denied says how to copy by hand', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, SEED);
  await exportHolding(page, 'kind:');
  // A page where the clipboard API refuses (as a denied permission does).
  await page.evaluate(() => {
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) },
    });
  });
  await page.click('[data-testid="export-copy"]');
  await page.waitForFunction(() => /Copying is blocked/.test(document.querySelector('[data-testid="export-status"]')?.textContent ?? ''));
  // The text is selected for the keyboard shortcut.
  const selected = await page.evaluate(() => {
    const a = document.querySelector('[data-testid="export-output"]');
    return a.selectionEnd - a.selectionStart === a.value.length && document.activeElement === a;
  });
  assert.ok(selected, 'the export text is selected');
  await assertClean(assert, page, watch);
});

test('a hostile ask name is text in the export, never markup, and raises no dialog', async (t) => {
  const { page, server, watch } = await start(t);
  const evil = '<img src=x onerror=alert(1)>: true';
  await open(page, server, `?ask=${encodeURIComponent(`${evil}:0.5`)}&ask=ok:0.25&gpus=1&timeslice`);
  assert.ok((await page.textContent('[data-testid="plan-table"]')).includes(evil));
  const k8s = await exportHolding(page, 'onerror=alert(1)');
  assert.ok(k8s.includes('<img src=x onerror=alert(1)>'), k8s);
  // The name is quoted in YAML, never a bare `…: true` mapping.
  assert.ok(!k8s.split('\n').some((l) => /^\s*-?\s*<img src=x onerror=alert\(1\)>: true\s*$/.test(l)), k8s);
  for (const format of ['kserve', 'device-plugin', 'slurm']) {
    await page.selectOption('[data-testid="export-format"]', format);
    await page.waitForTimeout(100);
  }
  assert.equal(await page.locator('img').count(), 0);
  await page.selectOption('[data-testid="export-format"]', 'k8s');
  await exportHolding(page, 'kind: Deployment');
  await page.waitForTimeout(300);
  await shot(page.locator('section.export'), 'export-xss-as-text');
  await assertClean(assert, page, watch, { dialogs: 0 });
});

test('discovery and export work in dark mode at phone width without sideways scrolling', async (t) => {
  const { page, server, watch } = await start(t, { colorScheme: 'dark', viewport: { width: 390, height: 844 } });
  await open(page, server, MIG);
  await exportHolding(page, 'nvidia.com/mig-');
  // The file picker reads a capture the same way (the file is one of the real captures in tests/fixtures/).
  await page.setInputFiles('[data-testid="detect-file"]', join(FIXTURES, 'qx-a100.xml'));
  await page.locator('[data-testid="detect-summary"]').waitFor();
  assert.match(await page.textContent('[data-testid="detect-summary"]'), /1 × A100-SXM4-40GB/);
  assert.equal(await page.locator('#gpu-count').inputValue(), '1');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px at phone width`);
  await shot(page, 'discover-export-phone-dark', { fullPage: true });
  await assertClean(assert, page, watch);
});

test('DRA claims: the Kubernetes version picks the API, one it cannot serve is refused at its field; pasted ResourceSlice YAML fills the form', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:0.5&ask=b:0.5&gpu-model=A100-SXM4-40GB&timeslice');
  await scrollToExport(page);
  await page.selectOption('[data-testid="export-format"]', 'dra');
  const v1 = await exportHolding(page, 'kind: ResourceClaim');
  assert.match(v1, /apiVersion: resource\.k8s\.io\/v1\n/);
  assert.match(v1, /TimeSlicing/);
  await page.fill('[data-testid="export-k8s-version"]', '1.32');
  const beta = await exportHolding(page, 'resource.k8s.io/v1beta1');
  assert.match(beta, /kind: ResourceClaim/);
  await page.fill('[data-testid="export-k8s-version"]', '1.30');
  const versionError = page.locator('[data-testid="export-k8s-version-error"]');
  await versionError.waitFor();
  assert.ok((await versionError.textContent()).length > 0);
  assert.equal(await page.locator('[data-testid="export-output"]').inputValue(), '');
  assert.equal(await page.getAttribute('[data-testid="export-k8s-version"]', 'aria-invalid'), 'true');

  // `kubectl get resourceslices -o yaml` pasted into discovery: the boards and their MIG devices.
  const slices = readFileSync(resolve(repo, 'tests', 'fixtures', 'resourceslices', 'a100-80gb-pcie-static-mig.yaml'), 'utf8');
  await pasteAndFill(page, slices);
  await page.waitForFunction(() => document.querySelector('#gpu-model')?.value === 'A100-80GB-PCIe');
  assert.equal((await capsForm(page)).model, 'A100-80GB-PCIe');
  await assertClean(assert, page, watch);
});
