import { sql } from 'kysely';
import type { Db } from './database.js';
import { isPostgres } from './dialect.js';

/**
 * Serialises transactions that check and then write one named thing (a rate-limit bucket, a user's captcha), so
 * concurrent requests cannot all pass the check before any of them writes. Call inside a transaction; the lock ends
 * with it. On PostgreSQL a transaction-scoped advisory lock on the name; on SQLite nothing is needed: every
 * transaction starts with BEGIN IMMEDIATE and so holds the database's single write lock (db/sqlite-driver.ts).
 */
export async function lockName(trx: Db, name: string): Promise<void> {
  if (isPostgres(trx)) {
    await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(trx);
  }
}

/** A query for one row's id that can take a row lock (Kysely's select builder). */
interface LockableIdQuery<Q> {
  forUpdate(): { skipLocked(): Q };
  executeTakeFirst(): Promise<{ id: number } | undefined>;
}

/**
 * The id of the first row `query` finds, locked for this transaction. PostgreSQL locks the row and skips rows other
 * processes hold; SQLite has one writer, so the transaction is enough.
 */
export async function takeFirstLocked<Q extends LockableIdQuery<Q>>(
  query: Q,
  postgres: boolean,
): Promise<number | undefined> {
  return (await (postgres ? query.forUpdate().skipLocked() : query).executeTakeFirst())?.id;
}

/**
 * The first row of a leased queue (runs, batches) that is running with an expired lease: its process died, so another
 * may take it over.
 */
export const lockExpiredLease = (trx: Db, table: 'runs' | 'batches', now: number, postgres: boolean) =>
  takeFirstLocked(
    trx.selectFrom(table).select('id').where('state', '=', 'running').where('leaseExpiresAt', '<=', now).limit(1),
    postgres,
  );
