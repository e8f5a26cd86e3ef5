// The built npm package, imported by name the way a consumer does (node --test tests/npm/).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  FractionalAsk,
  ClusterGpuCaps,
  selectMechanism,
  binPack,
  fractionalGpuHours,
  gpuModels,
  parseAsks,
  parseScenario,
  scenarioToQuery,
  Ledger,
} from "@examlops/gpu-sharing";

test("the seed's programmatic example", () => {
  const caps = new ClusterGpuCaps({ supportsMig: true, migProfiles: ["1g.5gb", "2g.10gb"] });
  const choice = selectMechanism(new FractionalAsk("JPCP", { fraction: 0.2 }), caps);
  assert.equal(choice.mechanism, "mig");
  assert.equal(choice.isolation, "hardware");
  assert.equal(choice.migProfile, "2g.10gb");
  assert.ok(Math.abs(choice.wastedFraction - (2 / 7 - 0.2)) < 1e-12);
  // Neither 0.5 nor 0.4 is covered by 1g.5gb or 2g.10gb, so both fall back to whole GPUs: one fits.
  const result = binPack([new FractionalAsk("a", { fraction: 0.5 }), new FractionalAsk("b", { fraction: 0.4 })], 1, caps);
  assert.equal(result.gpusUsed, 1);
  assert.deepEqual(result.unplaced, ["b"]);
  assert.match(result.unplacedReasons[0].reason, /needs 1 whole GPU; 0 of 1 GPUs free/);
  const small = binPack([new FractionalAsk("a", { fraction: 0.2 }), new FractionalAsk("b", { fraction: 0.1 })], 1, caps);
  assert.deepEqual(small.gpus[0].instances.map((i) => i.profile).sort(), ["1g.5gb", "2g.10gb"]);
});

test("honest fallback without fractional support", () => {
  const choice = selectMechanism({ name: "JPCP", fraction: 0.25 }, {});
  assert.equal(choice.mechanism, "whole");
  assert.equal(choice.isolation, "exclusive");
  assert.equal(choice.allocatedFraction, 1);
  assert.equal(choice.wastedFraction, 0.75);
  assert.deepEqual(choice.warnings, ["75% GPU capacity wasted by this fallback."]);
  assert.equal(choice.notes[0], "no fractional support — rounded 0.25 up to a whole GPU (75% wasted)");
});

test("plain objects, strings and the seed pack", () => {
  const r = binPack(
    [{ name: "a", fraction: 0.5 }, { name: "b", fraction: "30%" }, { name: "c", fraction: "2/5" }],
    2,
    { supportsTimeslicing: true },
  );
  assert.equal(r.gpusUsed, 2);
  assert.equal(r.lowerBound, 2);
  assert.deepEqual(r.gpus.map((g) => g.asks), [["a", "c"], ["b"]]);
  assert.equal(r.gpus[0].mechanism, "timeslice");
});

test("names in any script cross into WebAssembly and back unchanged", () => {
  // The input's JSON goes in as UTF-8 (wasm/src/lib.rs, json_of): two- to four-byte characters,
  // characters JSON escapes, and the longest name there may be (128 characters, 256 bytes).
  const names = ["é", "名前", "gpu-😀", "back\\slash", "quote\"", "ж".repeat(128)];
  const r = binPack(names.map((name) => ({ name, fraction: 0.25 })), null, { supportsTimeslicing: true });
  assert.deepEqual(r.choices.map((c) => c.name), names);
  assert.deepEqual(r.gpus.flatMap((g) => g.asks).sort(), [...names].sort());
});

test("exact arithmetic across the boundary", () => {
  const thirds = binPack([1, 2, 3].map((i) => ({ name: `t${i}`, fraction: 1 / 3 })), null, { supportsTimeslicing: true });
  assert.equal(thirds.gpusUsed, 1);
  const decimals = binPack(
    [{ name: "a", fraction: 0.55 }, { name: "b", fraction: 0.34 }, { name: "c", fraction: 0.11 }],
    null,
    { supportsTimeslicing: true },
  );
  assert.equal(decimals.gpusUsed, 1);
});

test("MIG placements follow real geometry", () => {
  const r = binPack(
    [{ name: "x", migProfile: "3g.20gb" }, { name: "y", migProfile: "2g.10gb" }, { name: "z", migProfile: "2g.10gb" }],
    1,
    { supportsMig: true },
  );
  assert.equal(r.gpusUsed, 1);
  const x = r.gpus[0].instances.find((i) => i.ask === "x");
  assert.equal(x.start, 4);
  const impossible = binPack(
    [{ name: "a", migProfile: "3g.20gb" }, { name: "b", migProfile: "3g.20gb" }, { name: "c", migProfile: "1g.5gb" }],
    1,
    { supportsMig: true },
  );
  assert.deepEqual(impossible.unplaced, ["c"]);
  assert.match(impossible.unplacedReasons[0].reason, /no MIG GPU in use has a free placement for 1g.5gb/);
});

test("accounting", () => {
  assert.equal(fractionalGpuHours(0.25, 7200), 0.5);
  assert.equal(fractionalGpuHours("1/4", 7200), 0.5);
  const ledger = new Ledger();
  const choice = selectMechanism({ name: "JPCP", fraction: 0.25 }, {});
  // A run recorded with its duration has just finished: it started 7,200 s before `now`.
  const run = ledger.record(choice, { now: 8200, seconds: 7200 });
  assert.equal(run.startedAt, 1000);
  ledger.record(selectMechanism({ name: "svc", fraction: 0.5 }, { supportsTimeslicing: true }), { now: 1000 });
  ledger.release("svc", 4600);
  const s = ledger.summarize({ now: 10000, rates: { costPerGpuHour: 2 } });
  assert.equal(s.totals.records, 2);
  assert.equal(s.totals.requestedGpuHours, 1);
  assert.equal(s.totals.allocatedGpuHours, 2.5);
  assert.equal(s.totals.wastedGpuHours, 1.5);
  assert.equal(s.totals.cost, 5);
  assert.deepEqual(s.byWorkload.map((r) => r.key), ["JPCP", "svc"]);
  const csv = ledger.toCsv({ now: 10000 });
  assert.match(csv, /^ask,mechanism,isolation/);
  assert.match(ledger.summaryCsv({ now: 10000 }), /\ntotal,total,2,0,1\.0000,2\.5000,1\.5000,/);
  const lines = ledger.toJsonLines();
  assert.ok(lines.startsWith('{"v":1,'));
  assert.deepEqual(Ledger.fromJsonLines(lines).entries, ledger.entries);
  const doc = ledger.toJson({ now: 10000 });
  assert.equal(JSON.parse(doc).summary.totals.records, 2);
  assert.deepEqual(Ledger.fromJson(doc).entries, ledger.entries, "the JSON document reads back");
  assert.throws(() => ledger.release("ghost", 5000), /no open allocation/);
  assert.equal(ledger.entries.length, 3, "a refused release changes nothing");
  // Importing one's own backup adds nothing; into an empty ledger it adds everything.
  assert.deepEqual(ledger.import(lines, { now: 10000 }), { added: 0, alreadyPresent: 3 });
  assert.equal(ledger.entries.length, 3);
  const fresh = new Ledger();
  assert.deepEqual(fresh.import(doc, { now: 10000 }), { added: 3, alreadyPresent: 0 });
  assert.throws(() => fresh.import("not a ledger", { now: 10000 }), Error);
  assert.equal(fresh.entries.length, 3, "a failed import changes nothing");
});

test("catalogue, ask lists and scenarios", () => {
  const models = gpuModels();
  const a100 = models.find((m) => m.name === "A100-SXM4-40GB");
  assert.equal(a100.mig.computeSlices, 7);
  assert.deepEqual(a100.profiles.find((p) => p.name === "3g.20gb").starts, [0, 4]);
  assert.ok(models.some((m) => m.name === "T4" && m.mig === null));
  const asks = parseAsks("name,fraction,hours\na,0.5,2\nx,3g.20gb,\n");
  assert.deepEqual(asks[0], { ask: { name: "a", fraction: 0.5 }, seconds: 7200 });
  assert.deepEqual(asks[1].ask, { name: "x", migProfile: "3g.20gb" });
  const s = parseScenario("?ask=a:0.5&ask=b:0.3&gpus=2&timeslice");
  assert.equal(s.caps.gpuCount, 2);
  assert.equal(scenarioToQuery(s), "ask=a:0.5&ask=b:0.3&gpus=2&timeslice");
});

test("bad input throws typed errors naming the field, and the module stays usable", () => {
  const cases = [
    [() => new FractionalAsk("x", { fraction: 0 }), RangeError, /fraction/],
    [() => new FractionalAsk("x", { fraction: -1 }), RangeError, /negative/],
    [() => new FractionalAsk("x", { fraction: NaN }), Error, /fraction/],
    [() => new FractionalAsk("", { fraction: 0.5 }), TypeError, /name/],
    [() => new FractionalAsk("x", { fraction: 0.5, migProfile: "1g.5gb" }), TypeError, /both/],
    [() => new FractionalAsk("x", {}), TypeError, /needs a fraction, memory or a mig_profile/],
    [() => new FractionalAsk("x", { fraction: 0.5, colour: "red" }), TypeError, /unknown field "colour"/],
    [() => new ClusterGpuCaps({ gpuModel: "Voodoo2", supportsMig: true }), Error, /unknown GPU model/],
    [() => new ClusterGpuCaps({ supportsMgi: true }), TypeError, /unknown field/],
    [() => selectMechanism({ name: "x", migProfile: "9g.99gb" }, { supportsMig: true }), Error, /valid profiles/],
    [() => binPack([{ name: "a", fraction: 0.5 }, { name: "a", fraction: 0.5 }], null, {}), Error, /both named/],
    [() => binPack([{ name: "a", fraction: 0.5 }], 0, {}), RangeError, /gpuCount/],
    [() => binPack("garbage", 1, {}), TypeError, /asks/],
    [() => binPack(null), TypeError, /asks is missing/],
    [() => fractionalGpuHours(0.5, -1), RangeError, /seconds/],
    [() => parseAsks("a,0.5\nb,oops\n"), TypeError, /line 2/],
    [() => Ledger.fromJsonLines('{"v":2}'), Error, /version 2/],
  ];
  for (const [fn, type, message] of cases) {
    assert.throws(fn, (e) => e instanceof type && message.test(e.message), String(fn));
  }
  try {
    new FractionalAsk("x", { fraction: 0 });
  } catch (e) {
    assert.equal(e.field, "fraction");
    assert.equal(e.kind, "out_of_range");
  }
  // After all of that, planning still works.
  assert.equal(selectMechanism({ name: "ok", fraction: 0.5 }, { supportsTimeslicing: true }).mechanism, "timeslice");
});

test("a list's asks are read as one ask alone is: the same error, in field asks[i]", () => {
  // binPack reads its list straight from the JSON text (wasm/src/asks.rs); selectMechanism reads
  // one ask through a JSON value. Both must accept and refuse alike.
  const caps = { supportsTimeslicing: true };
  const good = { name: "g", fraction: 0.5 };
  const bad = [1, "x", true, [1, 2], {}, { name: "a" }, { name: 1, fraction: 0.5 }, { name: "a", fraction: NaN },
    { name: "a", fraction: 0.5, colour: "red", alpha: 1 }, { name: "a", fraction: 0.5, gpuCnt: 1 },
    { name: "a", migProfile: 7 }, { name: "a", migProfile: "3g.20gb", memory: "1GiB" }, { name: "a", memory: "lots" },
    { name: "a", fraction: "1/0" }, { name: "a", fraction: 0.5, profile: "1g.5gb" }, { name: "a\u0007", fraction: 0.5 }];
  for (const ask of bad) {
    const alone = (() => { try { selectMechanism(ask, caps); } catch (e) { return e; } })();
    assert.ok(alone instanceof Error, `${JSON.stringify(ask)} alone was accepted`);
    assert.throws(() => binPack([good, good, ask], null, caps), (e) => {
      assert.equal(e.constructor, alone.constructor, JSON.stringify(ask));
      const unfielded = (m) => m.replace(/^field "[^"]*": /, "");
      assert.equal(unfielded(e.message), unfielded(alone.message), JSON.stringify(ask));
      assert.equal(e.kind, alone.kind);
      assert.equal(e.field, alone.field == null ? "asks[2]" : `asks[2].${alone.field}`);
      return true;
    });
  }
  assert.throws(() => binPack([good, null], null, caps), (e) => e.field === "asks[1]" && /must be an object/.test(e.message));
  // Keys in camelCase or as the core names them, an escaped key, a key given twice (the last counts).
  const asks = [{ name: "x", migProfile: "1g.5gb" }, { name: "y", mig_profile: "1g.5gb" }];
  const packed = binPack(asks, null, { supportsMig: true, gpuModel: "A100-SXM4-40GB" });
  assert.deepEqual(packed.choices.map((c) => c.migProfile), ["1g.5gb", "1g.5gb"]);
  assert.equal(binPack(JSON.parse('[{"na\\u006de": "e", "fraction": 0.1, "fraction": 0.5}]'), null, caps).choices[0].requestedFraction, 0.5);
  for (const notAList of [{}, { 0: good }, "asks", 3, true]) {
    assert.throws(() => binPack(notAList, null, caps), (e) => e instanceof TypeError && e.field === "asks" && /array of asks/.test(e.message));
  }
  assert.throws(() => binPack(NaN, null, caps), (e) => e instanceof TypeError && /asks is missing/.test(e.message));
});

test("arbitrary JSON never crashes the module", () => {
  const junk = [undefined, null, 0, -1, 1e308, "", "x", [], {}, [[]], { name: {} }, { name: "a", fraction: {} },
    { name: "a", fraction: [] }, { name: "a".repeat(1000), fraction: 0.5 }, { name: "a", fraction: 1e9 },
    { name: "\u0000", fraction: 0.5 }, Symbol.iterator, () => 1, new Date(0), 10n];
  for (const a of junk) {
    for (const c of junk) {
      for (const fn of [() => selectMechanism(a, c), () => binPack([a], 1, c), () => binPack(a, c, c), () => new ClusterGpuCaps(c)]) {
        try {
          fn();
        } catch (e) {
          assert.ok(e instanceof Error, `threw a non-Error: ${e}`);
        }
      }
    }
  }
  assert.equal(binPack([{ name: "ok", fraction: 0.5 }], 1, { supportsTimeslicing: true }).gpusUsed, 1);
});

test("optimize packs on fewer GPUs than first-fit-decreasing and says it is proven", () => {
  const asks = [0.5, 0.4, 0.4, 0.3, 0.2, 0.2].map((fraction, i) => ({ name: `a${i}`, fraction }));
  const caps = { supportsTimeslicing: true };
  assert.equal(binPack(asks, null, caps).gpusUsed, 3);
  const r = binPack(asks, null, caps, { optimize: true, timeLimitMs: 100 });
  assert.equal(r.gpusUsed, 2);
  assert.deepEqual(r.optimize, { provenOptimal: true, lowerBound: 2, gap: 0, ffdGpus: 3 });
  assert.throws(() => binPack(asks, null, caps, { optimise: true }), TypeError);
});

test("nodes: one sharing configuration per node, a multi-GPU ask on one node", () => {
  const caps = { supportsMps: true, nodes: [{ name: "gpu-a", gpus: 1 }, { name: "gpu-b", gpus: 2 }] };
  const r = binPack([{ name: "s", fraction: 0.3 }, { name: "w", fraction: 2 }], null, caps);
  assert.deepEqual(r.unplaced, []);
  const byName = Object.fromEntries(r.nodes.map((n) => [n.name, n]));
  assert.equal(byName["gpu-b"].role, "exclusive");
  assert.equal(byName["gpu-a"].role, "mps");
  assert.ok(r.gpus.filter((g) => g.asks.includes("w")).every((g) => g.node === "gpu-b"));
  assert.throws(() => binPack([{ name: "s", fraction: 0.3 }], 5, caps), (e) => e.field === "nodes");
});

// Issue #57: the README's `new FractionalAsk(name, {fraction})` is checked without building objects,
// and binPack reads a list of them as it reads plain objects — the same asks, the same answer.
test("FractionalAsk of a fraction alone is what the general check makes, and packs as plain objects do", () => {
  for (const [name, fraction] of [["a", 0.25], ["b", 1 / 3], ["c", 1], ["d", 2.5], ["e", 1e-9], ["名前", 0.1]]) {
    const quick = new FractionalAsk(name, { fraction });
    // A size object without Object's prototype takes the general path.
    const general = new FractionalAsk(name, Object.assign(Object.create(null), { fraction }));
    assert.deepEqual({ ...quick }, { name: general.name, fraction: general.fraction }, name);
    assert.ok(Object.isFrozen(quick));
  }
  const asks = Array.from({ length: 500 }, (_, i) => new FractionalAsk(`job-${i}`, { fraction: ((i * 37) % 97 + 1) / 100 }));
  const plain = asks.map((a) => ({ ...a }));
  const caps = new ClusterGpuCaps({ supportsTimeslicing: true });
  assert.equal(JSON.stringify(binPack(asks, null, caps)), JSON.stringify(binPack(plain, null, caps)));
  // A subclass is not read as columns (it may have a toJSON of its own) but still packs.
  class Tagged extends FractionalAsk {}
  assert.equal(binPack([new Tagged("t", { fraction: 0.5 })], null, caps).gpusUsed, 1);
});
