import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.js';

// The built web app beside the API: deep links answer the app, missing files answer 404.

const webRoot = mkdtempSync(join(tmpdir(), 'points-mall-web-'));
mkdirSync(join(webRoot, 'assets'));
writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>积分商城</title>');
writeFileSync(join(webRoot, 'assets', 'index-abc123.js'), 'console.log(1)');
afterAll(() => rmSync(webRoot, { recursive: true, force: true }));

const app = useTestApp({ webRoot });
const get = (url: string) => app().built.fastify.inject({ method: 'GET', url });

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
});
