// replay gives what `gpu-share replay --json` gives (keys in camelCase) on the synthetic trace
// (tests/fixtures/replay/): the same seed, the same run, in WebAssembly as natively; replaySvg draws
// what `replay --svg` draws; errors name the package's arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replay, replaySvg } from '@examlops/gpu-sharing';
import { camelKeys, runCli } from '../same-answer/scenarios.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name) => resolve(here, '..', 'fixtures', 'replay', name);
const nodes = readFileSync(fixture('nodes.csv'), 'utf8');
const pods = readFileSync(fixture('pods.csv'), 'utf8');

const thrown = (f) => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
};

test('the same replay as the CLI, run for run', () => {
  const options = { policies: ['fgd', 'gpu-share', 'BestFit'], seeds: [1, 2], tune: '130%' };
  const r = replay(nodes, pods, options);
  const cli = JSON.parse(
    runCli(['replay', '--nodes', fixture('nodes.csv'), '--pods', fixture('pods.csv'), '--policy', 'fgd,gpu-share,best-fit', '--seed', '1,2', '--json']).stdout,
  );
  assert.deepEqual(r, camelKeys(cli));
  assert.equal(r.totalGpus, 73);
  assert.deepEqual(r.policies.map((p) => p.policy), ['fgd', 'gpu-share', 'best-fit']);
  const run = r.policies[0].runs[0];
  assert.equal(run.allocation.length, 131);
  assert.equal(run.placedPods + run.failed.noGpu + run.failed.share + run.failed.whole, run.arrivedPods);
  assert.ok(r.bound.offline <= r.bound.upper);
  assert.deepEqual(replay(nodes, pods, options), r, 'the same seed, the same run');
});

test('defaults: every policy, seed 42, 130%', () => {
  const r = replay(nodes, pods);
  assert.equal(r.policies.length, 7);
  assert.deepEqual(r.policies[0].runs.map((x) => x.seed), [42]);
  assert.equal(r.tune, 1.3);
});

test('replaySvg is the CLI chart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-share-replay-'));
  try {
    const file = join(dir, 'chart.svg');
    runCli(['replay', '--nodes', fixture('nodes.csv'), '--pods', fixture('pods.csv'), '--policy', 'fgd', '--svg', file]);
    const svg = replaySvg(nodes, pods, { policies: ['fgd'] });
    assert.equal(svg, readFileSync(file, 'utf8'));
    assert.match(svg, /data-policy="fgd"/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('errors name the lists with their line, and the options', () => {
  const bad = thrown(() => replay(nodes, 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,2,500\n'));
  assert.equal(bad.field, 'pods.gpu_milli');
  assert.equal(bad.line, 2);
  assert.equal(thrown(() => replay(nodes, pods, { policies: ['fgd', 'FGD'] })).field, 'options.policies[1]');
  assert.equal(thrown(() => replay(nodes, pods, { policies: ['tetris'] })).field, 'options.policies[0]');
  assert.equal(thrown(() => replay(nodes, pods, { tune: 9 })).field, 'options.tune');
  assert.equal(thrown(() => replay(nodes, pods, { seeds: [1.5] })).field, 'options.seeds[0]');
  assert.equal(thrown(() => replay(42, pods)).field, 'nodes');
  assert.equal(thrown(() => replay(nodes, pods, { policy: 'fgd' })).field, 'options');
});
