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

/**
 * The query string as openapi-fetch wrote it (the contract's default style): `name=value`, an array as the name
 * repeated, an object as `name[key]=value`; undefined and null left out. Names are the contract's, sent as they are.
 */
function queryString(query: object | undefined): string {
  const parts: string[] = [];
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    // As openapi-fetch did: one level only (the contract has no nested query values).
    if (typeof value === 'object') throw new Error(`query ${name}: nested arrays or objects are not sent`);
    parts.push(`${name}=${encodeURIComponent(value as string | number | boolean)}`);
  };
  for (const [name, value] of Object.entries(query ?? {}) as [string, unknown][]) {
    if (Array.isArray(value)) for (const v of value as unknown[]) add(name, v);
    else if (typeof value === 'object' && value !== null)
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) add(`${name}[${key}]`, v);
    else add(name, value);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The body as the server answered it: parsed JSON, the text when it is not JSON (an error page), or nothing. */
async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.headers.get('content-length') === '0') return undefined;
  const text = await response.text();
  // A 2xx must be JSON (a broken one throws, as a network failure does); an error may be a proxy's HTML page.
  if (response.ok) return text ? (JSON.parse(text) as unknown) : undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function createApi(hooks: ApiHooks, words: ApiWords, options: { baseUrl?: string; fetch?: typeof fetch } = {}) {
  const baseUrl = (options.baseUrl ?? '').replace(/\/$/, '');

  /** One request as the contract describes it: JSON in (FormData as it is), credentials and the anti-CSRF header. */
  async function send(
    method: string,
    path: string,
    init: { query?: object; body?: unknown; signal?: AbortSignal; headers?: Record<string, string> },
  ): Promise<{ payload: unknown; response: Response }> {
    const headers = new Headers({ 'X-Requested-With': 'XMLHttpRequest' });
    let body: BodyInit | undefined;
    if (init.body instanceof FormData) body = init.body;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers.set('Content-Type', 'application/json');
    }
    for (const [name, value] of Object.entries(init.headers ?? {})) headers.set(name, value);
    // Looked up per call, not kept: a test may swap the global fetch or Request after the client exists.
    const request = new Request(`${baseUrl}${path}${queryString(init.query)}`, {
      method: method.toUpperCase(),
      credentials: 'include',
      redirect: 'follow',
      headers,
      body,
      signal: init.signal,
    });
    const response = await (options.fetch ?? fetch)(request);
    return { payload: await readBody(response), response };
  }

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
    let result: { payload: unknown; response: Response };
    try {
      // The operation map and the typed init above already tie this call to the contract.
      result = await send(method, path, { query: init.query, body: init.body, signal: init.signal, headers });
    } catch (error) {
      if (isAbort(error)) throw new ApiError(words.requestAborted, 'aborted');
      throw error; // network failures are the caller's to handle, as the seed says
    }
    const { response, payload } = result;
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
