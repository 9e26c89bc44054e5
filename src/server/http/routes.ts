import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OperationId } from '../../api/operations.js';
import type { AppContext } from '../modules/context.js';
import type { SessionState, SessionUser } from '../modules/sessions/service.js';
import { AppError, ErrorCode } from '../lib/errors.js';
import { ok } from './envelope.js';
import { guard, sessionOf } from './guard.js';
import { csvStream, toCsv } from './csv.js';
import type { CsvFile, CsvRow } from '../lib/csv-file.js';
import type { EventStreamAnswer } from '../lib/event-stream.js';
import type { HandlerContext, Handlers } from '../modules/handler-types.js';
import { recordMalformed } from '../modules/payments/notify.js';
import type { OperationSpec } from './openapi.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';
import { readDeviceCookies, setDeviceCookie } from './device-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    session: SessionState | undefined;
  }
}

/**
 * What a handler sees of its request. A class rather than an object literal with getters: it is built on every
 * request, and the literal form was measurably slower and kept requests alive longer for the garbage collector.
 */
class RequestContext implements HandlerContext<OperationId> {
  constructor(
    readonly app: AppContext,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  get query() {
    return this.request.query as never;
  }

  get body() {
    return this.request.body as never;
  }

  get ip() {
    return this.request.ip;
  }

  header(name: string): string | undefined {
    const value = this.request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  get actor(): SessionUser {
    const session = this.request.session;
    if (session?.kind !== 'active') throw new AppError(ErrorCode.NOT_LOGGED_IN, '请先登录');
    return session.user;
  }

  // A method (call it as ctx.session()): built per request, a closure here would cost every request an allocation.
  async session(): Promise<SessionState> {
    this.request.session ??= await sessionOf(this.app, this.request);
    return this.request.session;
  }

  async currentSessionHash(): Promise<string> {
    const state = await this.session();
    return state.kind === 'active' ? state.tokenHash : '';
  }

  setSessionCookie(token: string) {
    setSessionCookie(this.reply, token, this.app.config.cookieSecure);
  }

  clearSessionCookie() {
    clearSessionCookie(this.reply, this.app.config.cookieSecure);
  }

  deviceCookies() {
    return readDeviceCookies(this.request);
  }

  setDeviceCookie(userId: number, value: string) {
    setDeviceCookie(this.reply, userId, value, this.app.config.cookieSecure);
  }
}

const isChunked = (rows: CsvFile['rows']): rows is AsyncIterable<readonly CsvRow[]> => Symbol.asyncIterator in rows;

/** Binds every operation of openapi.yaml to its handler; the route's schemas are the contract's. */
export function registerOperations(
  fastify: FastifyInstance,
  operations: OperationSpec[],
  handlers: Handlers,
  app: AppContext,
) {
  fastify.decorateRequest('session', undefined);
  for (const op of operations) {
    const handler = handlers[op.operationId as OperationId] as unknown as
      ((ctx: HandlerContext<OperationId>) => Promise<unknown>) | undefined;
    if (!handler) throw new Error(`no handler for operation ${op.operationId}`);
    if (op.gatewayCallback) {
      registerGatewayCallback(fastify, op, handler, app);
      continue;
    }
    fastify.route({
      method: op.method,
      url: op.path,
      config: { operationId: op.operationId },
      ...(op.bodyLimit ? { bodyLimit: op.bodyLimit } : {}),
      schema: {
        ...(op.querySchema ? { querystring: op.querySchema } : {}),
        ...(op.headersSchema ? { headers: op.headersSchema } : {}),
        ...(op.bodySchema ? { body: op.bodySchema } : {}),
      },
      // A read open to visitors has nothing to guard (no forgery check, no session): no hook at all, so it costs
      // nothing per request; its handler asks for the session only if it needs one.
      ...(op.stateChanging || !op.roles.includes('visitor')
        ? {
            onRequest: async (request: FastifyRequest) => {
              request.session = await guard(app, op, request);
            },
          }
        : {}),
      handler: async (request, reply) => {
        const result = await handler(new RequestContext(app, request, reply));
        if (op.eventStream) {
          // no-transform and X-Accel-Buffering: a proxy (nginx) or a compressor must pass each event on at once.
          return reply
            .header('content-type', 'text/event-stream; charset=utf-8')
            .header('cache-control', 'no-store, no-transform')
            .header('x-accel-buffering', 'no')
            .send((result as EventStreamAnswer).stream);
        }
        if (!op.csv) return ok(result);
        const file = result as CsvFile;
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .send(isChunked(file.rows) ? Readable.from(csvStream(file.rows)) : toCsv(file.rows));
      },
    });
  }
}

/**
 * A payment gateway's notification (x-gateway-callback): GET with the parameters in the query, or a form POST, as
 * gateways send both. Form bodies are parsed in this route's own scope only: every other operation takes JSON. It
 * answers plain text, and a request the contract refuses (too many or too long parameters) gets `fail`, not the
 * API's envelope, because a gateway reads nothing else.
 */
function registerGatewayCallback(
  fastify: FastifyInstance,
  op: OperationSpec,
  handler: (ctx: HandlerContext<OperationId>) => Promise<unknown>,
  app: AppContext,
) {
  void fastify.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    // The contract declares the query string and a form; a JSON body is not a notification of this protocol.
    scope.removeContentTypeParser(['application/json', 'text/plain']);
    // A body it cannot read (JSON, another type, too big) is a `fail` like any other refusal, and kept in 回调记录.
    scope.setErrorHandler(async (error, request, reply) => {
      const why = (error as Error).message.slice(0, 200);
      request.log.warn({ operationId: op.operationId, err: why }, 'payment notification refused: unreadable');
      await recordMalformed(app, request.ip, why).catch((err: unknown) => request.log.error({ err }, 'recording'));
      return reply.code(200).type('text/plain; charset=utf-8').send('fail');
    });
    scope.route({
      method: op.method,
      url: op.path,
      config: { operationId: op.operationId },
      ...(op.bodyLimit ? { bodyLimit: op.bodyLimit } : {}),
      attachValidation: true,
      schema: {
        ...(op.querySchema ? { querystring: op.querySchema } : {}),
        ...(op.bodySchema ? { body: op.bodySchema } : {}),
      },
      handler: async (request, reply) => {
        reply.type('text/plain; charset=utf-8');
        if (request.validationError) {
          request.log.warn({ operationId: op.operationId }, 'payment notification refused: malformed parameters');
          await recordMalformed(app, request.ip, request.validationError.message.slice(0, 200));
          return 'fail';
        }
        return await handler(new RequestContext(app, request, reply));
      },
    });
  });
}
