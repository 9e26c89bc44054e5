import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationId } from '../../api/operations.js';
import type { AppContext } from '../context.js';
import type { SessionState, SessionUser } from '../modules/sessions/service.js';
import { ok } from './envelope.js';
import { sessionFromHeaders } from './guard.js';
import type { HandlerContext, Handlers } from '../modules/handler-types.js';
import type { OperationSpec } from './openapi.js';

/**
 * The reads every page makes (who is signed in, the site record), by their exact URL as the web app asks for them.
 * Only reads open to GET without a body, that change nothing: answering one twice is harmless.
 */
const HOT_URLS: Readonly<Record<string, { operationId: OperationId; query: Record<string, unknown> }>> = {
  '/api/user/get/login': { operationId: 'userGetLogin', query: {} },
  '/api/basicInformation/get?id=1': { operationId: 'basicInformationGet', query: { id: 1 } },
};

/** A request the fast path does not answer itself; thrown anywhere in it, the request goes to Fastify instead. */
class NotHot extends Error {}

/** What the operation's handler sees: the same handler as through Fastify, so the answer has one source. */
class HotContext implements HandlerContext<OperationId> {
  #session: SessionState | undefined;
  readonly body = undefined as never;
  constructor(
    readonly app: AppContext,
    private readonly request: IncomingMessage,
    readonly query: never,
    session: SessionState | undefined,
  ) {
    this.#session = session;
  }

  get actor(): SessionUser {
    if (this.#session?.kind !== 'active') throw new NotHot();
    return this.#session.user;
  }

  async session(): Promise<SessionState> {
    this.#session ??= await sessionFromHeaders(this.app, this.request.headers);
    return this.#session;
  }

  header(name: string): string | undefined {
    const value = this.request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  // Nothing on the fast path needs these; a handler that asks goes the full way.
  get ip(): string {
    throw new NotHot();
  }
  setSessionCookie(): void {
    throw new NotHot();
  }
  clearSessionCookie(): void {
    throw new NotHot();
  }
}

/**
 * A frozen answer cannot change, so its envelope is serialised once (the live site record, kept in memory: see
 * site/live-site-cache.ts); anything else is serialised per request.
 */
const bodies = new WeakMap<object, string>();
function serialised(result: unknown): string {
  if (typeof result !== 'object' || result === null || !Object.isFrozen(result)) return JSON.stringify(ok(result));
  let body = bodies.get(result);
  if (body === undefined) bodies.set(result, (body = JSON.stringify(ok(result))));
  return body;
}

export type HotReads = (request: IncomingMessage, response: ServerResponse, fallback: () => void) => void;

/**
 * A fast path in front of Fastify for the hottest reads (issue 10): the same handler, session lookup and role check,
 * answered with the same envelope and security headers, but without the framework's per-request work (routing,
 * hooks, reply objects), which was a third of the CPU of these small answers. It answers only the plain success:
 * anything else (no or ended session, a role refused, a handler error, a HEAD, a body, another URL or query) goes to
 * Fastify untouched, which answers it the way every other request is answered. Nothing is cached: the session is
 * read from the database on every request, so a logout or ban anywhere ends it at once.
 */
export function hotReads(
  app: AppContext,
  operations: readonly OperationSpec[],
  handlers: Handlers,
  headersFor: (url: string) => Readonly<Record<string, string>>,
): HotReads {
  const routes = new Map(
    Object.entries(HOT_URLS).map(([url, { operationId, query }]) => {
      const op = operations.find((o) => o.operationId === operationId);
      if (!op || op.method !== 'GET' || op.stateChanging || op.csv || `${op.path}?` !== `${url.split('?')[0]}?`)
        throw new Error(`hot read ${url}: not a plain GET of ${operationId}`);
      const handler = handlers[operationId] as unknown as (ctx: HandlerContext<OperationId>) => Promise<unknown>;
      return [url, { op, handler, query: Object.freeze(query) as never, open: op.roles.includes('visitor') }];
    }),
  );

  const answer = async (request: IncomingMessage, response: ServerResponse, url: string): Promise<void> => {
    const route = routes.get(url)!;
    let session: SessionState | undefined;
    if (!route.open) {
      // The guard's rule: a session that is active and of a role the operation names; anything else is Fastify's.
      session = await sessionFromHeaders(app, request.headers);
      if (session.kind !== 'active' || !route.op.roles.includes(session.user.userRole)) throw new NotHot();
    }
    const result = await route.handler(new HotContext(app, request, route.query, session));
    const body = serialised(result);
    const headers = headersFor(url);
    // A flat list: Node writes it without copying, cheaper than an object of headers.
    const list: string[] = ['content-type', 'application/json; charset=utf-8'];
    for (const name in headers) list.push(name, headers[name]!);
    list.push('content-length', String(Buffer.byteLength(body)));
    response.writeHead(200, list);
    response.end(body);
  };

  return (request, response, fallback) => {
    const url = request.url;
    if (
      request.method !== 'GET' ||
      url === undefined ||
      !routes.has(url) ||
      request.headers['content-length'] !== undefined ||
      request.headers['transfer-encoding'] !== undefined
    ) {
      fallback();
      return;
    }
    answer(request, response, url).catch(() => {
      // Nothing was written yet (the answer is written in one go, last): Fastify answers from the start.
      if (!response.headersSent) fallback();
    });
  };
}
