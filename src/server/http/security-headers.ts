import type { FastifyInstance } from 'fastify';

/**
 * The web app is built without inline scripts, so scripts come from this origin only. Styles allow inline
 * attributes because the UI kit positions floating elements with them; images allow data: for the watermark.
 */
export function contentSecurityPolicy(analyticsOrigin = ''): string {
  // An analytics script (set by an admin, https only) may load and report to its own origin; nothing else may.
  const extra = analyticsOrigin ? ` ${analyticsOrigin}` : '';
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

export function registerSecurityHeaders(fastify: FastifyInstance, analyticsOrigin: () => string): void {
  let cached = { origin: '', policy: contentSecurityPolicy() };
  const policy = () => {
    const origin = analyticsOrigin();
    if (origin !== cached.origin) cached = { origin, policy: contentSecurityPolicy(origin) };
    return cached.policy;
  };
  fastify.addHook('onSend', async (request, reply, payload) => {
    reply.headers(STATIC_HEADERS);
    // The API docs page sets its own, narrower policy for its bundled assets.
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', policy());
    if (request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
