import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { claimIdempotencyKey, findIdempotencyKey, recordIdempotentResult } from './repo.js';

/**
 * THE way an operation that takes an Idempotency-Key runs (transfers, admin add/reduce, orders, redeem, services,
 * quota grants): in one transaction, the key is claimed first, then the work runs, then its result is stored under
 * the key; all three commit or roll back together.
 * - A retry (even a concurrent one) answers the first result and does nothing: the claim is INSERT … ON CONFLICT DO
 *   NOTHING, which waits for a concurrent holder of the key to commit, then finds its result.
 * - The same key with another request (another body, another operation) answers 409 / 40900.
 * - A failed attempt rolls its claim back with it, so the request can be retried under the same key.
 */
export interface IdempotencyScope {
  actorId: number;
  key: string;
  operation: string;
  /** What was asked, so the same key with another request can be told apart (40900). */
  request: unknown;
}

/** JSON with every object's keys sorted: a retry may list the same fields in another order (JSON objects are unordered). */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

const hashOf = (operation: string, request: unknown) =>
  createHash('sha256')
    .update(`${operation}\n${canonical(request)}`)
    .digest('hex');

export const REUSED_KEY = '这次提交与之前的一次重复了，请刷新页面后重新操作';

function replay(row: { operation: string; requestHash: string; response: string }, scope: IdempotencyScope): unknown {
  if (row.operation !== scope.operation || row.requestHash !== hashOf(scope.operation, scope.request)) {
    // The person sees a plain sentence; the developer learns which header the client reused.
    throw new AppError(
      ErrorCode.CONFLICT,
      REUSED_KEY,
      undefined,
      'Idempotency-Key was already used for another request: send a new key for a new request',
    );
  }
  return JSON.parse(row.response);
}

/** Runs `work` once per key, in a transaction of its own (see above). */
export function idempotent<T>(app: AppContext, scope: IdempotencyScope, work: (trx: Db) => Promise<T>): Promise<T> {
  return app.db.transaction().execute((trx) => idempotentIn(trx, scope, app.now(), () => work(trx)));
}

/**
 * The same, inside a transaction the caller already holds (a batch task grants many items in its own). If the caller
 * rolls back, the key goes with it and a retry does the work.
 */
export async function idempotentIn<T>(
  trx: Db,
  scope: IdempotencyScope,
  now: number,
  work: () => Promise<T>,
): Promise<T> {
  const claimed = await claimIdempotencyKey(trx, {
    actorId: scope.actorId,
    key: scope.key,
    operation: scope.operation,
    requestHash: hashOf(scope.operation, scope.request),
    createdAt: now,
  });
  if (!claimed) {
    const first = await findIdempotencyKey(trx, scope.actorId, scope.key);
    if (!first) throw new Error('idempotency key claimed but not found');
    return replay(first, scope) as T;
  }
  const result = await work();
  await recordIdempotentResult(trx, scope.actorId, scope.key, JSON.stringify(result));
  return result;
}

/** Whether the caller has used this key already (a retry), without claiming it: redeem lets a retry past its limit. */
export const isKeyUsed = async (db: Db, actorId: number, key: string): Promise<boolean> =>
  (await findIdempotencyKey(db, actorId, key)) !== undefined;
