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

const STATIC_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'geolocation=(), camera=(), microphone=(), payment=()',
};

/** The headers every answer carries (and, under /api, no caching), for `analyticsOrigin` as it is now. */
export function securityHeaders(analyticsOrigin: () => string): (url: string) => Readonly<Record<string, string>> {
  // Built once per analytics origin (it changes rarely), not per response.
  let cached: {
    origin: string | undefined;
    page: Readonly<Record<string, string>>;
    api: Readonly<Record<string, string>>;
  } = { origin: undefined, page: {}, api: {} };
  return (url) => {
    const origin = analyticsOrigin();
    if (origin !== cached.origin) {
      const page = Object.freeze({ ...STATIC_HEADERS, 'content-security-policy': contentSecurityPolicy(origin) });
      cached = { origin, page, api: Object.freeze({ ...page, 'cache-control': 'no-store' }) };
    }
    return url.startsWith('/api/') ? cached.api : cached.page;
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
