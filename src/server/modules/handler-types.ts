// The shape every module's handlers take: http/ binds them to routes (routes.ts) and calls them; modules never
// import http/, so what a handler is lives here, beside the handlers.
import type { OperationId, RequestBody, RequestQuery, ResponseData } from '../../api/operations.js';
import type { operations } from '../../api/generated/schema.js';
import type { AppContext } from './context.js';
import type { CsvFile } from '../lib/csv-file.js';
import type { EventStreamAnswer } from '../lib/event-stream.js';
import type { SessionState, SessionUser } from './sessions/service.js';

export interface HandlerContext<K extends OperationId> {
  readonly app: AppContext;
  readonly query: RequestQuery<K>;
  readonly body: RequestBody<K>;
  /** The signed-in caller of an operation closed to visitors (the guard has checked it); 40100 otherwise. */
  readonly actor: SessionUser;
  /** The caller's session on operations open to visitors, looked up only when a handler asks. */
  session(): Promise<SessionState>;
  /** The stored hash of the caller's session ('' for a visitor): a change the user makes keeps this one going. */
  currentSessionHash(): Promise<string>;
  readonly ip: string;
  /** A request header (declared headers are validated by the contract before the handler runs). */
  header(name: string): string | undefined;
  setSessionCookie(token: string): void;
  clearSessionCookie(): void;
  /** The device cookies the browser sent (users/device-cookie.ts), unchecked; only the login operations receive them. */
  deviceCookies(): string[];
  setDeviceCookie(userId: number, value: string): void;
}

type Answers<K extends OperationId, Type extends string> = operations[K]['responses'][200] extends {
  content: Record<Type, unknown>;
}
  ? true
  : false;
export type HandlerResult<K extends OperationId> =
  Answers<K, 'text/csv'> extends true
    ? CsvFile
    : Answers<K, 'text/event-stream'> extends true
      ? EventStreamAnswer
      : ResponseData<K>;

export type Handler<K extends OperationId> = (ctx: HandlerContext<K>) => Promise<HandlerResult<K>>;

/** One handler per operationId in openapi.yaml: a missing or mistyped handler fails the type check. */
export type Handlers = { [K in OperationId]: Handler<K> };
