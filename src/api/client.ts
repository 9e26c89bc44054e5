import createClient from 'openapi-fetch';
import type { paths } from './generated/schema';
import { displayMessage } from './message-filter';
import { OPERATIONS } from './generated/operations.gen';
import type { OperationId, RequestBody, RequestQuery, ResponseData } from './operations';

/** Codes that mean "sign in again": the session ended (40001) or there never was one (40100). The one list of them. */
const SIGN_IN_AGAIN: ReadonlySet<number> = new Set([40001, 40100]);

export type ApiErrorKind = 'envelope' | 'http' | 'aborted';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly kind: ApiErrorKind,
    readonly details: { status?: number; statusText?: string; body?: unknown; code?: number } = {},
    /** The client has already told the user (a sign-in-again toast): the caller shows nothing more. */
    readonly shown = false,
  ) {
    super(message);
    this.name = 'ApiError';
  }
  /** The session is gone: the client has toasted and gone to /login. */
  get signInAgain(): boolean {
    return this.kind === 'envelope' && SIGN_IN_AGAIN.has(this.details.code ?? 0);
  }
  get code() {
    return this.details.code;
  }
  get status() {
    return this.details.status;
  }
}

/** What the client does to the UI; the web app supplies toasts and navigation, tests supply spies. */
export interface ApiHooks {
  toast(message: string): void;
  redirectToLogin(): void;
  logError(code: number, message: string): void;
}

/**
 * The words for failures that carry no usable server message. The client reports codes and statuses; the web app
 * (its string table) decides what they say.
 */
export interface ApiWords {
  requestAborted: string;
  /** Instead of a server message a user must never see, and for a 2xx that is not an envelope. */
  fetchFailedTryLater: string;
  http: Readonly<Partial<Record<number, string>>>;
  genericFailure(status: number, statusText: string): string;
}

type QueryPart<K extends OperationId> =
  RequestQuery<K> extends undefined ? { query?: never } : { query: RequestQuery<K> };
type BodyPart<K extends OperationId> = RequestBody<K> extends undefined ? { body?: never } : { body: RequestBody<K> };
/** What an operation sends: its query and its body, as the contract types them. */
export type OperationInput<K extends OperationId> = QueryPart<K> & BodyPart<K>;
export type CallInit<K extends OperationId> = OperationInput<K> & {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Leave failures to the caller: no toast (the caller shows them on a form field, say). Redirects still happen. */
  quiet?: boolean;
  /**
   * Only asking (is anyone signed in?): a sign-in-again answer is the answer, so no toast and no redirect to /login.
   * Implies quiet.
   */
  probe?: boolean;
  /**
   * For operations that move coins: one key per user attempt, reused when the same attempt is sent again (a retry
   * after a lost answer then moves nothing twice). Without it the client makes a fresh key for this call.
   */
  idempotencyKey?: string;
};
export type InitArgs<K extends OperationId> = object extends QueryPart<K> & BodyPart<K>
  ? [init?: CallInit<K>]
  : [init: CallInit<K>];

const isEnvelope = (v: unknown): v is { code: number; message: string; data: unknown } =>
  typeof v === 'object' && v !== null && typeof (v as { code?: unknown }).code === 'number';

const isAbort = (e: unknown) => (e as { name?: string } | null)?.name === 'AbortError';

export const newIdempotencyKey = (): string => crypto.randomUUID();

export function createApi(hooks: ApiHooks, words: ApiWords, options: { baseUrl?: string; fetch?: typeof fetch } = {}) {
  const http = createClient<paths>({
    baseUrl: options.baseUrl ?? '',
    credentials: 'include',
    headers: { 'X-Requested-With': 'XMLHttpRequest' },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  function fail(error: ApiError, quiet: boolean | undefined): never {
    if (!quiet) hooks.toast(error.message);
    throw error;
  }

  /** Calls an operation by its operationId and answers the envelope's data, or throws an ApiError after the UI rules. */
  // `[init: CallInit<K>]` lets generic code (a hook over any operation) pass the init it holds; a concrete K is
  // checked by InitArgs, which makes the init optional only where the operation takes no query and no body.
  async function call<K extends OperationId>(
    operationId: K,
    ...args: [init: CallInit<K>] | InitArgs<K>
  ): Promise<ResponseData<K>> {
    const init: Partial<CallInit<K>> = args[0] ?? {};
    const quiet = init.quiet || init.probe;
    const { method, path, idempotent } = OPERATIONS[operationId];
    const headers = idempotent
      ? { ...init.headers, 'Idempotency-Key': init.idempotencyKey ?? newIdempotencyKey() }
      : init.headers;
    let result: { data?: unknown; error?: unknown; response: Response };
    try {
      // The operation map and the typed init above already tie this call to the contract.
      result = await (http.request as (m: string, p: string, i: object) => Promise<typeof result>)(method, path, {
        params: { query: init.query },
        body: init.body,
        signal: init.signal,
        headers,
      });
    } catch (error) {
      if (isAbort(error)) throw new ApiError(words.requestAborted, 'aborted');
      throw error; // network failures are the caller's to handle, as the seed says
    }
    const { response } = result;
    const payload = result.data ?? result.error;
    if (isEnvelope(payload)) {
      if (payload.code === 0) return payload.data as ResponseData<K>;
      const message = displayMessage(payload.message, words.fetchFailedTryLater);
      const details = { status: response.status, code: payload.code, body: payload };
      if (SIGN_IN_AGAIN.has(payload.code) && !init.probe) {
        // Even for a quiet call: the screen is about to go, so the client says why, once, and marks it said.
        hooks.toast(message);
        hooks.redirectToLogin();
        throw new ApiError(message, 'envelope', details, true);
      }
      const error = new ApiError(message, 'envelope', details);
      hooks.logError(payload.code, payload.message);
      return fail(error, quiet);
    }
    const known = words.http[response.status];
    if (known)
      return fail(
        new ApiError(known, 'http', { status: response.status, statusText: response.statusText, body: payload }),
        quiet,
      );
    if (!response.ok) {
      return fail(
        new ApiError(words.genericFailure(response.status, response.statusText), 'http', {
          status: response.status,
          statusText: response.statusText,
          body: payload,
        }),
        quiet,
      );
    }
    // A 2xx that is not an envelope breaks the contract; treat it as a server failure.
    return fail(new ApiError(words.fetchFailedTryLater, 'http', { status: response.status, body: payload }), quiet);
  }

  return { call };
}

export type Api = ReturnType<typeof createApi>;
