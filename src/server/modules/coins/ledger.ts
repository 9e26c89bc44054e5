import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { CoinEntryKind } from '../../db/types.js';
import { badParams, conflict } from '../../lib/errors.js';
import { sqliteDriverOf } from '../../db/sqlite-driver.js';
import { moveCoinsOnPostgres } from './ledger-postgres.js';
import { moveCoinsOnSqlite } from './ledger-sqlite.js';
import { claimIdempotencyKey, findIdempotencyKey, insertIdempotencyKey, recordIdempotentResult } from './repo.js';

export interface Posting {
  userId: number;
  /** Signed: positive credits the user, negative debits it. */
  amount: number;
  kind: CoinEntryKind;
  counterpartyId?: number | null;
  description: string;
}

export interface Movement {
  postings: Posting[];
  /** Shared by the movement's entries: a transfer's two sides, an order's credit and its rebate. */
  reference: string;
  actorId: number | null;
  now: number;
}

/**
 * The one function that moves coins. It must run inside the caller's transaction (`trx`), so the movement and
 * whatever caused it (an idempotency record, an order's state) commit or roll back together. Each posting changes a
 * balance and appends its ledger entry; a posting that would take a balance below zero fails the whole movement
 * (积分不足), refused before anything is written when the first posting is the one refused, so a caller may carry on
 * in its transaction. Balances are locked in ascending user id, so two movements between the same users cannot
 * deadlock. Answers each user's balance after the movement.
 *
 * There is one implementation per database, shared by every caller, the transfer fast path included:
 * - SQLite: `moveCoinsOnSqlite`, precompiled statements run synchronously on the write connection (which the caller's
 *   transaction holds); a user's transfer runs the same function in its own grouped transaction (ledger-sqlite.ts).
 * - PostgreSQL: the `move_coins` function of migration 0011, one round trip; a user's transfer calls it from
 *   `transfer_coins`, in the same round trip as its idempotency record.
 */
export async function moveCoins(trx: Db, movement: Movement): Promise<Map<number, number>> {
  if (!trx.isTransaction) throw new Error("moveCoins runs inside the caller's transaction");
  const postings = orderedPostings(movement);
  const driver = sqliteDriverOf(trx);
  return driver ? moveCoinsOnSqlite(driver.writer, movement, postings) : moveCoinsOnPostgres(trx, movement, postings);
}

/** The postings in the order balances are locked (ascending user id), each amount a non-zero safe integer. */
export function orderedPostings(movement: Movement): Posting[] {
  for (const posting of movement.postings)
    if (!Number.isSafeInteger(posting.amount) || posting.amount === 0)
      throw new Error(`invalid posting amount ${posting.amount}`);
  return [...movement.postings].sort((a, b) => a.userId - b.userId);
}

export const insufficientCoins = () => badParams('积分不足');

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

export const hashOf = (operation: string, request: unknown) =>
  createHash('sha256')
    .update(`${operation}\n${canonical(request)}`)
    .digest('hex');

export function replay(
  row: { operation: string; requestHash: string; response: string },
  scope: IdempotencyScope,
): unknown {
  if (row.operation !== scope.operation || row.requestHash !== hashOf(scope.operation, scope.request)) {
    throw conflict('这个 Idempotency-Key 已用于另一个请求');
  }
  return JSON.parse(row.response);
}

/**
 * Runs `work` in one transaction together with the record of its result under the caller's key. The key is claimed
 * first: a concurrent retry waits on that row, then finds the first result and answers it, moving nothing (rather
 * than running the work again and, say, failing for want of the coins the first one already moved). A failed attempt
 * records nothing, so it can be retried with the same key.
 */
export async function idempotent<T>(
  app: AppContext,
  scope: IdempotencyScope,
  work: (trx: Db) => Promise<T>,
): Promise<T> {
  const existing = await findIdempotencyKey(app.db, scope.actorId, scope.key);
  if (existing) return replay(existing, scope) as T;
  try {
    return await app.db.transaction().execute(async (trx) => {
      await insertIdempotencyKey(trx, {
        actorId: scope.actorId,
        key: scope.key,
        operation: scope.operation,
        requestHash: hashOf(scope.operation, scope.request),
        response: '',
        createdAt: app.now(),
      });
      const result = await work(trx);
      await recordIdempotentResult(trx, scope.actorId, scope.key, JSON.stringify(result));
      return result;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Another request with this key committed first: its result is the answer.
    const first = await findIdempotencyKey(app.db, scope.actorId, scope.key);
    if (!first) throw error;
    return replay(first, scope) as T;
  }
}

/**
 * The promise of `idempotent`, inside a transaction the caller already holds (a batch task grants many items in its
 * own). The key is claimed with ON CONFLICT DO NOTHING, which waits for a concurrent holder of the key to commit and
 * then finds its result, so no unique violation aborts the caller's transaction. If the caller rolls back, the key
 * goes with it and a retry does the work.
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
    response: '',
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
