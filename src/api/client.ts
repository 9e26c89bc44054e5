import createClient from 'openapi-fetch';
import { catalogue, TELLING, type ApiHooks, type ApiWords, type Envelope, type Telling } from './catalogue';
import type { paths } from './generated/schema';
import { OPERATIONS } from './generated/operations.gen';
import type { OperationId, RequestBody, RequestQuery, ResponseData } from './operations';

export { ApiError, type ApiErrorKind } from './api-error';
export { newIdempotencyKey, type ApiHooks, type ApiWords } from './catalogue';

type QueryPart<K extends OperationId> =
  RequestQuery<K> extends undefined ? { query?: never } : { query: RequestQuery<K> };
type BodyPart<K extends OperationId> = RequestBody<K> extends undefined ? { body?: never } : { body: RequestBody<K> };
/** What an operation sends: its query and its body, as the contract types them. */
export type OperationInput<K extends OperationId> = QueryPart<K> & BodyPart<K>;
/** What a call takes besides the operation's input. */
export interface CallOptions extends Telling {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * For operations that move coins: one key per user attempt, reused when the same attempt is sent again (a retry
   * after a lost answer then moves nothing twice). Without it the client makes a fresh key for this call.
   */
  idempotencyKey?: string;
}
export type CallInit<K extends OperationId> = OperationInput<K> & CallOptions;
export type InitArgs<K extends OperationId> = object extends QueryPart<K> & BodyPart<K>
  ? [init?: CallInit<K>]
  : [init: CallInit<K>];

/** How `call` reaches openapi-fetch: by the operation's method and path, with the options it understands. */
type Request = (
  method: string,
  path: string,
  init: {
    params: { query?: object };
    body?: unknown;
    signal?: AbortSignal;
    headers?: Record<string, string>;
    [TELLING]: Telling;
  },
) => Promise<{ data?: Envelope }>;

/**
 * openapi-fetch over the contract's `paths`, with the error catalogue as its middleware: credentials and the
 * anti-CSRF header on every call. `call(operationId)` is the screens' way in: the operation map names the method
 * and path, and the answer is the envelope's data (failures throw an ApiError after the catalogue told the user).
 */
export function createApi(hooks: ApiHooks, words: ApiWords, options: { baseUrl?: string; fetch?: typeof fetch } = {}) {
  const http = createClient<paths>({
    baseUrl: options.baseUrl ?? '',
    credentials: 'include',
    headers: { 'X-Requested-With': 'XMLHttpRequest' },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  http.use(catalogue(hooks, words));

  // `[init: CallInit<K>]` lets generic code (a hook over any operation) pass the init it holds; a concrete K is
  // checked by InitArgs, which makes the init optional only where the operation takes no query and no body.
  async function call<K extends OperationId>(
    operationId: K,
    ...args: [init: CallInit<K>] | InitArgs<K>
  ): Promise<ResponseData<K>> {
    const { query, body, signal, headers, idempotencyKey, quiet, probe }: Partial<CallInit<K>> = args[0] ?? {};
    const { method, path } = OPERATIONS[operationId];
    // The operation map and the typed init above already tie this call to the contract's `paths`.
    const { data } = await (http.request as Request)(method, path, {
      params: { query },
      body,
      signal,
      headers: idempotencyKey ? { ...headers, 'Idempotency-Key': idempotencyKey } : headers,
      [TELLING]: { quiet, probe },
    });
    // The middleware let only a code-0 envelope through.
    return data!.data as ResponseData<K>;
  }

  return { call };
}

export type Api = ReturnType<typeof createApi>;
