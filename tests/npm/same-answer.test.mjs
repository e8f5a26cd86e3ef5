// The same request gives the same answer from the CLI and the npm package: every shared scenario
// packed (`gpu-share pack --json` against `binPack`, key for key) and exported in every format
// (`gpu-share export FORMAT` against `exportPlan`, byte for byte).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binPack, exportPlan, parseScenario } from '@examlops/gpu-sharing';
import { FORMATS, SCENARIOS, camelKeys, cliArgs, runCli } from '../same-answer/scenarios.mjs';

for (const query of SCENARIOS) {
  test(`CLI and npm agree on ${query}`, () => {
    const { asks, caps } = parseScenario(query);
    const cliPack = JSON.parse(runCli(['pack', ...cliArgs(query), '--json']).stdout);
    assert.deepEqual(binPack(asks, null, caps), camelKeys(cliPack));
    for (const format of FORMATS) {
      const cliText = runCli(['export', format, ...cliArgs(query)]).stdout;
      assert.equal(exportPlan(format, asks, null, caps), cliText, `${format} for ${query}`);
    }
  });
}

test('a scenario the CLI refuses, npm refuses too, naming the same field', () => {
  const query = 'ask=x:3g.40gb&mig-capable&gpu-model=A100-SXM4-40GB';
  const { asks, caps } = parseScenario(query);
  assert.throws(() => binPack(asks, null, caps), (e) => e instanceof Error && /3g\.40gb/.test(e.message));
});
