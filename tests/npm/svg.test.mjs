// renderSvg draws what `gpu-share pack --svg` draws, byte for byte, for every shared scenario and a
// few more (nodes, unplaced asks, hostile names); its output is well-formed XML; a result edited
// into a state the packer never makes is refused with a TypeError/RangeError naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binPack, parseScenario, renderSvg } from '@examlops/gpu-sharing';
import { SCENARIOS, cliArgs, runCli } from '../same-answer/scenarios.mjs';

/** More cases than the shared set: `[asks, caps, CLI flags]`. */
const EXTRA = [
  [
    [{ name: 'w', fraction: 0.5 }, { name: 'x', migProfile: '3g.20gb' }, { name: 'big', fraction: 2 }, { name: 'v', fraction: 0.25 }],
    { supportsMig: true, supportsTimeslicing: true, nodes: [{ name: 'gpu-a', gpus: 4 }, { name: 'gpu-b', gpus: 2 }] },
    ['--ask', 'w:0.5', '--ask', 'x:3g.20gb', '--ask', 'big:2', '--ask', 'v:0.25', '--mig-capable', '--timeslice', '--nodes', 'gpu-a:4,gpu-b:2'],
  ],
  [
    [{ name: '<script>alert(1)</script>', fraction: 0.4 }, { name: ']]> & "q" \'s\'', fraction: 0.7 }, { name: '🙂 名前', migProfile: '1g.6gb' }],
    { supportsMps: true, supportsMig: true, gpuModel: 'A30', gpuCount: 1 },
    ['--ask', '<script>alert(1)</script>:0.4', '--ask', ']]> & "q" \'s\':0.7', '--ask', '🙂 名前:1g.6gb', '--mps', '--mig-capable', '--gpu-model', 'A30', '--gpus', '1'],
  ],
];

/**
 * An independent well-formedness check (Node has no XML parser): tags nest and close, attribute
 * values are quoted and unique, `&` only starts a character or predefined entity reference, text
 * holds no `<`, and there is exactly one root element, `<svg>`.
 */
function assertWellFormed(xml) {
  const entity = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  const tag = /<(\/)?([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*(\/)?>/y;
  const stack = [];
  let roots = 0;
  let at = 0;
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    const text = xml.slice(at, lt === -1 ? xml.length : lt);
    assert.ok(!entity.test(text), `bad & in text near ${JSON.stringify(text.slice(0, 60))}`);
    if (stack.length === 0) assert.match(text, /^\s*$/, 'text outside the root');
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(xml);
    assert.ok(m, `not a tag at ${lt}: ${JSON.stringify(xml.slice(lt, lt + 60))}`);
    const [, close, name, attrs, selfClosing] = m;
    const names = [...attrs.matchAll(/([A-Za-z_][\w.:-]*)="([^"]*)"/g)].map(([, n, v]) => {
      assert.ok(!entity.test(v), `bad & in ${n}="${v}"`);
      return n;
    });
    assert.equal(new Set(names).size, names.length, `duplicate attribute in <${name}>`);
    if (close) {
      assert.equal(stack.pop(), name, `</${name}> closes the wrong element`);
    } else {
      if (stack.length === 0) {
        roots += 1;
        assert.equal(name, 'svg');
      }
      if (!selfClosing) stack.push(name);
    }
    at = tag.lastIndex;
  }
  assert.deepEqual(stack, [], 'unclosed elements');
  assert.equal(roots, 1);
}

test('the checker itself refuses what is not well-formed', () => {
  assertWellFormed('<svg a="1"><g><title>x &amp; y</title></g></svg>\n');
  for (const bad of ['<svg><g></svg>', '<svg>a & b</svg>', '<svg a="1" a="2"/>', '<svg/><svg/>', '<svg><b></c></svg>', '<svg>x<</svg>']) {
    assert.throws(() => assertWellFormed(bad), assert.AssertionError, bad);
  }
});

for (const query of SCENARIOS) {
  test(`npm draws what the CLI draws for ${query}`, () => {
    const { asks, caps } = parseScenario(query);
    const cli = runCli(['pack', ...cliArgs(query), '--svg', '-']).stdout;
    const svg = renderSvg(binPack(asks, null, caps));
    assertWellFormed(svg);
    assert.equal(svg, cli);
  });
}

test('npm draws what the CLI writes to a file, with nodes, unplaced asks and hostile names', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-share-svg-'));
  for (const [i, [asks, caps, flags]] of EXTRA.entries()) {
    const file = join(dir, `plan-${i}.svg`);
    const text = runCli(['pack', ...flags, '--svg', file]).stdout;
    assert.match(text, /asks? on \d+ GPUs?/, 'the usual output is still printed');
    const svg = renderSvg(binPack(asks, null, caps));
    assertWellFormed(svg);
    assert.equal(svg, readFileSync(file, 'utf8'));
  }
  const hostile = renderSvg(binPack(...EXTRA[1].slice(0, 1), null, EXTRA[1][1]));
  assert.ok(!hostile.includes('<script'));
  assert.ok(hostile.includes('data-ask="&lt;script&gt;alert(1)&lt;/script&gt;"'));
  assert.ok(hostile.includes('Unplaced ('));
});

test('options: title, lanes drawn, width and ids', () => {
  const r = binPack([1, 2, 3, 4].map((i) => ({ name: `w${i}`, fraction: 1 })), null, {});
  const svg = renderSvg(r, { title: 'Four <whole> GPUs', maxGpus: 1, width: 400, idPrefix: 'second' });
  assertWellFormed(svg);
  assert.match(svg, /^<svg [^>]*width="400"/);
  assert.ok(svg.includes('aria-labelledby="second-title second-desc"'));
  assert.ok(svg.includes('<title id="second-title">Four &lt;whole&gt; GPUs</title>'));
  assert.ok(svg.includes('… 3 more GPUs, listed in the plan'));
  assert.equal((svg.match(/class="lane /g) ?? []).length, 1);
  assert.equal(renderSvg(r, {}), renderSvg(r));
  const window = renderSvg(r, { firstGpu: 2, maxGpus: 1 });
  assert.ok(window.includes('… 2 GPUs before these, listed in the plan'));
  assert.ok(window.includes('… 1 more GPU, listed in the plan'));
  assert.deepEqual([...window.matchAll(/class="lane [^"]*" data-gpu="(\d+)"/g)].map((m) => m[1]), ['2']);
});

/** The error `renderSvg(result, options)` throws. */
function thrown(result, options) {
  try {
    renderSvg(result, options);
  } catch (e) {
    return e;
  }
  assert.fail('renderSvg accepted it');
}

test('a result edited into a state the packer never makes is refused, naming the field', () => {
  const mig = binPack(
    [{ name: 'x', migProfile: '3g.20gb' }, { name: 'y', migProfile: '2g.10gb' }, { name: 'z', migProfile: '2g.10gb' }],
    1,
    { supportsMig: true },
  );
  const edited = (edit) => {
    const copy = structuredClone(mig);
    edit(copy);
    return copy;
  };
  const overlap = thrown(edited((r) => {
    r.gpus[0].instances[2].profile = '3g.20gb';
    r.gpus[0].instances[2].start = 0;
  }));
  assert.ok(overlap instanceof RangeError, String(overlap));
  assert.equal(overlap.kind, 'out_of_range');
  assert.equal(overlap.field, 'result.gpus[0].instances');
  const used = thrown(edited((r) => { r.gpus[0].usedFraction = 0.5; }));
  assert.ok(used instanceof RangeError);
  assert.equal(used.field, 'result.gpus[0].usedFraction');
  const shape = thrown(edited((r) => { r.gpus[0].instances[0].start = 'first'; }));
  assert.ok(shape instanceof TypeError);
  assert.equal(shape.kind, 'syntax');
  assert.equal(shape.field, 'result.gpus[0].instances[0].start');
  const key = thrown(edited((r) => { r.gpus[0].colour = 'red'; }));
  assert.ok(key instanceof TypeError);
  assert.equal(key.field, 'result.gpus[0].colour');
  const model = thrown(edited((r) => { r.gpuModel = 'Voodoo-5'; }));
  assert.equal(model.kind, 'unknown_model');
  assert.equal(model.field, 'result.gpuModel');
  for (const bad of [null, undefined, 42, 'svg', []]) {
    const e = thrown(bad);
    assert.ok(e instanceof TypeError, `${String(bad)}: ${e}`);
    assert.equal(e.field, 'result');
  }
  const shared = binPack([{ name: 'a', fraction: 0.5 }, { name: 'c', fraction: 0.4 }], 1, { supportsTimeslicing: true });
  shared.gpus[0].slots[1].share = 0.6;
  const over = thrown(shared);
  assert.ok(over instanceof RangeError);
  assert.equal(over.field, 'result.gpus[0].slots[1].share');
  // The module stays usable.
  assertWellFormed(renderSvg(mig));
});

test('bad options are refused, naming the option', () => {
  const r = binPack([{ name: 'a', fraction: 0.5 }], null, { supportsTimeslicing: true });
  for (const [options, type, field] of [
    [{ width: 10 }, RangeError, 'options.width'],
    [{ width: 720.5 }, RangeError, 'options.width'],
    [{ maxGpus: -1 }, RangeError, 'options.maxGpus'],
    [{ firstGpu: 1.5 }, RangeError, 'options.firstGpu'],
    [{ idPrefix: '1 "x"' }, TypeError, 'options.idPrefix'],
    [{ colour: 'red' }, TypeError, 'options'],
    [{ title: 42 }, TypeError, 'options'],
  ]) {
    const e = thrown(r, options);
    assert.ok(e instanceof type, `${JSON.stringify(options)}: ${e}`);
    assert.equal(e.field, field, JSON.stringify(options));
  }
});
