// Kubernetes output checked by an independent validator: `gpu-share export k8s` for several
// plans, each document validated by `kubernetes-validate` (PyPI, the official Kubernetes JSON
// schemas) in strict mode. A deliberately broken Deployment proves the validator can fail here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = resolve(process.env.GPU_SHARE_BIN ?? join(repo, 'target', 'debug', 'gpu-share'));
const validator = join(repo, '.tools', 'venv', 'bin', 'kubernetes-validate');
const out = join(repo, 'tests', 'artifacts', 'k8s');
// The schema version the validator checks against; pinned so a validator upgrade is a choice.
const KUBERNETES_VERSION = '1.33.0';

function gpuShare(args) {
  const r = spawnSync(cli, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, `gpu-share ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function validate(file) {
  const r = spawnSync(validator, ['--strict', '--kubernetes-version', KUBERNETES_VERSION, file], { encoding: 'utf8' });
  return { ok: r.status === 0, text: `${r.stdout}${r.stderr}` };
}

const plans = {
  'mig-mixed': ['--ask', 'llm:3g.20gb', '--ask', 'embed:0.25', '--ask', 'ocr:1g.5gb', '--mig-capable', '--gpu-model', 'A100-SXM4-40GB'],
  'mig-single': ['--ask', 'a:1g.5gb', '--ask', 'b:1g.5gb', '--mig-capable', '--gpu-model', 'A100-SXM4-40GB', '--mig-strategy', 'single'],
  timeslice: ['--ask', 'notebook-1:0.5', '--ask', 'notebook-2:0.25', '--ask', 'batch:1.5', '--timeslice'],
  mps: ['--ask', 'infer-a:0.3', '--ask', 'infer-b:0.3', '--mps', '--gpu-model', 'H100-SXM5-80GB'],
  whole: ['--ask', 'train:2', '--ask', 'small:0.1'],
  'hostile-names': ['--ask', 'Evil: true #x:0.5', '--ask', '{a: 1}:0.25', '--ask', 'yes:0.25', '--timeslice', '--namespace', 'team-a'],
  // vLLM engines sharing a GPU and in a MIG instance: container args, the MODEL variable, a readiness probe.
  engines: ['--model', `chat=${join(repo, 'core', 'src', 'size', 'published', 'llama_3_1_8b.json')}:context=8192:concurrency=8`,
    '--model', `code=${join(repo, 'core', 'src', 'size', 'published', 'qwen2_5_7b.json')}:context=8192:concurrency=4`,
    '--ask', 'small:1g.10gb', '--engine', 'vllm', '--gpu-model', 'h100', '--mig-capable', '--timeslice', '--gpus', '2'],
};

test('the validator is installed (cargo xtask setup)', () => {
  assert.ok(existsSync(validator), `${validator} is missing: run cargo xtask setup`);
  assert.ok(existsSync(cli), `${cli} is missing: run cargo build -p gpu-share-cli`);
});

test('a broken Deployment fails the validator (the check can fail)', () => {
  mkdirSync(out, { recursive: true });
  const file = join(out, 'broken.yaml');
  writeFileSync(
    file,
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: broken\nspec:\n  replicas: "two"\n' +
      '  selector:\n    matchLabels: {app: broken}\n  template:\n    metadata:\n      labels: {app: broken}\n' +
      '    spec:\n      containers:\n      - name: c\n        image: x\n        resourcez: {}\n',
  );
  const r = validate(file);
  assert.equal(r.ok, false, r.text);
  assert.match(r.text, /replicas|resourcez/);
});

for (const [name, args] of Object.entries(plans)) {
  test(`export k8s (${name}) validates against the Kubernetes ${KUBERNETES_VERSION} schemas`, () => {
    mkdirSync(out, { recursive: true });
    const yaml = gpuShare(['export', 'k8s', ...args]);
    assert.match(yaml, /kind: Deployment/);
    const file = join(out, `${name}.yaml`);
    writeFileSync(file, yaml);
    const r = validate(file);
    assert.ok(r.ok, r.text);
    // Every Deployment document was checked, none skipped for lack of a schema.
    const deployments = (yaml.match(/^kind: Deployment$/gm) ?? []).length;
    const passed = (r.text.match(/passed for resource deployment\//g) ?? []).length;
    assert.equal(passed, deployments, r.text);
  });
}
