// GPU memory as the second dimension on the page (issue #14): memory in the asks table and the link, the packing
// keeping each shared GPU within the memory it offers, the diagram's memory bars, and memory no GPU holds marked at
// its row while the rest is planned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertClean, open, repo, shot, start } from './harness.mjs';

test('three 12 GiB asks on one A10: one placed, two unplaced for memory, drawn with memory bars', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:12GiB&ask=b:12GiB&ask=c:12GiB&gpus=1&timeslice&gpu-model=A10');
  assert.equal(await page.getByLabel('Ask 1 GPU memory').inputValue(), '12GiB');
  assert.equal(await page.getByLabel('Ask 1 fraction').inputValue(), '');
  assert.match(await page.textContent('[data-testid="summary-unplaced"]'), /2 unplaced/);
  // The diagram lists the unplaced asks with their reasons.
  const reasons = await page.textContent('[data-testid="packing-diagram"]');
  assert.match(reasons, /memory: 12 GiB asked \(12\.49 GiB with its CUDA context\), 9\.41 GiB left on GPU 0/);
  const diagram = page.locator('[data-testid="packing-diagram"]');
  assert.equal(await diagram.locator('g.mem[class*="c"]:not(.free)').count(), 1, 'one ask in the memory bar');
  assert.match(await diagram.locator('g.lane[data-gpu="0"] > title').textContent(), /12\.49 GiB of 21\.89 GiB memory/);
  await shot(page.locator('[data-testid="packing-diagram"]'), 'memory-a10');
  await assertClean(assert, page, watch);
});

test('the CUDA context is the user\'s to set, and rides in the link', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:11GiB&ask=b:10GiB&gpus=1&timeslice&gpu-model=A10');
  assert.match(await page.textContent('[data-testid="summary-unplaced"]'), /1 unplaced/);
  await page.fill('[data-testid="context-overhead"]', '0');
  await page.waitForFunction(() => /0 unplaced|every ask/i.test(document.querySelector('[data-testid="summary-unplaced"]')?.textContent ?? ''));
  await page.waitForFunction(() => location.search.includes('context-overhead=0'));
  await page.fill('[data-testid="context-overhead"]', 'lots');
  await page.waitForSelector('#context-overhead[aria-invalid="true"]');
  await assertClean(assert, page, watch);
});

test('memory no GPU of the cluster holds is marked at its row; the rest is planned', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:0.5&ask=b:0.25:2GiB&timeslice&gpu-model=T4');
  await page.getByLabel('Ask 2 GPU memory').fill('40GiB');
  await page.waitForSelector('tr.row-error');
  const row = page.locator('[data-testid="ask-row"]').nth(1);
  assert.match(await row.textContent(), /more than one T4 offers/);
  assert.match(await row.textContent(), /smallest GPU in the catalogue that holds it/);
  assert.equal(await page.locator('[data-testid="plan-table"] tr.choice').count(), 1);
  // A memory cell that is not memory is an error at the field.
  await page.getByLabel('Ask 2 GPU memory').fill('12 apples');
  await page.waitForSelector('input[name="memory"][aria-invalid="true"]');
  await page.getByLabel('Ask 2 GPU memory').fill('2GiB');
  await page.waitForFunction(() => document.querySelectorAll('tr.row-error').length === 0);
  assert.equal(await page.locator('[data-testid="plan-table"] tr.choice').count(), 2);
  await assertClean(assert, page, watch);
});

test('size from a model: a pasted config.json becomes an ask of its memory, planned with the rest', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:0.25&mig-capable&gpu-model=H100-80GB-HBM3');
  const published = JSON.parse(readFileSync(join(repo, 'tests', 'fixtures', 'hf-config', 'Meta-Llama-3-8B.json'), 'utf8'));
  // As transformers writes a saved model's config: the core names the ask by its last part.
  const config = JSON.stringify({ _name_or_path: 'meta-llama/Meta-Llama-3-8B', ...published });
  await page.fill('#size-paste', config);
  await page.fill('#size-context', '8192');
  await page.fill('#size-concurrency', '4');
  await page.waitForFunction(() => /21\.95 GiB/.test(document.querySelector('[data-testid="size-total"]')?.textContent ?? ''));
  assert.match(await page.textContent('[data-testid="size-headline"]'), /LlamaForCausalLM: 8,030,261,248 parameters/);
  await page.click('[data-testid="size-add"]');
  await page.waitForSelector('[data-testid="size-added"]');
  assert.equal(await page.locator('[data-testid="ask-row"]').count(), 2);
  assert.equal(await page.getByLabel('Ask 2 GPU memory').inputValue(), '22476MiB');
  assert.equal(await page.getByLabel('Ask 2 name').inputValue(), 'Meta-Llama-3-8B');
  // The same answer as gpu-share size --plan: a 40 GB-class instance.
  await page.waitForFunction(() => /3g\.40gb/.test(document.querySelector('[data-testid="plan-table"]')?.textContent ?? ''));
  await page.fill('#size-paste', '{"architectures": ["NotAModel"]}');
  assert.match(await page.textContent('[data-testid="size-error"]'), /NotAModel/);
  await shot(page.locator('section.size'), 'size-panel');
  await assertClean(assert, page, watch);
});

test('size from a model on vLLM: the engine on the Cluster form\'s GPU, the smallest utilisation and the flags to copy', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:0.25&gpu-model=H100-80GB-HBM3');
  await page.fill('#size-paste', readFileSync(join(repo, 'tests', 'fixtures', 'hf-config', 'Meta-Llama-3-8B.json'), 'utf8'));
  await page.fill('#size-context', '8192');
  await page.fill('#size-concurrency', '20');
  await page.selectOption('#size-engine', 'vllm');
  // The same answer as `gpu-share size --config tests/fixtures/hf-config/Meta-Llama-3-8B.json --engine vllm
  // --gpu-model h100 --context 8192 --concurrency 20`.
  await page.waitForSelector('[data-testid="size-engine-flags"]');
  assert.equal(await page.textContent('[data-testid="size-engine-flags"]'), '--gpu-memory-utilization 0.47 --max-model-len 8192');
  assert.match(await page.textContent('[data-testid="size-engine-headline"]'), /^vllm 0\.19\.1 at gpu_memory_utilization 0\.47: .* 20 sequences of 8,192 tokens at once$/);
  // An instance too small: the engine's answer, not a plan it would refuse.
  await page.fill('#size-profile', '1g.10gb');
  await page.waitForSelector('[data-testid="size-engine-refused"]');
  assert.match(await page.textContent('[data-testid="size-engine-refused"]'), /vLLM would not start/);
  // A utilisation that is not one is an error at its field.
  await page.fill('#size-profile', '');
  await page.fill('#size-utilization', '1.5');
  await page.waitForFunction(() => /GPU memory utilisation/.test(document.querySelector('[data-testid="size-error"]')?.textContent ?? ''));
  await assertClean(assert, page, watch);
});

test('models served together on the page: the engines of one time-sliced H100 in start order, as the CLI plans them', async (t) => {
  const { page, server, watch } = await start(t);
  await open(page, server, '?ask=a:0.25&gpu-model=H100-80GB-HBM3&timeslice');
  const published = (file) => readFileSync(join(repo, 'core', 'src', 'size', 'published', file), 'utf8');
  await page.selectOption('#size-engine', 'vllm');
  // README's example (`gpu-share pack --model chat=…llama_3_1_8b.json:context=8192:concurrency=16
  // --model code=…qwen2_5_7b.json:context=32768:concurrency=4 --gpu-model h100 --timeslice --engine vllm`).
  for (const [file, context, concurrency] of [['llama_3_1_8b.json', '8192', '16'], ['qwen2_5_7b.json', '32768', '4']]) {
    await page.fill('#size-paste', published(file));
    await page.fill('#size-context', context);
    await page.fill('#size-concurrency', concurrency);
    await page.waitForSelector('[data-testid="size-engine-flags"]');
    await page.click('[data-testid="size-serve"]');
  }
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="serve-engine"]').length === 2);
  const engines = await page.locator('[data-testid="serve-engine"]').allTextContents();
  assert.match(engines[0], /^llama: gpu_memory_utilization 0\.42, .*16 sequences at once\. Flags: --gpu-memory-utilization 0\.42 --max-model-len 8192$/);
  assert.match(engines[1], /^qwen2: gpu_memory_utilization 0\.3, .*4 sequences at once\. Flags: --gpu-memory-utilization 0\.3 --max-model-len 32768$/);
  assert.match(await page.inputValue('[data-testid="serve-launch"]'), /vllm serve/);
  // The same model again gets a name of its own; on one GPU it does not fit beside the other two:
  // reported, not planned.
  await page.fill('#gpu-count', '1');
  await page.click('[data-testid="size-serve"]');
  await page.waitForSelector('[data-testid="serve-unplaced"]');
  assert.match(await page.textContent('[data-testid="serve-unplaced"]'), /^qwen2-2 not placed: /);
  assert.equal(await page.locator('[data-testid="serve-engine"]').count(), 2);
  await shot(page.locator('section.size'), 'serve-together');
  await page.click('button:has-text("Remove qwen2-2")');
  await page.waitForFunction(() => !document.querySelector('[data-testid="serve-unplaced"]'));
  await assertClean(assert, page, watch);
});
