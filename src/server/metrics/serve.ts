import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.js';

// Prometheus' scrape of this process, kept off the public surface: on the app's port only with METRICS_TOKEN as a
// bearer token, or without one on a port of its own bound to loopback (METRICS_PORT). Never under /api (the contract
// is for phones), never cached.

const TEXT = 'text/plain; version=0.0.4; charset=utf-8';
/** Routes without an operationId (static files, the docs) share one label, so their paths cannot grow the series. */
const OTHER = 'other';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract's operationId of an /api route (http/routes.ts), the label of its request metrics. */
    operationId?: string;
  }
}

const started = new WeakMap<FastifyRequest, number>();

/** Request duration by operation and status class, and requests in flight; an event stream is neither. */
export function countRequests(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.operationId !== 'events') {
      started.set(request, performance.now());
      metrics.requestsInFlight.inc();
    }
    done();
  });
  const finish = (request: FastifyRequest, statusCode: number) => {
    const at = started.get(request);
    if (at === undefined) return;
    started.delete(request);
    metrics.requestsInFlight.dec();
    metrics.requestSeconds.observe(
      {
        operation: request.routeOptions.config.operationId ?? OTHER,
        status_class: `${Math.floor(statusCode / 100)}xx`,
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

const sameToken = (given: string, token: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** GET /metrics on the app's port, for a bearer of METRICS_TOKEN; 404 when no token is set, 401 for a wrong one. */
export function metricsRoute(fastify: FastifyInstance, metrics: Metrics, token: string): void {
  fastify.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    if (token === '') return reply.code(404).send({ code: 40400, message: '不存在', data: null });
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!sameToken(given, token))
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
