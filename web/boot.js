// Starts the planner: loads the wasm-bindgen module and its .wasm (names from the data attributes
// Trunk writes on this script's tag). A file of its own so the CSP needs no inline script.
const tag = document.querySelector('script[data-js][data-wasm]');
const { default: init } = await import(tag.dataset.js);
await init({ module_or_path: tag.dataset.wasm });
