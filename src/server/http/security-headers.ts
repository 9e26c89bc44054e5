import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

// A page (the web app, its files, the API docs) gets helmet's headers; an answer under /api/ gets API_HEADERS.
//
// helmet itself, not its Fastify plugin: @fastify/helmet adds two onRequest hooks to every route (one async, building
// a closure per request) even when registered with `global: false`, and those cost every API answer 16 µs of server
// CPU (issue 36, tests/bench/run.mjs shape: GET /api/basicInformation/get on SQLite, 48.5 → 33.8 µs a request, three
// 5-second wrk runs each, server and wrk on separate cores). The plugin only calls helmet's middleware on the raw
// response; here that middleware is built once and called for pages alone, from the hook that picks the header set.

/** Only a bare https origin (modules/site/analytics.ts) joins the policy; checked again, as nothing else may. */
const ANALYTICS_ORIGIN = /^https:\/\/[a-z0-9.-]+(:\d{1,5})?$/;

/**
 * The web app is built without inline scripts, so scripts come from this origin only, and an analytics script (set by
 * an admin) from its own. Styles allow inline attributes because the UI kit positions floating elements with them;
 * images allow data: for the watermark. Helmet's other defaults stay, but HSTS, which is the TLS proxy's to send
 * (`includeSubDomains` for a year would bind the operator's other hosts too).
 */
function pageOptions(analyticsOrigin: () => string): HelmetOptions {
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
 * the set is needed as values anyway, and four fixed headers cost an answer 0.1 µs.
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
export function registerSecurityHeaders(fastify: FastifyInstance, analyticsOrigin: () => string): void {
  const pageHeaders = helmet(pageOptions(analyticsOrigin));
  fastify.addHook('onRequest', (request, reply, done) => {
    if (isApiAnswer(request.url)) {
      reply.headers(API_HEADERS);
      done();
    } else {
      reply.header('permissions-policy', PERMISSIONS_POLICY);
      pageHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined));
    }
  });
}
