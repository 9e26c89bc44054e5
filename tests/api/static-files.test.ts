import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.js';

// The built web app beside the API: deep links answer the app, missing files answer 404.

const webRoot = mkdtempSync(join(tmpdir(), 'points-mall-web-'));
mkdirSync(join(webRoot, 'assets'));
const HTML = '<!doctype html><html><head><title>积分商城</title></head><body></body></html>';
const SCRIPT = 'console.log("积分商城");'.repeat(20);
// What the build writes (codegen/build-server.mjs): each text file, and its .br and .gz beside it.
for (const [name, body] of [
  ['index.html', HTML],
  ['assets/index-abc123.js', SCRIPT],
] as const) {
  writeFileSync(join(webRoot, name), body);
  writeFileSync(join(webRoot, `${name}.br`), brotliCompressSync(body));
  writeFileSync(join(webRoot, `${name}.gz`), gzipSync(body));
}
// What the web build lists per route (vite/route-preloads.ts): the files its first screen loads lazily.
mkdirSync(join(webRoot, '.vite'));
const PRELOADS = { '/transferCoin': ['assets/TransferCoin-abc123.js', 'assets/form-abc123.css'], '/notice': [] };
writeFileSync(join(webRoot, '.vite/route-preloads.json'), JSON.stringify(PRELOADS));
afterAll(() => rmSync(webRoot, { recursive: true, force: true }));

const app = useTestApp({ webRoot });
const get = (url: string, headers: Record<string, string> = {}) =>
  app().built.fastify.inject({ method: 'GET', url, headers });

/** The body as the browser reads it, after undoing the Content-Encoding it was sent with. */
function decoded(r: Awaited<ReturnType<typeof get>>): string {
  const raw = r.rawPayload;
  const encoding = r.headers['content-encoding'];
  return (encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw).toString();
}

describe('static files and deep links', () => {
  it('answers deep links with the app', async () => {
    for (const url of ['/', '/mall', '/gxy/update', '/login?redirect=%2Fmall']) {
      const r = await get(url);
      expect([r.statusCode, r.headers['content-type']], url).toEqual([200, 'text/html; charset=utf-8']);
    }
  });

  it('serves an existing asset, and answers 404 (not the app) for a missing one', async () => {
    expect((await get('/assets/index-abc123.js')).statusCode).toBe(200);
    for (const url of [
      '/assets/index-old999.js',
      '/assets/index-old999.css',
      '/assets/missing',
      '/favicon.ico',
      '/robots.txt',
      '/mall/logo.png',
    ]) {
      const r = await get(url);
      expect(r.statusCode, url).toBe(404);
      expect(String(r.headers['content-type']), url).not.toContain('text/html');
      expect(r.json()).toMatchObject({ code: 40400, data: null });
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('sends brotli to a browser that accepts it, gzip to one that accepts only gzip, the plain file otherwise', async () => {
    const cases = [
      { accept: 'gzip, deflate, br, zstd', encoding: 'br' },
      { accept: 'gzip, deflate', encoding: 'gzip' },
      { accept: 'identity', encoding: undefined },
      { accept: '', encoding: undefined },
    ];
    for (const { accept, encoding } of cases) {
      for (const [url, type, body] of [
        ['/assets/index-abc123.js', 'application/javascript; charset=utf-8', SCRIPT],
        ['/mall', 'text/html; charset=utf-8', HTML],
      ] as const) {
        const r = await get(url, accept ? { 'accept-encoding': accept } : {});
        const label = `${url} with Accept-Encoding "${accept}"`;
        expect([r.statusCode, r.headers['content-encoding'], r.headers['content-type']], label).toEqual([
          200,
          encoding,
          type,
        ]);
        expect(decoded(r), label).toBe(body);
        // A shared cache keeps one copy per encoding, never a brotli body for a client that cannot read it.
        expect(String(r.headers.vary), label).toMatch(/accept-encoding/i);
      }
    }
    const br = await get('/assets/index-abc123.js', { 'accept-encoding': 'br' });
    expect(br.rawPayload.length).toBeLessThan(Buffer.byteLength(SCRIPT));
  });

  it("names a route's first-screen chunks in its HTML, so they download beside the boot chunk", async () => {
    const links =
      '<link rel="modulepreload" crossorigin href="/assets/TransferCoin-abc123.js">' +
      '<link rel="preload" as="style" crossorigin href="/assets/form-abc123.css">';
    for (const accept of ['br', 'gzip', 'identity']) {
      for (const url of ['/transferCoin', '/transferCoin/', '/transferCoin?to=1']) {
        const r = await get(url, { 'accept-encoding': accept });
        expect(decoded(r), `${url} ${accept}`).toBe(HTML.replace('</head>', `${links}</head>`));
      }
    }
    // A route with nothing to add, and a path the map does not have (the router's not-found page), get the file as built.
    for (const url of ['/notice', '/no-such-page', '/constructor', '/__proto__'])
      expect(decoded(await get(url)), url).toBe(HTML);
  });

  it('lets phones keep hashed assets for a year, and makes them ask again for the page itself', async () => {
    const asset = await get('/assets/index-abc123.js', { 'accept-encoding': 'br' });
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // A new deploy changes index.html (new hashed names) under the same URL: it must never be served from cache unseen.
    for (const url of ['/', '/login', '/index.html']) {
      const page = await get(url, { 'accept-encoding': 'br' });
      expect([page.statusCode, page.headers['cache-control']], url).toEqual([200, 'no-cache']);
    }
  });
});
