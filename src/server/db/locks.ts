import { PostgresAdapter, sql } from 'kysely';
import type { Db } from './database.js';

/**
 * Serialises transactions that check and then write one named thing (a rate-limit bucket, a user's captcha), so
 * concurrent requests cannot all pass the check before any of them writes. Call inside a transaction; the lock ends
 * with it. On PostgreSQL a transaction-scoped advisory lock on the name; on SQLite nothing is needed: every
 * transaction starts with BEGIN IMMEDIATE and so holds the database's single write lock (db/sqlite-driver.ts).
 */
export async function lockName(trx: Db, name: string): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(trx);
  }
}
