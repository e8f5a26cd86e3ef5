// What crosses into and out of WebAssembly in bulk. utf8: an input's JSON text as bytes. build:
// a result from what wasm/src/transfer.rs wrote: the objects JSON.parse would make of the
// core's JSON (keys in camelCase), each string of the table made once. The format is documented
// there; tests/npm/output.test.mjs holds this to JSON.parse.
const NULL = 0, FALSE = 1, TRUE = 2, NUMBER = 3, STRING = 4, ARRAY = 5, OBJECT = 6;

// Objects of a shape (the same keys in the same order) met this often in one result are built by
// an object literal made for the shape: an object grown key by key from {} takes a new layout and
// a larger property store as it grows, and a 100,000-ask binPack spent more time building its
// objects that way than packing (BENCHMARKS.md, speed where users call it).
const LITERAL_AFTER = 8;
// Literals made, by their keys, kept across calls (a result has a few dozen shapes; a map with
// keys of the user's may make more).
const literals = new Map();
const MAX_LITERALS = 1000;
const canMakeCode = codeAllowed();

// Code made at run time is only tried where no Content-Security-Policy can refuse it (Node, Deno,
// Bun): a browser reports a refused `new Function` as a policy violation, so it builds key by key.
function codeAllowed() {
  if (typeof document !== "undefined" || typeof importScripts === "function") return false;
  try {
    return new Function("return 1")() === 1;
  } catch {
    return false;
  }
}

// A function returning `{key0: next(), key1: next(), …}`, or null. Keys are written as JSON
// strings, which JavaScript reads as the same strings; `__proto__` in a literal would set the
// prototype, not a key, so a shape with it is built key by key (no key of the core's has it:
// camelCase has no underscores).
function literal(keys) {
  if (keys.includes("__proto__")) return null;
  const signature = JSON.stringify(keys);
  let made = literals.get(signature);
  if (made === undefined) {
    if (literals.size >= MAX_LITERALS) return null;
    const fields = keys.map((key) => `${JSON.stringify(key)}: next()`).join(", ");
    made = new Function("next", `return { ${fields} };`);
    literals.set(signature, made);
  }
  return made;
}

export function build(ops, numbers, strings, offsets) {
  const table = new Array(offsets.length - 1);
  for (let i = 0; i < table.length; i++) table[i] = strings.substring(offsets[i], offsets[i + 1]);
  // Per shape: how many objects were built key by key, and the literal once there is one.
  const shapes = [];
  let op = 0;
  let number = 0;
  const value = () => {
    const tag = ops[op++];
    if (tag === STRING) return table[ops[op++]];
    if (tag === NUMBER) return numbers[number++];
    if (tag === OBJECT) {
      const n = ops[op++];
      const shape = shapes[ops[op++]] ??= { built: 0, make: null };
      if (shape.make !== null) return shape.make(keyed);
      const keys = shape.built === LITERAL_AFTER - 1 && canMakeCode ? [] : null;
      // Assigning is defining here: every key is camelCase, without underscores, so none is
      // __proto__ (which would set the object's prototype).
      const object = {};
      for (let i = 0; i < n; i++) {
        const key = table[ops[op++]];
        keys?.push(key);
        object[key] = value();
      }
      if (++shape.built === LITERAL_AFTER && keys !== null) shape.make = literal(keys);
      return object;
    }
    if (tag === ARRAY) {
      const n = ops[op++];
      const array = new Array(n);
      for (let i = 0; i < n; i++) array[i] = value();
      return array;
    }
    if (tag === NULL) return null;
    if (tag === TRUE) return true;
    if (tag === FALSE) return false;
    throw new Error(`gpu-share: internal error, please report it: unknown value tag ${tag}`);
  };
  // A literal's next value: its key is skipped (the literal has it).
  const keyed = () => {
    op++;
    return value();
  };
  return value();
}

const encoder = new TextEncoder();

export function utf8(text) {
  return encoder.encode(text);
}

// A list of plain `{name, fraction}` objects (a string and a number, no other key) as columns: the
// names' JSON text and the fractions; null for any other input, which crosses as its JSON. Most
// lists are of this shape, and a 100,000-ask binPack spent about a fifth of its time writing such
// a list as JSON and reading it back (BENCHMARKS.md, speed where users call it). Only plain
// objects and the package's own FractionalAsk (frozen, no toJSON; api.js marks its prototype, not
// a subclass's) qualify: JSON.stringify, which the rest go through, would call a class's toJSON.
const COLUMNS = Symbol.for("gpu-share.fractionColumns");
const columnsReadable = (proto) =>
  proto === Object.prototype || (proto !== null && Object.prototype.hasOwnProperty.call(proto, COLUMNS));

export function fractionColumns(asks) {
  if (!Array.isArray(asks)) return null;
  const names = new Array(asks.length);
  const fractions = new Float64Array(asks.length);
  for (let i = 0; i < asks.length; i++) {
    const ask = asks[i];
    if (typeof ask !== "object" || ask === null || !columnsReadable(Object.getPrototypeOf(ask))) return null;
    const { name, fraction } = ask;
    if (typeof name !== "string" || typeof fraction !== "number") return null;
    let keys = 0;
    for (const _ in ask) keys++;
    if (keys !== 2) return null;
    names[i] = name;
    fractions[i] = fraction;
  }
  try {
    return { names: JSON.stringify(names), fractions };
  } catch {
    return null; // longer than one string may be: the JSON path says so
  }
}
