import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

const scriptSources = (csp: unknown) => String(csp).split('; ').find((d) => d.startsWith('script-src'));

describe('security headers', () => {
  it('sends a CSP without inline scripts and the usual hardening headers on every API answer', async () => {
    const r = await app().client().call('basicInformationGet', { query: { id: 1 } });
    expect(scriptSources(r.headers['content-security-policy'])).toBe("script-src 'self'");
    expect(String(r.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['x-frame-options']).toBe('DENY');
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('allows only the analytics origin an admin sets, and drops it again when cleared', async () => {
    const admin = await app().admin();
    await admin.ok('basicInformationUpdate', { body: { id: 1, analyticsUrl: 'https://stats.example.com/s.js?id=42' } });
    const withAnalytics = await app().client().call('basicInformationGet', { query: { id: 1 } });
    expect(scriptSources(withAnalytics.headers['content-security-policy'])).toBe("script-src 'self' https://stats.example.com");

    await admin.ok('basicInformationUpdate', { body: { id: 1, analyticsUrl: '' } });
    const cleared = await app().client().call('basicInformationGet', { query: { id: 1 } });
    expect(scriptSources(cleared.headers['content-security-policy'])).toBe("script-src 'self'");
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
