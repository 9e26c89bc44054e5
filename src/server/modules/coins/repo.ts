import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CoinEntriesTable } from '../../db/types.js';

/**
 * Adds `amount` (signed) to a balance unless that would take it below zero, and answers the new balance. One
 * conditional statement: under concurrency the database, not a read-then-write in JS, decides whether the money is
 * there (PostgreSQL re-checks the condition after waiting for the row lock).
 */
export async function applyToBalance(db: Db, userId: number, amount: number): Promise<number | undefined> {
  const row = await db
    .updateTable('users')
    .set({ coin: sql`coin + ${amount}` })
    .where('id', '=', userId)
    .where(sql<boolean>`coin + ${amount} >= 0`)
    .returning('coin')
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.coin);
}

export type NewEntry = Insertable<CoinEntriesTable>;

export async function insertEntry(db: Db, entry: NewEntry): Promise<void> {
  await db.insertInto('coinEntries').values(entry).execute();
}

export const findIdempotencyKey = (db: Db, actorId: number, key: string) =>
  db.selectFrom('idempotencyKeys').selectAll().where('actorId', '=', actorId).where('key', '=', key).executeTakeFirst();

export async function insertIdempotencyKey(
  db: Db,
  row: { actorId: number; key: string; operation: string; requestHash: string; response: string; createdAt: number },
): Promise<void> {
  await db.insertInto('idempotencyKeys').values(row).execute();
}

/** Claims a key unless it is taken (answers false then); waits for an uncommitted holder of the key to finish. */
export async function claimIdempotencyKey(
  db: Db,
  row: { actorId: number; key: string; operation: string; requestHash: string; response: string; createdAt: number },
): Promise<boolean> {
  const claimed = await db
    .insertInto('idempotencyKeys')
    .values(row)
    .onConflict((oc) => oc.columns(['actorId', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function recordIdempotentResult(db: Db, actorId: number, key: string, response: string): Promise<void> {
  await db
    .updateTable('idempotencyKeys')
    .set({ response })
    .where('actorId', '=', actorId)
    .where('key', '=', key)
    .execute();
}
