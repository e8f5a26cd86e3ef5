// `cargo xtask bench --trace DIR`: the same replay as the native timing, through the npm package in
// Node (the call's conversions included): node replay.mjs PACKAGE NODES.csv PODS.csv SEED…
// Prints one JSON line: {ms, meanAtTune: {policy: number}}.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [pkg, nodesFile, podsFile, ...seeds] = process.argv.slice(2);
const { replay } = await import(pathToFileURL(join(pkg, 'node.js')).href);
const nodes = readFileSync(nodesFile, 'utf8');
const pods = readFileSync(podsFile, 'utf8');
const started = performance.now();
const r = replay(nodes, pods, { seeds: seeds.map(Number) });
const ms = performance.now() - started;
console.log(JSON.stringify({ ms, meanAtTune: Object.fromEntries(r.policies.map((p) => [p.policy, p.atTune])) }));
