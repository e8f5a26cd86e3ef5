// `gpu-share export dra` checked by an independent validator: MIG, time-slicing, MPS and whole-GPU plans,
// each written for Kubernetes 1.34 (resource.k8s.io/v1) and 1.32 (v1beta1), every document validated by
// `kubernetes-validate --strict` (PyPI, the official schemas) against that version. The ResourceSlice
// fixtures pass as ResourceSlices too; broken claims prove the validator can fail on these kinds; and a
// Kubernetes without structured parameters is an error with nothing written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = resolve(process.env.GPU_SHARE_BIN ?? join(repo, 'target', 'debug', 'gpu-share'));
const validator = join(repo, '.tools', 'venv', 'bin', 'kubernetes-validate');
const out = join(repo, 'tests', 'artifacts', 'k8s', 'dra');

// The Kubernetes versions of the two API shapes (pinned: a validator upgrade is a choice).
const VERSIONS = { '1.34': '1.34.0', '1.32': '1.32.0' };

function run(args) {
  return spawnSync(cli, args, { encoding: 'utf8' });
}

function gpuShare(args) {
  const r = run(args);
  assert.equal(r.status, 0, `gpu-share ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function validate(file, version) {
  const r = spawnSync(validator, ['--strict', '--kubernetes-version', version, file], { encoding: 'utf8' });
  return { ok: r.status === 0, text: `${r.stdout}${r.stderr}` };
}

const plans = {
  mig: ['--ask', 'llm:3g.40gb', '--ask', 'embed:2g.20gb', '--ask', 'ocr:1g.10gb', '--ask', 'tiny:1g.10gb',
    '--mig-capable', '--gpu-model', 'A100-80GB-PCIe'],
  'mig-two-gpus': ['--ask', 'a:4g.40gb', '--ask', 'b:4g.40gb', '--ask', 'c:3g.40gb', '--mig-capable', '--gpu-model', 'H100-PCIe'],
  timeslice: ['--ask', 'notebook-1:0.5', '--ask', 'notebook-2:0.25', '--ask', 'batch:1.5', '--timeslice', '--gpu-model', 'L4'],
  mps: ['--ask', 'infer-a:0.3', '--ask', 'infer-b:0.2', '--mps', '--gpu-model', 'H100-80GB-HBM3'],
  whole: ['--ask', 'train:2', '--ask', 'small:1'],
  'mixed-hostile': ['--ask', 'Evil: true #x:1g.10gb', '--ask', '{a: 1}:0.5', '--ask', 'yes:0.25', '--mig-capable',
    '--mig-profiles', '1g.10gb', '--timeslice', '--gpu-model', 'A100-80GB-PCIe', '--namespace', 'team-a'],
  // vLLM engines time-sliced on one GPU and one in a MIG instance: container args, MODEL, a readiness probe.
  engines: ['--model', `chat=${join(repo, 'core', 'src', 'size', 'published', 'llama_3_1_8b.json')}:context=8192:concurrency=8`,
    '--model', `code=${join(repo, 'core', 'src', 'size', 'published', 'qwen2_5_7b.json')}:context=8192:concurrency=4`,
    '--ask', 'small:1g.10gb', '--engine', 'vllm', '--gpu-model', 'h100', '--mig-capable', '--timeslice', '--gpus', '2'],
};

test('the validator and the binary are there (cargo xtask setup, cargo build -p gpu-share-cli)', () => {
  assert.ok(existsSync(validator), `${validator} is missing: run cargo xtask setup`);
  assert.ok(existsSync(cli), `${cli} is missing: run cargo build -p gpu-share-cli`);
});

test('broken claims fail the validator (the check can fail on DRA kinds)', () => {
  mkdirSync(out, { recursive: true });
  // v1's `exactly` in a v1beta1 claim, and a v1 request with its fields flat.
  const cases = [
    ['1.32.0', 'resource.k8s.io/v1beta1', '      exactly: {deviceClassName: gpu.nvidia.com}\n'],
    ['1.34.0', 'resource.k8s.io/v1', '      deviceClassName: gpu.nvidia.com\n'],
  ];
  for (const [version, apiVersion, body] of cases) {
    const file = join(out, `broken-${version}.yaml`);
    writeFileSync(file, `apiVersion: ${apiVersion}\nkind: ResourceClaim\nmetadata:\n  name: broken\n` +
      `spec:\n  devices:\n    requests:\n    - name: gpu\n${body}`);
    const r = validate(file, version);
    assert.equal(r.ok, false, r.text);
  }
});

for (const [name, args] of Object.entries(plans)) {
  for (const [k8s, version] of Object.entries(VERSIONS)) {
    test(`export dra (${name}) for Kubernetes ${k8s} validates strictly`, () => {
      mkdirSync(out, { recursive: true });
      const yaml = gpuShare(['export', 'dra', '--k8s-version', k8s, ...args]);
      const api = k8s === '1.34' ? 'resource.k8s.io/v1' : 'resource.k8s.io/v1beta1';
      const claims = (yaml.match(/^kind: ResourceClaim(Template)?$/gm) ?? []).length;
      assert.ok(claims > 0, yaml);
      assert.equal((yaml.match(new RegExp(`^apiVersion: ${api.replace(/[./]/g, '\\$&')}$`, 'gm')) ?? []).length, claims, yaml);
      const file = join(out, `${name}-${k8s}.yaml`);
      writeFileSync(file, yaml);
      const r = validate(file, version);
      assert.ok(r.ok, r.text);
      // Every document was checked, none skipped for lack of a schema.
      const documents = (yaml.match(/^kind: /gm) ?? []).length;
      const passed = (r.text.match(/ passed for resource /g) ?? []).length;
      assert.equal(passed, documents, r.text);
    });
  }
}

test('time-sliced tenants reference one ResourceClaim with a TimeSlicing GpuConfig; MPS claims carry a thread percentage', () => {
  const ts = gpuShare(['export', 'dra', '--time-slice-interval', 'Short', ...plans.timeslice]);
  const shared = [...ts.matchAll(/resourceClaimName: (\S+)/g)].map((m) => m[1]);
  assert.ok(shared.length >= 2 && new Set(shared).size < shared.length, ts);
  assert.match(ts, /strategy: TimeSlicing\n\s+timeSlicingConfig:\n\s+interval: Short/);
  const mps = gpuShare(['export', 'dra', ...plans.mps]);
  assert.match(mps, /strategy: MPS\n\s+mpsConfig:\n\s+defaultActiveThreadPercentage: 30\n\s+defaultPinnedDeviceMemoryLimit: "?\d+Mi"?\n/);
});

test('Kubernetes without structured parameters is a clear error with nothing written', () => {
  mkdirSync(out, { recursive: true });
  const file = join(out, 'old.yaml');
  rmSync(file, { force: true });
  for (const k8s of ['1.30', '1.31']) {
    const r = run(['export', 'dra', '--k8s-version', k8s, '-o', file, ...plans.mig]);
    assert.notEqual(r.status, 0);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /--k8s-version/);
    assert.match(r.stderr, /1\.32/);
    assert.ok(!existsSync(file), 'nothing written');
  }
});

test('the ResourceSlice fixtures are valid ResourceSlices for Kubernetes 1.34', () => {
  mkdirSync(out, { recursive: true });
  const fixtures = join(repo, 'tests', 'fixtures', 'resourceslices');
  const json = JSON.parse(readFileSync(join(fixtures, 'h100-pcie-dynamic-mig.json'), 'utf8'));
  const file = join(out, 'fixture-dynamic.yaml');
  writeFileSync(file, json.items.map((i) => JSON.stringify(i)).join('\n---\n'));
  const r = validate(file, VERSIONS['1.34']);
  assert.ok(r.ok, r.text);
  assert.equal((r.text.match(/ passed for resource resourceslice\//g) ?? []).length, json.items.length, r.text);
  // The YAML fixture, through gpu-share's own reading (detect), is the same two nodes and four GPUs.
  const detected = JSON.parse(gpuShare(['detect', '--json', '--from', join(fixtures, 'a100-80gb-pcie-static-mig.yaml')]));
  assert.equal(detected.gpus.length, 4);
  assert.equal(detected.gpus.filter((g) => g.mig_devices.length === 4).length, 2);
});
