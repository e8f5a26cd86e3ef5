// Resource limits of the npm package: a 100 MB string or a list of millions is a typed error
// (kind "too_large"), refused before it is copied into WebAssembly, and the module stays usable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { binPack, detect, parseAsks, parseScenario, validateMig, Ledger } from "@examlops/gpu-sharing";

const MB100 = "a,0.5\n".repeat(Math.ceil(100e6 / 6));

function assertTooLarge(fn, field) {
  const started = Date.now();
  assert.throws(fn, (e) => {
    assert.ok(e instanceof RangeError, `${e}`);
    assert.equal(e.kind, "too_large");
    if (field !== undefined) assert.equal(e.field, field);
    assert.match(e.message, /limit is 67108864 bytes \(64 MiB\)|limit is 2000000/);
    return true;
  });
  assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
}

test("a 100 MB string is refused by every text reader, and the module stays usable", () => {
  assert.ok(MB100.length >= 100e6);
  assertTooLarge(() => parseAsks(MB100), "text");
  assertTooLarge(() => Ledger.fromJson(MB100), "text");
  assertTooLarge(() => parseScenario(MB100), "query");
  assertTooLarge(() => detect(MB100), "inputs");
  assertTooLarge(() => detect(["GPU 0: Tesla T4 (UUID: GPU-1)\n", MB100]), "inputs[1]");
  assertTooLarge(() => validateMig("a100", MB100), "profiles");
  // Still working, with a correct answer.
  assert.equal(parseAsks("a,0.5\nb,1/3\n").length, 2);
  assert.equal(detect("GPU 0: Tesla T4 (UUID: GPU-1)\n").gpus.length, 1);
});

test("a string just over 64 MiB in UTF-8 (but not in UTF-16 length) is refused by the core", () => {
  // 30 M three-byte characters: 30 M long, 90 MB as UTF-8.
  const wide = "€".repeat(30e6);
  assert.throws(() => parseAsks(wide), (e) => e instanceof RangeError && e.kind === "too_large");
  assert.equal(parseAsks("a,0.5").length, 1);
});

test("a list of more than 2,000,000 asks is refused by its length before it is read", () => {
  const ask = { name: "a", fraction: 0.5 };
  const many = new Array(2_000_001).fill(ask);
  assertTooLarge(() => binPack(many, null, { supportsTimeslicing: true }), "asks");
  assert.equal(binPack([ask], 1, { supportsTimeslicing: true }).gpusUsed, 1);
});

test("10^9 GPUs and asks for them are range errors", () => {
  assert.throws(() => binPack([{ name: "a", fraction: 0.5 }], 1e9, {}), (e) => e instanceof RangeError && e.field === "gpuCount");
  assert.throws(() => binPack([{ name: "a", fraction: 1e9 }], null, {}), (e) => e instanceof RangeError && e.field === "asks[0].fraction");
  assert.throws(() => parseAsks("a,1000000000"), (e) => e instanceof RangeError && e.line === 1);
});

test("text readers refuse what is not a string with a TypeError", () => {
  for (const bad of [undefined, null, 1, {}, [], Symbol.iterator]) {
    for (const fn of [parseAsks, parseScenario, (t) => Ledger.fromJson(t)]) {
      assert.throws(() => fn(bad), (e) => e instanceof TypeError && e.kind === "syntax", `${fn.name}(${String(bad)})`);
    }
  }
});

test("the optimizer on thousands of asks answers within half of Node's stack", () => {
  // 9,000 asks of 0.01–1 GPU (a seeded LCG): bin completion searched thousands of levels deep
  // and threw "RangeError: Maximum call stack size exceeded" (at Node's default 984 KB) before
  // its depth was bounded. Run with 600 KB, so that the bound keeps a margin.
  const script = `
    import { binPack } from "@examlops/gpu-sharing";
    let state = 12345n;
    const next = () => {
      state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
      return Number(state >> 33n) / 2 ** 31;
    };
    const asks = Array.from({ length: 9000 }, (_, i) => ({
      name: "a" + i,
      fraction: Math.max(0.01, Math.round(next() * 100) / 100),
    }));
    const caps = { supportsTimeslicing: true };
    const plain = binPack(asks, null, caps);
    const optimized = binPack(asks, null, caps, { optimize: true });
    const after = binPack([{ name: "a", fraction: 0.5 }], null, caps);
    console.log(JSON.stringify([plain.gpusUsed, optimized.gpusUsed, optimized.lowerBound, after.gpusUsed]));
  `;
  const run = spawnSync(process.execPath, ["--stack-size=600", "--input-type=module", "-e", script], {
    cwd: import.meta.dirname,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr.split("\n").find((l) => l.includes("Error")) ?? run.stderr);
  const [plain, optimized, lowerBound, after] = JSON.parse(run.stdout);
  assert.ok(optimized <= plain, `${optimized} > ${plain}`);
  assert.ok(optimized >= lowerBound);
  assert.equal(after, 1);
});
