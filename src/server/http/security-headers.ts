import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

// A page (the web app, its files, the API docs) gets @fastify/helmet's headers; an answer under /api/ gets API_HEADERS.

/** Only a bare https origin (modules/site/analytics.ts) joins the policy; checked again, as nothing else may. */
const ANALYTICS_ORIGIN = /^https:\/\/[a-z0-9.-]+(:\d{1,5})?$/;

/**
 * The web app is built without inline scripts, so scripts come from this origin only, and an analytics script (set by
 * an admin) from its own. Styles allow inline attributes because the UI kit positions floating elements with them;
 * images allow data: for the watermark. Helmet's other defaults stay, but HSTS, which is the TLS proxy's to send
 * (`includeSubDomains` for a year would bind the operator's other hosts too).
 */
function pageOptions(analyticsOrigin: () => string): FastifyHelmetOptions {
  const self = () => (ANALYTICS_ORIGIN.test(analyticsOrigin()) ? `'self' ${analyticsOrigin()}` : "'self'");
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: [self],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: [self, 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: [self],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: false,
  };
}

/**
 * What an API answer (JSON, a CSV file, an event stream) carries: OWASP's set for REST answers, a policy that forbids
 * everything. A document's policies say nothing about data, so they are left out. Plain values rather than helmet
 * options: an answer Node's parser refuses is written to the bare socket (error-handler.ts), where no helmet runs, so
 * the set is needed as values anyway, and helmet builds its middleware on each call (measured 6-8 µs an answer, against
 * 0.1 µs for these four headers).
 */
export const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
});

/** Helmet has no Permissions-Policy. */
const PERMISSIONS_POLICY = 'geolocation=(), camera=(), microphone=(), payment=()';

/** Chosen by URL, not by route, so an answer without a route (a 404 under /api/) gets the API's set too. */
const isApiAnswer = (url: string) => url.startsWith('/api/') && !url.startsWith('/api/docs');

/**
 * Set before anything answers: a header the route sets later wins (the API docs' own policy, the event stream's
 * `no-store, no-transform` caching, so no proxy compresses and holds back its events).
 */
export async function registerSecurityHeaders(fastify: FastifyInstance, analyticsOrigin: () => string): Promise<void> {
  await fastify.register(fastifyHelmet, { global: false, ...pageOptions(analyticsOrigin) });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (isApiAnswer(request.url)) reply.headers(API_HEADERS);
    else reply.header('permissions-policy', PERMISSIONS_POLICY).helmet();
    done();
  });
}
