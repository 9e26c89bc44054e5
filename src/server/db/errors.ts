/** True when a write failed on a unique constraint, in either database (the race-proof duplicate check). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** PostgreSQL states and socket errors that mean the database cannot be reached right now (it may be back soon). */
const CONNECTION_STATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300']);
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused|terminating connection/i;
/**
 * A statement or a lock wait that reached its time limit (statement_timeout 57014, lock_timeout 55P03), or a
 * transaction PostgreSQL ended so that another could go on (deadlock 40P01, serialization failure 40001): each asks
 * for the same request again.
 */
const BUSY_STATES = new Set(['57014', '55P03', '40P01', '40001']);

export interface Unavailable {
  message: string;
  /** A sensible wait before trying again, sent as Retry-After. */
  retryAfterSeconds: number;
}

/**
 * Says whether a failure means "the database cannot answer now" rather than "this request is wrong": such a request
 * answers 503 with Retry-After, and the client may simply try again.
 */
export function databaseUnavailable(error: unknown): Unavailable | undefined {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (
    CONNECTION_STATES.has(code) ||
    SOCKET_ERRORS.has(code) ||
    CONNECTION_MESSAGES.test(typeof e?.message === 'string' ? e.message : '')
  ) {
    return { message: '数据库暂时无法连接，请稍后再试', retryAfterSeconds: 5 };
  }
  if (BUSY_STATES.has(code) || code.startsWith('SQLITE_BUSY')) {
    return { message: '服务器繁忙，请稍后再试', retryAfterSeconds: 2 };
  }
  return undefined;
}
