// The npm Ledger's import merges by entry identity, as the core's api::import does for the CLI's file and the page:
// the same backup imported twice adds nothing the second time, into an empty ledger it gives the file's entries
// (each occurrence), and the JSON document and JSON Lines forms merge alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { selectMechanism, Ledger } from "@examlops/gpu-sharing";

const caps = { supportsTimeslicing: true };

/** A ledger of finished runs and one open use released, with two equal runs (two replicas recorded at one second). */
function sample() {
  const ledger = new Ledger();
  const a = selectMechanism({ name: "a", fraction: 0.5 }, caps);
  const b = selectMechanism({ name: "b", fraction: 0.25 }, caps);
  ledger.record(a, { now: 8200, seconds: 7200 });
  ledger.record(a, { now: 8200, seconds: 7200 });
  ledger.record(b, { now: 1000 });
  ledger.release("b", 4600);
  return ledger;
}

test("importing the same backup twice adds nothing the second time", () => {
  const mine = sample();
  for (const text of [mine.toJsonLines(), mine.toJson({ now: 10000 })]) {
    const other = new Ledger();
    const c = selectMechanism({ name: "c", fraction: 0.5 }, caps);
    other.record(c, { now: 9000, seconds: 60 });
    assert.deepEqual(other.import(text, { now: 10000 }), { added: 4, alreadyPresent: 0 });
    const once = other.entries;
    assert.deepEqual(other.import(text, { now: 10000 }), { added: 0, alreadyPresent: 4 });
    assert.deepEqual(other.entries, once, "the second import changes nothing");
    // Into an empty ledger: the file's entries, the two equal runs both kept.
    const fresh = new Ledger();
    assert.deepEqual(fresh.import(text, { now: 10000 }), { added: 4, alreadyPresent: 0 });
    assert.deepEqual(fresh.entries, mine.entries);
    assert.equal(fresh.summarize({ now: 10000 }).totals.records, 3);
  }
});

test("a file holding one run of two equal ones adds none; a ledger that would release twice is refused whole", () => {
  const mine = sample();
  const lines = mine.toJsonLines().trim().split("\n");
  assert.deepEqual(mine.import(`${lines[0]}\n`, { now: 10000 }), { added: 0, alreadyPresent: 1 });
  // Another release of b, which this ledger has already closed: nothing is merged.
  const stray = '{"v":1,"kind":"release","ask":"b","at":5000}\n';
  assert.throws(() => mine.import(stray, { now: 10000 }), /no open allocation/);
  assert.equal(mine.entries.length, 4);
});

test("recording the same hours again is found before it counts twice, and undo takes back exactly a recording", () => {
  const ledger = sample();
  const before = ledger.entries;
  const a = selectMechanism({ name: "a", fraction: 0.5 }, caps);
  const again = ledger.record(a, { now: 8300, seconds: 7200 });
  // Against the ledger as it was: the same ask in the same hours is already there.
  const found = new Ledger(before).alreadyRecorded([again], { now: 8300 });
  assert.deepEqual(found, [{ ask: "a", recordedAt: 8200 }]);
  assert.deepEqual(new Ledger(before).alreadyRecorded([ledger.record(a, { now: 99000, seconds: 60 })], { now: 99000 }), []);
  ledger.undo([ledger.entries.at(-1)], { now: 99000 });
  ledger.undo([again], { now: 99000 });
  assert.deepEqual(ledger.entries, before);
  // Nothing to take back: an error, and the ledger unchanged.
  assert.throws(() => ledger.undo([again], { now: 99000 }), (e) => e.kind === "ledger");
  assert.deepEqual(ledger.entries, before);
});
