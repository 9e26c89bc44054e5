import type { FastifyInstance } from 'fastify';

/**
 * The web app is built without inline scripts, so scripts come from this origin only. Styles allow inline
 * attributes because the UI kit positions floating elements with them; images allow data: for the watermark.
 */
export function contentSecurityPolicy(analyticsOrigin = ''): string {
  // An analytics script (set by an admin, https only) may load and report to its own origin; nothing else may.
  // Only a bare origin ever gets here (modules/site/analytics.ts); checked again, as nothing else may ever join.
  const extra = /^https:\/\/[a-z0-9.-]+(:\d{1,5})?$/.test(analyticsOrigin) ? ` ${analyticsOrigin}` : '';
  return [
    "default-src 'self'",
    `script-src 'self'${extra}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${extra}`,
    "font-src 'self' data:",
    `connect-src 'self'${extra}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const PAGE_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'geolocation=(), camera=(), microphone=(), payment=()',
};

/**
 * What an API answer (JSON, a CSV file, an event stream) carries: OWASP's set for REST answers. A document's policies
 * (what it may load, its referrer, its window group, the device features it may use) say nothing about data, so the
 * API leaves them out rather than send 400 bytes of them with every answer; its policy forbids everything, framing
 * included, in case a browser is ever made to render one.
 */
const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
});

/** Answers under /api that are documents (the API docs page and its assets), given the page headers. */
const API_DOCUMENTS = '/api/docs';

const isApiAnswer = (url: string) => url.startsWith('/api/') && !url.startsWith(API_DOCUMENTS);

/** The headers an answer to `url` carries: the API's set, or a page's for `analyticsOrigin` as it is now. */
export function securityHeaders(analyticsOrigin: () => string): (url: string) => Readonly<Record<string, string>> {
  // Built once per analytics origin (it changes rarely), not per response.
  let cached: { origin: string | undefined; page: Readonly<Record<string, string>> } = { origin: undefined, page: {} };
  return (url) => {
    if (isApiAnswer(url)) return API_HEADERS;
    const origin = analyticsOrigin();
    if (origin !== cached.origin) {
      cached = {
        origin,
        page: Object.freeze({ ...PAGE_HEADERS, 'content-security-policy': contentSecurityPolicy(origin) }),
      };
    }
    return cached.page;
  };
}

export function registerSecurityHeaders(
  fastify: FastifyInstance,
  headersFor: (url: string) => Readonly<Record<string, string>>,
): void {
  // A callback hook, not an async one: it runs on every answer, and an async hook costs a promise each time.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const headers = headersFor(request.url);
    // The API docs page sets its own, narrower policy for its bundled assets; the event stream its own caching
    // (no-transform, so no proxy compresses and holds back its events).
    if (reply.hasHeader('content-security-policy') || reply.hasHeader('cache-control')) {
      for (const [name, value] of Object.entries(headers)) if (!reply.hasHeader(name)) reply.header(name, value);
    } else {
      reply.headers(headers);
    }
    done(null, payload);
  });
}
