import type { OperationId, RequestBody, RequestQuery, ResponseData } from '../../api/operations.js';
import type { AppContext } from '../context.js';
import type { SessionUser } from '../modules/sessions/service.js';

export interface HandlerContext<K extends OperationId> {
  app: AppContext;
  query: RequestQuery<K>;
  body: RequestBody<K>;
  /** The signed-in caller; reading it on an operation open to visitors throws 40100 when nobody is signed in. */
  readonly actor: SessionUser;
  /** The caller if signed in, for operations open to visitors. */
  viewer: SessionUser | null;
  /** The current session's hash, to end it at logout. */
  sessionHash: string | null;
  ip: string;
  setSessionCookie(token: string): void;
  clearSessionCookie(): void;
}

export type Handler<K extends OperationId> = (ctx: HandlerContext<K>) => Promise<ResponseData<K>>;

/** One handler per operationId in openapi.yaml: a missing or mistyped handler fails the type check. */
export type Handlers = { [K in OperationId]: Handler<K> };
