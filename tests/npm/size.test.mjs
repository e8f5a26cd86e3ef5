// sizeModel gives what `gpu-share size --json` gives (keys in camelCase), from a config.json object or
// its text; errors name the package's arguments; the result type-checks as the declared SizeResponse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binPack, exportPlan, sizeModel } from '@examlops/gpu-sharing';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name) => resolve(here, '..', 'fixtures', 'hf-config', name);
const text = (name) => readFileSync(fixture(name), 'utf8');

const thrown = (f) => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
};

test("names the ask by the config's _name_or_path, as the CLI and the page do", () => {
  const config = { ...JSON.parse(text('Meta-Llama-3-8B.json')), _name_or_path: 'meta-llama/Meta-Llama-3-8B' };
  assert.equal(sizeModel(config).askName, 'Meta-Llama-3-8B');
  assert.equal(sizeModel({ ...config, _name_or_path: 'org/x:0.5' }).askName, 'llama', 'x:0.5 would read as a share');
});

test('sizes a published config from its object or its text', () => {
  const fromText = sizeModel(text('Meta-Llama-3-8B.json'));
  const fromObject = sizeModel(JSON.parse(text('Meta-Llama-3-8B.json')));
  assert.deepEqual(fromObject, fromText);
  assert.equal(fromText.architecture, 'LlamaForCausalLM');
  assert.equal(fromText.parameters, 8_030_261_248);
  assert.equal(fromText.weightsBytes, 16_060_522_496);
  assert.equal(fromText.kvCacheBytes, 131_072 * 8192);
  assert.equal(fromText.askMemory, '19404MiB');
  assert.equal(fromText.askName, 'llama', "no _name_or_path: the config's model_type");
  assert.equal(fromText.parameterParts[0].name, 'embeddings');
  assert.ok(fromText.explanation.some((l) => l.startsWith('not counted: the CUDA context')));
});

test('the options and the fit, as the CLI takes them', () => {
  const r = sizeModel(JSON.parse(text('Mixtral-8x7B-v0.1.json')), {
    dtype: 'int4',
    kvDtype: 'fp8',
    context: 4096,
    concurrency: 2,
    fit: { gpuModel: 'H100-80GB-HBM3' },
  });
  assert.equal(r.parameters, 46_702_792_704);
  assert.equal(r.dtype, 'int4');
  assert.equal(r.kvDtype, 'fp8');
  assert.equal(r.kvCacheBytes, 65_536 * 4096 * 2);
  assert.deepEqual(r.overheads.map((o) => o.name), ['activations', 'quantization scales']);
  assert.equal(r.fit.fits, true);
  assert.ok(r.fit.maxConcurrency > 2);
  const mig = sizeModel(text('gemma-2b.json'), { fit: { gpuModel: 'a100-80gb', profile: '1g.10gb' } });
  assert.equal(mig.fit.budgetBytes, (9728 - 500) * 1024 * 1024);
  assert.equal(sizeModel(text('gemma-2b.json'), { fit: '40GiB' }).fit.budgetBytes, 40 * 2 ** 30);
});

test('the same answer as gpu-share size --json', () => {
  const cli = resolve(here, '..', '..', 'target', 'debug', 'gpu-share');
  let out;
  try {
    out = execFileSync(cli, ['size', '--config', fixture('DeepSeek-V2-Lite.json'), '--context', '32768', '--fit', '3g.40gb', '--gpu-model', 'h100', '--json'], { encoding: 'utf8', env: {} });
  } catch (e) {
    if (e.code === 'ENOENT') return; // the CLI is not built: the Rust tests compare it
    throw e;
  }
  const camel = (v) =>
    Array.isArray(v) ? v.map(camel) : v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/_(\w)/g, (_, c) => c.toUpperCase()), camel(x)]))
      : v;
  const npm = sizeModel(text('DeepSeek-V2-Lite.json'), { context: 32768, fit: { gpuModel: 'h100', profile: '3g.40gb' } });
  assert.deepEqual(npm, camel(JSON.parse(out)));
});

test('engine: vLLM as it starts on the device, forward and inverse, the same as gpu-share size --engine', () => {
  const config = text('Meta-Llama-3-8B.json');
  const forward = sizeModel(config, { fit: { gpuModel: 'h100' }, engine: { name: 'vllm', gpuMemoryUtilization: 0.95 } });
  const e = forward.engine;
  assert.equal(e.name, 'vllm');
  assert.equal(e.gpuMemoryUtilization, 0.95);
  assert.equal(e.maxModelLen, 8192, "the config's positions");
  assert.ok(e.starts && e.perGpu.kvCacheBytes > 50 * 2 ** 30, JSON.stringify(e));
  assert.deepEqual(e.args, ['--gpu-memory-utilization', '0.95', '--max-model-len', '8192']);
  const inverse = sizeModel(config, { context: 8192, concurrency: 20, fit: { gpuModel: 'h100' }, engine: { name: 'vllm' } });
  assert.ok(inverse.engine.maxConcurrency >= 20 && inverse.engine.gpuMemoryUtilization < 0.95);
  const refused = sizeModel(config, { concurrency: 5000, fit: { gpuModel: 'h100' }, engine: { name: 'vllm' } });
  assert.equal(refused.engine.starts, false, 'a plan the engine would refuse says so');
  const cli = resolve(here, '..', '..', 'target', 'debug', 'gpu-share');
  const argv = ['size', '--config', fixture('Meta-Llama-3-8B.json'), '--engine', 'vllm', '--gpu-model', 'h100', '--context', '8192', '--concurrency', '20', '--json'];
  const run = spawnSync(cli, argv, { encoding: 'utf8', env: {} });
  if (run.error?.code === 'ENOENT') return; // the CLI is not built: the Rust tests compare it
  assert.equal(run.status, 0, run.stderr);
  assert.equal(JSON.stringify(inverse.engine.args), JSON.stringify(JSON.parse(run.stdout).engine.args));
  assert.equal(inverse.engine.perGpu.kvCacheBytes, JSON.parse(run.stdout).engine.per_gpu.kv_cache_bytes);
});

test('binPack: models served by vLLM engines on one GPU, in start order, the same as gpu-share pack --model', () => {
  const config = text('Meta-Llama-3-8B.json');
  const models = [
    { name: 'chat', config, context: 8192, concurrency: 8 },
    { name: 'batch', config, context: 4096, concurrency: 16 },
  ];
  const caps = { supportsTimeslicing: true, gpuModel: 'h100' };
  const r = binPack([{ name: 'a', fraction: 0.1 }], null, caps, { models, engine: { name: 'vllm' } });
  assert.equal(r.gpusUsed, 1);
  const [device] = r.engines;
  assert.deepEqual(device.engines.map((e) => [e.ask, e.startOrder]), [['chat', 1], ['batch', 2]]);
  assert.ok(device.engines.every((e) => e.maxConcurrency >= 8 && e.args[0] === '--gpu-memory-utilization'));
  const held = device.engines.reduce((sum, e) => sum + e.footprintBytes, 0);
  assert.ok(held <= device.totalBytes);
  const formula = binPack([], null, caps, { models: [models[0]] });
  assert.equal(formula.engines, undefined, 'without an engine, a model is an ask of its sized memory');
  assert.equal(formula.choices[0].memoryMib, 26572, 'gpu-share size: 8,192 tokens, 8 sequences');
  const noModel = thrown(() => binPack([], null, { supportsTimeslicing: true }, { models, engine: { name: 'vllm' } }));
  assert.equal(noModel.field, 'gpuModel');
  const broken = thrown(() => binPack([], null, caps, { models: [{ name: 'x', config: '{' }] }));
  assert.equal(broken.field, 'options.models[0].config');
  const cli = resolve(here, '..', '..', 'target', 'debug', 'gpu-share');
  const run = spawnSync(cli, ['pack', '--ask', 'a:0.1', '--model', `chat=${fixture('Meta-Llama-3-8B.json')}:context=8192:concurrency=8`,
    '--model', `batch=${fixture('Meta-Llama-3-8B.json')}:context=4096:concurrency=16`, '--engine', 'vllm', '--timeslice', '--gpu-model', 'h100', '--json'],
  { encoding: 'utf8', env: {} });
  if (run.error?.code === 'ENOENT') return; // the CLI is not built: the Rust tests compare it
  assert.equal(run.status, 0, run.stderr);
  const native = JSON.parse(run.stdout).engines[0].engines;
  assert.deepEqual(device.engines.map((e) => e.args), native.map((e) => e.args));
});

test('exportPlan launch: the engines\' vllm serve lines in start order', () => {
  const config = text('Meta-Llama-3-8B.json');
  const models = [{ name: 'chat', config, context: 8192, concurrency: 8 }, { name: 'batch', config, context: 4096, concurrency: 16 }];
  const script = exportPlan('launch', [], null, { supportsTimeslicing: true, gpuModel: 'h100' }, { models, engine: { name: 'vllm' } });
  const serve = script.split('\n').filter((l) => l.includes('vllm serve'));
  assert.equal(serve.length, 2);
  assert.match(serve[0], /^CUDA_VISIBLE_DEVICES="\$DEVICE_GPU_0" vllm serve "\$MODEL_CHAT" --port 8000 --gpu-memory-utilization /);
  assert.match(serve[1], /"\$MODEL_BATCH" --port 8001 /);
  assert.equal(thrown(() => exportPlan('launch', [{ name: 'a', fraction: 0.5 }], null, { supportsTimeslicing: true })).field, 'options.models');
});

test('errors name the config field or the option', () => {
  const config = JSON.parse(text('Meta-Llama-3-8B.json'));
  const unknown = thrown(() => sizeModel({ ...config, architectures: ['FalconForCausalLM'] }));
  assert.equal(unknown.field, 'config.architectures');
  assert.match(unknown.message, /"FalconForCausalLM"/);
  const { num_key_value_heads: _, ...missing } = config;
  assert.equal(thrown(() => sizeModel(missing)).field, 'config.num_key_value_heads');
  const badDtype = thrown(() => sizeModel(config, { kvDtype: 'fp4' }));
  assert.ok(badDtype instanceof TypeError);
  assert.equal(badDtype.field, 'options.kvDtype');
  const zero = thrown(() => sizeModel(config, { concurrency: 0 }));
  assert.ok(zero instanceof RangeError);
  assert.equal(zero.field, 'options.concurrency');
  assert.equal(thrown(() => sizeModel(config, { fit: { gpuModel: 'Z9' } })).field, 'options.fit.gpuModel');
  assert.equal(thrown(() => sizeModel(config, { fit: 2 ** 30 })).field, 'options.fit');
  assert.equal(thrown(() => sizeModel(config, { context: 1.5 })).field, 'options.context');
  assert.equal(thrown(() => sizeModel(config, { window: 4 })).field, 'options');
  assert.equal(thrown(() => sizeModel(null)).field, 'config');
  assert.equal(thrown(() => sizeModel('{')).field, 'config');
  const h100 = { gpuModel: 'h100' };
  assert.equal(thrown(() => sizeModel(config, { fit: h100, engine: { name: 'sglang' } })).field, 'options.engine.name');
  assert.equal(thrown(() => sizeModel(config, { fit: h100, engine: { name: 'vllm', tensorParallelSize: 0 } })).field, 'options.engine.tensorParallelSize');
  assert.equal(thrown(() => sizeModel(config, { fit: h100, engine: { name: 'vllm', gpuMemoryUtilization: 2 } })).field, 'options.engine.gpuMemoryUtilization');
  assert.equal(thrown(() => sizeModel(config, { engine: { name: 'vllm' } })).field, 'options.fit');
  assert.equal(thrown(() => sizeModel(config, { fit: h100, engine: {} })).field, 'options.engine');
});

test('the result type-checks as SizeResponse', () => {
  const pkg = dirname(fileURLToPath(import.meta.resolve('@examlops/gpu-sharing/package.json')));
  const tsc = join(here, 'node_modules', '.bin', 'tsc');
  const r = sizeModel(text('Qwen1.5-MoE-A2.7B-Chat-GPTQ-Int4.json'), { context: 8192, fit: '20GiB' });
  const engine = sizeModel(text('Meta-Llama-3-8B.json'), { fit: { gpuModel: 'h100' }, engine: { name: 'vllm' } });
  const dir = mkdtempSync(join(tmpdir(), 'gpu-sharing-size-'));
  try {
    writeFileSync(
      join(dir, 'results.mts'),
      `import type * as T from ${JSON.stringify(join(pkg, 'index.js'))};\n` +
        `import { sizeModel } from ${JSON.stringify(join(pkg, 'index.js'))};\n` +
        `export const r: T.SizeResponse = ${JSON.stringify(r)};\n` +
        `export const e: T.SizeResponse = ${JSON.stringify(engine)};\n` +
        `export const o: T.EngineOptions = { name: "vllm", gpuMemoryUtilization: 0.9, tensorParallelSize: 2 };\n` +
        `export const s: T.SizeResponse = sizeModel({}, { dtype: "bfloat16", fit: { gpuModel: "a100" } });\n` +
        `// @ts-expect-error: not a dtype\nexport const bad = sizeModel("{}", { dtype: "fp4" });\n`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: [] },
        files: ['results.mts'],
      }),
    );
    const run = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('plan: the sized model as an ask of its memory, planned on the caps', () => {
  const r = sizeModel(text('Meta-Llama-3-8B.json'), {
    context: 8192,
    concurrency: 4,
    plan: { name: 'llama', caps: { supportsMig: true, gpuModel: 'H100-80GB-HBM3' } },
  });
  assert.equal(r.askMemory, '22476MiB');
  assert.equal(r.plan.name, 'llama');
  assert.equal(r.plan.memoryMib, 22476);
  assert.equal(r.plan.migProfile, '3g.40gb');
  assert.equal(thrown(() => sizeModel(text('gemma-2b.json'), { plan: { name: '' } })).field, 'options.plan.name');
});
