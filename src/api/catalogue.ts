import type { Middleware } from 'openapi-fetch';
import { ApiError, SIGN_IN_AGAIN } from './api-error';
import { OPERATIONS } from './generated/operations.gen';
import { displayMessage } from './message-filter';

// The seed's error catalogue as the one openapi-fetch middleware every call goes through: the Idempotency-Key of an
// operation that moves coins, the envelope (code 0 answers its data, any other code fails), sign in again on
// 40001/40100, the HTTP statuses' words, 'Request aborted', and the toasts.

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

/** How one call wants its failures told; passed as an extra fetch option, which openapi-fetch sets on the Request. */
export interface Telling {
  /** Leave failures to the caller: no toast (the caller shows them on a form field, say). Redirects still happen. */
  quiet?: boolean;
  /** Only asking (is anyone signed in?): a sign-in-again answer is the answer, so no toast and no redirect. */
  probe?: boolean;
}
export const TELLING = 'telling';
const tellingOf = (request: Request): Telling => (request as Request & { [TELLING]?: Telling })[TELLING] ?? {};

export type Envelope = { code: number; message: string; data: unknown };
const isEnvelope = (v: unknown): v is Envelope =>
  typeof v === 'object' && v !== null && typeof (v as { code?: unknown }).code === 'number';

const isAbort = (e: unknown) => (e as { name?: string } | null)?.name === 'AbortError';

export const newIdempotencyKey = (): string => crypto.randomUUID();

/** Operations that move coins, by `METHOD /path` as openapi-fetch names a request (method and schema path). */
const IDEMPOTENT = new Set(
  Object.values(OPERATIONS)
    .filter((operation) => operation.idempotent)
    .map(({ method, path }) => `${method.toUpperCase()} ${path}`),
);

/** The body as the server answered it: parsed JSON, the text when it is not JSON (an error page), or nothing. */
async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.headers.get('content-length') === '0') return undefined;
  const text = await response.clone().text();
  // A 2xx must be JSON (a broken one throws, as a network failure does); an error may be a proxy's HTML page.
  if (response.ok) return text ? (JSON.parse(text) as unknown) : undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function catalogue(hooks: ApiHooks, words: ApiWords): Middleware {
  /** Toasts a failure unless the call keeps it to itself, and throws it out of the call. */
  const fail = (error: ApiError, telling: Telling): never => {
    if (!telling.quiet && !telling.probe) hooks.toast(error.message);
    throw error;
  };

  return {
    onRequest({ request, schemaPath }) {
      // One key per call unless the caller holds one for the user's intent (kept across its retries).
      if (IDEMPOTENT.has(`${request.method} ${schemaPath}`) && !request.headers.has('Idempotency-Key'))
        request.headers.set('Idempotency-Key', newIdempotencyKey());
      return request;
    },

    async onResponse({ request, response }) {
      const telling = tellingOf(request);
      const payload = await readBody(response);
      if (isEnvelope(payload)) {
        if (payload.code === 0) return response;
        const message = displayMessage(payload.message, words.fetchFailedTryLater);
        const details = { status: response.status, code: payload.code, body: payload };
        if (SIGN_IN_AGAIN.has(payload.code) && !telling.probe) {
          // Even for a quiet call: the screen is about to go, so the client says why, once, and marks it said.
          hooks.toast(message);
          hooks.redirectToLogin();
          throw new ApiError(message, 'envelope', details, true);
        }
        hooks.logError(payload.code, payload.message);
        return fail(new ApiError(message, 'envelope', details), telling);
      }
      const { status, statusText } = response;
      const known = words.http[status];
      if (known) return fail(new ApiError(known, 'http', { status, statusText, body: payload }), telling);
      if (!response.ok)
        return fail(
          new ApiError(words.genericFailure(status, statusText), 'http', { status, statusText, body: payload }),
          telling,
        );
      // A 2xx that is not an envelope breaks the contract; treat it as a server failure.
      return fail(new ApiError(words.fetchFailedTryLater, 'http', { status, body: payload }), telling);
    },

    onError({ error }) {
      // Network failures are the caller's to handle, as the seed says; a cancelled call has its own word.
      if (isAbort(error)) return new ApiError(words.requestAborted, 'aborted');
      return undefined;
    },
  };
}
