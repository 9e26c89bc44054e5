import type { components } from './generated/schema';

/** Codes that mean "sign in again": the session ended (40001) or there never was one (40100). The one list of them. */
export const SIGN_IN_AGAIN: ReadonlySet<number> = new Set([40001, 40100]);

export type ApiErrorKind = 'envelope' | 'http' | 'aborted';

/** A call that did not answer data: an envelope with a nonzero code, an HTTP failure, or a cancelled call. */
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
  /** The line-by-line problems an envelope lists (an uploaded CSV's bad lines, every one of them), or none. */
  get problems(): readonly components['schemas']['LineProblem'][] {
    if (this.kind !== 'envelope') return [];
    const listed = (this.details.body as { problems?: unknown } | undefined)?.problems;
    return Array.isArray(listed) ? (listed as components['schemas']['LineProblem'][]) : [];
  }
  get status() {
    return this.details.status;
  }
}
