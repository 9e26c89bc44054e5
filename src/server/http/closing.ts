import { Server } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { sendUnavailable } from './error-handler.js';

// A graceful stop in the API's own words. Fastify's own answer while it closes (`return503OnClosing`, turned off in
// app.ts) is a bare `{"error":"Service Unavailable",...}` without the envelope, Retry-After or the security headers.
// Instead, from the moment the stop begins:
// - no new connection is accepted (a client is refused at once and tries another process);
// - a request that arrives on a kept-alive connection is answered here, before any other hook or handler runs: the
//   503 envelope with Retry-After and `Connection: close`. Nothing of it was done, so a proxy may send it to another
//   process (docs/deploy.md's `proxy_next_upstream ... http_503`);
// - a request accepted before it finishes normally, its answer saying `Connection: close`, so the client does not
//   send another on that connection and the process need not wait out the keep-alive timeout (72 s) for it.
// http.Server's `close()` destroys the connections idle at that moment, and a request a client was just sending on
// one of them is reset, unanswered (measured: one per busy kept-alive client). So the listener is closed as a plain
// net.Server first, which leaves those connections open: their next request gets the envelope, and only after a
// short wait does Fastify's `server.close()` destroy the ones still idle.

const STOPPING = { message: '服务器正在重启，请稍后重试', retryAfterSeconds: 5 };

/** The most a stop waits for kept-alive connections to close themselves before Node destroys the idle ones. */
const DRAIN_MS = 500;
const DRAIN_POLL_MS = 20;

export interface Closing {
  /** From now on new requests are answered 503 and every answer closes its connection. */
  begin(): void;
  /** Stops accepting connections and waits (at most DRAIN_MS) until none is left, each having had its last answer. */
  drain(): Promise<void>;
}

export function registerClosingAnswers(fastify: FastifyInstance): Closing {
  let closing = false;
  // Callback hooks, not async ones: they run on every request, and an async hook costs a promise each time.
  fastify.addHook('onRequest', (_request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    // Answered here, so `done` is not called: no later hook, no handler.
    sendUnavailable(reply.header('connection', 'close'), STOPPING);
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  const connections = () =>
    new Promise<number>((done) => fastify.server.getConnections((error, count) => done(error ? 0 : count)));
  return {
    begin() {
      closing = true;
    },
    async drain() {
      if (!fastify.server.listening) return;
      Server.prototype.close.call(fastify.server);
      const deadline = Date.now() + DRAIN_MS;
      while (Date.now() < deadline && (await connections()) > 0) await sleep(DRAIN_POLL_MS);
    },
  };
}
