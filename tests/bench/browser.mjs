// The bench's browser: headless Debian Chromium in a new profile of its own (nothing cached, nothing
// shared with another run), at the e2e tests' desktop size.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.GPU_SHARE_CHROMIUM ?? '/usr/bin/chromium';

/** A persistent context in a fresh profile; `close()` closes it and removes the profile. */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'gpu-share-bench-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
