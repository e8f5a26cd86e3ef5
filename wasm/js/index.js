// Entry point for browsers and bundlers: fetches the .wasm beside this file, then exports the API.
import init from "./gpu_share_wasm.js";

await init({ module_or_path: new URL("./gpu_share_wasm_bg.wasm", import.meta.url) });

export * from "./api.js";
