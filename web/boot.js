// Starts the planner: loads the wasm-bindgen module and its .wasm (names from the data attributes
// Trunk writes on this script's tag). A file of its own so the CSP needs no inline script.
const tag = document.querySelector('script[data-js][data-wasm]');
const { default: init } = await import(tag.dataset.js);
await init({ module_or_path: tag.dataset.wasm });

// Embedded (`&embed`) in another page's iframe: tell the parent how tall the content is, now and
// whenever it changes, so docs can size the iframe (README, "Embed it in docs"). The message is
// `{ type: 'gpu-share:height', height }` in CSS pixels; it carries nothing but the height.
if (new URLSearchParams(location.search).has('embed') && window.parent !== window) {
  let last = -1;
  const post = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      window.parent.postMessage({ type: 'gpu-share:height', height }, '*');
    }
  };
  new ResizeObserver(post).observe(document.documentElement);
  post();
}
