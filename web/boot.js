// Starts the planner: loads the wasm-bindgen module and its .wasm (names from the data attributes
// Trunk writes on this script's tag). A file of its own so the CSP needs no inline script.
const tag = document.querySelector('script[data-js][data-wasm]');
// The app replaces the shell (index.html, web/src/shell.rs) once the shell's first paint is on
// screen: the browser reports it then (a paint entry). On a fast connection the WebAssembly could
// otherwise be built into the page before that paint was shown, and the page stayed blank until
// then. Without a paint to wait for (a hidden tab, a browser without paint timing) it goes ahead
// after a second.
const shown = new Promise((done) => {
  setTimeout(done, 1000);
  try {
    new PerformanceObserver((list, observer) => {
      if (list.getEntriesByName('first-contentful-paint').length > 0) {
        observer.disconnect();
        done();
      }
    }).observe({ type: 'paint', buffered: true });
  } catch {
    done();
  }
});
// The WebAssembly is requested as the first frame is drawn (an animation frame's callbacks run just
// before its paint), so its download never ends before the shell is painted: a .wasm preloaded from
// <head> that finished first on a fast load made Lighthouse's simulated slow-4G load wait for all of
// it before that paint (BENCHMARKS.md, first load). The style sheet is inline, so that frame needs
// only the HTML. A hidden tab draws no frames: then it is requested after a second.
const wasm = new Promise((ready) => {
  requestAnimationFrame(ready);
  setTimeout(ready, 1000);
}).then(() => fetch(tag.dataset.wasm));
// Compiled as it arrives, while the app's JavaScript module loads and the shell's paint is awaited:
// handed to init only after both, the bytes of a cold load at 4× slower CPU sat about 200 ms
// before compiling began (a Chromium trace, BENCHMARKS.md, first load). Should streaming fail (a
// host serving .wasm without its MIME type), init gets the response and falls back as it would:
// a wrong MIME type is refused before the body is read (WebAssembly Web API, compileStreaming),
// so no copy of the response is kept for it; a body read and refused is fetched again.
const compiled = wasm.then(async (response) => {
  if (!response.ok) return response;
  try {
    return await WebAssembly.compileStreaming(response);
  } catch {
    return response.bodyUsed ? fetch(tag.dataset.wasm) : response;
  }
});
const { default: init } = await import(tag.dataset.js);
await shown;
await init({ module_or_path: await compiled });

// Embedded (`&embed`) in another page's iframe: tell the parent how tall the content is, now and
// whenever it changes, so docs can size the iframe (docs/page.md, "Embed it in docs"). The message is
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
