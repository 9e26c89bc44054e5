import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.js';

// Prometheus' scrape of this process, kept off the public surface: on the app's port only with METRICS_TOKEN as a
// bearer token, or without one on a port of its own bound to loopback (METRICS_PORT). Never under /api (the contract
// is for phones), never cached. No plugin fits: fastify-metrics (v14) moved from prom-client to
// @platformatic/prom-client, a second registry beside metrics.ts' one. What is left is what the product asks for: the
// token-guarded route, the loopback-only server (which sums every worker) and the request histogram's hooks, labelled
// by the contract's operationId rather than by URL.

const TEXT = 'text/plain; version=0.0.4; charset=utf-8';
/** Routes without an operationId (static files, the docs) share one label, so their paths cannot grow the series. */
const OTHER = 'other';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract's operationId of an /api route (http/routes.ts), the label of its request metrics. */
    operationId?: string;
  }
  interface FastifyRequest {
    /** When this request arrived (performance.now()), NaN when it is not timed (an event stream); see countRequests. */
    metricsStart: number;
    /** Its operationId, or OTHER: read once from the route, for the duration's label. */
    metricsOperation: string;
  }
}

/**
 * Request duration by operation and status class, and requests in flight; an event stream is neither. Runs on every
 * request, so it keeps to plain fields: the request's own (declared once, not a WeakMap entry per request), one read
 * of the route's options (Fastify builds that object on each read) and a count the in-flight gauge reads when scraped.
 */
export function countRequests(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.decorateRequest('metricsStart', Number.NaN);
  fastify.decorateRequest('metricsOperation', OTHER);
  const inFlight = metrics.requestsInFlight;
  fastify.addHook('onRequest', (request, _reply, done) => {
    const operation = request.routeOptions.config.operationId;
    if (operation !== 'events') {
      request.metricsStart = performance.now();
      if (operation !== undefined) request.metricsOperation = operation;
      inFlight.value++;
    }
    done();
  });
  const finish = (request: FastifyRequest, statusCode: number) => {
    const at = request.metricsStart;
    if (Number.isNaN(at)) return;
    request.metricsStart = Number.NaN;
    inFlight.value--;
    metrics.requestSeconds.observe(
      {
        operation: request.metricsOperation,
        status_class: STATUS_CLASSES[Math.floor(statusCode / 100)] ?? `${Math.floor(statusCode / 100)}xx`,
      },
      (performance.now() - at) / 1000,
    );
  };
  fastify.addHook('onResponse', (request, reply, done) => {
    finish(request, reply.statusCode);
    done();
  });
  // A client that went away before its answer: no longer in flight.
  fastify.addHook('onRequestAbort', (request, done) => {
    finish(request, 499);
    done();
  });
}

/** The status class labels, built once rather than as a new string on every answer. */
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

/** GET /metrics on the app's port, for a bearer of METRICS_TOKEN; 404 when no token is set, 401 for a wrong one. */
export function metricsRoute(fastify: FastifyInstance, metrics: Metrics, token: string): void {
  const expected = Buffer.from(token);
  fastify.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    if (token === '') return reply.code(404).send({ code: 40400, message: '不存在', data: null });
    const given = Buffer.from(/^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .send({ code: 40100, message: '需要令牌', data: null });
    return reply.header('content-type', TEXT).send(await metrics.registry.metrics());
  });
}

/** The loopback port of METRICS_PORT: /metrics, nothing else. `text` answers the exposition (one or all workers). */
export function metricsServer(port: number, text: () => Promise<string>): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    text().then(
      (body) => response.writeHead(200, { 'content-type': TEXT, 'cache-control': 'no-store' }).end(body),
      () => response.writeHead(500).end(),
    );
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done(server));
  });
}
