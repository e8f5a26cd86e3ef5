// Builds a result from what wasm/src/transfer.rs wrote: the objects JSON.parse would make of the
// core's JSON (keys in camelCase), each string of the table made once. The format is documented
// there; tests/npm/output.test.mjs holds this to JSON.parse.
const NULL = 0, FALSE = 1, TRUE = 2, NUMBER = 3, STRING = 4, ARRAY = 5, OBJECT = 6;

export function build(ops, numbers, strings, offsets) {
  const table = new Array(offsets.length - 1);
  for (let i = 0; i < table.length; i++) table[i] = strings.substring(offsets[i], offsets[i + 1]);
  let op = 0;
  let number = 0;
  const value = () => {
    const tag = ops[op++];
    if (tag === STRING) return table[ops[op++]];
    if (tag === NUMBER) return numbers[number++];
    if (tag === OBJECT) {
      // Assigning is defining here: every key is camelCase, without underscores, so none is
      // __proto__ (which would set the object's prototype).
      const object = {};
      for (let n = ops[op++]; n > 0; n--) {
        const key = table[ops[op++]];
        object[key] = value();
      }
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
  return value();
}
