// Entry point for Node.js: reads the .wasm beside this file synchronously, then exports the API.
import { readFileSync } from "node:fs";
import { initSync } from "./gpu_share_wasm.js";

initSync({ module: readFileSync(new URL("./gpu_share_wasm_bg.wasm", import.meta.url)) });

export * from "./api.js";
