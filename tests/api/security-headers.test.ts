import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { refreshAnalyticsOrigin } from '../../src/server/modules/site/analytics.js';
import { useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

/** A policy's directives (helmet separates them with `;`, the API's set with `; `). */
const directives = (csp: unknown) => String(csp).split(/; ?/);
const scriptSources = (csp: unknown) => directives(csp).find((d) => d.startsWith('script-src'));

/** The headers a page of the web app is served with (the app's index.html for any route, or its not-found answer). */
const pageHeaders = async () => (await app().built.fastify.inject({ method: 'GET', url: '/login' })).headers;

describe('security headers', () => {
  it('sends every page a CSP without inline scripts and the usual hardening headers', async () => {
    const headers = await pageHeaders();
    expect(scriptSources(headers['content-security-policy'])).toBe("script-src 'self'");
    expect(String(headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('same-origin');
    expect(headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(headers['permissions-policy']).toContain('geolocation=()');
    // HSTS is the TLS proxy's to send, not the app's.
    expect(headers['strict-transport-security']).toBeUndefined();
  });

  it("sends every API answer OWASP's set for data: a policy that allows nothing, no framing, no sniffing, no caching", async () => {
    const r = await app()
      .client()
      .call('basicInformationGet', { query: { id: 1 } });
    expect(r.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['x-frame-options']).toBe('DENY');
    expect(r.headers['cache-control']).toBe('no-store');
    // A document's policies mean nothing for data.
    expect(r.headers['permissions-policy']).toBeUndefined();
    // The API's docs page is a document: it keeps its own narrower policy and gets a page's other headers.
    const docs = await app().built.fastify.inject({ method: 'GET', url: '/api/docs/' });
    expect(docs.headers['referrer-policy']).toBe('same-origin');
    expect(String(docs.headers['content-security-policy'])).not.toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it('allows only the analytics origin an admin sets, and drops it again when cleared', async () => {
    const admin = await app().admin();
    await admin.ok('basicInformationUpdate', { body: { id: 1, analyticsUrl: 'https://stats.example.com/s.js?id=42' } });
    expect(scriptSources((await pageHeaders())['content-security-policy'])).toBe(
      "script-src 'self' https://stats.example.com",
    );

    await admin.ok('basicInformationUpdate', { body: { id: 1, analyticsUrl: '' } });
    expect(scriptSources((await pageHeaders())['content-security-policy'])).toBe("script-src 'self'");
  });

  it('answers unknown API paths with the 404 envelope', async () => {
    const r = await app().built.fastify.inject({ method: 'GET', url: '/api/nope' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ code: 40400, message: '接口不存在', data: null });
  });

  it('publishes the contract at /api/openapi.json and a docs page at /api/docs', async () => {
    const spec = await app().built.fastify.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(spec.json().openapi).toBe('3.1.0');
    const docs = await app().built.fastify.inject({ method: 'GET', url: '/api/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });
});

describe('the analytics origin in the Content-Security-Policy', () => {
  it('refuses an address that is not an https origin on a real host name, and leaves the policy alone', async () => {
    const admin = await app().admin();
    for (const bad of [
      'https://*',
      'https://*.example.com/a.js',
      'https://a.example;sandbox',
      'https://a.example/a.js;sandbox',
      'https://a.example,https://evil.example',
      'https://a.example/a.js,x',
      'https://127.0.0.1/a.js',
      'https://user:pw@a.example/a.js',
      'https://localhost/a.js',
    ]) {
      const r = await admin.call('basicInformationUpdate', { body: { id: 1, analyticsUrl: bad } });
      expect([r.status, r.code], bad).toEqual([400, 40000]);
    }
    expect(scriptSources((await pageHeaders())['content-security-policy'])).toBe("script-src 'self'");
  });

  it('builds the policy from the parsed origin only, even for an address stored before the rule', async () => {
    const { context } = app().built;
    for (const [stored, sources] of [
      ['https://*', "script-src 'self'"],
      ['https://a.example;sandbox', "script-src 'self'"],
      ['https://stats.example.com:8443/x/s.js?a=1', "script-src 'self' https://stats.example.com:8443"],
    ] as const) {
      await context.db.updateTable('siteInformation').set({ analyticsUrl: stored }).where('id', '=', 1).execute();
      await refreshAnalyticsOrigin(context);
      const csp = (await pageHeaders())['content-security-policy'];
      expect(scriptSources(csp), stored).toBe(sources);
      expect(directives(csp)).toHaveLength(10);
    }
    await context.db.updateTable('siteInformation').set({ analyticsUrl: '' }).where('id', '=', 1).execute();
    await refreshAnalyticsOrigin(context);
  });
});

describe('answers Fastify and Node would otherwise give in their own shape', () => {
  const expectEnvelope = (status: number, headers: Record<string, unknown>, body: string, code = 40000) => {
    expect(status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(body)).toMatchObject({ code, data: null });
    expect(JSON.parse(body).message).toMatch(/[\u4e00-\u9fff]/);
    expect(headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['cache-control']).toBe('no-store');
  };

  it('answers an undecodable URL with the 400 envelope and the security headers', async () => {
    for (const url of ['/api/user/get/login%', '/api/user/get/%E0%A4%A']) {
      const r = await app().built.fastify.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(400);
      expectEnvelope(r.statusCode, r.headers, r.body);
    }
  });

  it('answers a request head over 16 KB with the 431 envelope and the security headers', async () => {
    const { fastify } = app().built;
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fastify.server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/api/user/get/login', headers: { 'x-padding': 'a'.repeat(17 * 1024) } },
          (res) => {
            let body = '';
            res
              .setEncoding('utf8')
              .on('data', (c: string) => (body += c))
              .on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
    expect(answer.status).toBe(431);
    expectEnvelope(answer.status, answer.headers, answer.body);
  });
});
