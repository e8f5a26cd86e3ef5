// The repository README's npm example (on its first screen) runs as written against the built
// package, and its last line gives the value its comment says — so the README shows no answer the
// package does not give.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as gpuSharing from "@examlops/gpu-sharing";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

test("README's npm example gives the value its last line's comment says", () => {
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 1, "README.md shows one npm example");
  const [, names, from] = blocks[0].match(/^import \{([^}]*)\} from "([^"]+)";$/m) ?? [];
  assert.equal(from, "@examlops/gpu-sharing", "the example imports the package");
  const imported = names.split(",").map((name) => name.trim());
  const lines = blocks[0].replace(/^import .*$/m, "").trim().split("\n");
  const [last, expected] = lines.pop().split(" // ");
  assert.ok(expected, "the last line's comment says its value");
  const body = `${lines.join("\n")}\nreturn ${last.replace(/;\s*$/, "")};`;
  const run = new Function(...imported, body);
  assert.equal(JSON.stringify(run(...imported.map((name) => gpuSharing[name]))), expected.trim());
});
