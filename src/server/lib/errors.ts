// The failures a service throws and the user can act on. Below every layer that throws them (modules, jobs, db) and
// above none: http/ maps them to the envelope (http/error-handler.ts).
import type { Schemas } from '../../api/operations.js';

/** The envelope codes of PRODUCT.md, each with the HTTP status that carries it. */
export const ErrorCode = {
  BAD_PARAMS: 40000,
  SESSION_INVALID: 40001,
  NOT_LOGGED_IN: 40100,
  NO_PERMISSION: 40101,
  /** An admin without two-factor sign-in under ADMIN_2FA=required: only enrolment is open to it. */
  ENROL_TWO_FACTOR: 40102,
  FORBIDDEN: 40300,
  NOT_FOUND: 40400,
  CONFLICT: 40900,
  TOO_MANY_REQUESTS: 42900,
  SERVER_ERROR: 50000,
  OPERATION_FAILED: 50001,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

const HTTP_STATUS: Record<ErrorCodeValue, number> = {
  40000: 400,
  40001: 401,
  40100: 401,
  40101: 403,
  40102: 403,
  40300: 403,
  40400: 404,
  40900: 409,
  42900: 429,
  50000: 500,
  50001: 500,
};

/** A failure the user can act on: its message is a short Chinese sentence shown as it is. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
    /** Seconds until a rate-limited call may be retried; sent as Retry-After. */
    readonly retryAfterSeconds?: number,
    /** For developers only (the header or protocol rule at fault); sent as the envelope's `detail`, never shown. */
    readonly detail?: string,
  ) {
    super(message);
    this.status = HTTP_STATUS[code];
  }
}

/**
 * A 40000 about the lines of an uploaded file (a quota CSV): the message says it in one sentence, and the envelope
 * lists every line's problem as `problems` (the contract's LineProblem), so the page can show them as a list.
 */
export class LineProblemsError extends AppError {
  constructor(
    message: string,
    readonly problems: readonly Schemas['LineProblem'][],
  ) {
    super(ErrorCode.BAD_PARAMS, message);
  }
}

export const badParams = (message: string) => new AppError(ErrorCode.BAD_PARAMS, message);
export const notFound = (message: string) => new AppError(ErrorCode.NOT_FOUND, message);
export const conflict = (message: string) => new AppError(ErrorCode.CONFLICT, message);
export const forbidden = (message: string) => new AppError(ErrorCode.FORBIDDEN, message);
export const noPermission = (message = '没有权限执行此操作') => new AppError(ErrorCode.NO_PERMISSION, message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new AppError(ErrorCode.TOO_MANY_REQUESTS, message, retryAfterSeconds);
export const operationFailed = (message: string) => new AppError(ErrorCode.OPERATION_FAILED, message);
