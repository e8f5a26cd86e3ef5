// One scenario set for the three front ends (the CLI, the npm package and the page): each is a
// link in the planner's URL grammar, turned here into the CLI's flags and the npm call's
// arguments. tests/npm/same-answer.test.mjs and tests/e2e/same-answer.test.mjs compare what each
// front end answers for the same request — the core's use-case layer must make them agree.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cli = resolve(process.env.GPU_SHARE_BIN ?? join(repo, 'target', 'debug', 'gpu-share'));

/** The scenarios, as links (the query string without `?`). */
export const SCENARIOS = [
  'ask=a:0.5&ask=b:0.3&ask=c:0.4&gpus=2&timeslice',
  'ask=x:3g.20gb&ask=y:2g.10gb&ask=z:2g.10gb&ask=w:1&gpus=2&mig-capable',
  'ask=llm:3g.20gb&ask=embed:0.25&ask=ocr:1g.5gb&mig-capable&gpu-model=A100-SXM4-40GB',
  'ask=infer-a:0.3&ask=infer-b:0.3&ask=big:1.5&mps&gpu-model=H100-SXM5-80GB',
  'ask=a:1/3&ask=b:1/3&ask=c:1/3&ask=d:0.9&gpus=1&timeslice',
  'ask=train:2&ask=small:0.1',
  // GPU memory as the second dimension (issue #14): memory alone, beside a share, on MIG, MPS and time-slicing.
  'ask=a:12GiB&ask=b:0.25:8GiB&ask=c:12GiB&gpus=2&timeslice&gpu-model=A10&context-overhead=300MiB',
  'ask=rag:22649242112B&ask=e:0.2:4GiB&mig-capable&gpu-model=H100-80GB-HBM3',
  'ask=m:0.25:10GiB&ask=n:6GiB&ask=o:0.5&mps&gpu-model=L40S',
];

/** The export formats, as the CLI names them (the page's option values are the same). */
export const FORMATS = ['k8s', 'kserve', 'device-plugin', 'mig-parted', 'mig-commands', 'slurm'];

/** The CLI flags a link stands for: `ask=a:0.5` → `--ask a:0.5`, `gpus=2` → `--gpus 2`, `timeslice` → `--timeslice`. */
export function cliArgs(query) {
  const flag = {
    gpus: '--gpus',
    'gpu-model': '--gpu-model',
    'mig-profiles': '--mig-profiles',
    ask: '--ask',
    'context-overhead': '--context-overhead',
  };
  const args = [];
  for (const part of query.split('&')) {
    const [key, value] = part.split('=');
    if (value === undefined) args.push(`--${key}`);
    else args.push(flag[key], decodeURIComponent(value));
  }
  return args;
}

/** Runs the CLI; returns its standard output and exit code. */
export function runCli(args) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run cargo build -p gpu-share-cli`);
  const r = spawnSync(cli, args, { encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' } });
  if (r.status !== 0 && r.status !== 3) throw new Error(`gpu-share ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { stdout: r.stdout, status: r.status };
}

/** snake_case keys as npm spells them (camelCase), values untouched. */
export function camelKeys(value) {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase()), camelKeys(v)]),
  );
}
