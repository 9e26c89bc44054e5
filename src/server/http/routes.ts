import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OperationId } from '../../api/operations.js';
import type { AppContext } from '../context.js';
import type { SessionState } from '../modules/sessions/service.js';
import { AppError, ErrorCode, ok } from './errors.js';
import { guard } from './guard.js';
import type { HandlerContext, Handlers } from './handler-types.js';
import type { OperationSpec } from './openapi.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    session: SessionState;
  }
}

/** Binds every operation of openapi.yaml to its handler; the route's schemas are the contract's. */
export function registerOperations(fastify: FastifyInstance, operations: OperationSpec[], handlers: Handlers, app: AppContext) {
  fastify.decorateRequest('session', null as never);
  for (const op of operations) {
    const handler = handlers[op.operationId as OperationId] as unknown as (ctx: HandlerContext<OperationId>) => Promise<unknown>;
    if (!handler) throw new Error(`no handler for operation ${op.operationId}`);
    fastify.route({
      method: op.method,
      url: op.path,
      schema: {
        ...(op.querySchema ? { querystring: op.querySchema } : {}),
        ...(op.bodySchema ? { body: op.bodySchema } : {}),
      },
      onRequest: async (request: FastifyRequest) => {
        request.session = await guard(app, op, request);
      },
      handler: async (request, reply) => {
        const session = request.session;
        const viewer = session.kind === 'active' ? session.user : null;
        const ctx: HandlerContext<OperationId> = {
          app,
          query: request.query as never,
          body: request.body as never,
          get actor() {
            if (!viewer) throw new AppError(ErrorCode.NOT_LOGGED_IN, '请先登录');
            return viewer;
          },
          viewer,
          sessionHash: session.kind === 'active' ? session.tokenHash : null,
          ip: request.ip,
          setSessionCookie: (token) => setSessionCookie(reply, token, app.config.cookieSecure),
          clearSessionCookie: () => clearSessionCookie(reply, app.config.cookieSecure),
        };
        return ok(await handler(ctx));
      },
    });
  }
}
