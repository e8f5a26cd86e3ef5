// A tiny static file server for the built dist/ folder: 127.0.0.1, an ephemeral port, GET/HEAD only.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Serves `root` (optionally under a sub-path prefix such as `/sub/`); resolves to { origin, url, close }.
 * With `gzip`, bodies go out gzipped to a client that accepts it, as any static host sends them (the
 * first-load bench); the tests read them as they are.
 */
export async function serve(root, { prefix = '/', gzip = false } = {}) {
  const base = resolve(root);
  // Each file is compressed once, as a static host serves precompressed files (not per request,
  // which would time the compression as part of a load).
  const zippedOnce = new Map();
  const server = createServer(async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405).end();
        return;
      }
      let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (!path.startsWith(prefix)) {
        res.writeHead(404).end('not found');
        return;
      }
      path = path.slice(prefix.length);
      if (path === '' || path.endsWith('/')) path += 'index.html';
      const file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) {
        res.writeHead(403).end();
        return;
      }
      const info = await stat(file).catch(() => null);
      if (!info || !info.isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const raw = await readFile(file);
      const zipped = gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
      if (zipped && !zippedOnce.has(file)) zippedOnce.set(file, gzipSync(raw, { level: 9 }));
      const body = zipped ? zippedOnce.get(file) : raw;
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'content-length': body.length,
        'cache-control': 'no-store',
        ...(zipped ? { 'content-encoding': 'gzip', vary: 'accept-encoding' } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}${prefix}`,
    close: () => new Promise((ok) => server.close(ok)),
  };
}

// `node tests/e2e/serve.mjs [dist]` serves a folder by hand.
if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await serve(process.argv[2] ?? 'dist');
  console.log(`serving on ${s.url}`);
}
